"""Fit the heuristic judge's thresholds on the development eval data.

    .venv/bin/python bench/fit_heuristic_judge.py [--data PATH]

Procedure (docs/heuristic-judge.md):

1. Rows → items exactly as in ``bench/judge.py`` (gold rationale spans as evidence);
   deterministic split by SHA-256 of the claim group: 70 % train, 30 % held-out.
2. On train, for each row, the lead candidate (no blocking signal, highest coverage +
   similarity) gives features (coverage, similarity, uncovered words); a logistic
   regression (Newton, L2) maps them to P(SUPPORT).
3. Grid search on train over the two entailment routes (semantic: coverage floor +
   similarity floor; lexical: higher coverage floor + lower similarity floor) and the
   probability floor: among settings with train ``entailed`` precision ≥
   ``PRECISION_TARGET`` and at least ``MIN_ENTAILED`` entailed rows, the one with the
   highest recall (ties: higher Wilson lower bound, then the stricter floors).
4. Contradiction coverage floor: the lowest floor whose ``contradicted`` rows are
   non-SUPPORT at ≥ ``CONTRADICTED_TARGET`` on train; its rate (Laplace) is the
   confidence reported with ``contradicted``.
5. Prints the constants for ``verifier/judges/heuristic.py`` and held-out metrics as JSON.
"""

from __future__ import annotations

import argparse
import math
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # this checkout's packages

from bench._common import print_json
from bench.judge import DEFAULT_DATA, EvalRow, load_eval_rows, quality
from verifier.judges.heuristic import (
    UNCOVERED_CAP,
    Candidate,
    HeuristicJudge,
    HeuristicThresholds,
    decide,
)

PRECISION_TARGET = 0.90
WILSON_Z = 1.2816  # one-sided 90 %, reported
MIN_ENTAILED = 10
CONTRADICTED_TARGET = 0.80
L2 = 1.0
COVERAGE_GRID = np.round(np.arange(0.50, 1.0001, 0.05), 2)
SIMILARITY_GRID = np.round(np.arange(0.50, 0.9501, 0.025), 3)
LEXICAL_COVERAGE_GRID = np.round(np.arange(0.80, 1.0001, 0.05), 2)
LEXICAL_SIMILARITY_GRID = np.round(np.arange(0.40, 0.7501, 0.025), 3)
PROBABILITY_GRID = np.round(np.arange(0.30, 0.9501, 0.05), 2)
CONTRADICTION_GRID = np.round(np.arange(0.30, 1.0001, 0.05), 2)


def wilson_lower(successes: int, n: int, z: float = WILSON_Z) -> float:
    if n == 0:
        return 0.0
    p = successes / n
    denom = 1 + z * z / n
    centre = p + z * z / (2 * n)
    margin = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return (centre - margin) / denom


def lead(cands: list[Candidate]) -> Candidate | None:
    clean = [c for c in cands if not c.blockers and c.similarity is not None]
    return max(clean, key=lambda c: c.coverage + (c.similarity or 0.0), default=None)


def features(c: Candidate) -> list[float]:
    return [1.0, c.coverage, c.similarity or 0.0, float(min(len(c.comparison.uncovered), 4))]


