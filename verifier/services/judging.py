"""Layer-2 writes: ask the judge whether each claim's bound span entails it.

Only claims whose active binding re-checks fresh reach the judge; every other claim
gets a local ``abstained`` / ``no_bound_evidence`` verdict (confidence 0) attributed to
the configured judge, so the history says the judge was never shown evidence. Items
the judge omits or garbles become coverage gaps through ``judge_items`` — never passes.
Verdicts are appended (one per claim per call); nothing is rewritten. What the judge is
shown is built in one place, ``verifier.selectors.judge_items``.

Where the claim's workspace has an active reviewer calibrator of this judge
(``verifier.selectors.calibrators.calibrators_in_use``: at its precision floor), the
judge reads the items (``judge_reading``: its answers and its features) and the
calibrator's answer (``reviewer_calibrator.calibrated_answers``: a decision where the
judge did not decide, a ``judge_reviewers_disagree`` abstention where it would overrule
one) is appended right after the judge's verdict, pointing at the calibrator; the claim's
state is refreshed once, through the one state writer (docs/learning-from-reviewers.md).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from django.db import transaction

from verifier.engine import get_judge, judge_batch_size
from verifier.judges import Judge, JudgeItem, JudgeResult, judge_items
from verifier.judges.reading import judge_reading
from verifier.judges.reviewer_calibrator import CalibratedAnswer, calibrated_answers
from verifier.models import Claim, JudgeCalibrator, Verdict, Workspace
from verifier.selectors.calibrators import CalibratorInUse, calibrators_in_use
from verifier.selectors.claims import claim_stored_vectors
from verifier.selectors.judge_items import PreparedClaim, claims_judge_items
from verifier.services.claim_state import ClaimStates, claims_state_refresh
from verifier.services.verdicts import verdict_build, verdicts_append
from verifier.state_policy import state_policy
from verifier.states import NO_BOUND_EVIDENCE_NOTE

logger = logging.getLogger(__name__)


def _verdict(
    *,
    judge: Judge,
    prepared: PreparedClaim,
    result: JudgeResult | CalibratedAnswer,
    calibrator: JudgeCalibrator | None = None,
) -> Verdict:
    return verdict_build(
        claim=prepared.claim,
        binding=prepared.binding if prepared.item is not None else None,
        judge_model=str(judge.model_id),
        judge_family=str(judge.family),
        prompt_version=int(judge.prompt_version),
        label=result.label,
        confidence=result.confidence,
        note=result.note,
        calibrator=calibrator,
    )


class _WithVectors:
    """A judge that accepts precomputed text vectors, seen through the plain protocol."""

    def __init__(self, judge: Judge, vectors: Mapping[str, np.ndarray]) -> None:
        self.judge = judge
        self.vectors = vectors
        self.model_id = judge.model_id
        self.family = judge.family
        self.prompt_version = judge.prompt_version
        self.batch_size = getattr(judge, "batch_size", None)

    def judge_batch(self, items: Sequence[JudgeItem]) -> list[JudgeResult]:
        return self.judge.judge_batch(items, vectors=self.vectors)  # type: ignore[call-arg]

    def reading(self, items: Sequence[JudgeItem]) -> tuple[tuple[str, ...], np.ndarray, list[Any]]:
        """The judge's own reading (``verifier.judges.reading``) with the known vectors."""
        reading = getattr(self.judge, "reading")  # noqa: B009 (absent on some judges)
        result: tuple[tuple[str, ...], np.ndarray, list[Any]] = reading(items, vectors=self.vectors)
        return result


def claim_vectors(claims: Sequence[Claim]) -> dict[str, np.ndarray]:
    """Stored embeddings of the claims' own current texts, keyed by text (a claim's
    embedding is cleared whenever its text changes, so a stored vector is its text's).
    Claims loaded with ``embedding`` deferred get theirs in one binary query."""
    deferred = {c.pk for c in claims if "embedding" in c.get_deferred_fields()}
    stored = claim_stored_vectors(claim_pks=list(deferred)) if deferred else {}
    out: dict[str, np.ndarray] = {}
    for claim in claims:
        if claim.pk in deferred:
            if claim.pk in stored:
                out.setdefault(claim.text, stored[claim.pk])
        elif claim.embedding is not None:
            out.setdefault(claim.text, np.asarray(claim.embedding, dtype=np.float32))
    return out


