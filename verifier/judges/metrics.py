"""What a judge is measured and calibrated by, on development rows: ROC AUC, balanced
accuracy, the temperature of a softmax, and the decision thresholds.

One copy of each rule for every judge that is fitted here (the feature MLP's trainer, the
cross-encoder trainer, the per-model calibration of any local NLI model). Plain numpy and
the standard library only: the cross-encoder trainer imports it on an accelerator machine
that has nothing else of ours installed. No Django imports.
"""

from __future__ import annotations

import math

import numpy as np

# ``entailed`` must be right this often on the development rows (the threshold is chosen
# for precision first); the state policy's own confidence floor is 0.5.
ENTAIL_PRECISION_FLOOR = 0.88
CONTRADICTION_PRECISION_FLOOR = 0.9
THRESHOLD_GRID = tuple(round(0.50 + 0.01 * i, 2) for i in range(49))  # 0.50 … 0.98
MIN_DECISIONS = 5  # a threshold that decides fewer rows than this says nothing
NO_THRESHOLD = 0.99  # no threshold reached the floor: the label is (almost) never given
TEMPERATURE_RANGE = (0.05, 20.0)


def ranking_auc(score: np.ndarray, positive: np.ndarray) -> float:
    """Area under the ROC curve of ``score`` for ``positive`` (rank statistic, ties in
    input order)."""
    score = np.asarray(score, dtype=np.float64)
    positive = np.asarray(positive, dtype=bool)
    order = np.argsort(score, kind="mergesort")
    ranks = np.empty(len(score))
    ranks[order] = np.arange(1, len(score) + 1)
    n_pos, n_neg = int(positive.sum()), int((~positive).sum())
    if not n_pos or not n_neg:
        return 0.5
    return float((ranks[positive].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg))


def balanced_accuracy(predicted: np.ndarray, positive: np.ndarray) -> float:
    predicted = np.asarray(predicted, dtype=bool)
    positive = np.asarray(positive, dtype=bool)
    tpr = (predicted & positive).sum() / max(positive.sum(), 1)
    tnr = (~predicted & ~positive).sum() / max((~positive).sum(), 1)
    return float((tpr + tnr) / 2)


def choose_entail_threshold(
    p: np.ndarray, positive: np.ndarray, *, floor: float = ENTAIL_PRECISION_FLOOR
) -> tuple[float, float, float]:
    """(threshold, balanced accuracy, precision): the threshold on P(entailed) that
    maximises balanced accuracy with precision ≥ ``floor``; the highest-precision one
    when none reaches it. From 0.5 up: the reported confidence is this probability and
    the state policy's default confidence floor is 0.5."""
    p = np.asarray(p, dtype=np.float64)
    positive = np.asarray(positive, dtype=bool)
    best: tuple[float, float, float] | None = None
    fallback = (NO_THRESHOLD, 0.0, 0.0)
    for t in THRESHOLD_GRID:
        predicted = p >= t
        if predicted.sum() < MIN_DECISIONS:
            continue
        precision = float((predicted & positive).sum() / predicted.sum())
        ba = balanced_accuracy(predicted, positive)
        if precision > fallback[2]:
            fallback = (t, ba, precision)
        if precision >= floor and (best is None or ba > best[1]):
            best = (t, ba, precision)
    return best or fallback


def choose_contradict_threshold(
    p: np.ndarray, not_supported: np.ndarray, *, floor: float = CONTRADICTION_PRECISION_FLOOR
) -> float:
    """The lowest threshold on P(contradiction) whose ``contradicted`` calls fall on rows
    that are not supported at least ``floor`` of the time."""
    p = np.asarray(p, dtype=np.float64)
    not_supported = np.asarray(not_supported, dtype=bool)
    for t in THRESHOLD_GRID:
        predicted = p >= t
        if predicted.sum() < MIN_DECISIONS:
            break
        if not_supported[predicted].mean() >= floor:
            return t
    return NO_THRESHOLD


def softmax(logits: np.ndarray, temperature: float = 1.0) -> np.ndarray:
    z = np.asarray(logits, dtype=np.float64) / temperature
    z = z - z.max(axis=-1, keepdims=True)
    e = np.exp(z)
    return np.asarray(e / e.sum(axis=-1, keepdims=True))


def _nll(logits: np.ndarray, gold: np.ndarray, temperature: float) -> float:
    p = softmax(logits, temperature)
    return float(-np.log(np.clip(p[np.arange(len(gold)), gold], 1e-12, 1.0)).mean())


def fit_temperature(logits: np.ndarray, gold: np.ndarray) -> float:
    """The temperature T minimising the negative log-likelihood of ``gold`` (class
    indices) under softmax(logits / T): a golden-section search over log T."""
    logits = np.asarray(logits, dtype=np.float64)
    gold = np.asarray(gold, dtype=np.int64)
    if len(gold) == 0:
        return 1.0
    lo, hi = math.log(TEMPERATURE_RANGE[0]), math.log(TEMPERATURE_RANGE[1])
    ratio = (math.sqrt(5) - 1) / 2
    a, b = hi - ratio * (hi - lo), lo + ratio * (hi - lo)
    fa, fb = _nll(logits, gold, math.exp(a)), _nll(logits, gold, math.exp(b))
    for _ in range(60):
        if fa <= fb:
            hi, b, fb = b, a, fa
            a = hi - ratio * (hi - lo)
            fa = _nll(logits, gold, math.exp(a))
        else:
            lo, a, fa = a, b, fb
            b = lo + ratio * (hi - lo)
            fb = _nll(logits, gold, math.exp(b))
    return float(math.exp((lo + hi) / 2))
