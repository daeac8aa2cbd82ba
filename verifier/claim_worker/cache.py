"""The cache verdict precheck (seed 001): run only when the current adaptive trust is
sufficient ("If adaptive trust is sufficient, run a cache verdict precheck"), so after
ranking, judging and trust; a claim verified before may then be answered from its
stored result (``completed_from_cache``) only under strict gates — nothing about its
evidence, its judge, its trust policy mode or its standing in the chain may have
changed, and the stored verdict must have been a confident binary one."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

CACHE_TTL_SECONDS = 24 * 3600
CACHE_MIN_CONFIDENCE = 0.60
# The stored claim's state must still agree with the cached verdict (a failed re-check
# or a reviewer's decision since then moves the state, and the cache is then unusable).
STATE_FOR_VERDICT = {"TRUE": "supported", "FALSE": "contradicted"}


@dataclass(frozen=True)
class CachedVerdict:
    claim_id: str
    state: str
    age_seconds: float
    result: Mapping[str, Any]


def cache_precheck(
    cached: CachedVerdict | None,
    *,
    evidence_keys: Sequence[str],
    judge_model: str,
    trust_sufficient: bool,
    trust_policy_mode: str = "adaptive",
    ttl_seconds: float = CACHE_TTL_SECONDS,
) -> tuple[bool, str]:
    """(usable, reason). The reason names the first gate that failed, or ``hit``.
    ``trust_sufficient`` is the current request's adaptive trust (the stored result's
    own is not read)."""
    if not trust_sufficient:
        return False, "trust_insufficient"
    if cached is None:
        return False, "no_cached_result"
    result = cached.result
    if cached.age_seconds > ttl_seconds:
        return False, "expired"
    if (result.get("judge") or {}).get("model_id") != judge_model:
        return False, "judge_changed"
    if result.get("trust_policy_mode", "adaptive") != trust_policy_mode:
        return False, "mode_changed"
    if [e.get("id") for e in result.get("evidence", [])] != list(evidence_keys):
        return False, "evidence_changed"
    verdict = result.get("verdict")
    if verdict not in STATE_FOR_VERDICT:
        return False, "not_binary"
    if float(result.get("verdict_confidence") or 0.0) < CACHE_MIN_CONFIDENCE:
        return False, "low_confidence"
    if cached.state != STATE_FOR_VERDICT[verdict]:
        return False, "state_disagrees"
    return True, "hit"
