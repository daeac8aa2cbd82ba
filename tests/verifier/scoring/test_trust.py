"""Trust score arithmetic: six weighted factors, round(clamp(Σ, 0, 100))."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from verifier.scoring.trust import TRUST_WEIGHTS, TrustInputs, trust_score

PERFECT = TrustInputs(
    total_claims=100,
    embedded_claims=100,
    verified_claims=100,
    orphan_claims=0,
    vector_index_present=True,
    vector_index_used=True,
    relations=100,
    supports_relations=40,
    contradicts_relations=0,
    high_severity_issues=0,
)


def points(inputs: TrustInputs) -> dict[str, float]:
    return {f.name: f.points for f in trust_score(inputs).factors}


def test_weights_are_exact_and_sum_to_100() -> None:
    assert TRUST_WEIGHTS == (
        ("embedding_coverage", 25),
        ("verification_coverage", 25),
        ("orphan_rate", 15),
        ("vector_index", 15),
        ("relation_health", 10),
        ("issue_penalty", 10),
    )
    assert sum(w for _, w in TRUST_WEIGHTS) == 100


def test_perfect_graph_scores_100() -> None:
    result = trust_score(PERFECT)
    assert result.score == 100
    assert [(f.name, f.weight, f.attainment, f.points) for f in result.factors] == [
        ("embedding_coverage", 25, 1.0, 25.0),
        ("verification_coverage", 25, 1.0, 25.0),
        ("orphan_rate", 15, 1.0, 15.0),
        ("vector_index", 15, 1.0, 15.0),
        ("relation_health", 10, 1.0, 10.0),
        ("issue_penalty", 10, 1.0, 10.0),
    ]


@pytest.mark.parametrize(
    ("changes", "expected_score"),
    [
        ({"embedded_claims": 50}, 88),  # 100 - 12.5 = 87.5 -> 88 (half to even)
        ({"verified_claims": 50, "embedded_claims": 98}, 87),  # 100 - 12.5 - 0.5 = 87
        ({"embedded_claims": 90, "verified_claims": 96}, 96),  # 100 - 2.5 - 1 = 96.5 -> 96
        ({"orphan_claims": 10}, 98),  # 100 - 1.5 = 98.5 -> 98
        ({"orphan_claims": 30}, 96),  # 100 - 4.5 = 95.5 -> 96
        ({"vector_index_used": False}, 92),  # 100 - 7.5 = 92.5 -> 92
        ({"vector_index_present": False, "vector_index_used": False}, 85),
        ({"vector_index_present": False, "vector_index_used": True}, 85),  # unused if absent
        ({"relations": 50}, 98),  # density .5 -> health .75 -> -2.5 -> 97.5 -> 98
        ({"supports_relations": 30, "contradicts_relations": 10}, 99),  # balance .75 -> 98.75
        ({"supports_relations": 0, "contradicts_relations": 10}, 95),  # balance 0 -> -5
        ({"supports_relations": 0, "contradicts_relations": 0}, 100),  # no polarity: neutral
        ({"relations": 0, "supports_relations": 0}, 95),
        ({"high_severity_issues": 1}, 100),  # 99.5 -> 100 (half to even)
        ({"high_severity_issues": 3}, 98),  # 98.5 -> 98
        ({"high_severity_issues": 10}, 95),
        ({"high_severity_issues": 20}, 90),
        ({"high_severity_issues": 500}, 90),  # the penalty floors at 0 points
        ({"embedded_claims": 150, "verified_claims": 101}, 100),  # ratios clamp at 1
        ({"orphan_claims": 150}, 85),  # orphan ratio clamps at 1
        ({"relations": 1000}, 100),
    ],
)
def test_trust_score_table(changes: dict[str, int | bool], expected_score: int) -> None:
    assert trust_score(replace(PERFECT, **changes)).score == expected_score  # type: ignore[arg-type]


def test_worked_example_breakdown() -> None:
    inputs = TrustInputs(
        total_claims=200,
        embedded_claims=190,  # .95 -> 23.75
        verified_claims=170,  # .85 -> 21.25
        orphan_claims=20,  # 1 - .1 -> 13.5
        vector_index_present=True,
        vector_index_used=False,  # .5 -> 7.5
        relations=100,  # density .5
        supports_relations=60,
        contradicts_relations=20,  # balance .75 -> health .625 -> 6.25
        high_severity_issues=4,  # .8 -> 8
    )
    assert points(inputs) == {
        "embedding_coverage": 23.75,
        "verification_coverage": 21.25,
        "orphan_rate": 13.5,
        "vector_index": 7.5,
        "relation_health": 6.25,
        "issue_penalty": 8.0,
    }
    result = trust_score(inputs)
    assert result.score == 80  # 80.25
    data = json.loads(json.dumps(result.to_dict()))
    assert data["score"] == 80
    assert data["factors"][4] == {
        "name": "relation_health",
        "weight": 10,
        "attainment": 0.625,
        "points": 6.25,
    }


def test_empty_graph_earns_no_trust() -> None:
    empty = TrustInputs(0, 0, 0, 0, True, True, 0, 0, 0, 0)
    result = trust_score(empty)
    assert result.score == 0
    assert all(f.points == 0 for f in result.factors)


@pytest.mark.parametrize(
    "changes",
    [{"total_claims": -1}, {"high_severity_issues": -3}, {"relations": 1.5},
     {"vector_index_used": 1}, {"orphan_claims": True}],
)  # fmt: skip
def test_inputs_are_validated(changes: dict[str, object]) -> None:
    with pytest.raises(ValueError):
        replace(PERFECT, **changes)  # type: ignore[arg-type]


counts = st.integers(0, 5_000)


@given(
    st.builds(
        TrustInputs,
        counts, counts, counts, counts, st.booleans(), st.booleans(), counts, counts, counts,
        st.integers(0, 100),
    )
)  # fmt: skip
def test_score_is_the_rounded_sum_of_points(inputs: TrustInputs) -> None:
    result = trust_score(inputs)
    assert 0 <= result.score <= 100
    for factor in result.factors:
        assert 0.0 <= factor.attainment <= 1.0
        assert factor.points == pytest.approx(factor.weight * factor.attainment)
    assert abs(result.score - sum(f.points for f in result.factors)) <= 0.5 + 1e-9
