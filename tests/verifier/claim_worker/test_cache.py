"""The cache verdict precheck's strict gates, one row per gate."""

from __future__ import annotations

import pytest

from verifier.claim_worker.cache import CachedVerdict, cache_precheck

RESULT = {
    "judge": {"model_id": "judge-1"},
    "evidence": [{"id": "claim:a"}, {"id": "claim:b"}],
    "trust_threshold_met": True,
    "verdict": "TRUE",
    "verdict_confidence": 0.7,
}
HIT = CachedVerdict("claim:x", "supported", 60.0, RESULT)


@pytest.mark.parametrize(
    "cached,keys,expected",
    [
        (HIT, ["claim:a", "claim:b"], (True, "hit")),
        (None, ["claim:a"], (False, "no_cached_result")),
        (
            CachedVerdict("claim:x", "supported", 86401.0, RESULT),
            ["claim:a", "claim:b"],
            (False, "expired"),
        ),
        (
            CachedVerdict(
                "claim:x", "supported", 1.0, {**RESULT, "judge": {"model_id": "judge-2"}}
            ),
            ["claim:a", "claim:b"],
            (False, "judge_changed"),
        ),
        (HIT, ["claim:b", "claim:a"], (False, "evidence_changed")),
        (HIT, ["claim:a", "claim:b", "claim:c"], (False, "evidence_changed")),
        # the stored result's own trust is not read: the current trust decides (below)
        (
            CachedVerdict("claim:x", "supported", 1.0, {**RESULT, "trust_threshold_met": False}),
            ["claim:a", "claim:b"],
            (True, "hit"),
        ),
        (
            CachedVerdict(
                "claim:x", "supported", 1.0, {**RESULT, "trust_policy_mode": "confidence"}
            ),
            ["claim:a", "claim:b"],
            (False, "mode_changed"),
        ),
        (
            CachedVerdict("claim:x", "supported", 1.0, {**RESULT, "verdict": "PARTIALLY_TRUE"}),
            ["claim:a", "claim:b"],
            (False, "not_binary"),
        ),
        (
            CachedVerdict("claim:x", "supported", 1.0, {**RESULT, "verdict_confidence": 0.59}),
            ["claim:a", "claim:b"],
            (False, "low_confidence"),
        ),
        (
            CachedVerdict("claim:x", "unverified", 1.0, RESULT),
            ["claim:a", "claim:b"],
            (False, "state_disagrees"),
        ),
        (
            CachedVerdict("claim:x", "contradicted", 1.0, {**RESULT, "verdict": "FALSE"}),
            ["claim:a", "claim:b"],
            (True, "hit"),
        ),
    ],
)
def test_cache_precheck_gates(cached, keys, expected):
    assert (
        cache_precheck(cached, evidence_keys=keys, judge_model="judge-1", trust_sufficient=True)
        == expected
    )


def test_cache_is_checked_only_when_the_current_adaptive_trust_is_sufficient():
    # Seed 001: "If adaptive trust is sufficient, run a cache verdict precheck" — the
    # request's own trust, whatever the stored result says.
    assert cache_precheck(
        HIT, evidence_keys=["claim:a", "claim:b"], judge_model="judge-1", trust_sufficient=False
    ) == (False, "trust_insufficient")
    stored_insufficient = CachedVerdict(
        "claim:x", "supported", 1.0, {**RESULT, "trust_threshold_met": False}
    )
    assert cache_precheck(
        stored_insufficient,
        evidence_keys=["claim:a", "claim:b"],
        judge_model="judge-1",
        trust_sufficient=True,
    ) == (True, "hit")
