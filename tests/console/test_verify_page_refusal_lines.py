"""The "Verify claims" page names a refused batch's problems by line, as its other form
errors do ("Line 3: …"); the API keeps numbering them as its ``claims`` array
(``claims[0]: …``, tests/verifier/api/test_claims_verify.py)."""

from __future__ import annotations

import json

import pytest

from tests.factories import make_source
from verifier.extractors.base import MAX_CLAIM_CHARS
from verifier.models import Claim, VerificationJob

pytestmark = pytest.mark.django_db


@pytest.fixture
def harbour(workspace):
    return make_source(workspace, ref="source:harbour", text="The harbour wall is 412 m long.")


def _form_error(html: str) -> str:
    start = html.index('class="errorlist nonfield"')
    return html[start : html.index("</ul>", start)]


def test_an_over_long_claim_is_named_by_its_line_not_its_api_index(reviewer_client, harbour):
    """Walk finding: "No claim could be verified — claims[0]: …" on a page whose other
    errors say "Line N"."""
    long_claim = json.dumps({"text": "x" * (MAX_CLAIM_CHARS + 1), "source": "source:harbour"})
    response = reviewer_client.post("/verify/", {"claims": long_claim + "\n"})
    assert response.status_code == 200
    error = _form_error(response.content.decode())
    assert "claims[" not in error
    assert f"Line 1: The claim text has {MAX_CLAIM_CHARS + 1} characters" in error
    assert not Claim.objects.exists() and not VerificationJob.objects.exists()


def test_jsonl_lines_count_the_blank_ones_they_skip(reviewer_client, harbour):
    body = (
        "\n"
        '{"text": "Anything.", "source": "source:nowhere"}\n'
        "\n"
        '{"text": "   ", "source": "source:harbour"}\n'
    )
    error = _form_error(reviewer_client.post("/verify/", {"claims": body}).content.decode())
    assert "Line 2: No source with the ref &#x27;source:nowhere&#x27;" in error
    assert "Line 4: The claim text is empty." in error
    assert "claims[" not in error


def test_csv_lines_count_the_header_and_a_quoted_line_break(reviewer_client, harbour):
    body = 'text,source\n"Two\nlines.",source:nowhere\n,\n"   ",source:harbour\n'
    error = _form_error(reviewer_client.post("/verify/", {"claims": body}).content.decode())
    # a row is named by its last physical line, as the reader's own errors name it
    assert "Line 3: No source with the ref &#x27;source:nowhere&#x27;" in error
    assert "Line 5: The claim text is empty." in error
    assert not VerificationJob.objects.exists()
