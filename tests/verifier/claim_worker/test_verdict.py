"""Truthfulness, evidence quality, confidence caps and verdict reconciliation,
table-tested against hand-computed cases."""

from __future__ import annotations

from dataclasses import replace

import pytest

from verifier.claim_worker.config import TuningError, WorkerTuning, tuning_from
from verifier.claim_worker.verdict import (
    CONFIDENCE_CAP,
    ConfidenceInputs,
    ReconcileInputs,
    SegmentEvidence,
    SegmentSignal,
    cap_confidence_with_contract,
    coverage_floor,
    evidence_quality_percent,
    final_confidence,
    proposed_verdict,
    reconcile,
    segment_status,
    segment_support,
    strictness_caps,
    truth_score,
    truthfulness_percent,
    weighted_confidence,
)

T = WorkerTuning()


@pytest.mark.parametrize(
    "signal,status",
    [
        (SegmentSignal("s"), "UNKNOWN"),
        (SegmentSignal("s", entail_count=1, best_entail=0.7), "VALID"),
        (SegmentSignal("s", entail_count=1, best_entail=0.85), "STRONGLY_VALID"),
        (SegmentSignal("s", entail_count=2, best_entail=0.6), "STRONGLY_VALID"),
        (SegmentSignal("s", contradict_count=1, best_contradict=0.6), "INVALID"),
        (SegmentSignal("s", 1, 1, 0.8, 0.6), "PARTIALLY_VALID"),
        (SegmentSignal("s", 1, 1, 0.6, 0.8), "PARTIALLY_INVALID"),
    ],
)
def test_segment_status(signal, status):
    assert segment_status(signal) == status


@pytest.mark.parametrize(
    "statuses,expected",
    [
        (["VALID", "UNKNOWN"], (1 + 0.45) / 2 - 0.10 * 0.5),
        (["UNKNOWN"], 0.45 - 0.10),
        (["PARTIALLY_VALID", "INVALID"], (0.75 + 0.0) / 2 - 0.30 * 0.5),
        (["PARTIALLY_INVALID"], 0.0),  # .25 − .30 clamps at 0
        (["STRONGLY_VALID", "VALID"], 1.0),
        (["VALID"] * 9 + ["UNKNOWN"], 0.90),  # .935 capped: unresolved support-only
        (["INVALID", "INVALID"], 0.0),
        ([], 0.45),
    ],
)
def test_truth_score(statuses, expected):
    assert truth_score(statuses) == pytest.approx(expected)


def test_truthfulness_guardrails():
    # diversity ceiling (0.85 + 0.10·diversity)·100
    assert (
        truthfulness_percent(["VALID"], diversity=0, verdict="TRUE", absolute=False, tuning=T) == 85
    )
    assert (
        truthfulness_percent(["VALID"], diversity=1, verdict="TRUE", absolute=False, tuning=T) == 95
    )
    # UNVERIFIABLE is held within [40, 60] by UNVERIFIABLE_CONFIDENCE_CAP .60
    assert (
        truthfulness_percent(
            ["UNKNOWN"], diversity=1, verdict="UNVERIFIABLE", absolute=False, tuning=T
        )
        == 40
    )
    assert (
        truthfulness_percent(
            ["VALID"], diversity=1, verdict="UNVERIFIABLE", absolute=False, tuning=T
        )
        == 60
    )
    # absolute quantifier TRUE without every part strongly valid: at most 85
    assert (
        truthfulness_percent(["VALID"], diversity=1, verdict="TRUE", absolute=True, tuning=T) == 85
    )
    assert (
        truthfulness_percent(
            ["STRONGLY_VALID"], diversity=1, verdict="TRUE", absolute=True, tuning=T
        )
        == 95
    )


