"""Per-model calibration: a temperature and two thresholds, fitted on development rows
and kept in a small JSON file beside the model (or where ``SPANPROOF_JUDGE_CALIBRATION``
points).

A model's outputs become three probabilities in ``labels.ROLES`` order (entailed,
neutral, contradicted): softmax(logits / T) summed by role, or for a single-output model
sigmoid(logit / T) as P(entailed). The judge says ``entailed`` when P(entailed) reaches
``entail_threshold``, else ``contradicted`` when P(contradicted) reaches
``contradict_threshold``, else abstains. Without a fitted file the model's own argmax
probabilities are used at 0.5 (``Calibration()``), which is honest but uncalibrated.

Pure numpy (the rules themselves live in ``verifier.judges.metrics``). No Django imports.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from verifier.judges.cross_encoder.labels import ROLES, LabelMap
from verifier.judges.metrics import (
    choose_contradict_threshold,
    choose_entail_threshold,
    fit_temperature,
    ranking_auc,
    softmax,
)

CALIBRATION_FILE = "spanproof-calibration.json"
GOLD_ROLE = {"SUPPORT": "entailed", "NOINFO": "neutral", "CONTRADICT": "contradicted"}


class CalibrationError(ValueError):
    """A calibration file that cannot be read or holds impossible values."""


@dataclass(frozen=True)
class Calibration:
    temperature: float = 1.0
    entail_threshold: float = 0.5
    contradict_threshold: float = 0.5
    fitted: bool = False
    details: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not (math.isfinite(self.temperature) and self.temperature > 0):
            raise CalibrationError(f"temperature must be positive, not {self.temperature!r}")
        for name in ("entail_threshold", "contradict_threshold"):
            value = getattr(self, name)
            if not (math.isfinite(value) and 0.0 < value <= 1.0):
                raise CalibrationError(f"{name} must be in (0, 1], not {value!r}")


def load_calibration(path: Path) -> Calibration:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise CalibrationError(f"cannot read calibration {path}: {exc}") from None
    if not isinstance(data, dict):
        raise CalibrationError(f"calibration {path} is not a JSON object")
    try:
        return Calibration(
            temperature=float(data["temperature"]),
            entail_threshold=float(data["entail_threshold"]),
            contradict_threshold=float(data["contradict_threshold"]),
            fitted=True,
            details=dict(data.get("details") or {}),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise CalibrationError(f"calibration {path} lacks or mangles {exc}") from None


def save_calibration(path: Path, calibration: Calibration) -> None:
    data = asdict(calibration)
    data.pop("fitted")
    path.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")


def _as_two_way(logits: np.ndarray) -> np.ndarray:
    """A single logit z as the pair [0, z]: softmax of it is [1 - sigmoid(z), sigmoid(z)]."""
    return np.concatenate([np.zeros_like(logits), logits], axis=1)


def _model_roles(labels: LabelMap) -> tuple[str, ...]:
    return ("neutral", "entailed") if labels.size == 1 else labels.roles


def role_probabilities(logits: np.ndarray, labels: LabelMap, temperature: float) -> np.ndarray:
    """(n, 3) probabilities of entailed / neutral / contradicted."""
    logits = np.asarray(logits, dtype=np.float64).reshape(len(logits), -1)
    if labels.size == 1:
        logits = _as_two_way(logits)
    p = softmax(logits, temperature)
    out = np.zeros((len(p), len(ROLES)), dtype=np.float64)
    for index, role in enumerate(_model_roles(labels)):
        out[:, ROLES.index(role)] += p[:, index]
    return out


def _gold_outputs(gold: list[str], labels: LabelMap) -> np.ndarray:
    """Each gold label as the model output that stands for its role (a model without a
    contradiction output reads CONTRADICT as not entailed)."""
    roles = _model_roles(labels)
    out = []
    for g in gold:
        role = GOLD_ROLE[g]
        if role not in roles:
            role = "neutral"
        out.append(roles.index(role))
    return np.asarray(out, dtype=np.int64)


def fit_calibration(
    lead_logits: np.ndarray, gold: list[str], labels: LabelMap, *, details: dict[str, Any]
) -> Calibration:
    """Temperature (NLL of each row's leading window), then the thresholds on the
    calibrated probabilities. ``lead_logits``: per row, the raw outputs of the window
    most likely entailed; ``gold``: SUPPORT / NOINFO / CONTRADICT per row."""
    logits = np.asarray(lead_logits, dtype=np.float64).reshape(len(gold), -1)
    fit_logits = _as_two_way(logits) if labels.size == 1 else logits
    temperature = fit_temperature(fit_logits, _gold_outputs(gold, labels))
    probabilities = role_probabilities(logits, labels, temperature)
    positive = np.asarray([g == "SUPPORT" for g in gold])
    entail_t, ba, precision = choose_entail_threshold(probabilities[:, 0], positive)
    contradict_t = choose_contradict_threshold(probabilities[:, 2], ~positive)
    return Calibration(
        temperature=round(temperature, 4),
        entail_threshold=entail_t,
        contradict_threshold=contradict_t,
        fitted=True,
        details={
            **details,
            "rows": len(gold),
            "roc_auc_entailed": round(ranking_auc(probabilities[:, 0], positive), 4),
            "balanced_accuracy": round(ba, 4),
            "entailed_precision": round(precision, 4),
        },
    )
