"""A sequence-pair NLI model as the Layer-2 judge.

For each item the claim is read against every bound span and, with several spans,
against their concatenation; each premise is the context (title and the sentence before
the span) followed by the span (``encoding.premise_text``), read in windows when long.
Per candidate the window most likely entailed leads; per item the candidate most likely
entailed decides, and the strongest contradiction of any window is kept:

* ``entailed`` when calibrated P(entailed) ≥ the calibration's entail threshold;
  confidence = that probability;
* else ``contradicted`` when P(contradicted) ≥ its threshold;
* else ``abstained``, confidence = 1 − P(entailed).

A claim that is its bound span verbatim (whitespace and case folded) is entailed at 0.99
without a model call. No Django imports.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from verifier.judges.base import JudgeItem, JudgeResult
from verifier.judges.candidates import candidate_texts, verbatim_candidate
from verifier.judges.coverage import judge_items
from verifier.judges.cross_encoder.calibration import Calibration, role_probabilities
from verifier.judges.cross_encoder.encoding import (
    MAX_TOKENS,
    Window,
    batch_arrays,
    pad_id,
    pair_windows,
    premise_text,
    prepare_tokenizer,
)
from verifier.judges.cross_encoder.labels import LabelMap, label_map
from verifier.judges.cross_encoder.runners import Runner
from verifier.judges.decision import decide_by_thresholds

VERBATIM_CONFIDENCE = 0.99
READING_FEATURES = ("ce_p_entailed", "ce_p_neutral", "ce_p_contradicted", "ce_logit_margin")
BATCH_SIZE = 32  # windows per forward pass


@dataclass(frozen=True)
class Loaded:
    runner: Runner
    tokenizer: object
    labels: LabelMap
    pad: int


@dataclass(frozen=True)
class Reading:
    """A claim and the premises it is read against, each with the label the note names
    ("span 1", "spans 1+2")."""

    claim: str
    premises: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class ItemScore:
    """One item's reading: the leading candidate, its raw outputs (for calibration) and
    calibrated probabilities."""

    candidate: str
    lead_logits: np.ndarray
    p_entailed: float
    p_contradicted: float


class CrossEncoderJudge:
    reads_context = True  # the judging service fills JudgeItem.context for it
    batch_size = 16  # items per judge_batch call from the coverage finalizer

    def __init__(
        self,
        *,
        model_id: str,
        family: str,
        prompt_version: int,
        load: Callable[[], tuple[Runner, object]],
        calibration: Calibration,
        labels_override: str = "",
        max_tokens: int = MAX_TOKENS,
        folder: str = "",
    ) -> None:
        self.model_id = model_id
        self.family = family
        self.prompt_version = prompt_version
        self.calibration = calibration
        self.max_tokens = max_tokens
        self.folder = folder  # where the model was read from (for tools; "" when not a folder)
        self._load = load
        self._labels_override = labels_override
        self._lock = threading.Lock()
        self._loaded: Loaded | None = None

    def loaded(self) -> Loaded:
        if self._loaded is None:
            with self._lock:
                if self._loaded is None:
                    runner, tokenizer = self._load()
                    labels = label_map(runner.id2label, runner.outputs, self._labels_override)
                    tokenizer = prepare_tokenizer(tokenizer)
                    self._loaded = Loaded(runner, tokenizer, labels, pad_id(tokenizer))
        return self._loaded

    def window_logits(self, windows: Sequence[Window]) -> np.ndarray:
        loaded = self.loaded()
        if not windows:
            return np.zeros((0, loaded.runner.outputs), dtype=np.float32)
        # similar lengths batched together: less padding
        order = sorted(range(len(windows)), key=lambda i: len(windows[i].ids))
        out = np.zeros((len(windows), loaded.runner.outputs), dtype=np.float32)
        for start in range(0, len(order), BATCH_SIZE):
            chunk = order[start : start + BATCH_SIZE]
            batch = batch_arrays([windows[i] for i in chunk], loaded.pad)
            out[chunk] = loaded.runner.logits(batch).reshape(len(chunk), -1)
        return out

    def score(self, items: Sequence[JudgeItem]) -> list[ItemScore | None]:
        """The model's reading of each item with evidence (None for an item without)."""
        readings = [
            Reading(
                item.claim,
                tuple(
                    (label, premise_text(span, item.context))
                    for label, span in candidate_texts(item)
                ),
            )
            for item in items
        ]
        return self.score_readings(readings)

    def score_readings(self, readings: Sequence[Reading]) -> list[ItemScore | None]:
        """Each claim against its labelled premises: the leading window's raw outputs and
        the calibrated probabilities (None for a reading without premises)."""
        loaded = self.loaded()
        windows: list[Window] = []
        owners: list[tuple[int, str]] = []  # (reading index, candidate label) per window
        for index, reading in enumerate(readings):
            for label, premise in reading.premises:
                for window in pair_windows(
                    loaded.tokenizer, premise, reading.claim, max_tokens=self.max_tokens
                ):
                    windows.append(window)
                    owners.append((index, label))
        logits = self.window_logits(windows)
        probabilities = role_probabilities(logits, loaded.labels, self.calibration.temperature)
        scores: list[ItemScore | None] = [None] * len(readings)
        best: dict[int, tuple[int, float, float]] = {}  # reading → (window, p_ent, max p_con)
        for w, (index, _) in enumerate(owners):
            p_entail, p_contra = float(probabilities[w, 0]), float(probabilities[w, 2])
            current = best.get(index)
            if current is None:
                best[index] = (w, p_entail, p_contra)
            else:
                lead = w if p_entail > current[1] else current[0]
                best[index] = (lead, max(p_entail, current[1]), max(p_contra, current[2]))
        for index, (w, p_entail, p_contra) in best.items():
            scores[index] = ItemScore(owners[w][1], logits[w], p_entail, p_contra)
        return scores

    def judge_batch(self, items: Sequence[JudgeItem]) -> list[JudgeResult]:
        results: dict[str, JudgeResult] = {}
        to_score: list[JudgeItem] = []
        for item in items:
            if not item.has_evidence:
                continue
            verbatim = verbatim_candidate(item)
            if verbatim is not None:
                results[item.key] = JudgeResult(
                    item.key, "entailed", VERBATIM_CONFIDENCE, f"verbatim: claim is {verbatim}"
                )
            else:
                to_score.append(item)
        if to_score:
            for item, scored in zip(to_score, self.score(to_score), strict=True):
                if scored is not None:
                    results[item.key] = self.decide(item.key, scored)
        return [results[item.key] for item in items if item.key in results]

    def reading(
        self, items: Sequence[JudgeItem]
    ) -> tuple[tuple[str, ...], np.ndarray, list[JudgeResult]]:
        """The calibrated probabilities of the reading that decided each item and the
        margin of its raw outputs, and the answers (``verifier.judges.reading``)."""
        results = judge_items(self, items, batch_size=self.batch_size)
        labels = self.loaded().labels
        rows = np.zeros((len(items), len(READING_FEATURES)), dtype=np.float32)
        for index, scored in enumerate(self.score(items)):
            if scored is None:
                continue
            p = role_probabilities(
                scored.lead_logits[None, :], labels, self.calibration.temperature
            )[0]
            ordered = np.sort(scored.lead_logits)[::-1]
            margin = float(ordered[0] - ordered[1]) if len(ordered) > 1 else float(ordered[0])
            rows[index] = [*p, margin]
        return READING_FEATURES, rows, results

    def decide(self, key: str, scored: ItemScore) -> JudgeResult:
        return decide_by_thresholds(
            key,
            p_entailed=scored.p_entailed,
            p_contradicted=scored.p_contradicted,
            entail_threshold=self.calibration.entail_threshold,
            contradict_threshold=self.calibration.contradict_threshold,
            where=scored.candidate,
        )