def claims_judge(
    *,
    claims: Sequence[Claim],
    judge: Judge | None = None,
    cause: str = "judged",
    vectors: Mapping[str, np.ndarray] | None = None,
    states: ClaimStates | None = None,
) -> list[Verdict]:
    """Judge ``claims`` and append one verdict per claim (and a reviewer calibrator's
    right after it, where an active one answers); refresh states. Returns each claim's
    last verdict, in input order.

    ``vectors`` (text → embedding, e.g. ``claim_vectors``) spare a judge that accepts
    them (``accepts_vectors``) from re-embedding texts it already has vectors for. With
    ``states`` the state refreshes are recorded there, for the caller to flush.
    """
    judge = judge or get_judge()
    asked: Judge = judge
    if vectors and getattr(judge, "accepts_vectors", False):
        asked = _WithVectors(judge, vectors)
    size = judge_batch_size()
    # Judging never changes bindings, so every claim can be prepared up front.
    prepared = claims_judge_items(
        claims=claims,
        with_context=getattr(judge, "reads_context", False),
        checks=states.binding_checks(claims) if states is not None else None,
    )
    calibrators = calibrators_in_use(
        workspace_ids={c.workspace_id for c in claims},
        judge_model=str(judge.model_id),
        prompt_version=int(judge.prompt_version),
    )
    chunks = [prepared[offset : offset + size] for offset in range(0, len(prepared), size)]
    if states is not None:  # inside the caller's transaction: record everything once
        recorded = [
            e
            for chunk in chunks
            for e in _judge_chunk(asked, judge, chunk, cause, size, calibrators)
        ]
        _record_all(recorded, states)
        return [verdicts[-1] for verdicts, _, _ in recorded]
    out: list[Verdict] = []
    for chunk in chunks:
        recorded = _judge_chunk(asked, judge, chunk, cause, size, calibrators)
        with transaction.atomic():
            _record_all(recorded, None)
        out.extend(verdicts[-1] for verdicts, _, _ in recorded)
    return out


Recorded = tuple[list[Verdict], Claim, str]


def _judge_chunk(
    asked: Judge,
    judge: Judge,
    batch: list[PreparedClaim],
    cause: str,
    size: int,
    calibrators: Mapping[int, CalibratorInUse],
) -> list[Recorded]:
    """One judge call's worth: the (unsaved) verdicts and the state-refresh cause per
    claim — the judge's verdict, then the calibrator's where one answers."""
    items = [p.item for p in batch if p.item is not None]
    calibrated_keys = {
        p.item.key for p in batch if p.item is not None and p.claim.workspace_id in calibrators
    }
    plain = [item for item in items if item.key not in calibrated_keys]
    results = {r.key: r for r in judge_items(asked, plain, batch_size=size)} if plain else {}
    answers: dict[str, CalibratedAnswer] = {}
    if calibrated_keys:
        read, answers = _calibrated(
            asked,
            [p for p in batch if p.item is not None and p.item.key in calibrated_keys],
            calibrators,
            size,
        )
        results.update(read)
    recorded: list[Recorded] = []
    for prepared in batch:
        if prepared.item is None:
            result = JudgeResult(
                key=str(prepared.claim.pk),
                label="abstained",
                confidence=0.0,
                note=NO_BOUND_EVIDENCE_NOTE,
            )
        else:
            result = results[prepared.item.key]
        verdicts = [_verdict(judge=judge, prepared=prepared, result=result)]
        why = f"{cause}: {result.label} by {judge.model_id}"
        answer = answers.get(prepared.item.key) if prepared.item is not None else None
        if answer is not None:
            in_use = calibrators[prepared.claim.workspace_id]
            verdicts.append(
                _verdict(judge=judge, prepared=prepared, result=answer, calibrator=in_use.row)
            )
            why += f"; {answer.label} by calibrator v{in_use.row.version}"
        recorded.append((verdicts, prepared.claim, why))
    return recorded


