"""A calibrator that learns, per workspace and judge model, what the workspace's
reviewers decide: fitted on their decisions (a claim they marked supported or
contradicted, with the judge's reading of its span), it predicts P(a reviewer says
supported) from the judge's reading (``verifier.judges.reading``).

It decides only where its cross-validated precision reaches the floor:

* ``supported`` when P ≥ ``supported_threshold`` — the lowest threshold whose
  out-of-fold precision for "supported" is ≥ the floor (its one-sided 95 % lower
  bound, ``CONFIDENCE_Z``);
* ``contradicted`` when P ≤ ``contradicted_threshold`` — the highest threshold whose
  out-of-fold precision for "not supported" is ≥ the floor (the same way);
* otherwise it says nothing and the judge's own answer stands.

A side the folds never bring to the floor gets no threshold: that side is never decided.
The two thresholds never overlap: where the first of each would (decisive decisions
leave the middle range empty), the overlap is split at its middle, each side keeping
the half next to its own decisions.

How a decision meets the judge's answer (``combine``, ``calibrated_answers``): where the
judge did not decide (it abstained, or leaned below the state policy's confidence floor)
the calibrator's decision is the answer; where the judge decided, the calibrator never
overrules it: an agreeing decision changes nothing, and an opposite one turns the answer
into an abstention marked ``judge_reviewers_disagree`` (a person decides) only where the
calibrator has earned it (``may_overrule``); otherwise the judge's answer stands. A judge
that gave no answer (a coverage gap, no evidence) is never decided for.

Earning an overrule (``cv_overrule`` in the figures): the thresholds are chosen on all the
decisions, most of which the judge may have left open, so their precision says nothing
about sending back a claim the judge *decided*. Per answer of the judge (``entailed``,
``contradicted``), the out-of-fold figures count the decisions where the judge decided
that answer, how often the calibrator decided the other way (``disagreed``) and how
often the reviewers sided with it there (``sided_with_calibrator``). The calibrator may
overrule that answer only where it disagreed on at least ``MIN_OVERRULES`` decisions and
the reviewers sided with it on at least the floor's share of them. A calibrator fitted on
a narrow set of decisions (reviewers who decided mostly claims the judge left open) has
no such evidence, so it decides where the judge abstained and leaves the judge's
decisions alone; a stored calibrator without these figures never overrules.
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

from verifier.judges.base import JudgeResult
from verifier.judges.metrics import ENTAIL_PRECISION_FLOOR, ranking_auc
from verifier.judges.reading import ANSWER_FEATURES
from verifier.states import DEFAULT_POLICY, JUDGE_REVIEWERS_DISAGREE_NOTE

MIN_DECISIONS = 20  # fewer human decisions than this: nothing to learn from
MIN_PER_CLASS = 5  # and at least this many of each answer
MIN_CALLS = 5  # a threshold that decides fewer out-of-fold rows than this says nothing
# A calibrator may overrule an answer the judge decided (send the claim back to the queue:
# "the judge and the reviewers disagree") only where, out of fold, it decided the other way
# on at least this many decisions where the judge gave that answer, the reviewers siding
# with it on at least the floor's share of them. Fewer: it never overrules that answer.
MIN_OVERRULES = 10
OVERRULE_LABELS = ("entailed", "contradicted")  # the judge's deciding answers
FOLDS = 5
REGULARIZATION_C = 0.5
GRID = tuple(round(0.01 * i, 2) for i in range(1, 100))
# A threshold is taken only where the lower end of the one-sided 95 % Wilson interval of
# its out-of-fold precision reaches the floor, not the point estimate: scanning 99
# thresholds for the first whose few calls happen to be right picks luck (on the eval
# claims, a point-estimate threshold fell below the floor out of sample in up to 5 of 5
# draws). With every call right it takes 20 calls to clear 0.88.
CONFIDENCE_Z = 1.645


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
        return [
            _decision(float(p), self.supported_threshold, self.contradicted_threshold)
            for p in self.probabilities(rows)
        ]

    def may_overrule(self, judge_label: str) -> bool:
        """Whether a decision against the judge's decided ``judge_label`` sends the claim
        back to the queue (module docstring: earning an overrule). False for a stored
        calibrator fitted before these figures existed."""
        return may_overrule(self.figures, judge_label)

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


def overrule_figures(figures: Mapping[str, Any], judge_label: str) -> dict[str, Any]:
    """The out-of-fold overrule figures of the judge's decided ``judge_label`` (empty for
    a calibrator fitted before they were recorded)."""
    side = (figures.get("cv_overrule") or {}).get(judge_label)
    return dict(side) if isinstance(side, Mapping) else {}


def may_overrule(figures: Mapping[str, Any], judge_label: str) -> bool:
    """Whether figures ``figures`` let a calibrator overrule the judge's decided
    ``judge_label`` (only an explicit ``may_overrule: true`` does)."""
    return overrule_figures(figures, judge_label).get("may_overrule") is True


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


def precision_lower_bound(hits: int, calls: int, *, z: float = CONFIDENCE_Z) -> float:
    """The lower end of the Wilson score interval of ``hits`` right out of ``calls``
    (the point estimate when ``z`` is 0)."""
    if calls <= 0:
        return 0.0
    p = hits / calls
    centre = p + z * z / (2 * calls)
    spread = z * math.sqrt(p * (1 - p) / calls + z * z / (4 * calls * calls))
    return (centre - spread) / (1 + z * z / calls)


def _threshold(
    p: np.ndarray,
    right: np.ndarray,
    floor: float,
    *,
    z: float,
    supported_side: bool,
    beyond: float | None = None,
) -> tuple[float | None, dict[str, Any]]:
    """The first threshold, scanning from the side that decides most, whose calls are
    right (``right``: the rows where this side's call would be right) with a precision
    whose lower bound reaches ``floor``; only thresholds strictly ``beyond`` the other
    side's (above it for supported, below it for contradicted) when given."""
    grid = GRID if supported_side else tuple(reversed(GRID))
    if beyond is not None:
        grid = tuple(t for t in grid if (t > beyond if supported_side else t < beyond))
    for t in grid:
        called = p >= t if supported_side else p <= t
        calls = int(called.sum())
        if calls < MIN_CALLS:
            break
        hits = int((called & right).sum())
        if precision_lower_bound(hits, calls, z=z) >= floor:
            return t, {
                "precision": round(hits / calls, 4),
                "precision_lower_bound": round(precision_lower_bound(hits, calls, z=z), 4),
                "recall": round(hits / max(int(right.sum()), 1), 4),
                "calls": calls,
            }
    return None, {}


def fit_calibrator(
    rows: np.ndarray,
    supported: Sequence[bool],
    feature_names: Sequence[str],
    *,
    floor: float = ENTAIL_PRECISION_FLOOR,
    seed: int = 0,
    decided_floor: float = DEFAULT_POLICY.confidence_floor,
    z: float = CONFIDENCE_Z,
) -> Calibrator:
    """Fit on the reviewers' decisions (``supported``: True where a reviewer said
    supported, False where contradicted); thresholds from out-of-fold predictions, each
    the first whose precision's lower bound (``z``) reaches ``floor``.
    The figures include the point of the calibrator's curve on these decisions, out of
    fold: the abstention and ``entailed`` precision of the judge alone and of the judge
    with the calibrator (``decided_floor``: the state policy's confidence floor, below
    which a judge's answer decides nothing).
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
    sup_t, sup_figures = _threshold(oof, labels, floor, z=z, supported_side=True)
    con_t, con_figures = _threshold(oof, ~labels, floor, z=z, supported_side=False)
    if sup_t is not None and con_t is not None and con_t >= sup_t:
        # Each side's threshold was chosen on its own; where they overlap, a probability
        # between them is claimed by both (decisive, well separated decisions leave that
        # range nearly empty in the folds), and "supported" would win by the order of
        # the tests. The overlap is split at its middle instead: each side keeps the half
        # next to its own decisions, rescanned so its figures are those of its new
        # threshold (a side that no longer reaches the floor there decides nothing).
        middle = (sup_t + con_t) / 2
        sup_t, sup_figures = _threshold(oof, labels, floor, z=z, supported_side=True, beyond=middle)
        con_t, con_figures = _threshold(
            oof, ~labels, floor, z=z, supported_side=False, beyond=sup_t if sup_t else middle
        )
    x, mean, scale = _standardize(rows)
    model = _model(seed).fit(x, labels)
    overrule = _overrule_figures(
        rows, labels, feature_names, oof, sup_t, con_t, floor=floor, decided_floor=decided_floor
    )
    curve = _curve_point(
        rows,
        labels,
        feature_names,
        oof,
        sup_t,
        con_t,
        decided_floor=decided_floor,
        overrule=overrule,
    )

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
            "confidence_z": z,
            "cv_overrule": overrule,
            **curve,
        },
    )


DECIDING_LABELS = frozenset({"entailed", "contradicted"})
# The judge's answers a calibrator may read: a coverage gap is no answer at all.
READABLE_LABELS = frozenset({"entailed", "contradicted", "abstained"})
DECISION_LABEL = {"supported": "entailed", "contradicted": "contradicted"}
# The note of a verdict a reviewer calibrator decided.
CALIBRATOR_NOTE = "reviewer_calibrator"


def judge_decided(
    label: str, confidence: float, *, floor: float = DEFAULT_POLICY.confidence_floor
) -> bool:
    """Whether the judge's answer decides the claim by itself (the state function's
    rule: entailed or contradicted at the confidence floor or above)."""
    return label in DECIDING_LABELS and confidence >= floor


def combine(
    judge_label: str,
    decision: str | None,
    *,
    judge_confidence: float = 1.0,
    floor: float = DEFAULT_POLICY.confidence_floor,
    overrule: bool = False,
) -> str:
    """The answer that decides a claim, from the judge's answer and the calibrator's
    decision: ``entailed`` or ``contradicted`` when one decides, else what the judge
    said without deciding (``abstained`` for a lean below ``floor``; a coverage gap stays
    one). Where the judge decided, its answer stands unless the calibrator decides the
    other way and ``overrule`` (it may overrule that answer: ``Calibrator.may_overrule``)
    — then ``abstained``: the judge and the reviewers disagree, a person decides; where
    it did not, the calibrator's decision, if it makes one. A judge that gave no answer
    (a coverage gap) is never decided for."""
    decided = judge_decided(judge_label, judge_confidence, floor=floor)
    if decision is None or judge_label not in READABLE_LABELS:
        if decided or judge_label not in DECIDING_LABELS:
            return judge_label
        return "abstained"
    decided_as = DECISION_LABEL[decision]
    if decided:
        return "abstained" if (judge_label != decided_as and overrule) else judge_label
    return decided_as


@dataclass(frozen=True)
class CalibratedAnswer:
    """What a calibrator records after the judge's answer for one item."""

    label: str  # entailed / contradicted (decided), abstained (the judge is overruled)
    confidence: float
    note: str
    p_supported: float


