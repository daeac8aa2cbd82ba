"""Rule sets: the built-in Core v1 definition, validation, storage, scoring."""

from __future__ import annotations

import json
import math
from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from verifier.scoring.rulesets import (
    BUILT_IN_RULE_SETS,
    CORE_V1,
    DIMENSIONS,
    POLICY_NAMES,
    Dimension,
    InvalidRuleSet,
    Policy,
    classify,
    from_dict,
    overall_score,
    to_dict,
    validate_definition,
)


def uniform(value: float) -> dict[str, float]:
    return dict.fromkeys(DIMENSIONS, value)


def test_core_v1_matches_the_spec() -> None:
    assert CORE_V1.name == "Core v1"
    assert CORE_V1.display_name == "Restormel Core v1"
    assert CORE_V1.version == 1
    assert BUILT_IN_RULE_SETS["Core v1"] is CORE_V1
    assert DIMENSIONS == (
        "logical_structure",
        "evidence_grounding",
        "counterargument_coverage",
        "scope_calibration",
        "assumption_transparency",
        "internal_consistency",
    )
    assert [d.key for d in CORE_V1.dimensions] == list(DIMENSIONS)
    assert [d.weight for d in CORE_V1.dimensions] == [0.25, 0.20, 0.20, 0.15, 0.10, 0.10]
    assert [d.passing_threshold for d in CORE_V1.dimensions] == [0.6, 0.6, 0.55, 0.55, 0.5, 0.5]
    assert [(p.name, p.min_overall_score, p.weak_threshold) for p in CORE_V1.policies] == [
        ("strict", 0.75, 0.60),
        ("balanced", 0.60, 0.45),
        ("lenient", 0.45, 0.30),
    ]
    assert CORE_V1.default_policy == "balanced"
    assert validate_definition(CORE_V1) == []


@pytest.mark.parametrize("dim", CORE_V1.dimensions, ids=lambda d: d.key)
def test_prompts_render_with_claim_and_evidence(dim: Dimension) -> None:
    assert dim.description
    prompt = dim.render_prompt("Virtue is a mean.", ["virtue is a mean between two vices", "b"])
    assert "Virtue is a mean." in prompt
    assert "[1] virtue is a mean between two vices\n[2] b" in prompt
    assert '{"score":' in prompt  # the escaped JSON braces survive formatting
    assert "(no evidence)" in dim.render_prompt("c", [])


def test_validation_reports_every_problem() -> None:
    dims = list(CORE_V1.dimensions)
    dims[0] = replace(dims[0], weight=1.5)
    dims[1] = replace(dims[1], passing_threshold=-0.1)
    dims[2] = replace(dims[2], prompt_template="no slots")
    broken = replace(
        CORE_V1,
        dimensions=(*dims[:5], Dimension("vibes", 0.0, "", "{claim}{evidence}", 0.5)),
        policies=(Policy("strict", 0.5, 0.7), Policy("balanced", 0.6, 0.45)),
        default_policy="yolo",
        version=0,
    )
    errors = validate_definition(broken)
    expected_fragments = [
        "version must be a positive integer",
        "'internal_consistency' must appear exactly once (found 0)",
        "unknown dimension 'vibes'",
        "'logical_structure': weight 1.5 not in [0, 1]",
        "'evidence_grounding': passing_threshold -0.1 not in [0, 1]",
        "'counterargument_coverage': prompt_template lacks {claim}",
        "'counterargument_coverage': prompt_template lacks {evidence}",
        "policy 'lenient' is missing",
        "policy 'strict': weak_threshold exceeds min_overall_score",
        "default_policy 'yolo' is not a defined policy",
    ]
    for fragment in expected_fragments:
        assert any(fragment in e for e in errors), (fragment, errors)


