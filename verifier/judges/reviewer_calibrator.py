"""A calibrator that learns, per workspace and judge model, what the workspace's
reviewers decide: fitted on their decisions (a claim they marked supported or
contradicted, with the judge's reading of its span), it predicts P(a reviewer says
supported) from the judge's reading (``verifier.judges.reading``).

It decides only where its cross-validated precision reaches the floor:

* ``supported`` when P ≥ ``supported_threshold`` — the lowest threshold whose
  out-of-fold calls of "supported" are right often enough that the lower end of their
  95 % Wilson interval is ≥ the floor (a point estimate from 25 decisions would promise
  a precision the next claims do not get);
* ``contradicted`` when P ≤ ``contradicted_threshold`` — the same for "not supported";
* otherwise it says nothing and the judge's own answer stands.

A side the folds never bring to the floor gets no threshold: that side is never decided.
The model is a standardised logistic regression (scikit-learn) whose coefficients are
kept as plain numbers (``as_json`` / ``from_json``), so a stored calibrator is an
immutable, readable row and predicting needs numpy only. No Django imports.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from verifier.judges.metrics import ENTAIL_PRECISION_FLOOR, ranking_auc

MIN_DECISIONS = 20  # fewer human decisions than this: nothing to learn from
MIN_PER_CLASS = 5  # and at least this many of each answer
MIN_CALLS = 5  # a threshold that decides fewer out-of-fold rows than this says nothing
WILSON_Z = 1.645  # one-sided 95 %: the precision's lower bound must reach the floor
FOLDS = 5
REGULARIZATION_C = 0.5
GRID = tuple(round(0.01 * i, 2) for i in range(1, 100))


@dataclass(frozen=True)
class Calibrator:
    feature_names: tuple[str, ...]
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    coef: tuple[float, ...]
    intercept: float
    supported_threshold: float | None  # None: never says supported
    contradicted_threshold: float | None  # None: never says contradicted
    floor: float
    figures: dict[str, Any] = field(default_factory=dict)

    def probabilities(self, rows: np.ndarray) -> np.ndarray:
        """P(a reviewer says supported) per row (columns in ``feature_names`` order)."""
        x = (np.asarray(rows, dtype=np.float64) - np.asarray(self.mean)) / np.asarray(self.scale)
        z = x @ np.asarray(self.coef) + self.intercept
        return np.asarray(1.0 / (1.0 + np.exp(-z)))

    def decisions(self, rows: np.ndarray) -> list[str | None]:
        """``"supported"``, ``"contradicted"`` or None (the judge's answer stands)."""
        out: list[str | None] = []
        for p in self.probabilities(rows):
            if self.supported_threshold is not None and p >= self.supported_threshold:
                out.append("supported")
            elif self.contradicted_threshold is not None and p <= self.contradicted_threshold:
                out.append("contradicted")
            else:
                out.append(None)
        return out

    @property
    def decides_anything(self) -> bool:
        return self.supported_threshold is not None or self.contradicted_threshold is not None

    def as_json(self) -> dict[str, Any]:
        return {
            "feature_names": list(self.feature_names),
            "mean": list(self.mean),
            "scale": list(self.scale),
            "coef": list(self.coef),
            "intercept": self.intercept,
            "supported_threshold": self.supported_threshold,
            "contradicted_threshold": self.contradicted_threshold,
            "floor": self.floor,
            "figures": self.figures,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Calibrator:
        return cls(
            feature_names=tuple(data["feature_names"]),
            mean=tuple(float(v) for v in data["mean"]),
            scale=tuple(float(v) for v in data["scale"]),
            coef=tuple(float(v) for v in data["coef"]),
            intercept=float(data["intercept"]),
            supported_threshold=_optional(data.get("supported_threshold")),
            contradicted_threshold=_optional(data.get("contradicted_threshold")),
            floor=float(data["floor"]),
            figures=dict(data.get("figures") or {}),
        )


def _optional(value: Any) -> float | None:
    return None if value is None else float(value)


class NotEnoughDecisions(ValueError):
    """Too few human decisions (or of one answer only) to fit anything."""


def _model(seed: int) -> Any:
    from sklearn.linear_model import LogisticRegression

    return LogisticRegression(C=REGULARIZATION_C, max_iter=2000, random_state=seed)


def _standardize(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    mean = rows.mean(axis=0)
    scale = rows.std(axis=0)
    scale[scale < 1e-9] = 1.0
    return (rows - mean) / scale, mean, scale


def out_of_fold(rows: np.ndarray, supported: np.ndarray, *, seed: int) -> np.ndarray:
    """P(supported) for each row from a model that never saw it (stratified folds)."""
    from sklearn.model_selection import StratifiedKFold

    folds = min(FOLDS, int(supported.sum()), int((~supported).sum()))
    p = np.zeros(len(rows), dtype=np.float64)
    for train, test in StratifiedKFold(folds, shuffle=True, random_state=seed).split(
        rows, supported
    ):
        x, mean, scale = _standardize(rows[train])
        model = _model(seed).fit(x, supported[train])
        p[test] = model.predict_proba((rows[test] - mean) / scale)[:, 1]
    return p


def wilson_lower(successes: int, n: int, z: float = WILSON_Z) -> float:
    """The lower end of the Wilson score interval of a proportion: how low the true
    precision may be, given ``successes`` right out of ``n`` calls."""
    if n == 0:
        return 0.0
    p = successes / n
    centre = p + z * z / (2 * n)
    spread = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return (centre - spread) / (1 + z * z / n)


def _threshold(
    p: np.ndarray, right: np.ndarray, floor: float, *, supported_side: bool
) -> tuple[float | None, dict[str, Any]]:
    """The widest threshold (lowest for "supported", highest for "contradicted") whose
    out-of-fold calls are right often enough that even the lower end of their Wilson
    interval reaches ``floor``: a calibrator fitted on few decisions decides little or
    nothing rather than guess."""
    grid = GRID if supported_side else tuple(reversed(GRID))
    for t in grid:
        called = p >= t if supported_side else p <= t
        n = int(called.sum())
        if n < MIN_CALLS:
            break
        hits = int(right[called].sum())
        lower = wilson_lower(hits, n)
        if lower >= floor:
            return t, {
                "precision": round(hits / n, 4),
                "precision_lower_bound": round(lower, 4),
                "recall": round(hits / max(int(right.sum()), 1), 4),
                "calls": n,
            }
    return None, {}


def fit_calibrator(
    rows: np.ndarray,
    supported: Sequence[bool],
    feature_names: Sequence[str],
    *,
    floor: float = ENTAIL_PRECISION_FLOOR,
    seed: int = 0,
) -> Calibrator:
    """Fit on the reviewers' decisions (``supported``: True where a reviewer said
    supported, False where contradicted); thresholds from out-of-fold predictions.
    Raises :class:`NotEnoughDecisions` below ``MIN_DECISIONS`` or ``MIN_PER_CLASS``."""
    rows = np.asarray(rows, dtype=np.float64)
    labels = np.asarray(supported, dtype=bool)
    n_sup, n_not = int(labels.sum()), int((~labels).sum())
    if len(labels) < MIN_DECISIONS or min(n_sup, n_not) < MIN_PER_CLASS:
        raise NotEnoughDecisions(
            f"{len(labels)} decisions ({n_sup} supported, {n_not} contradicted); "
            f"a calibrator needs {MIN_DECISIONS}, with {MIN_PER_CLASS} of each"
        )
    oof = out_of_fold(rows, labels, seed=seed)
    sup_t, sup_figures = _threshold(oof, labels, floor, supported_side=True)
    con_t, con_figures = _threshold(oof, ~labels, floor, supported_side=False)
    x, mean, scale = _standardize(rows)
    model = _model(seed).fit(x, labels)

    return Calibrator(
        feature_names=tuple(feature_names),
        mean=tuple(float(v) for v in mean),
        scale=tuple(float(v) for v in scale),
        coef=tuple(float(v) for v in model.coef_[0]),
        intercept=float(model.intercept_[0]),
        supported_threshold=sup_t,
        contradicted_threshold=con_t,
        floor=floor,
        figures={
            "decisions": len(labels),
            "supported": n_sup,
            "contradicted": n_not,
            "cv_roc_auc": round(ranking_auc(oof, labels), 4),
            "cv_supported": sup_figures,
            "cv_contradicted": con_figures,
            "folds": min(FOLDS, n_sup, n_not),
        },
    )


def combine(judge_label: str, decision: str | None) -> str:
    """The label a claim gets: the calibrator's where it decides, else the judge's."""
    if decision == "supported":
        return "entailed"
    if decision == "contradicted":
        return "contradicted"
    return judge_label