def calibrated_answers(
    calibrator: Calibrator,
    rows: np.ndarray,
    results: Sequence[JudgeResult],
    *,
    version: int,
    decided_floor: float = DEFAULT_POLICY.confidence_floor,
) -> list[CalibratedAnswer | None]:
    """Per item (``rows`` the judge's reading, ``results`` its answers): the answer the
    calibrator records, or None where the judge's answer stands (``combine``: no
    decision, a coverage gap, a decided judge the calibrator agrees with, or one it has
    not earned overruling: ``Calibrator.may_overrule``).

    A decision's confidence is the calibrator's cross-validated precision on that side
    (at least its floor, so above ``decided_floor``, the state policy's); a
    disagreement is an abstention whose note starts with ``judge_reviewers_disagree``.
    Raises ValueError when the reading's columns are not the calibrator's."""
    if len(rows) != len(results):
        raise ValueError("one reading row per judge result")
    if len(rows) and rows.shape[1] != len(calibrator.feature_names):
        raise ValueError(
            f"the reading has {rows.shape[1]} columns, the calibrator "
            f"{len(calibrator.feature_names)}"
        )
    precision = {
        side: float((calibrator.figures.get(f"cv_{side}") or {}).get("precision") or 0.0)
        for side in ("supported", "contradicted")
    }
    if not len(rows):
        return []
    out: list[CalibratedAnswer | None] = []
    for result, decision, p in zip(
        results, calibrator.decisions(rows), calibrator.probabilities(rows), strict=True
    ):
        label = combine(
            result.label,
            decision,
            judge_confidence=result.confidence,
            floor=decided_floor,
            overrule=calibrator.may_overrule(result.label),
        )
        decided = judge_decided(result.label, result.confidence, floor=decided_floor)
        if (
            decision is None
            or result.label not in READABLE_LABELS
            or (decided and label != "abstained")
        ):
            out.append(None)
            continue
        said = f"the judge said {result.label} {result.confidence:.2f}"
        p_text = f"P(reviewers say supported) {p:.2f}, calibrator v{version}"
        if label == "abstained":
            note = f"{JUDGE_REVIEWERS_DISAGREE_NOTE}: {said}; {p_text}"
            out.append(CalibratedAnswer("abstained", 0.0, note, float(p)))
            continue
        judge_note = f" ({result.note})" if result.note else ""
        note = f"{CALIBRATOR_NOTE}: {p_text}; {said}{judge_note}"
        out.append(CalibratedAnswer(label, max(precision[decision], decided_floor), note, float(p)))
    return out


