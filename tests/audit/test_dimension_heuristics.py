"""The offline dimension heuristics used by rule-set impact previews."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from verifier.scoring.dimension_heuristics import dimension_scores
from verifier.scoring.rulesets import CORE_V1, DIMENSIONS, classify

QUOTE = "Sediment settles where the current slows."


def test_grounded_entailed_claim_scores_high_and_is_supported():
    scores = dimension_scores(
        claim_text=QUOTE, span_text=QUOTE, verdict_label="entailed", verdict_confidence=0.9
    )
    assert set(scores) == set(DIMENSIONS)
    assert scores["evidence_grounding"] == 1.0
    assert classify(CORE_V1, scores) == "supported"


def test_no_span_means_no_grounding_and_unsupported():
    scores = dimension_scores(
        claim_text=QUOTE, span_text=None, verdict_label=None, verdict_confidence=None
    )
    assert scores["evidence_grounding"] == 0.0
    assert classify(CORE_V1, scores) == "unsupported"


def test_overgeneralisation_and_dropped_hedge_lower_scope():
    scores = dimension_scores(
        claim_text="Sediment always settles where the current slows.",
        span_text="Sediment may settle where the current slows.",
        verdict_label="entailed",
        verdict_confidence=0.8,
    )
    assert scores["scope_calibration"] < 1.0


def test_negation_mismatch_lowers_consistency():
    scores = dimension_scores(
        claim_text="Sediment does not settle where the current slows.",
        span_text=QUOTE,
        verdict_label="contradicted",
        verdict_confidence=0.9,
    )
    assert scores["internal_consistency"] <= 0.2
    assert scores["logical_structure"] < 0.1


def test_new_details_lower_assumption_transparency():
    scores = dimension_scores(
        claim_text="In 1990 sediment settled near Cairo where the current slows.",
        span_text=QUOTE,
        verdict_label="entailed",
        verdict_confidence=0.9,
    )
    assert scores["assumption_transparency"] < 0.5


@given(
    st.text(max_size=80),
    st.one_of(st.none(), st.text(max_size=80)),
    st.sampled_from([None, "entailed", "contradicted", "abstained", "coverage_gap"]),
    st.one_of(st.none(), st.floats(min_value=0, max_value=1)),
)
def test_scores_are_always_in_unit_range_and_deterministic(claim, span, label, confidence):
    kwargs = dict(
        claim_text=claim, span_text=span, verdict_label=label, verdict_confidence=confidence
    )
    scores = dimension_scores(**kwargs)
    assert list(scores) == list(DIMENSIONS)
    assert all(0.0 <= v <= 1.0 for v in scores.values())
    assert scores == dimension_scores(**kwargs)
    classify(CORE_V1, scores)  # never raises
