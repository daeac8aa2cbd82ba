"""Coverage finalizers: exactly one valid result per item, whatever the judge did.

Rules (seed 000, "Fail-safe gates"):

* an item with no bound span never reaches the judge: ``abstained`` / ``no_bound_evidence``;
* an item the judge omitted is re-asked once, alone with the other omitted items; still
  omitted → ``coverage_gap`` / ``omitted``;
* an answer that is malformed (unknown label, confidence not a number in [0, 1], a key
  answered twice) → ``coverage_gap`` for exactly that item, the note names the failure;
* a transport failure or an unusable response → ``coverage_gap`` for that batch.

An omission can therefore never become a pass.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence

from verifier.judges.base import (
    ANSWER_LABELS,
    Judge,
    JudgeAnswerError,
    JudgeItem,
    JudgeResult,
    JudgeTransportError,
)

logger = logging.getLogger(__name__)

DEFAULT_BATCH_SIZE = 10
NOTE_NO_EVIDENCE = "no_bound_evidence"
NOTE_OMITTED = "omitted"
NOTE_MAX_CHARS = 300


def _gap(key: str, note: str) -> JudgeResult:
    return JudgeResult(key=key, label="coverage_gap", confidence=0.0, note=note[:NOTE_MAX_CHARS])


def _validate(answer: JudgeResult) -> JudgeResult:
    """Return ``answer`` cleaned, or a coverage gap naming why it is not acceptable."""
    label = answer.label
    if not isinstance(label, str) or label not in ANSWER_LABELS:
        return _gap(answer.key, f"unknown_label: {label!r}")
    confidence = answer.confidence
    if isinstance(confidence, bool) or not isinstance(confidence, int | float):
        return _gap(answer.key, f"malformed_confidence: {confidence!r}")
    if math.isnan(confidence) or not 0.0 <= confidence <= 1.0:
        return _gap(answer.key, f"confidence_out_of_range: {confidence!r}")
    note = answer.note if isinstance(answer.note, str) else repr(answer.note)
    return JudgeResult(
        key=answer.key, label=label, confidence=float(confidence), note=note[:NOTE_MAX_CHARS]
    )


def _ask(judge: Judge, batch: Sequence[JudgeItem]) -> tuple[dict[str, JudgeResult], set[str]]:
    """One call. Returns (final results for answered/failed keys, omitted keys)."""
    keys = [item.key for item in batch]
    try:
        raw = judge.judge_batch(batch)
    except JudgeAnswerError as exc:
        return {key: _gap(key, f"malformed_answer: {exc}") for key in keys}, set()
    except JudgeTransportError as exc:
        note = f"transport_error: {exc}" if str(exc) else "transport_error"
        return {key: _gap(key, note) for key in keys}, set()
    except Exception as exc:  # a crashing judge is a gap, never a pass
        logger.exception("judge %s crashed on a batch of %d", judge.model_id, len(batch))
        return {key: _gap(key, f"judge_error: {type(exc).__name__}") for key in keys}, set()
    if not isinstance(raw, list | tuple) or not all(isinstance(r, JudgeResult) for r in raw):
        return {key: _gap(key, "malformed_answer: not a list of results") for key in keys}, set()

    wanted = set(keys)
    seen: dict[str, list[JudgeResult]] = {}
    for answer in raw:
        if answer.key in wanted:
            seen.setdefault(answer.key, []).append(answer)
        else:
            logger.info("judge %s answered unknown key %r", judge.model_id, answer.key)
    results: dict[str, JudgeResult] = {}
    for key, answers in seen.items():
        if len(answers) > 1:
            results[key] = _gap(key, f"duplicate_key: answered {len(answers)} times")
        else:
            results[key] = _validate(answers[0])
    return results, wanted - results.keys()


def _batches(items: Sequence[JudgeItem], size: int) -> list[Sequence[JudgeItem]]:
    return [items[i : i + size] for i in range(0, len(items), size)]


def judge_items(
    judge: Judge, items: Sequence[JudgeItem], *, batch_size: int | None = None
) -> list[JudgeResult]:
    """Judge ``items`` and return exactly one result per item, in input order."""
    keys = [item.key for item in items]
    if len(set(keys)) != len(keys):
        raise ValueError("judge_items needs unique item keys")
    size = batch_size or getattr(judge, "batch_size", None) or DEFAULT_BATCH_SIZE
    size = max(1, int(size))

    final: dict[str, JudgeResult] = {}
    askable: list[JudgeItem] = []
    for item in items:
        if item.has_evidence:
            askable.append(item)
        else:
            final[item.key] = JudgeResult(
                key=item.key, label="abstained", confidence=0.0, note=NOTE_NO_EVIDENCE
            )

    omitted: list[JudgeItem] = []
    for batch in _batches(askable, size):
        answered, missing = _ask(judge, batch)
        final.update(answered)
        omitted.extend(item for item in batch if item.key in missing)

    # Re-ask once, only the omitted items.
    for batch in _batches(omitted, size):
        answered, missing = _ask(judge, batch)
        final.update(answered)
        for key in missing:
            final[key] = _gap(key, NOTE_OMITTED)

    return [final[key] for key in keys]