def _judge_answers(rows: np.ndarray, names: Sequence[str]) -> list[tuple[str, float]] | None:
    """The judge's (label, confidence) per row, from the reading's answer columns."""
    if tuple(names[: len(ANSWER_FEATURES)]) != ANSWER_FEATURES:
        return None
    answers: list[tuple[str, float]] = []
    for row in rows:
        if row[0] >= 0.5:
            label = "entailed"
        elif row[1] >= 0.5:
            label = "contradicted"
        else:
            label = "abstained"
        answers.append((label, float(row[3])))
    return answers


def _curve_point(
    rows: np.ndarray,
    labels: np.ndarray,
    names: Sequence[str],
    oof: np.ndarray,
    sup_t: float | None,
    con_t: float | None,
    *,
    decided_floor: float,
    overrule: Mapping[str, Any],
) -> dict[str, Any]:
    """Abstention and ``entailed`` precision on the decisions: the judge alone, and the
    judge with the calibrator's out-of-fold decisions at the chosen thresholds (where it
    may overrule the judge: ``overrule``, the figures of ``_overrule_figures``)."""
    answers = _judge_answers(rows, names)
    if answers is None:
        return {}
    allowed = {lab: may_overrule({"cv_overrule": overrule}, lab) for lab in OVERRULE_LABELS}
    plain = [combine(lab, None, judge_confidence=c, floor=decided_floor) for lab, c in answers]
    calibrated = [
        combine(
            lab,
            _decision(float(p), sup_t, con_t),
            judge_confidence=c,
            floor=decided_floor,
            overrule=allowed.get(lab, False),
        )
        for (lab, c), p in zip(answers, oof, strict=True)
    ]
    return {
        "cv_judge": _abstention_precision(plain, labels),
        "cv_calibrated": _abstention_precision(calibrated, labels),
    }


