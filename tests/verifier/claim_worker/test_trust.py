"""Adaptive trust, table-tested against hand-computed cases (seed 001 thresholds)."""

from __future__ import annotations

import pytest

from verifier.claim_worker.trust import (
    Stance,
    SubclaimCoverage,
    TrustEvidence,
    agreement_score,
    compute_adaptive_trust,
    compute_subclaim_coverage,
    diversity_score,
    sufficiency,
    trust_post_score,
    verdict_state,
)


def ev(key, *, domain="a", relevance=0.5, trust=0.5, semantic=0.5, **stances):
    return TrustEvidence(
        key=key,
        domain=domain,
        relevance=relevance,
        trust=trust,
        semantic=semantic,
        stances={int(k[1:]): Stance(*v) for k, v in stances.items()},
    )


def test_coverage_is_sum_of_weights_over_subclaims():
    evidence = [
        ev("x", relevance=0.5, trust=0.8, s0=("entailed", 0.9)),  # strong: weight 1
        ev("y", relevance=0.6, trust=0.6, s1=("abstained", 0.5)),  # relevant abstain: 0.5
        ev("z", relevance=0.2, trust=0.9, s1=("abstained", 0.9)),  # not relevant: nothing
    ]
    details = compute_subclaim_coverage(3, evidence)
    assert [d.weight for d in details] == [1.0, 0.5, 0.0]
    assert [d.best_trust for d in details] == [0.8, 0.6, 0.0]
    result = compute_adaptive_trust(3, evidence)
    assert result.coverage == pytest.approx(1.5 / 3)
    assert result.strong_covered == 1


def test_weak_stance_counts_half():
    details = compute_subclaim_coverage(1, [ev("x", relevance=0.9, s0=("contradicted", 0.5))])
    assert details[0].weight == 0.5 and details[0].contradicted and not details[0].strong


def test_diversity_and_agreement():
    assert diversity_score(["a", "b", "a"]) == pytest.approx(2 / 3)
    assert diversity_score(["a", "b", "c", "d"]) == 1.0
    assert diversity_score([]) == 0.0
    items = [ev("1"), ev("2"), ev("3"), ev("4", s0=("contradicted", 0.9))]
    assert agreement_score(items) == 0.75
    assert agreement_score([]) == 0.0


BASE = dict(
    coverage=0.0,
    diversity=0.0,
    agreement=1.0,
    avg_relevance=0.0,
    strong_covered=0,
    contradicted_subclaims=1,
    evidence_count=3,
)
SUFFICIENCY = [
    ("no_evidence", {"evidence_count": 0}, False, (False, "no_evidence")),
    (
        "low_count_override",
        {"evidence_count": 2, "diversity": 0.95, "avg_relevance": 0.8},
        False,
        (True, "low_count_override"),
    ),
    (
        "low_count_needs_relevance",
        {"evidence_count": 2, "diversity": 0.95, "avg_relevance": 0.74},
        False,
        (False, "below_min_evidence"),  # and a contradicted subclaim blocks the adaptive route
    ),
    (
        "confidence_mode",
        {"evidence_count": 2, "coverage": 0.3, "agreement": 0.7},
        True,
        (True, "confidence_mode"),
    ),
    (
        "normal_mode_same_inputs",
        {"evidence_count": 2, "coverage": 0.3, "agreement": 0.7},
        False,
        (False, "below_min_evidence"),
    ),
    (
        "adaptive_coverage_diversity",
        {"evidence_count": 1, "coverage": 0.25, "diversity": 0.75, "contradicted_subclaims": 0},
        False,
        (True, "adaptive_override"),
    ),
    (
        "adaptive_coverage_too_low",
        {"evidence_count": 1, "coverage": 0.24, "diversity": 0.75, "contradicted_subclaims": 0},
        False,
        (False, "below_min_evidence"),
    ),
    (
        "adaptive_strong_covered",
        {"evidence_count": 1, "strong_covered": 1, "contradicted_subclaims": 0},
        False,
        (True, "adaptive_override"),
    ),
    (
        "adaptive_relevance",
        {"evidence_count": 1, "avg_relevance": 0.55, "contradicted_subclaims": 0},
        False,
        (True, "adaptive_override"),
    ),
    (
        "adaptive_blocked_by_contradiction",
        {"evidence_count": 1, "strong_covered": 1},
        False,
        (False, "below_min_evidence"),
    ),
    ("strict_high", {"coverage": 0.6, "agreement": 0.8}, False, (True, "strict_high_coverage")),
    (
        "strict_medium",
        {"coverage": 0.59, "diversity": 0.7, "agreement": 0.8},
        False,
        (True, "strict_medium_coverage"),
    ),
    (
        "strict_medium_low_diversity",
        {"coverage": 0.59, "diversity": 0.69, "agreement": 0.8},
        False,
        (False, "gates_not_met"),
    ),
    ("strict_low_agreement", {"coverage": 0.9, "agreement": 0.79}, False, (False, "gates_not_met")),
]