def test_evidence_quality():
    seg = SegmentEvidence(semantic=0.8, kg=0.5, anchor_overlap=1, overlap_ratio=0.5, credibility=1)
    # rel = .7·.8 + .3·.5 = .71; support = .7·.71 + .15 + .05 + .05 = .747
    assert segment_support(seg) == pytest.approx(0.747)
    assert segment_support(replace(seg, contradicted=True)) == pytest.approx(0.3735)
    assert segment_support(replace(seg, uncertain_or_reporting=True)) == pytest.approx(0.627)
    assert segment_support(None) == 0.0
    # avg .747 × (.85 + .15·0) = .63495
    assert evidence_quality_percent([seg], diversity=0) == pytest.approx(63.5, abs=0.01)
    # avg (.747 + 0)/2 × (.85 + .15) = .3735
    assert evidence_quality_percent([seg, None], diversity=1) == pytest.approx(37.35, abs=0.01)
    strong = SegmentEvidence(1, 1, 1, 1, 1)
    # support 1 × 1.0, ceiling .85 + .10·0 … with diversity 0: 1 × .85 = .85 ≤ .85
    assert evidence_quality_percent([strong], diversity=0) == pytest.approx(85.0)
    # diversity .5: 1 × .925 = .925 > ceiling .90
    assert evidence_quality_percent([strong], diversity=0.5) == pytest.approx(90.0)


X = ConfidenceInputs(
    truthfulness=0.9,
    coverage=0.8,
    agreement=1.0,
    diversity=0.67,
    trust_post=0.7,
    verdict="TRUE",
    statuses=("VALID",),
    policy_sufficient=True,
    comparative=False,
    strictness=0.0,
    evidence_count=3,
)


def composite_confidence(x: ConfidenceInputs) -> float:
    """The first steps of ``final_confidence``: the composite capped at 0.95, then the
    coverage floor (no other cap)."""
    return coverage_floor(min(weighted_confidence(x), CONFIDENCE_CAP), x)


def test_composite_confidence():
    assert composite_confidence(X) == pytest.approx(0.27 + 0.2 + 0.2 + 0.15 * 0.67 + 0.07)
    full = replace(X, truthfulness=1, coverage=1, agreement=1, diversity=1, trust_post=1)
    assert composite_confidence(full) == 0.95
    # coverage ≥ .8: at least truthfulness × .75 (.3 + .2 = .5 → .75)
    floor = replace(X, truthfulness=1, coverage=0.8, agreement=0, diversity=0, trust_post=0)
    assert composite_confidence(floor) == pytest.approx(0.75)
    below = replace(floor, coverage=0.79)
    assert composite_confidence(below) == pytest.approx(0.3 + 0.25 * 0.79)


@pytest.mark.parametrize(
    "changes,expected",
    [
        ({}, 0.9),
        ({"statuses": ("VALID", "UNKNOWN")}, 0.85),
        ({"policy_sufficient": False}, 0.60),
        ({"verdict": "UNVERIFIABLE"}, 0.35),
        ({"verdict": "UNVERIFIABLE", "comparative": True}, 0.45),
        ({"verdict": "FALSE", "statuses": ("INVALID",)}, 0.9),
    ],
)
def test_contract_caps(changes, expected):
    assert cap_confidence_with_contract(0.9, replace(X, **changes), T) == pytest.approx(expected)


def test_false_contradiction_only_floor():
    x = replace(X, verdict="FALSE", statuses=("INVALID", "INVALID"))
    assert cap_confidence_with_contract(0.3, x, T) == pytest.approx(0.55)
    mixed = replace(x, statuses=("INVALID", "UNKNOWN"))
    assert cap_confidence_with_contract(0.3, mixed, T) == pytest.approx(0.3)


@pytest.mark.parametrize(
    "changes,expected",
    [
        ({}, 0.9),
        ({"evidence_count": 2, "strictness": 0.52}, 0.75),
        ({"evidence_count": 2, "strictness": 0.51}, 0.9),
        ({"agreement": 0.69}, 0.75),
        ({"strictness": 0.70, "diversity": 0.19}, 0.72),
        ({"diversity": 0.09}, 0.70),
        ({"diversity": 0.19}, 0.80),
        ({"verdict": "UNVERIFIABLE", "diversity": 0.0}, 0.9),  # its own hard cap applies later
    ],
)
def test_strictness_caps(changes, expected):
    assert strictness_caps(0.9, replace(X, **changes), T) == pytest.approx(expected)


