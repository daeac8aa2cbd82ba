"""Hybrid ranking, table-tested against hand-computed scores (seed 001 weights:
sem .31, kg .12, entity .20, claim overlap .15, recency .05, credibility .17)."""

from __future__ import annotations

import pytest

from verifier.claim_worker.ranking import (
    Candidate,
    hybrid_rank,
    min_max,
    recency_boost,
    score_candidate,
)
from verifier.claim_worker.text import claim_features

MARROW = "marrow delta gains land"  # no entities: anchors empty, subject "marrow"
HALDEN = "The river meets Halden Point at dusk"  # entity "halden point"
LIGHTHOUSE = "Halden Point lighthouse was built in 1871"  # subject halden point, object 1871

CASES = [
    # id, claim, candidate kwargs, sem_norm, kg_norm, expected score, expected adjustments
    (
        "base",
        MARROW,
        {"text": "marrow delta gains land"},
        1.0,
        0.0,
        0.31 + 0.15 + 0.05 * 0.5 + 0.17 * 0.5,
        (),
    ),
    (
        "recency_today",
        MARROW,
        {"text": "marrow delta gains land", "days_since_publish": 0},
        1.0,
        0.0,
        0.31 + 0.15 + 0.05 * 1.0 + 0.085,
        (),
    ),
    (
        "boost_kg_overlap",
        MARROW,
        {"text": "marrow delta gains land", "kg_raw": 0.5},
        1.0,
        0.0,
        0.57 + 0.05 * 0.5,
        ("boost_kg_overlap",),
    ),
    (
        "boost_entity_kg",
        HALDEN,
        {"text": "the river meets halden point at dusk", "kg_raw": 0.5},
        0.0,
        1.0,
        0.12 + 0.20 + 0.15 + 0.025 + 0.085 + 0.025 + 0.10,
        ("boost_kg_overlap", "boost_entity_kg"),
    ),
    (
        "boost_kg_anchor",
        HALDEN,
        {"text": "the river meets halden point at dusk", "kg_raw": 0.5, "is_kg": True},
        0.0,
        1.0,
        0.58 + 0.025 + 0.10 + 0.08,
        ("boost_kg_overlap", "boost_entity_kg", "boost_kg_anchor"),
    ),
    (
        "anchor_weak_other_and_subject_mismatch",
        HALDEN,
        {"text": "the river meets the sea at dusk"},
        1.0,
        0.0,
        (0.31 + 0.15 * 0.6 + 0.025 + 0.085) * 0.70 * 0.60,
        ("anchor_weak", "subject_mismatch"),
    ),
    (
        "anchor_weak_kg",
        HALDEN,
        {"text": "the river meets the sea at dusk", "kg_raw": 0.5, "is_kg": True},
        1.0,
        1.0,
        (0.31 + 0.12 + 0.09 + 0.025 + 0.085 + 0.025) * 0.30 * 0.60,
        ("boost_kg_overlap", "anchor_weak", "subject_mismatch"),
    ),
    (
        "backfill_weak",
        MARROW,
        {"text": "marrow water flows", "backfill": True},
        1.0,
        0.0,
        (0.31 + 0.15 * 0.25 + 0.025 + 0.085) * 0.85,
        ("backfill_weak",),
    ),
    (
        "object_mismatch",
        LIGHTHOUSE,
        {"text": "halden point lighthouse was built in 1902"},
        1.0,
        0.0,
        (0.31 + 0.20 + 0.15 * 0.8 + 0.025 + 0.085) * 0.55,
        ("object_mismatch",),
    ),
    (
        "focus_mismatch",
        LIGHTHOUSE,
        {"text": "halden point 1871"},
        1.0,
        0.0,
        (0.31 + 0.20 + 0.15 * 0.6 + 0.025 + 0.085) * 0.75,
        ("focus_mismatch",),
    ),
    (
        "subject_mismatch",
        LIGHTHOUSE,
        {"text": "the lighthouse was built in 1871"},
        1.0,
        0.0,
        (0.31 + 0.15 * 0.6 + 0.025 + 0.085) * 0.60,
        ("subject_mismatch",),
    ),
    (
        "relation_object_mismatch",
        LIGHTHOUSE,
        {
            "text": "halden point lighthouse was built in 1871",
            "is_kg": True,
            "kg_raw": 0.3,
            "relation_object": "Lisbon Harbour",
        },
        1.0,
        0.0,
        (0.31 + 0.20 + 0.15 + 0.025 + 0.085 + 0.05 * 0.3) * 0.70,
        ("boost_kg_overlap", "relation_object_mismatch"),
    ),
    (
        "reporting_style",
        MARROW,
        {"text": "officials said marrow delta gains land"},
        1.0,
        0.0,
        0.57 * 0.65,
        ("reporting_style",),
    ),
    (
        "reporting_style_not_for_belief_claims",
        "officials said marrow delta gains land",
        {"text": "officials said marrow delta gains land"},
        1.0,
        0.0,
        0.57,
        (),
    ),
    (
        "uncertainty",
        MARROW,
        {"text": "marrow delta possibly gains land"},
        1.0,
        0.0,
        0.57 - 0.12,
        ("uncertainty",),
    ),
    (
        "uncertainty_not_for_uncertain_claims",
        "marrow delta possibly gains land",
        {"text": "marrow delta possibly gains land"},
        1.0,
        0.0,
        0.57,
        (),
    ),
    (
        "floor",
        MARROW,
        {"text": "unrelated words here", "credibility": 0.95},
        0.0,
        0.0,
        0.2,
        ("floor",),
    ),
    (
        "no_floor_below_credibility",
        MARROW,
        {"text": "unrelated words here", "credibility": 0.85},
        0.0,
        0.0,
        0.025 + 0.17 * 0.85,
        (),
    ),
    (
        "clamp_high",
        HALDEN,
        {
            "text": "the river meets halden point at dusk",
            "kg_raw": 0.5,
            "is_kg": True,
            "credibility": 1.0,
            "days_since_publish": 0,
        },
        1.0,
        1.0,
        1.0,
        ("boost_kg_overlap", "boost_entity_kg", "boost_kg_anchor"),
    ),
    (
        "clamp_low",
        MARROW,
        {"text": "possibly unrelated", "credibility": 0.0},
        0.0,
        0.0,
        0.0,
        ("uncertainty",),
    ),
]