def test_validation_weight_sum_and_duplicates() -> None:
    dims = (*CORE_V1.dimensions, CORE_V1.dimensions[0])
    errors = validate_definition(replace(CORE_V1, dimensions=dims))
    assert any("'logical_structure' must appear exactly once (found 2)" in e for e in errors)
    assert any("weights sum to 1.25" in e for e in errors)
    off = replace(CORE_V1.dimensions[0], weight=0.25 + 2e-6)
    assert validate_definition(replace(CORE_V1, dimensions=(off, *CORE_V1.dimensions[1:])))
    near = replace(CORE_V1.dimensions[0], weight=0.25 + 5e-7)
    assert validate_definition(replace(CORE_V1, dimensions=(near, *CORE_V1.dimensions[1:]))) == []
    dup = replace(CORE_V1, policies=(*CORE_V1.policies, CORE_V1.policies[0]))
    assert "policy 'strict' is defined more than once" in validate_definition(dup)
    bad_template = replace(CORE_V1.dimensions[0], prompt_template="{claim} {evidence} {oops}")
    errors = validate_definition(
        replace(CORE_V1, dimensions=(bad_template, *CORE_V1.dimensions[1:]))
    )
    assert any("does not render" in e for e in errors)


def test_round_trip_through_json() -> None:
    data = json.loads(json.dumps(to_dict(CORE_V1)))
    assert from_dict(data) == CORE_V1
    assert data["display_name"] == "Restormel Core v1"
    assert [x["key"] for x in data["dimensions"]] == list(DIMENSIONS)


def test_from_dict_rejects_malformed_and_invalid() -> None:
    data = to_dict(CORE_V1)
    del data["policies"]
    with pytest.raises(InvalidRuleSet, match="malformed"):
        from_dict(data)
    data = to_dict(CORE_V1)
    data["dimensions"][0]["weight"] = 0.5
    with pytest.raises(InvalidRuleSet, match="weights sum to") as exc:
        from_dict(data)
    assert exc.value.errors


def test_overall_score_is_the_weighted_sum() -> None:
    scores = {
        "logical_structure": 0.8,
        "evidence_grounding": 0.6,
        "counterargument_coverage": 0.4,
        "scope_calibration": 1.0,
        "assumption_transparency": 0.0,
        "internal_consistency": 0.5,
    }
    # .25*.8 + .2*.6 + .2*.4 + .15*1 + .1*0 + .1*.5 = .2+.12+.08+.15+0+.05 = .60
    assert overall_score(CORE_V1, scores) == pytest.approx(0.60)
    assert classify(CORE_V1, scores) == "supported"  # balanced: exactly .60
    assert classify(CORE_V1, scores, "strict") == "weak"  # strict weak threshold is .60
    assert classify(CORE_V1, scores, "lenient") == "supported"


@pytest.mark.parametrize(
    ("score", "policy", "expected"),
    [
        (1.0, "strict", "supported"),
        (0.75, "strict", "supported"),
        (0.74, "strict", "weak"),
        (0.60, "strict", "weak"),
        (0.59, "strict", "unsupported"),
        (0.60, "balanced", "supported"),
        (0.59, "balanced", "weak"),
        (0.45, "balanced", "weak"),
        (0.44, "balanced", "unsupported"),
        (0.45, "lenient", "supported"),
        (0.44, "lenient", "weak"),
        (0.30, "lenient", "weak"),
        (0.29, "lenient", "unsupported"),
        (0.0, "lenient", "unsupported"),
        (0.60, None, "supported"),
        (0.59, None, "weak"),
    ],
)
def test_classify_thresholds(score: float, policy: str | None, expected: str) -> None:
    assert classify(CORE_V1, uniform(score), policy) == expected


def test_classify_unknown_policy() -> None:
    with pytest.raises(KeyError):
        classify(CORE_V1, uniform(0.5), "yolo")


@pytest.mark.parametrize(
    "scores",
    [
        {k: 0.5 for k in DIMENSIONS[:5]},
        {**uniform(0.5), "vibes": 1.0},
        {**uniform(0.5), "logical_structure": 1.2},
        {**uniform(0.5), "logical_structure": math.nan},
    ],
)
def test_scores_are_checked(scores: dict[str, float]) -> None:
    with pytest.raises(ValueError):
        overall_score(CORE_V1, scores)


@given(st.fixed_dictionaries({k: st.floats(0.0, 1.0) for k in DIMENSIONS}))
def test_overall_score_bounded_and_classify_monotone(scores: dict[str, float]) -> None:
    total = overall_score(CORE_V1, scores)
    assert 0.0 <= total <= 1.0 + 1e-12
    rank = {"unsupported": 0, "weak": 1, "supported": 2}
    # Stricter policies never classify higher.
    strict, balanced, lenient = (classify(CORE_V1, scores, p) for p in POLICY_NAMES)
    assert rank[strict] <= rank[balanced] <= rank[lenient]