def _calibrated(
    asked: Judge,
    batch: list[PreparedClaim],
    calibrators: Mapping[int, CalibratorInUse],
    size: int,
) -> tuple[dict[str, JudgeResult], dict[str, CalibratedAnswer]]:
    """The judge's answers for claims of calibrated workspaces, from its reading, and the
    calibrators' answers. A reading that fails falls back to the plain judge (no
    calibration: a failure never decides a claim)."""
    items = [p.item for p in batch if p.item is not None]
    try:
        reading = judge_reading(asked, items, batch_size=size)
    except Exception:
        logger.exception("judge %s: reading failed; judged without calibration", asked.model_id)
        return {r.key: r for r in judge_items(asked, items, batch_size=size)}, {}
    results = {r.key: r for r in reading.results}
    answers: dict[str, CalibratedAnswer] = {}
    by_workspace: dict[int, list[int]] = {}
    for index, prepared in enumerate(batch):
        by_workspace.setdefault(prepared.claim.workspace_id, []).append(index)
    floor = state_policy().confidence_floor
    for workspace_id, indexes in by_workspace.items():
        in_use = calibrators[workspace_id]
        if reading.names != in_use.calibrator.feature_names:
            logger.warning(
                "%s reads %d features, %s was fitted on %d: not used",
                asked.model_id,
                len(reading.names),
                in_use.row,
                len(in_use.calibrator.feature_names),
            )
            continue
        given = calibrated_answers(
            in_use.calibrator,
            reading.rows[indexes],
            [reading.results[i] for i in indexes],
            version=in_use.row.version,
            decided_floor=floor,
        )
        for i, answer in zip(indexes, given, strict=True):
            if answer is not None:
                answers[items[i].key] = answer
    return results, answers


def _record_all(recorded: list[Recorded], states: ClaimStates | None) -> None:
    """Append the verdicts and refresh the states. A claim judged twice in one call gets
    its verdicts and refreshes one after the other, as separate calls would."""
    pending = recorded
    while pending:
        seen: set[int] = set()
        now: list[Recorded] = []
        later: list[Recorded] = []
        for entry in pending:
            (later if entry[1].pk in seen else now).append(entry)
            seen.add(entry[1].pk)
        verdicts_append(verdicts=[v for verdicts, _, _ in now for v in verdicts])
        claims = [c for _, c, _ in now]
        causes = {c.pk: x for _, c, x in now}
        if states is not None:
            states.refresh(claims=claims, causes=causes, bindings_unchanged=True)
        else:
            claims_state_refresh(claims=claims, causes=causes)
        pending = later


REJUDGE_BATCH = 200


@dataclass(frozen=True)
class RejudgeReport:
    claims: int
    verdicts: int
    states_before: dict[str, int]
    states_after: dict[str, int]
    judge_model: str


def workspace_rejudge(
    *,
    workspace: Workspace,
    states: Sequence[str] | None = None,
    judge: Judge | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> RejudgeReport:
    """Append a verdict of ``judge`` (the configured one by default) to every claim of
    ``workspace`` (only those in ``states`` when given) and refresh their states through
    the one state service. History is only appended to; each batch is its own
    transaction, so a stopped run keeps what it finished and a rerun is safe."""
    judge = judge or get_judge()
    query = Claim.objects.filter(workspace=workspace)
    if states:
        query = query.filter(state__in=list(states))
    ids = list(query.order_by("pk").values_list("pk", flat=True))
    before: dict[str, int] = {}
    after: dict[str, int] = {}
    verdicts = 0
    for offset in range(0, len(ids), REJUDGE_BATCH):
        batch = list(
            Claim.objects.filter(pk__in=ids[offset : offset + REJUDGE_BATCH]).order_by("pk")
        )
        for claim in batch:
            before[claim.state] = before.get(claim.state, 0) + 1
        verdicts += len(
            claims_judge(claims=batch, judge=judge, cause="re-judged (rejudge command)")
        )
        for claim in Claim.objects.filter(pk__in=[c.pk for c in batch]).only("state"):
            after[claim.state] = after.get(claim.state, 0) + 1
        if progress is not None:
            progress(min(offset + REJUDGE_BATCH, len(ids)), len(ids))
    return RejudgeReport(len(ids), verdicts, before, after, str(judge.model_id))
