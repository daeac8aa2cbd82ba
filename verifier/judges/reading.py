"""What a judge saw, as numbers: its answer for each item plus the pair features it
computed on the way, for a calibrator that learns from reviewers' decisions
(``verifier.judges.reviewer_calibrator``).

Every judge gives the same first columns (``ANSWER_FEATURES``: which label it answered,
its confidence, the probability of ``entailed`` it implies). Judges that compute more
add theirs through a ``reading(items)`` method:

* ``heuristic``: coverage, similarity, the support probability, uncovered and content
  words, one flag per kind of blocking signal (negation, numbers, names, scope, …);
* ``nli`` (v1): its 33 pair features and the three class probabilities of the
  candidate that decided;
* cross-encoders (``nli-v2``, any local NLI model): the three calibrated probabilities
  and the margin of the leading window's logits;
* ``heuristic+nli-v2`` (the default): the heuristic's, plus whether the second reader
  read the item and its P(entailed).

A judge without a ``reading`` (an OpenAI-compatible endpoint) gives the first columns
only. Items without evidence read as zeros. Pure; no Django imports.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from verifier.judges.base import Judge, JudgeItem, JudgeResult
from verifier.judges.coverage import judge_items

ANSWER_FEATURES: tuple[str, ...] = (
    "answer_entailed",
    "answer_contradicted",
    "answer_abstained",
    "answer_confidence",
    "answer_p_entailed",
)


@dataclass(frozen=True)
class Reading:
    """Per item: the judge's result and one feature row (``names`` order)."""

    names: tuple[str, ...]
    rows: np.ndarray
    results: list[JudgeResult]


def answer_features(result: JudgeResult) -> list[float]:
    """The columns every judge has: its label one-hot, its confidence, and the
    P(entailed) the answer implies (confidence when entailed, 1 − confidence when it
    abstained, 0 when it said contradicted)."""
    if result.label == "entailed":
        p_entailed = result.confidence
    elif result.label == "abstained":
        p_entailed = 1.0 - result.confidence
    else:
        p_entailed = 0.0
    return [
        float(result.label == "entailed"),
        float(result.label == "contradicted"),
        float(result.label not in {"entailed", "contradicted"}),
        float(result.confidence),
        float(p_entailed),
    ]


def judge_reading(judge: Judge, items: Sequence[JudgeItem], *, batch_size: int = 64) -> Reading:
    """The judge's reading of ``items``: its own ``reading`` where it has one, else its
    answers alone."""
    own = getattr(judge, "reading", None)
    if callable(own):
        names, extra, results = own(items)
    else:
        results = judge_items(judge, items, batch_size=batch_size)
        names, extra = (), np.zeros((len(items), 0), dtype=np.float32)
    answers = np.asarray([answer_features(r) for r in results], dtype=np.float32)
    rows = np.concatenate([answers.reshape(len(items), -1), extra], axis=1)
    return Reading((*ANSWER_FEATURES, *names), rows, list(results))
