"""The default judge: the heuristic, with ``spanproof-nli-v2`` reading again the claims
it leaves unverified only because their words differ from the span's.

The heuristic (``verifier.judges.heuristic``) answers every item first. An item it
abstains on is read again by the cross-encoder when nothing but wording stands in the
way:

* the candidate that covers most of the claim has no blocking signal (no negation,
  antonym, number, date, unit, name, scope or modality conflict), so the abstention is
  ``low_coverage``, ``signals_disagree`` or ``weak_support``;
* no candidate holds a contradiction the heuristic would act on (``spans_conflict``);
* the unblocked candidates read again cover at least ``REREAD_COVERAGE_MIN`` of the
  claim's content words.

The cross-encoder reads the claim against those unblocked candidates only (each as the
judge frames it: context, then span). The item is ``entailed`` when the model's
calibrated P(entailed) is at least ``SECOND_READING_MIN`` — more likely entailed than
not — with ``SECOND_READING_CONFIDENCE``, the precision this route measured on the
development fit rows; otherwise the heuristic's abstention stands, its note extended
with the model's probability. Blocked claims and contradictions stay the heuristic's:
the second reader never overrules a rule that caught an overstated, fabricated or
misattributed claim. A second reader that fails to load or run leaves the heuristic's
answers as they are (logged).

No Django imports.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from verifier.judges import heuristic
from verifier.judges.base import JudgeItem, JudgeResult
from verifier.judges.coverage import NOTE_NO_EVIDENCE
from verifier.judges.cross_encoder.encoding import premise_text
from verifier.judges.cross_encoder.judge import CrossEncoderJudge, Reading
from verifier.judges.heuristic import Candidate, HeuristicJudge
from verifier.judges.nli import v2
from verifier.model_config import HEURISTIC_FAMILY

logger = logging.getLogger(__name__)

MODEL_ID = f"{heuristic.MODEL_ID}+{v2.MODEL_ID.removeprefix('spanproof-')}"
FAMILY = HEURISTIC_FAMILY
# The version of the route itself; the judge's version joins it with those of its two
# readers, so a change to either is a new reading (docs/learning-from-reviewers.md).
ROUTE_VERSION = 1
PROMPT_VERSION = heuristic.PROMPT_VERSION * 100 + v2.PROMPT_VERSION * 10 + ROUTE_VERSION
# Chosen, not fitted: the calibrated P(entailed) at which the model finds entailment more
# likely than neutral and contradiction together.
SECOND_READING_MIN = 0.5
# The route's precision on the development fit rows (eval fit part and the planted fit
# fixtures v1, v3-v8, v11, v12): 41 of the 50 items it entailed were supported (2026-11-28,
# docs/heuristic-judge.md, "Second reading").
SECOND_READING_CONFIDENCE = 0.82
# As the soft reading's floor: below half the claim's words, little of it is there.
REREAD_COVERAGE_MIN = heuristic.SOFT_COVERAGE_MIN
READING_FEATURES: tuple[str, ...] = (
    *heuristic.READING_FEATURES,
    "second_read",
    "second_p_entailed",
)


@dataclass(frozen=True)
class Reread:
    """An item the second reader reads again: which item and what it reads."""

    index: int
    reading: Reading


def rereadable(
    cands: Sequence[Candidate], result: JudgeResult, th: heuristic.HeuristicThresholds
) -> list[Candidate]:
    """The candidates the second reader may read for an item the heuristic answered
    with ``result`` (none unless only wording kept it from being entailed)."""
    if result.label != "abstained" or not cands:
        return []
    if heuristic.leading(cands).blockers:
        return []
    if any(
        b.contradicts and c.coverage >= th.contradiction_coverage_min
        for c in cands
        for b in c.blockers
    ):
        return []
    return [c for c in cands if not c.blockers and c.coverage >= REREAD_COVERAGE_MIN]


class SecondReadingJudge:
    model_id = MODEL_ID
    family = FAMILY
    prompt_version = PROMPT_VERSION
    batch_size = heuristic.BATCH_SIZE
    accepts_vectors = True  # the heuristic reuses known embeddings
    reads_context = True

    def __init__(self, first: HeuristicJudge, second: CrossEncoderJudge) -> None:
        self.first = first
        self.second = second

    def _answer(
        self, items: Sequence[JudgeItem], vectors: Mapping[str, np.ndarray] | None
    ) -> tuple[list[list[Candidate]], list[JudgeResult | None], dict[int, float]]:
        """The heuristic's candidates and answers (None: no evidence), with the answers
        the second reader changed, and its P(entailed) per item it read."""
        assessed = self.first.assess(items, vectors=vectors)
        th = self.first.thresholds
        answers: list[JudgeResult | None] = [
            heuristic.decide(item.key, cands, th) if item.has_evidence else None
            for item, cands in zip(items, assessed, strict=True)
        ]
        rereads = []
        for index, (item, cands, answer) in enumerate(zip(items, assessed, answers, strict=True)):
            if answer is None:
                continue
            chosen = rereadable(cands, answer, th)
            if chosen:
                premises = tuple((c.label, premise_text(c.text, item.context)) for c in chosen)
                rereads.append(Reread(index, Reading(item.claim, premises)))
        read: dict[int, float] = {}
        if not rereads:
            return assessed, answers, read
        try:
            scores = self.second.score_readings([r.reading for r in rereads])
        except Exception as exc:  # a missing or broken model: the heuristic's answers stand
            logger.warning("second reading unavailable, the heuristic answers alone: %s", exc)
            return assessed, answers, read
        for reread, score in zip(rereads, scores, strict=True):
            answer = answers[reread.index]
            if score is None or answer is None:
                continue
            read[reread.index] = score.p_entailed
            p = f"P(entailed) {score.p_entailed:.2f}"
            if score.p_entailed >= SECOND_READING_MIN:
                answers[reread.index] = JudgeResult(
                    answer.key,
                    "entailed",
                    SECOND_READING_CONFIDENCE,
                    f"supported: a paraphrase by the second reading ({self.second.model_id}, "
                    f"{p}; {score.candidate}); the words differ: {answer.note}",
                )
            else:
                answers[reread.index] = JudgeResult(
                    answer.key,
                    answer.label,
                    answer.confidence,
                    f"{answer.note}; second reading: {p}",
                )
        return assessed, answers, read

    def judge_batch(
        self, items: Sequence[JudgeItem], *, vectors: Mapping[str, np.ndarray] | None = None
    ) -> list[JudgeResult]:
        _, answers, _ = self._answer(items, vectors)
        return [answer for answer in answers if answer is not None]

    def reading(
        self, items: Sequence[JudgeItem], *, vectors: Mapping[str, np.ndarray] | None = None
    ) -> tuple[tuple[str, ...], np.ndarray, list[JudgeResult]]:
        """The heuristic's features of each item, whether the second reader read it and
        its P(entailed), and the answers (``verifier.judges.reading``)."""
        assessed, answers, read = self._answer(items, vectors)
        rows = np.zeros((len(items), len(READING_FEATURES)), dtype=np.float32)
        results: list[JudgeResult] = []
        for index, (item, cands, answer) in enumerate(zip(items, assessed, answers, strict=True)):
            if answer is None:
                results.append(JudgeResult(item.key, "abstained", 0.0, NOTE_NO_EVIDENCE))
                continue
            results.append(answer)
            if cands:
                first = heuristic.reading_row(cands, self.first.thresholds)
                rows[index] = [*first, float(index in read), read.get(index, 0.0)]
        return READING_FEATURES, rows, results


def build() -> SecondReadingJudge:
    """The heuristic with the shipped ``spanproof-nli-v2``, loaded once per process
    (raises ``factory.CrossEncoderConfigError`` when its files are missing)."""
    from verifier.judges.cross_encoder import factory

    return SecondReadingJudge(HeuristicJudge(), factory.nli_v2_judge())
