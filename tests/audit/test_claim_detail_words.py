"""A claim's page says its state and its reason once each, in words (not "Contradicted ·
Contradicted by the span contradicted"); the reason links to its row of the glossary,
which gives the code the exports and the API carry."""

from __future__ import annotations

import re

import pytest

from tests.factories import make_source
from tests.verifier.api.conftest import DELTA_TEXT, judged_claim
from verifier import vocabulary

pytestmark = pytest.mark.django_db


def _header(html: str) -> str:
    head = html[html.index("<h1") :]
    return head[head.index("</h1>") : head.index("</p>")]


def test_the_header_reads_the_reason_once_in_words(auditor_client, workspace):
    delta = make_source(workspace, ref="source:marrow_river", text=DELTA_TEXT)
    claim = judged_claim(
        delta,
        "Sediment never settles where the current slows.",
        quote="Sediment settles where the current slows.",
        label="contradicted",
    )
    assert (claim.state, claim.state_reason) == ("contradicted", "contradicted")
    html = auditor_client.get(f"/audit/claims/{claim.public_id}/").content.decode()
    head = _header(html)
    words = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", head.split(" · cites")[0])).strip()
    label = vocabulary.term("reason", "contradicted").label
    assert words == f"Contradicted · {label}"
    assert f'href="/glossary/#reason-contradicted" id="state-reason">{label}</a>' in head
    glossary = auditor_client.get("/glossary/").content.decode()
    assert 'id="reason-contradicted"' in glossary


def test_the_latest_model_verdict_gives_its_note_in_words_not_its_code(auditor_client, source):
    """The judge's note read "number_mismatch: 2004 vs 1998 (span 1)" there, while the
    review item and the timeline said it in words."""
    from tests.audit.conftest import QUOTE, judge
    from tests.factories import make_binding, make_claim

    claim = make_claim(source, "Sediment settles where the current slowed in 2004.")
    binding = make_binding(claim, QUOTE)
    judge(
        claim,
        label="contradicted",
        confidence=0.8,
        binding=binding,
        note="number_mismatch: 2004 vs 1998 (span 1)",
    )
    html = auditor_client.get(f"/audit/claims/{claim.public_id}/").content.decode()
    line = re.search(r"<dt>Latest model verdict</dt><dd>(.*?)</dd>", html, re.S)
    assert line is not None
    assert line.group(1) == "Contradicts, confidence 80\u00a0% · The numbers differ: 2004 vs 1998."
    assert "number_mismatch" not in html
