from __future__ import annotations

import pytest

from verifier.memory import agent_stats, wilson_interval


def test_wilson_interval_known_values():
    low, high = wilson_interval(8, 10)
    assert low == pytest.approx(0.4902, abs=1e-4)
    assert high == pytest.approx(0.9433, abs=1e-4)
    assert wilson_interval(0, 10)[0] == 0.0
    assert wilson_interval(10, 10)[1] == pytest.approx(1.0)
    assert wilson_interval(0, 0) == (0.0, 1.0)


def test_wilson_rejects_impossible_counts():
    with pytest.raises(ValueError):
        wilson_interval(11, 10)


def test_rates_need_ten_evaluated_claims():
    rows = [("verbatim", "supported:exact")] * 9 + [("implicit", "inconclusive:insufficient")] * 5
    stats = agent_stats(rows)
    assert stats["evaluated_claims"] == 9 and stats["out_of_scope_claims"] == 5
    assert stats["drift_rate"] is None and stats["support_rate"] is None
    assert "at least 10" in stats["note"]


def test_rates_with_intervals():
    rows = (
        [("verbatim", "supported:exact")] * 4
        + [("summarized", "supported:paraphrase")] * 2
        + [("summarized", "unsupported:drift")] * 2
        + [("verbatim", "inconclusive:insufficient")] * 1
        + [("verbatim", "unsupported:no_match")] * 1
    )
    stats = agent_stats(rows)
    assert stats["evaluated_claims"] == 10
    assert stats["claim_types"] == {"verbatim": 6, "summarized": 4}
    assert stats["support_rate"]["value"] == 0.6 and stats["support_rate"]["count"] == 6
    assert stats["drift_rate"]["value"] == 0.2
    assert stats["coverage_rate"]["value"] == 0.9
    low, high = stats["support_rate"]["ci95"]
    assert low < 0.6 < high


def test_drift_rate_is_the_share_of_claims_with_drift_detected():
    # Seed 002: "drift_rate | Proportion of claims with drift detected": drift found in
    # an incomplete transcript or in one of two disagreeing statements is drift too.
    rows = (
        [("verbatim", "supported:exact", [])] * 5
        + [("summarized", "unsupported:drift", ["temporal_shift"])] * 2
        + [("verbatim", "inconclusive:insufficient", ["scope_shift"])]
        + [("verbatim", "inconclusive:conflict", ["precision_added"])]
        + [("verbatim", "unsupported:no_match", [])]
    )
    stats = agent_stats(rows)
    assert stats["evaluated_claims"] == 10
    assert stats["drift_rate"]["value"] == 0.4 and stats["drift_rate"]["count"] == 4
    assert stats["outcomes"]["unsupported:drift"] == 2
    assert stats["coverage_rate"]["value"] == 0.9
