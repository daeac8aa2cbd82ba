"""Appending a model's verdict row: the one place its fields are shaped.

Every writer of a judge's (or a calibrator's, or a rule set's) verdict builds the row
here, so the rules hold everywhere: the judge's identity is cut to its columns, the
confidence is clamped to [0, 1] (the table's check constraint), the note is cut to
``NOTE_MAX_CHARS``, and a verdict with no bound span is ``abstained`` whatever the judge
said (nothing was shown to it). A person's verdict is written by the review services.
Verdicts are append-only: nothing here updates or deletes one.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from verifier.models import Claim, EvidenceBinding, JudgeCalibrator, Verdict, VerdictLabel

NOTE_MAX_CHARS: Final = 500
JUDGE_MODEL_MAX_CHARS: Final = 200
JUDGE_FAMILY_MAX_CHARS: Final = 100


def verdict_build(
    *,
    claim: Claim,
    binding: EvidenceBinding | None,
    judge_model: str,
    judge_family: str,
    prompt_version: int,
    label: str,
    confidence: float,
    note: str | None,
    calibrator: JudgeCalibrator | None = None,
) -> Verdict:
    """The verdict row, unsaved (for ``verdicts_append``)."""
    return Verdict(
        claim=claim,
        binding=binding,
        judge_model=str(judge_model)[:JUDGE_MODEL_MAX_CHARS],
        judge_family=str(judge_family)[:JUDGE_FAMILY_MAX_CHARS],
        prompt_version=int(prompt_version),
        label=label if binding is not None else VerdictLabel.ABSTAINED.value,
        confidence=max(0.0, min(1.0, float(confidence))),
        note=(note or "")[:NOTE_MAX_CHARS],
        calibrator=calibrator,
    )


def verdicts_append(*, verdicts: Sequence[Verdict]) -> list[Verdict]:
    """Insert rows built by ``verdict_build``, in order, in one statement."""
    return Verdict.objects.bulk_create(list(verdicts))


def verdict_append(
    *,
    claim: Claim,
    binding: EvidenceBinding | None,
    judge_model: str,
    judge_family: str,
    prompt_version: int,
    label: str,
    confidence: float,
    note: str | None,
    calibrator: JudgeCalibrator | None = None,
) -> Verdict:
    """Append one verdict row (``verdict_build``'s rules) and return it."""
    verdict = verdict_build(
        claim=claim,
        binding=binding,
        judge_model=judge_model,
        judge_family=judge_family,
        prompt_version=prompt_version,
        label=label,
        confidence=confidence,
        note=note,
        calibrator=calibrator,
    )
    verdict.save()
    return verdict