def test_strictness_caps_follow_tuning():
    tuned = replace(T, STRICTNESS_LOW_AGREEMENT_CONFIDENCE_CAP=0.5)
    assert strictness_caps(0.9, replace(X, agreement=0.5), tuned) == pytest.approx(0.5)


def test_final_confidence_unverifiable_lock():
    x = replace(X, verdict="UNVERIFIABLE", truthfulness=0.5)
    assert final_confidence(x, T) == 0.35


@pytest.mark.parametrize(
    "statuses,verdict",
    [
        (["VALID", "STRONGLY_VALID"], "TRUE"),
        (["INVALID", "PARTIALLY_INVALID"], "FALSE"),
        (["INVALID", "UNKNOWN"], "FALSE"),
        (["VALID", "UNKNOWN"], "PARTIALLY_TRUE"),
        (["VALID", "INVALID"], "PARTIALLY_TRUE"),
        (["UNKNOWN"], "UNVERIFIABLE"),
        ([], "UNVERIFIABLE"),
    ],
)
def test_proposed_verdict(statuses, verdict):
    assert proposed_verdict(statuses) == verdict


R = ReconcileInputs(
    proposed="TRUE",
    statuses=("VALID",),
    contradict_ratio=0.0,
    best_contradiction=0.0,
    best_entailment=0.9,
    coverage=1.0,
    diversity=0.33,
    policy_sufficient=True,
    anchor_match=1.0,
    predicate_match=1.0,
    hedged_share=0.0,
    absolute=False,
    strictness=0.0,
)
REFUTED = dict(
    proposed="FALSE",
    statuses=("INVALID",),
    contradict_ratio=1.0,
    best_contradiction=0.8,
    best_entailment=0.0,
)


@pytest.mark.parametrize(
    "changes,verdict,reasons",
    [
        ({}, "TRUE", ()),
        (REFUTED, "FALSE", ()),
        (
            {"contradict_ratio": 0.5, "best_contradiction": 0.55, "coverage": 0.5},
            "FALSE",
            ("strong_contradiction_forced_false",),
        ),
        (
            {**REFUTED, "coverage": 0.4, "diversity": 0.34},
            "UNVERIFIABLE",
            ("binary_gate_false_weak",),
        ),
        ({**REFUTED, "coverage": 0.4, "diversity": 0.4}, "FALSE", ()),
        ({**REFUTED, "best_contradiction": 0.54}, "UNVERIFIABLE", ("binary_gate_false_weak",)),
        (
            {"proposed": "PARTIALLY_TRUE", "best_contradiction": 0.8, "contradict_ratio": 0.2},
            "UNVERIFIABLE",
            ("mixed_signal_band",),
        ),
        ({"policy_sufficient": False}, "UNVERIFIABLE", ("binary_gate_trust_insufficient",)),
        ({"anchor_match": 0.29}, "UNVERIFIABLE", ("binary_gate_anchor",)),
        ({"predicate_match": 0.44}, "UNVERIFIABLE", ("binary_gate_predicate",)),
        ({"hedged_share": 0.45}, "UNVERIFIABLE", ("hedged_evidence_blocks_true",)),
        ({"absolute": True}, "UNVERIFIABLE", ("absolute_quantifier_guard",)),
        ({"absolute": True, "statuses": ("STRONGLY_VALID",)}, "TRUE", ()),
        ({"strictness": 0.82}, "UNVERIFIABLE", ("very_strict_claim_needs_strong_support",)),
        (
            {"proposed": "PARTIALLY_TRUE", "absolute": True},
            "UNVERIFIABLE",
            ("absolute_quantifier_guard",),
        ),
        ({"proposed": "PARTIALLY_TRUE"}, "PARTIALLY_TRUE", ()),
    ],
)
def test_reconcile(changes, verdict, reasons):
    result = reconcile(replace(R, **changes), T)
    assert (result.verdict, result.reasons) == (verdict, reasons)


