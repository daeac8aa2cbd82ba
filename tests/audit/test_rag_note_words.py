"""A RAG audit's claim note on the console is in words: the judge's code it quotes
("number_mismatch: 412 metres vs 300 metres") reads as the review console words it,
while the stored note the API returns keeps the code."""

from __future__ import annotations

import json

import pytest

from review.verdict_words import rag_note_in_words
from verifier.services.rag_audit import rag_audit_run

ANSWER = "The harbour wall was rebuilt in 1998. It is 412 metres long."
CHUNKS = "".join(
    json.dumps({"id": i, "text": t}) + "\n"
    for i, t in (
        ("c1", "The harbour wall was rebuilt in 1998 after the storm."),
        ("c2", "The wall is 300 metres long."),
    )
)


@pytest.mark.django_db
def test_a_contradicted_claims_note_reads_in_words_on_the_page_and_its_claim(
    auditor_client, workspace
):
    write = rag_audit_run(workspace=workspace, answer=ANSWER, chunks=CHUNKS)
    claims = write.audit.result["claims"]
    assert claims[1]["verdict"] == "contradicted"
    assert "number_mismatch" in claims[1]["note"]  # the stored (API) note keeps its code
    words = "contradicted by c2: The numbers differ: 412 metres vs 300 metres."
    page = auditor_client.get(f"/audit/rag/{write.audit.pk}/").content.decode()
    claim = auditor_client.get(
        f"/audit/rag/{write.audit.pk}/claims/1/", headers={"HX-Request": "true"}
    ).content.decode()
    for html in (page, claim):
        assert words in html
        assert "number_mismatch" not in html


def test_only_the_parts_quoting_a_judges_code_are_worded():
    assert rag_note_in_words("judge: low_coverage: 0.40 (missing: delta)") == (
        "judge: The span covers too few of the claim's words (0.40 (missing: delta))."
    )
    kept = "no chunk backs it (closest: c1); cites c9, which is not among the chunks"
    assert rag_note_in_words(kept) == kept
    assert rag_note_in_words("contradicted by c1: entity substitution: claim says 'a'") == (
        "contradicted by c1: entity substitution: claim says 'a'"
    )
    assert rag_note_in_words(None) == ""
