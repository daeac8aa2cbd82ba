"""The seed's two examples and the hand-written cases in cases.json, end to end (pure)."""

from __future__ import annotations

import pytest

from tests.verifier.rag.conftest import load_cases
from verifier.rag import audit_answer, parse_chunks

CASES = load_cases()
# the seed's keys, and ``unknown_citations`` (ids the answer cites that no chunk has)
SEED_KEYS = {"claims", "unsupported", "unknown_citations", "verdict", "suggested_fix"}
CLAIM_KEYS = {"span", "supported_by", "verdict", "note", "evidence"}


def test_fixture_covers_the_required_kinds():
    tags = {t for case in CASES for t in case["tags"]}
    assert len([c for c in CASES if "seed" not in c["tags"]]) >= 30
    assert {"partial", "contradicted", "mis-cited", "multi-chunk", "citation-free"} <= tags


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_case(case, judge):
    result = audit_answer(case["answer"], parse_chunks(case["chunks"]), judge=judge).as_dict()
    expected = case["expected"]
    got = [(c["span"], c["verdict"], c["supported_by"]) for c in result["claims"]]
    want = [(c["span"], c["verdict"], c["supported_by"]) for c in expected["claims"]]
    assert got == want
    assert result["verdict"] == expected["verdict"]
    for claim, exp in zip(result["claims"], expected["claims"], strict=True):
        assert exp.get("note_contains", "") in claim.get("note", "")
    assert result["unsupported"] == [span for span, verdict, _ in want if verdict != "supported"]
    assert set(result) <= SEED_KEYS
    assert result["unknown_citations"] == expected.get("unknown_citations", [])
    assert ("suggested_fix" in result) == (result["verdict"] != "faithful")
    for claim in result["claims"]:
        assert set(claim) <= CLAIM_KEYS
        assert claim["span"] in case["answer"]
        assert "[" not in claim["span"]


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_evidence_is_checkable(case, judge):
    chunks = {c.id: c.text for c in parse_chunks(case["chunks"])}
    result = audit_answer(case["answer"], parse_chunks(case["chunks"]), judge=judge).as_dict()
    for claim in result["claims"]:
        for ev in claim["evidence"]:
            assert chunks[ev["chunk_id"]][ev["start"] : ev["end"]] == ev["quote"]
        if claim["verdict"] == "supported":
            assert [e["chunk_id"] for e in claim["evidence"]] == claim["supported_by"]


def test_seed_adversarial_flags_both_sentences_and_pads_nothing(judge):
    case = next(c for c in CASES if c["id"] == "seed-adversarial")
    result = audit_answer(case["answer"], parse_chunks(case["chunks"]), judge=judge)
    assert result.verdict == "unfaithful"
    assert all(c.supported_by == () for c in result.claims)
    assert {c.claim.sentence for c in result.claims} == {0, 1}
    notes = " ".join(c.note for c in result.claims)
    assert "'always'" in notes and "'every'" in notes
    assert result.suggested_fix


def test_seed_happy_path_each_chunk_supports_its_own_sentence(judge):
    case = next(c for c in CASES if c["id"] == "seed-happy-path")
    result = audit_answer(case["answer"], parse_chunks(case["chunks"]), judge=judge)
    assert result.verdict == "faithful"
    assert [c.supported_by for c in result.claims] == [("c3",), ("c1",), ("c2",)]
    assert result.unsupported == [] and result.suggested_fix is None


def test_suggested_fix_softens_an_over_claim(judge):
    case = next(c for c in CASES if c["id"] == "partial-overclaim-all")
    result = audit_answer(case["answer"], parse_chunks(case["chunks"]), judge=judge)
    assert result.suggested_fix.startswith("Many patients in the cohort recovered")
    assert "[r1]" in result.suggested_fix


def test_suggested_fix_reattributes_and_drops(judge):
    case = next(c for c in CASES if c["id"] == "miscited-unsupported-elsewhere")
    result = audit_answer(case["answer"], parse_chunks(case["chunks"]), judge=judge)
    assert result.suggested_fix == "Java was released by Sun Microsystems in 1995 [p3]."
