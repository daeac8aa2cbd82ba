"""SR-MKG (seed 004, Layer 1): a topological score for a candidate relation. No LLM,
no network, no Django.

    score = w_base * base_confidence
          + w_jaccard * jaccard(common, deg_a + deg_b - common)
          + w_type_boost * [relation type is named, not related_to / unknown]
          - penalty_isolated * [an endpoint is isolated]

``score >= threshold_accept`` → accept, ``score < threshold_reject`` → reject, else the
relation is borderline and goes to VoG. With a calibration the score is instead the
sigmoid of the learned linear combination of the same four components.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any, Final, Literal

Decision = Literal["accept", "reject", "vog"]
UNNAMED_TYPES: Final = frozenset({"related_to", "unknown", ""})
COMPONENTS: Final = ("base", "jaccard", "type_boost", "isolated")


@dataclass(frozen=True)
class VerificationSettings:
    """Every weight and threshold of seed 004, with its defaults. Keys in a workspace's
    settings carry the seed's names (``srmkg_w_base``, ``vog_max_candidates``, ...)."""

    srmkg_w_base: float = 0.4
    srmkg_w_jaccard: float = 0.4
    srmkg_w_type_boost: float = 0.05
    srmkg_penalty_isolated: float = 0.3
    srmkg_threshold_accept: float = 0.7
    srmkg_threshold_reject: float = 0.3
    vog_max_candidates: int = 30
    srmkg_log_decisions: bool = True
    chunk_vector_threshold_accept: float = 0.7
    chunk_vector_threshold_reject: float = 0.3

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any] | None) -> VerificationSettings:
        """Settings from a workspace mapping; a key that is present wins, even when its
        value is 0 or False (only a missing key or ``None`` falls back to the default).
        A value of the wrong kind raises ``ValueError`` naming the setting and the value."""
        values = values or {}
        chosen: dict[str, Any] = {}
        for field in fields(cls):
            if values.get(field.name) is None:
                continue
            chosen[field.name] = _setting_value(field.name, str(field.type), values[field.name])
        settings = cls(**chosen)
        if settings.srmkg_threshold_reject > settings.srmkg_threshold_accept:
            raise ValueError("srmkg_threshold_reject must not exceed srmkg_threshold_accept")
        if settings.chunk_vector_threshold_reject > settings.chunk_vector_threshold_accept:
            raise ValueError(
                "chunk_vector_threshold_reject must not exceed chunk_vector_threshold_accept"
            )
        if settings.vog_max_candidates < 0:
            raise ValueError("vog_max_candidates must be >= 0")
        return settings


def _setting_value(name: str, kind: str, raw: Any) -> bool | int | float:
    """``raw`` as a setting of ``kind``: a bool is a real bool or the string "true" /
    "false"; a number is a finite int or float, or a string of one (an int setting
    takes whole numbers only). ``bool(raw)`` read "false" as true, and ``float(raw)``
    failed without naming the setting."""
    if kind == "bool":
        if isinstance(raw, bool):
            return raw
        if isinstance(raw, str) and raw.strip().lower() in ("true", "false"):
            return raw.strip().lower() == "true"
        raise ValueError(f"{name}={raw!r}: expected true or false")
    number: float | None = None
    if isinstance(raw, (int, float)) and not isinstance(raw, bool):
        number = float(raw)
    elif isinstance(raw, str):
        try:
            number = float(raw.strip())
        except ValueError:
            number = None
    if number is None or not math.isfinite(number):
        raise ValueError(f"{name}={raw!r}: expected a number")
    if kind == "int":
        if not number.is_integer():
            raise ValueError(f"{name}={raw!r}: expected a whole number")
        return int(number)
    return number


@dataclass(frozen=True)
class Components:
    """The raw breakdown logged with every decision and used by calibration."""

    base: float
    jaccard: float
    type_boost: float
    isolated: float

    def as_dict(self) -> dict[str, float]:
        return {name: getattr(self, name) for name in COMPONENTS}

    def vector(self) -> list[float]:
        return [getattr(self, name) for name in COMPONENTS]


@dataclass(frozen=True)
class Calibration:
    """Learned weights (one per component) and bias; the score is their sigmoid."""

    weights: Mapping[str, float]
    bias: float
    version: int = 0

    def score(self, components: Components) -> float:
        z = self.bias + sum(self.weights.get(n, 0.0) * v for n, v in components.as_dict().items())
        return sigmoid(z)


def sigmoid(z: float) -> float:
    if z >= 0:
        return 1.0 / (1.0 + math.exp(-z))
    e = math.exp(z)
    return e / (1.0 + e)


def is_named_type(relation_type: str) -> bool:
    return relation_type.strip().lower() not in UNNAMED_TYPES


def components(
    *,
    base_confidence: float,
    relation_type: str,
    neighbours_a: set[Any] | frozenset[Any],
    neighbours_b: set[Any] | frozenset[Any],
) -> Components:
    """Components of a candidate relation between endpoints with these neighbour sets."""
    common = len(neighbours_a & neighbours_b)
    denominator = len(neighbours_a) + len(neighbours_b) - common
    return Components(
        base=float(base_confidence),
        jaccard=common / denominator if denominator else 0.0,
        type_boost=1.0 if is_named_type(relation_type) else 0.0,
        isolated=1.0 if not neighbours_a or not neighbours_b else 0.0,
    )


def heuristic_score(parts: Components, settings: VerificationSettings) -> float:
    return (
        settings.srmkg_w_base * parts.base
        + settings.srmkg_w_jaccard * parts.jaccard
        + settings.srmkg_w_type_boost * parts.type_boost
        - settings.srmkg_penalty_isolated * parts.isolated
    )


def score(
    parts: Components, settings: VerificationSettings, calibration: Calibration | None = None
) -> float:
    """The SR-MKG score: calibrated when a calibration is given, else heuristic."""
    if calibration is not None:
        return calibration.score(parts)
    return heuristic_score(parts, settings)


def decide(value: float, settings: VerificationSettings) -> Decision:
    if value >= settings.srmkg_threshold_accept:
        return "accept"
    if value < settings.srmkg_threshold_reject:
        return "reject"
    return "vog"
