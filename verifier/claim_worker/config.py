"""The worker's constants (seed 001, ``worker/app/constants/config.py``) and its tuning
variables, read from a mapping (settings/env) with the seed's defaults."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

# --- hybrid ranking weights -------------------------------------------------------------
W_SEMANTIC = 0.31
W_KG = 0.12
W_ENTITY = 0.20
W_CLAIM_OVERLAP = 0.15
W_RECENCY = 0.05
W_CREDIBILITY = 0.17
RECENCY_HALF_LIFE_DAYS = 365.0

# --- adaptive trust thresholds (normal mode) ---------------------------------------------
COVERAGE_THRESHOLD_HIGH = 0.60
COVERAGE_THRESHOLD_MEDIUM = 0.40
DIVERSITY_THRESHOLD_HIGH = 0.70
AGREEMENT_THRESHOLD_HIGH = 0.80
MIN_EVIDENCE_COUNT = 3

# The adaptive trust policy's modes: "adaptive" (the normal-mode thresholds above) or
# "confidence" (confidence mode: lower thresholds and minimum evidence count).
TRUST_POLICY_MODES: tuple[str, ...] = ("adaptive", "confidence")

# --- status weights of the claim breakdown ------------------------------------------------
STATUS_WEIGHTS: dict[str, float] = {
    "STRONGLY_VALID": 1.0,
    "VALID": 1.0,
    "PARTIALLY_VALID": 0.75,
    "UNKNOWN": 0.45,
    "PARTIALLY_INVALID": 0.25,
    "INVALID": 0.0,
}


@dataclass(frozen=True)
class WorkerTuning:
    """The seed's claim strictness / override tuning variables and confidence-cap
    controls, with the seed's defaults. ``tuning_from`` reads them by these exact names."""

    STRICTNESS_HIGH_THRESHOLD: float = 0.70
    STRICTNESS_VERY_HIGH_THRESHOLD: float = 0.82
    STRICTNESS_MEDIUM_THRESHOLD: float = 0.52
    REFUTE_COVERAGE_FORCE_FALSE: float = 0.50
    REFUTE_DIVERSITY_FORCE_FALSE: float = 0.35
    PREDICATE_MATCH_THRESHOLD: float = 0.45
    ANCHOR_THRESHOLD: float = 0.30
    CONTRADICTION_THRESHOLD: float = 0.55
    CONTRADICT_RATIO_FOR_FORCE_FALSE: float = 0.50
    CONTRADICT_RATIO_FORCE_FALSE: float = 0.50
    DIVERSITY_FORCE_FALSE: float = 0.40
    UNVERIFIABLE_CONFIDENCE_CAP: float = 0.60
    HEDGE_PENALTY_BLOCK_TRUE: float = 0.45
    DIVERSITY_CONFIDENCE_CAP_LOW: float = 0.70
    DIVERSITY_CONFIDENCE_CAP_MID: float = 0.80
    NEGATION_ANCHOR_BOOST_WEIGHT: float = 0.07
    MULTIHOP_KG_HINT_MAX_BOOST: float = 0.15
    STRICTNESS_MIN_EVIDENCE_COUNT: int = 3
    STRICTNESS_DIVERSITY_LOW_THRESHOLD: float = 0.10
    STRICTNESS_DIVERSITY_MID_THRESHOLD: float = 0.20
    STRICTNESS_AGREEMENT_MIN: float = 0.70
    STRICTNESS_LOW_EVIDENCE_CONFIDENCE_CAP: float = 0.75
    STRICTNESS_LOW_AGREEMENT_CONFIDENCE_CAP: float = 0.75
    STRICTNESS_HIGH_CLAIM_LOW_DIVERSITY_CAP: float = 0.72
    FALSE_VERDICT_MIN_CONFIDENCE: float = 0.55


TUNING_NAMES: tuple[str, ...] = tuple(f.name for f in fields(WorkerTuning))


class TuningError(ValueError):
    pass


def tuning_from(values: Mapping[str, Any]) -> WorkerTuning:
    """A ``WorkerTuning`` from ``values`` (names as in the seed; unknown names are an
    error so a typo does not silently keep a default). Floats must lie in [0, 1]; the
    evidence count is a positive integer."""
    unknown = sorted(set(values) - set(TUNING_NAMES))
    if unknown:
        raise TuningError(f"Unknown worker tuning variable(s): {', '.join(unknown)}")
    parsed: dict[str, Any] = {}
    for name, raw in values.items():
        if raw in (None, ""):
            continue
        if name == "STRICTNESS_MIN_EVIDENCE_COUNT":
            try:
                number = int(raw)
            except (TypeError, ValueError) as exc:
                raise TuningError(f"{name} must be an integer, not {raw!r}") from exc
            if number < 1:
                raise TuningError(f"{name} must be at least 1")
            parsed[name] = number
            continue
        try:
            value = float(raw)
        except (TypeError, ValueError) as exc:
            raise TuningError(f"{name} must be a number, not {raw!r}") from exc
        if not 0.0 <= value <= 1.0:
            raise TuningError(f"{name} must lie in [0, 1], not {value}")
        parsed[name] = value
    return WorkerTuning(**parsed)