def test_tuning_from_names_defaults_and_errors():
    assert tuning_from({}) == WorkerTuning()
    tuned = tuning_from({"ANCHOR_THRESHOLD": "0.4", "STRICTNESS_MIN_EVIDENCE_COUNT": "5"})
    assert tuned.ANCHOR_THRESHOLD == 0.4 and tuned.STRICTNESS_MIN_EVIDENCE_COUNT == 5
    assert WorkerTuning().STRICTNESS_VERY_HIGH_THRESHOLD == 0.82
    assert WorkerTuning().MULTIHOP_KG_HINT_MAX_BOOST == 0.15
    with pytest.raises(TuningError):
        tuning_from({"ANCHOR_TRESHOLD": "0.4"})
    with pytest.raises(TuningError):
        tuning_from({"ANCHOR_THRESHOLD": "1.5"})
    with pytest.raises(TuningError):
        tuning_from({"STRICTNESS_MIN_EVIDENCE_COUNT": "0"})


# --- issue 44: the seed's order and the missing override paths ------------------------


def test_the_coverage_floor_is_not_undercut_by_the_confidence_cap_controls():
    # Seed 001: "cap at 0.95; if coverage >= 0.8, enforce confidence >= truthfulness *
    # 0.75; apply contract/policy cap function". Diversity 0 puts the cap controls at
    # DIVERSITY_CONFIDENCE_CAP_LOW 0.70; the floor after them keeps 1.0 × 0.75.
    x = replace(
        X,
        truthfulness=1.0,
        coverage=1.0,
        agreement=1.0,
        diversity=0.0,
        trust_post=1.0,
        strictness=0.0,
        evidence_count=5,
        statuses=("VALID", "VALID"),
    )
    assert strictness_caps(0.85, x, T) == pytest.approx(0.70)
    assert final_confidence(x, T) == 0.75


def test_numeric_override_path_of_truthfulness():
    # a number no supporting item states: truthfulness at most UNVERIFIABLE_CONFIDENCE_CAP
    # (0.60) × 100; all numbers stated: untouched (diversity ceiling 95)
    args = {"diversity": 1, "verdict": "TRUE", "absolute": False, "tuning": T}
    assert truthfulness_percent(["VALID"], numeric_support=0.5, **args) == 60
    assert truthfulness_percent(["VALID"], numeric_support=1.0, **args) == 95
    assert truthfulness_percent(["VALID"], numeric_support=None, **args) == 95
    tuned = tuning_from({"UNVERIFIABLE_CONFIDENCE_CAP": "0.5"})
    assert truthfulness_percent(["VALID"], numeric_support=0.0, **{**args, "tuning": tuned}) == 50


def test_numeric_confidence_gate():
    x = replace(X, truthfulness=1.0, coverage=1.0, diversity=1.0, trust_post=1.0)
    assert final_confidence(x, T) > 0.60
    assert final_confidence(replace(x, numeric_support=0.5), T) == 0.60
    assert final_confidence(replace(x, numeric_support=1.0), T) == final_confidence(x, T)


def test_strong_contradiction_votes_give_false_its_minimum_confidence():
    # A FALSE forced by strong contradiction votes keeps FALSE_VERDICT_MIN_CONFIDENCE
    # (0.55) after the contract cap: here the policy-insufficiency cap is tuned to 0.40,
    # below it, and a part is unresolved (the contract's own floor is only for
    # contradiction-only FALSE).
    tuned = tuning_from({"UNVERIFIABLE_CONFIDENCE_CAP": "0.40"})
    x = replace(
        X,
        verdict="FALSE",
        statuses=("INVALID", "UNKNOWN"),
        truthfulness=0.0,
        policy_sufficient=False,
    )
    assert final_confidence(x, tuned) == 0.40
    assert final_confidence(replace(x, strong_contradiction=True), tuned) == 0.55


def test_reconcile_says_when_strong_contradiction_decided():
    x = ReconcileInputs(
        proposed="FALSE",
        statuses=("INVALID",),
        contradict_ratio=1.0,
        best_contradiction=0.9,
        best_entailment=0.0,
        coverage=1.0,
        diversity=0.5,
        policy_sufficient=True,
        anchor_match=1.0,
        predicate_match=1.0,
        hedged_share=0.0,
        absolute=False,
        strictness=0.0,
    )
    assert reconcile(x, T).strong_contradiction
    assert not reconcile(replace(x, best_contradiction=0.5), T).strong_contradiction