@pytest.mark.parametrize(
    "overrides,confidence_mode,expected",
    [case[1:] for case in SUFFICIENCY],
    ids=[case[0] for case in SUFFICIENCY],
)
def test_sufficiency_routes(overrides, confidence_mode, expected):
    args = {**BASE, **overrides}
    assert sufficiency(**args, confidence_mode=confidence_mode) == expected


def test_trust_post_formula_and_consistency_floor():
    details = [
        SubclaimCoverage(0, 1.0, True, False, 0.8),
        SubclaimCoverage(1, 0.5, False, False, 0.6),
    ]
    calm = [ev("x", trust=0.8), ev("y", trust=0.6)]
    # mean(.8·1, .6·.5) = .55; × (.5 + .5·.75) = .48125; floor .8·.75 = .6 wins
    assert trust_post_score(details, calm, 0.75) == pytest.approx(0.6)
    contested = [ev("x", trust=0.8), ev("y", trust=0.6, s0=("contradicted", 0.9))]
    assert trust_post_score(details, contested, 0.75) == pytest.approx(0.48125)
    # fallback: nothing covered → top_trust × coverage
    empty = [SubclaimCoverage(0, 0.0, False, False, 0.0)]
    assert trust_post_score(empty, contested, 0.5) == pytest.approx(0.4)
    assert trust_post_score(details, [], 0.75) == 0.0


@pytest.mark.parametrize(
    "sufficient,trust_post,state",
    [
        (True, 0.8, "confirmed"),
        (True, 0.79, "provisional"),
        (True, 0.6, "provisional"),
        (True, 0.59, "revoked"),
        (False, 0.99, "evidence_insufficiency"),
    ],
)
def test_verdict_state(sufficient, trust_post, state):
    assert verdict_state(sufficient, trust_post) == state


def test_weak_relevance_guard_flips_a_pass():
    weak = [ev("x", relevance=0.4, trust=0.3, semantic=0.4, s0=("entailed", 0.9))]
    result = compute_adaptive_trust(1, weak)
    assert result.trust_post == pytest.approx(0.3)
    assert not result.sufficient and result.route == "weak_relevance_guard"
    assert result.verdict_state == "evidence_insufficiency"
    fine = [ev("x", relevance=0.4, trust=0.3, semantic=0.5, s0=("entailed", 0.9))]
    assert compute_adaptive_trust(1, fine).route == "adaptive_override"


def test_fixed_trust_is_reported_for_comparison():
    items = [ev("1", trust=0.9), ev("2", trust=0.6), ev("3", trust=0.3), ev("4", trust=0.1)]
    items.append(ev("5", trust=0.2, s0=("contradicted", 0.9)))
    result = compute_adaptive_trust(1, items)
    assert result.trust_post_fixed == pytest.approx((0.9 + 0.6 + 0.3) / 3 * 0.8)
