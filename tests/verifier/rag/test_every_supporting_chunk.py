"""Seed 003: "For each claim, list every chunk `id` that supports it in `supported_by`."

Only the ``SINGLE_CANDIDATES`` (6) chunks covering a claim best were judged, so a fact
stated by eight chunks listed six of them; and a chunk that says otherwise ("in 1990")
was never read once six agreeing copies ranked before it, so the answer was `faithful`
with five copies of the passage and `contradicted` with six. Pure core, the real
judge."""

from __future__ import annotations

from verifier.rag import audit_answer, parse_chunks
from verifier.rag.audit import SINGLE_CANDIDATES

AUTOMATED = "Tarn Point Light was automated in 1987."
ANSWER = "Tarn Point Light was automated in 1987 [c1]."


def copies(n):
    return [{"id": f"c{i}", "text": AUTOMATED} for i in range(1, n + 1)]


def test_supported_by_names_every_chunk_that_states_the_claim(judge):
    chunks = [
        *copies(SINGLE_CANDIDATES + 2),
        {"id": "d1", "text": "The keepers left when Tarn Point Light was automated in 1987."},
        {"id": "m1", "text": "The keeper's cottage is now a small museum."},
    ]
    result = audit_answer(ANSWER, parse_chunks(chunks), judge=judge)
    (claim,) = result.as_dict()["claims"]
    assert result.verdict == "faithful"
    assert claim["verdict"] == "supported"
    expected = [f"c{i}" for i in range(1, SINGLE_CANDIDATES + 3)] + ["d1"]
    assert claim["supported_by"] == expected  # not padded: m1 does not state it
    assert [e["chunk_id"] for e in claim["evidence"]] == expected


def test_a_disagreeing_chunk_counts_however_many_copies_agree(judge):
    disagree = {"id": "x", "text": "Tarn Point Light was automated in 1990."}
    verdicts = {}
    for n in (SINGLE_CANDIDATES - 1, SINGLE_CANDIDATES + 2):
        result = audit_answer(ANSWER, parse_chunks([*copies(n), disagree]), judge=judge)
        (claim,) = result.claims
        verdicts[n] = (result.verdict, claim.verdict)
        assert "contradicted by x" in claim.note
    assert set(verdicts.values()) == {("unfaithful", "contradicted")}
