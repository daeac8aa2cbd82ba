"""The RAG audit page tells the truth about what was stored and what each chunk did:
each claim row names the claim it was stored as (matched by its words, not listed in
another order), each evidence chunk says whether it supports or contradicts the claim,
and choosing a claim swaps the inside of a live region that stays in the page."""

from __future__ import annotations

import json
import re

import pytest

from verifier.models import Claim
from verifier.services.rag_audit import rag_audit_run

CHUNKS = "".join(
    json.dumps({"id": i, "text": t}) + "\n"
    for i, t in (
        (
            "c1",
            "Tarn Point Light was first lit on 3 November 1858. Its original lantern burned "
            "colza oil and was visible for about fourteen nautical miles in clear weather.",
        ),
        (
            "c2",
            "In 1894 the oil lantern was replaced by a paraffin vapour burner, which roughly "
            "doubled the light's range. The station was electrified in 1931.",
        ),
        (
            "c3",
            "The light was automated in 1987, and the last resident keeper, Tomas Hale, left "
            "the point that spring.",
        ),
    )
)
ANSWER = (
    "Tarn Point Light was first lit on 3 November 1858 [c1]. "
    "Its lantern was visible for about forty nautical miles [c1]. "
    "The station was never electrified [c2]. "
    "Tomas Hale was the last resident keeper [c3]. "
    "The keeper's cottage is a museum [c9]."
)


def _rows(html: str) -> list[str]:
    table = html[html.index('<caption class="visually-hidden">Claims of the answer') :]
    table = table[: table.index("</table>")]
    return re.findall(r"<tr><td>.*?</tr>", table, re.S)


@pytest.mark.django_db
def test_each_claim_row_names_the_claim_it_was_stored_as(auditor_client, workspace):
    write = rag_audit_run(workspace=workspace, answer=ANSWER, chunks=CHUNKS)
    html = auditor_client.get(f"/audit/rag/{write.audit.pk}/").content.decode()
    rows = _rows(html)
    claims = write.audit.result["claims"]
    assert len(rows) == len(claims) == 5
    for row, item in zip(rows, claims, strict=True):
        public_id = re.search(r'href="/audit/claims/(claim:[a-z0-9]+)/"', row).group(1)
        stored = Claim.objects.get(public_id=public_id)
        assert stored.original_text == item["span"], (row, item["span"])
        assert stored.get_state_display() in row or stored.state.capitalize() in row


@pytest.mark.django_db
def test_each_evidence_chunk_says_what_it_did(auditor_client, workspace):
    write = rag_audit_run(workspace=workspace, answer=ANSWER, chunks=CHUNKS)
    claims = write.audit.result["claims"]
    verdicts = [c["verdict"] for c in claims]
    assert verdicts[0] == "supported" and verdicts[1] == "contradicted"
    url = f"/audit/rag/{write.audit.pk}/claims/"
    supported = auditor_client.get(url + "0/", headers={"HX-Request": "true"}).content.decode()
    assert "Chunk c1: supports the claim" in supported
    contradicted = auditor_client.get(url + "1/", headers={"HX-Request": "true"}).content
    body = contradicted.decode()
    assert "Chunk c1: contradicts the claim" in body and "supports the claim" not in body
    missing = auditor_client.get(url + "4/", headers={"HX-Request": "true"}).content.decode()
    assert "supports the claim" not in missing


@pytest.mark.django_db
def test_choosing_a_claim_swaps_inside_a_live_region_that_stays(auditor_client, workspace):
    write = rag_audit_run(workspace=workspace, answer=ANSWER, chunks=CHUNKS)
    html = auditor_client.get(f"/audit/rag/{write.audit.pk}/").content.decode()
    assert html.count('<section id="rag-claim" aria-live="polite">') == 1
    assert 'hx-swap="outerHTML"' not in html
    assert 'hx-target="#rag-claim" hx-swap="innerHTML"' in html
    partial = auditor_client.get(
        f"/audit/rag/{write.audit.pk}/claims/1/", headers={"HX-Request": "true"}
    ).content.decode()
    assert 'id="rag-claim"' not in partial and "Claim 2:" in partial


@pytest.mark.django_db
def test_an_answer_without_claims_says_nothing_was_checked(auditor_client, workspace):
    write = rag_audit_run(workspace=workspace, answer="[c1]", chunks=CHUNKS)
    assert write.audit.result["claims"] == [] and write.audit.verdict == "faithful"
    html = auditor_client.get(f"/audit/rag/{write.audit.pk}/").content.decode()
    assert 'id="rag-no-claims"' in html and "Nothing was checked" in html
    assert "The answer states no claim." in html
    assert "Faithful" in html  # the verdict the API gives is still shown, explained