def fit_logistic(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    w = np.zeros(x.shape[1])
    reg = np.eye(x.shape[1]) * L2
    reg[0, 0] = 0.0
    for _ in range(50):
        p = 1 / (1 + np.exp(-(x @ w)))
        grad = x.T @ (p - y) + reg @ w
        hess = (x * (p * (1 - p))[:, None]).T @ x + reg
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.abs(step).max() < 1e-8:
            break
    return w


def labels_for(
    rows: list[EvalRow], assessed: list[list[Candidate]], th: HeuristicThresholds
) -> list[str]:
    return [decide(r.item.key, c, th).label for r, c in zip(rows, assessed, strict=True)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    args = parser.parse_args()

    rows = load_eval_rows(args.data)
    judge = HeuristicJudge()
    assessed = judge.assess([r.item for r in rows], similarity_for_all=True)
    train = [i for i, r in enumerate(rows) if r.split == "fit"]
    heldout = [i for i, r in enumerate(rows) if r.split == "heldout"]

    # 2. logistic support probability
    fit_idx = [i for i in train if lead(assessed[i]) is not None]
    x = np.array([features(lead(assessed[i])) for i in fit_idx])  # type: ignore[arg-type]
    y = np.array([1.0 if rows[i].gold == "SUPPORT" else 0.0 for i in fit_idx])
    w = fit_logistic(x, y)
    base = replace(
        HeuristicThresholds(),
        logit_intercept=float(w[0]),
        logit_coverage=float(w[1]),
        logit_similarity=float(w[2]),
        logit_uncovered=float(w[3]),
    )

    # 3. entailment floors (vectorised over every clean candidate of every train row)
    train_rows = [rows[i] for i in train]
    train_assessed = [assessed[i] for i in train]
    owner, cov_a, sim_a, prob_a = [], [], [], []
    for row_no, cands in enumerate(train_assessed):
        for c in cands:
            if c.blockers or c.similarity is None:
                continue
            owner.append(row_no)
            cov_a.append(c.coverage)
            sim_a.append(c.similarity)
            prob_a.append(
                base.support_probability(c.coverage, c.similarity, len(c.comparison.uncovered))
            )
    owner_v, cov_v, sim_v, prob_v = map(np.array, (owner, cov_a, sim_a, prob_a))
    gold_v = np.array([r.gold == "SUPPORT" for r in train_rows])
    best: tuple[float, float, float, HeuristicThresholds] | None = None
    semantic: dict[tuple[float, float], np.ndarray] = {}
    for cov in COVERAGE_GRID:
        for sim in SIMILARITY_GRID:
            semantic[(float(cov), float(sim))] = (cov_v >= cov - 1e-9) & (sim_v >= sim - 1e-9)
    lexical: dict[tuple[float, float], np.ndarray] = {}
    for cov in LEXICAL_COVERAGE_GRID:
        for sim in LEXICAL_SIMILARITY_GRID:
            lexical[(float(cov), float(sim))] = (cov_v >= cov - 1e-9) & (sim_v >= sim - 1e-9)
    for pmin in PROBABILITY_GRID:
        prob_ok = prob_v >= pmin - 1e-9
        for (cov, sim), sem_ok in semantic.items():
            for (lcov, lsim), lex_ok in lexical.items():
                ok = prob_ok & (sem_ok | lex_ok)
                entailed = np.zeros(len(train_rows), dtype=bool)
                entailed[owner_v[ok]] = True
                n = int(entailed.sum())
                if n < MIN_ENTAILED:
                    continue
                tp = int((entailed & gold_v).sum())
                if tp / n < PRECISION_TARGET:
                    continue
                lower = wilson_lower(tp, n)
                key = (tp, lower, float(cov + sim + lcov + lsim + pmin))
                if best is None or key > best[:3]:
                    th = replace(
                        base,
                        coverage_floor=cov,
                        similarity_floor=sim,
                        lexical_coverage_floor=lcov,
                        lexical_similarity_floor=lsim,
                        entail_probability_min=float(pmin),
                    )
                    best = (*key, th)
    if best is None:
        raise SystemExit("no threshold triple reaches the precision target")
    fitted = best[3]

    # 4. contradiction floor
    chosen_contra = 1.0
    contra_conf = 0.5
    for floor in CONTRADICTION_GRID:
        th = replace(fitted, contradiction_coverage_min=float(floor))
        labels = labels_for(train_rows, train_assessed, th)
        flagged = [r for r, lab in zip(train_rows, labels, strict=True) if lab == "contradicted"]
        if not flagged:
            continue
        rate = (sum(r.gold != "SUPPORT" for r in flagged) + 1) / (len(flagged) + 2)
        if rate >= CONTRADICTED_TARGET:
            chosen_contra, contra_conf = float(floor), round(rate, 2)
            break
    fitted = replace(
        fitted, contradiction_coverage_min=chosen_contra, contradicted_confidence=contra_conf
    )

    held_rows = [rows[i] for i in heldout]
    report = {
        "constants": {
            "COVERAGE_FLOOR": fitted.coverage_floor,
            "SIMILARITY_FLOOR": fitted.similarity_floor,
            "LEXICAL_COVERAGE_FLOOR": fitted.lexical_coverage_floor,
            "LEXICAL_SIMILARITY_FLOOR": fitted.lexical_similarity_floor,
            "ENTAIL_PROBABILITY_MIN": fitted.entail_probability_min,
            "LOGIT_INTERCEPT": round(fitted.logit_intercept, 3),
            "LOGIT_COVERAGE": round(fitted.logit_coverage, 3),
            "LOGIT_SIMILARITY": round(fitted.logit_similarity, 3),
            "LOGIT_UNCOVERED": round(fitted.logit_uncovered, 3),
            "CONTRADICTION_COVERAGE_MIN": fitted.contradiction_coverage_min,
            "CONTRADICTED_CONFIDENCE": fitted.contradicted_confidence,
        },
        "uncovered_cap": UNCOVERED_CAP,
        "logistic_fit_rows": len(fit_idx),
        "train": quality(train_rows, labels_for(train_rows, train_assessed, fitted)),
        "heldout": quality(
            held_rows, labels_for(held_rows, [assessed[i] for i in heldout], fitted)
        ),
    }
    print_json(report)


if __name__ == "__main__":
    main()
