"""The one vocabulary (issue 40.1): every code a person reads has a label and a line."""

from __future__ import annotations

import pytest

from verifier import vocabulary
from verifier.claim_worker.config import STATUS_WEIGHTS
from verifier.claim_worker.verdict import VERDICTS as WORKER_VERDICTS
from verifier.memory.metrics import OUTCOMES as MEMORY_OUTCOMES
from verifier.models import DecisionLevel, MatchKind, RelationVerification, VerdictLabel
from verifier.states import ClaimState, StateReason

CODED = [
    ("state", [s.value for s in ClaimState]),
    ("reason", [r.value for r in StateReason]),
    ("verdict", [v.value for v in VerdictLabel]),
    ("match", [m.value for m in MatchKind]),
    ("level", list(DecisionLevel.values)),
    ("outcome", [*MEMORY_OUTCOMES, *RelationVerification.values]),
    ("outcome", ["supported", "partial", "unsupported"]),  # RAG answer verdicts
    ("worker_verdict", list(WORKER_VERDICTS)),  # the claim worker's verdicts
    ("segment", list(STATUS_WEIGHTS)),  # the claim worker's subclaim statuses
]


@pytest.mark.parametrize(("kind", "codes"), CODED)
def test_every_code_has_a_label_and_an_explanation(kind, codes):
    for code in codes:
        found = vocabulary.KINDS[kind].get(code)
        assert found is not None, f"{kind} {code!r} has no entry in verifier/vocabulary.py"
        assert found.label and "_" not in found.label, (kind, code)
        assert found.explanation.endswith("."), (kind, code)


def test_labels_do_not_repeat_within_a_kind():
    for kind, terms in vocabulary.KINDS.items():
        labels = [t.label for t in terms.values()]
        # A state and a reason may share a word; within one kind each label is one code.
        if kind != "outcome":
            assert len(labels) == len(set(labels)), kind


def test_internal_words_never_reach_a_label():
    words = ("SR-MKG", "VoG", "entailed", "legacy_", "human_", "_")
    for terms in vocabulary.KINDS.values():
        for t in terms.values():
            assert not any(w in t.label for w in words), t


def test_confidence_is_one_format_and_no_answer_has_none():
    assert vocabulary.confidence_percent(0.84) == "84\u00a0%"
    assert vocabulary.confidence_percent(0.875) == "88\u00a0%"
    assert vocabulary.confidence_percent(None) == "–"
    assert vocabulary.verdict_confidence("abstained", 1.0) is None
    assert vocabulary.verdict_confidence("coverage_gap", 0.0) is None
    assert vocabulary.verdict_confidence("entailed", 0.9) == 0.9


def test_an_unknown_code_reads_as_itself():
    assert vocabulary.label("reason", "brand_new_reason") == "Brand new reason"
    assert vocabulary.explanation("reason", "brand_new_reason") == ""


def test_a_reviewer_decision_has_no_confidence():
    assert vocabulary.verdict_confidence("entailed", 1.0, by_person=True) is None
    assert vocabulary.verdict_confidence("contradicted", 0.9, by_person=False) == 0.9


def test_a_code_is_found_by_its_code_or_its_label():
    assert vocabulary.code_of("reason", "Judge undecided") == "abstained"
    assert vocabulary.code_of("reason", "  contradicted BY the span ") == "contradicted"
    assert vocabulary.code_of("reason", "no_evidence") == "no_evidence"
    assert vocabulary.code_of("reason", "bogus") is None


def test_every_recheck_status_has_words():
    from typing import get_args

    from verifier.binding.spans import RecheckStatus

    for status in get_args(RecheckStatus):
        assert vocabulary.KINDS["recheck"].get(status) is not None, status
    assert "newer version" in vocabulary.label("recheck", "hash_mismatch")


def test_inferred_is_worded_for_every_way_a_claim_gets_there():
    """The judge, a reviewer (entailed with no span close enough) or an earlier system
    (legacy affirmed, no verdict at all): auditor walk L5."""
    text = vocabulary.explanation("state", "inferred")
    assert "reviewer" in text and "earlier system" in text
    assert not text.startswith("The judge found")


def test_counts_are_written_as_a_person_writes_them():
    """Console messages said "1 claim(s)"; a count now agrees with its noun."""
    from verifier.vocabulary import counted

    assert counted(1, "claim") == "1 claim"
    assert counted(0, "claim") == "0 claims"
    assert counted(1200, "relation") == "1,200 relations"
    assert counted(2, "failed item") == "2 failed items"