@pytest.mark.parametrize(
    "claim,candidate,sem_norm,kg_norm,expected,adjustments",
    [case[1:] for case in CASES],
    ids=[case[0] for case in CASES],
)
def test_score_candidate(claim, candidate, sem_norm, kg_norm, expected, adjustments):
    ranked = score_candidate(
        claim_features(claim), Candidate(key="k", **candidate), sem_norm=sem_norm, kg_norm=kg_norm
    )
    assert ranked.score == pytest.approx(expected, abs=1e-9)
    assert ranked.adjustments == adjustments


def test_recency_half_life_is_365_days():
    assert recency_boost(0) == 1.0
    assert recency_boost(365) == pytest.approx(0.5)
    assert recency_boost(730) == pytest.approx(0.25)
    assert recency_boost(None) == 0.5


def test_min_max():
    assert min_max([0.2, 0.5, 0.8]) == pytest.approx([0.0, 0.5, 1.0])
    assert min_max([0.4, 0.4]) == [1.0, 1.0]
    assert min_max([0.0, 0.0]) == [0.0, 0.0]


def test_hybrid_rank_filters_normalises_merges_and_sorts():
    claim = claim_features(MARROW)
    ranked = hybrid_rank(
        claim,
        [
            Candidate(key="a", text="marrow delta gains land", sem_raw=0.8),
            Candidate(key="b", text="marrow delta", sem_raw=0.5),
            Candidate(key="b", text="marrow delta", sem_raw=0.2, kg_raw=0.4, is_kg=True),
            Candidate(key="c", text="tax law of norway", sem_raw=0.2),  # strict filter
            Candidate(key="d", text="delta", sem_raw=0.2),
        ],
    )
    assert [r.key for r in ranked] == ["a", "b", "d"]
    by_key = {r.key: r for r in ranked}
    # sem over the kept set {0.8, 0.5, 0.2} normalises to {1, 0.5, 0}
    assert by_key["a"].sem_norm == 1.0 and by_key["b"].sem_norm == pytest.approx(0.5)
    assert by_key["d"].sem_norm == 0.0
    # the two "b" rows merged: its KG signal is the only one, so kg_norm 1 there
    assert by_key["b"].kg_norm == 1.0 and by_key["b"].candidate.is_kg


# --- issue 44: the two tuning variables the ranking reads (seed 001 defaults) ---------


def test_negation_anchor_boost_adds_its_weight_times_the_anchor_overlap():
    # NEGATION_ANCHOR_BOOST_WEIGHT (default 0.07): a negated claim's negated evidence
    # about its own anchors ranks above the same words without the negation.
    claim = claim_features("Halden Point lighthouse was not built in 1871")
    negated = Candidate(key="n", text="Halden Point lighthouse was not built in 1871")
    plain = Candidate(key="p", text="Halden Point lighthouse was built in 1871")
    with_boost = score_candidate(claim, negated, sem_norm=1.0, kg_norm=0.0)
    without = score_candidate(claim, plain, sem_norm=1.0, kg_norm=0.0)
    assert with_boost.anchor_match == 1.0
    assert with_boost.score - without.score == pytest.approx(0.07)
    assert "boost_negation_anchor" in with_boost.adjustments
    # an affirmative claim gets no such boost
    affirmative = claim_features(LIGHTHOUSE)
    a = score_candidate(affirmative, negated, sem_norm=1.0, kg_norm=0.0)
    assert "boost_negation_anchor" not in a.adjustments


def test_multihop_kg_hint_is_bounded_by_its_max_boost():
    # MULTIHOP_KG_HINT_MAX_BOOST (default 0.15): the graph boosts of a candidate that
    # only a relation of another claim reached (.05 + .10 + .08 = .23) add at most .15.
    claim = claim_features(HALDEN)
    kwargs = {"text": "the river meets halden point at dusk", "kg_raw": 1.0, "is_kg": True}
    direct = score_candidate(claim, Candidate(key="d", **kwargs), sem_norm=0.0, kg_norm=1.0)
    hop = score_candidate(
        claim, Candidate(key="h", multihop=True, **kwargs), sem_norm=0.0, kg_norm=1.0
    )
    assert {"boost_kg_overlap", "boost_entity_kg", "boost_kg_anchor"} <= set(direct.adjustments)
    assert direct.score - hop.score == pytest.approx(0.23 - 0.15)
    assert "multihop_kg_hint_capped" in hop.adjustments
