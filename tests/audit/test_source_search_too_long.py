"""The source list refuses a search longer than the claim searches allow (as typed, or
as compared once folded), next to its field, and lists nothing: never a search cut short
to its first 200 characters and run as one nobody typed."""

from __future__ import annotations

import pytest

from tests.factories import make_source
from verifier.selectors.text_search import SEARCH_MAX_CHARS
from verifier.services.sources import source_upsert

pytestmark = pytest.mark.django_db

TYPED_TOO_LONG = "a" * (SEARCH_MAX_CHARS + 1)
FOLDS_TOO_LONG = "\ufdfa" * 12  # 12 typed, 216 compared


@pytest.fixture
def long_titled(workspace):
    """A source whose title holds the first 200 characters of each long query."""
    make_source(workspace, ref="source:plain")
    return source_upsert(
        workspace=workspace, ref="source:long_title", text="Some text.", title="a" * 250
    ).source


@pytest.mark.parametrize("query", [TYPED_TOO_LONG, FOLDS_TOO_LONG])
def test_a_too_long_search_is_refused_beside_its_field(auditor_client, long_titled, query):
    answer = auditor_client.get("/audit/sources/", {"q": query})
    assert answer.status_code == 200  # a GET list, as the claim list answers a bad q
    html = answer.content.decode()
    assert 'aria-invalid="true" aria-describedby="source-q-error"' in html
    assert 'id="source-q-error"' in html and f"at most {SEARCH_MAX_CHARS}" in html
    assert "source:long_title" not in html and "source:plain" not in html
    assert "No sources are listed until the search is fixed" in html


def test_a_search_of_the_limit_still_lists(auditor_client, long_titled):
    html = auditor_client.get("/audit/sources/", {"q": "a" * SEARCH_MAX_CHARS}).content.decode()
    assert "source:long_title" in html and "aria-invalid" not in html
