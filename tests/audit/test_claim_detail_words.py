"""A claim's page says its reason once, in words, with the code the exports and the API
carry beside it marked as a code (not "Contradicted by the span contradicted")."""

from __future__ import annotations

import re

import pytest

from tests.factories import make_source
from tests.verifier.api.conftest import DELTA_TEXT, judged_claim

pytestmark = pytest.mark.django_db


def test_the_reason_reads_once_with_its_code_marked(auditor_client, workspace):
    delta = make_source(workspace, ref="source:marrow_river", text=DELTA_TEXT)
    claim = judged_claim(delta, "Sediment settles where the current slows.")
    html = auditor_client.get(f"/audit/claims/{claim.public_id}/").content.decode()
    head = html[html.index("<h1") :]
    head = head[: head.index("</p>")]
    assert re.search(r"\(code <code>[a-z_:]+</code>\)</small>", head)
    assert not re.search(r"· [^<]+ <code>", head)  # a label run into its code
