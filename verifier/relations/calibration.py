"""Per-workspace SR-MKG calibration (seed 004): an L2-regularised logistic regression
on the logged components (base, jaccard, type_boost, isolated) → the final
accept / reject label, fitted by full-batch gradient descent, with a held-out ROC-AUC.

Honesty rules: refuse with fewer than ``min_samples`` rows or a single class; report
``auc`` (on the held-out slice only; ``None`` when that slice has one class) and
``n_train``.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

import numpy as np

from verifier.errors import ApplicationError
from verifier.relations.srmkg import COMPONENTS

DEFAULT_MIN_SAMPLES: Final = 50
DEFAULT_TEST_FRACTION: Final = 0.2
DEFAULT_L2: Final = 1.0
DEFAULT_LR: Final = 0.1
DEFAULT_EPOCHS: Final = 500
DEFAULT_SEED: Final = 0


class CalibrationRefused(ApplicationError, ValueError):
    """Training would be dishonest (too few rows, one class)."""

    def __init__(self, message: str) -> None:
        super().__init__("calibration_refused", message)


@dataclass(frozen=True)
class CalibrationResult:
    weights: dict[str, float]
    bias: float
    auc: float | None
    n_train: int
    n_test: int
    train_auc: float | None

    def as_dict(self) -> dict[str, object]:
        return {
            "weights": self.weights,
            "bias": self.bias,
            "auc": self.auc,
            "n_train": self.n_train,
            "n_test": self.n_test,
            "train_auc": self.train_auc,
        }


def roc_auc(scores: Sequence[float], labels: Sequence[int]) -> float | None:
    """ROC-AUC as the Mann–Whitney statistic (ties count half); None with one class."""
    s = np.asarray(scores, dtype=float)
    y = np.asarray(labels, dtype=int)
    n_pos = int((y == 1).sum())
    n_neg = int((y == 0).sum())
    if n_pos == 0 or n_neg == 0:
        return None
    order = np.argsort(s, kind="mergesort")
    ranks = np.empty(len(s), dtype=float)
    sorted_s = s[order]
    i = 0
    while i < len(s):
        j = i
        while j + 1 < len(s) and sorted_s[j + 1] == sorted_s[i]:
            j += 1
        ranks[order[i : j + 1]] = (i + j) / 2.0 + 1.0
        i = j + 1
    rank_sum = float(ranks[y == 1].sum())
    return (rank_sum - n_pos * (n_pos + 1) / 2.0) / (n_pos * n_neg)


def fit_logistic(
    x: np.ndarray, y: np.ndarray, *, l2: float, lr: float, epochs: int
) -> tuple[np.ndarray, float]:
    """Weights and bias minimising mean log-loss + (l2 / 2n)·|w|² (bias unpenalised).

    Gradient descent runs on standardised features (a component that is nearly
    constant would otherwise act as a second intercept and, with few epochs, take the
    class prior's sign); the result is mapped back to weights on the raw components.
    A constant component gets weight 0."""
    n, d = x.shape
    mean = x.mean(axis=0)
    sd = x.std(axis=0)
    live = sd > 1e-12
    z = np.zeros_like(x)
    z[:, live] = (x[:, live] - mean[live]) / sd[live]
    w = np.zeros(d)
    b = 0.0
    for _ in range(epochs):
        p = 1.0 / (1.0 + np.exp(-(z @ w + b)))
        error = p - y
        w -= lr * (z.T @ error / n + (l2 / n) * w)
        b -= lr * float(error.mean())
    raw = np.zeros(d)
    raw[live] = w[live] / sd[live]
    return raw, b - float((raw * mean).sum())


def split(n: int, test_fraction: float, seed: int) -> tuple[list[int], list[int]]:
    """(train indices, test indices): a seeded shuffle, at least one row in each."""
    indices = list(range(n))
    random.Random(seed).shuffle(indices)
    n_test = min(n - 1, max(1, round(n * test_fraction))) if test_fraction > 0 else 0
    return indices[n_test:], indices[:n_test]


def calibrate(
    rows: Sequence[Sequence[float]],
    labels: Sequence[int],
    *,
    min_samples: int = DEFAULT_MIN_SAMPLES,
    test_fraction: float = DEFAULT_TEST_FRACTION,
    l2: float = DEFAULT_L2,
    lr: float = DEFAULT_LR,
    epochs: int = DEFAULT_EPOCHS,
    seed: int = DEFAULT_SEED,
) -> CalibrationResult:
    """Fit on a (1 − test_fraction) slice, report ROC-AUC on the rest. ``rows`` are
    component vectors in ``COMPONENTS`` order, ``labels`` 1 = accept, 0 = reject."""
    if len(rows) != len(labels):
        raise ValueError("rows and labels differ in length")
    if not 0.0 <= test_fraction < 1.0:
        raise ValueError("test_fraction must be in [0, 1)")
    if len(rows) < min_samples:
        raise CalibrationRefused(f"{len(rows)} decisions; at least {min_samples} are required")
    y_all = np.asarray(labels, dtype=float)
    if len(set(y_all.tolist())) < 2:
        raise CalibrationRefused("only one class in the decisions; calibration would be degenerate")
    x_all = np.asarray(rows, dtype=float).reshape(len(rows), len(COMPONENTS))
    train, test = split(len(rows), test_fraction, seed)
    x_train, y_train = x_all[train], y_all[train]
    if len(set(y_train.tolist())) < 2:
        raise CalibrationRefused("only one class in the training slice")
    w, b = fit_logistic(x_train, y_train, l2=l2, lr=lr, epochs=epochs)
    auc = (
        roc_auc((x_all[test] @ w + b).tolist(), y_all[test].astype(int).tolist()) if test else None
    )
    train_auc = roc_auc((x_train @ w + b).tolist(), y_train.astype(int).tolist())
    return CalibrationResult(
        weights={name: float(v) for name, v in zip(COMPONENTS, w, strict=True)},
        bias=float(b),
        auc=auc,
        n_train=len(train),
        n_test=len(test),
        train_auc=train_auc,
    )