def _decision(p: float, sup_t: float | None, con_t: float | None) -> str | None:
    """The decision at P(supported) ``p`` with thresholds ``sup_t`` / ``con_t`` (None:
    that side never decides): ``"supported"``, ``"contradicted"`` or None."""
    if sup_t is not None and p >= sup_t:
        return "supported"
    if con_t is not None and p <= con_t:
        return "contradicted"
    return None


def _overrule_figures(
    rows: np.ndarray,
    labels: np.ndarray,
    names: Sequence[str],
    oof: np.ndarray,
    sup_t: float | None,
    con_t: float | None,
    *,
    floor: float,
    decided_floor: float,
) -> dict[str, Any]:
    """Per answer the judge decided (``entailed``, ``contradicted``), out of fold: on how
    many decisions it gave that answer (``judge_decided``), how often the calibrator at
    the chosen thresholds decided the other way (``disagreed``), how often the reviewers
    sided with it there (``sided_with_calibrator``, ``precision``), and whether that earns
    overruling the answer (``may_overrule``: ``MIN_OVERRULES`` disagreements at least,
    ``precision`` at least ``floor``). Empty where the reading has no answer columns (no
    overrule then)."""
    answers = _judge_answers(rows, names)
    if answers is None:
        return {}
    out: dict[str, Any] = {"min_cases": MIN_OVERRULES, "floor": floor}
    for judge_label in OVERRULE_LABELS:
        against = "contradicted" if judge_label == "entailed" else "supported"
        decided = disagreed = sided = 0
        for (lab, conf), p, supported in zip(answers, oof, labels, strict=True):
            if lab != judge_label or not judge_decided(lab, conf, floor=decided_floor):
                continue
            decided += 1
            if _decision(float(p), sup_t, con_t) != against:
                continue
            disagreed += 1
            sided += int(bool(supported) == (against == "supported"))
        out[judge_label] = {
            "judge_decided": decided,
            "disagreed": disagreed,
            "sided_with_calibrator": sided,
            "precision": round(sided / disagreed, 4) if disagreed else None,
            "may_overrule": disagreed >= MIN_OVERRULES and sided >= floor * disagreed,
        }
    return out


def _abstention_precision(final: Sequence[str], supported: np.ndarray) -> dict[str, Any]:
    entailed = np.asarray([lab == "entailed" for lab in final])
    decided = np.asarray([lab in DECIDING_LABELS for lab in final])
    return {
        "abstention": round(float(1 - decided.mean()), 4),
        "entailed_precision": (
            round(float(supported[entailed].mean()), 4) if entailed.any() else None
        ),
        "entailed_calls": int(entailed.sum()),
    }
