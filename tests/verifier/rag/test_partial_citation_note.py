"""A `partial` claim's note never says both that its cited chunk partly backs it and that
the same chunk "does not back it" (it read "partly backed by c1; not backed: 'coast',
'guard'; the cited c1 does not back it"). A cited chunk that backs none of it is still
named. Pure core, the real judge."""

from __future__ import annotations

from verifier.rag import audit_answer, parse_chunks

CHUNKS = parse_chunks(
    [
        {"id": "c1", "text": "Tarn Point Light was automated in 1987."},
        {"id": "c2", "text": "The keeper's cottage is now a small museum."},
    ]
)


def test_the_cited_chunk_that_partly_backs_a_claim_is_not_said_not_to_back_it(judge):
    answer = "Tarn Point Light was automated in 1987 by the coast guard [c1]."
    (claim,) = audit_answer(answer, CHUNKS, judge=judge).claims
    assert claim.verdict == "partial"
    assert claim.note.startswith("partly backed by c1")
    assert "does not back it" not in claim.note


def test_another_cited_chunk_that_backs_none_of_it_is_still_named(judge):
    answer = "Tarn Point Light was automated in 1987 by the coast guard [c1, c2]."
    (claim,) = audit_answer(answer, CHUNKS, judge=judge).claims
    assert claim.verdict == "partial"
    assert "partly backed by c1" in claim.note
    assert "the cited c2 does not back it" in claim.note
    assert "c1, c2 does not back" not in claim.note
