"""Layer-2 writes: ask the judge whether each claim's bound span entails it.

Only claims whose active binding re-checks fresh reach the judge; every other claim
gets a local ``abstained`` / ``no_bound_evidence`` verdict (confidence 0) attributed to
the configured judge, so the history says the judge was never shown evidence. Items
the judge omits or garbles become coverage gaps through ``judge_items`` — never passes.
Verdicts are appended (one per claim per call); nothing is rewritten.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from django.db import transaction

from verifier.engine import get_judge, judge_batch_size
from verifier.judges import MAX_SPANS_PER_ITEM, Judge, JudgeItem, JudgeResult, judge_items
from verifier.models import Claim, EvidenceBinding, EvidenceCandidate, Verdict
from verifier.services.claim_state import claim_binding_check, claim_state_refresh
from verifier.states import NO_BOUND_EVIDENCE_NOTE

NOTE_MAX_CHARS = 500
# Evidence-search runners-up go to the judge beside the bound span only when they are
# strong matches themselves: a judge reads every span it is given as evidence, and a
# weak neighbour imports hedges and negations from unrelated sentences. On
# bench/fixtures/planted-v1.json runners-up of true claims score 0.2–0.55 and best
# windows 0.7–0.99.
JUDGE_CANDIDATE_MIN_SCORE = 0.6


@dataclass(frozen=True)
class _Prepared:
    claim: Claim
    binding: EvidenceBinding | None
    item: JudgeItem | None  # None: no fresh bound span, finalized locally


def _prepare(claim: Claim) -> _Prepared:
    check = claim_binding_check(claim=claim)
    if check.binding is None or check.status != "fresh":
        return _Prepared(claim, check.binding, None)
    spans = [check.binding.quote]
    if check.version is not None:
        candidates = EvidenceCandidate.objects.filter(
            claim=claim, source_version=check.version, score__gte=JUDGE_CANDIDATE_MIN_SCORE
        ).order_by("rank")
        for candidate in candidates:
            if len(spans) >= MAX_SPANS_PER_ITEM:
                break
            if candidate.quote != check.binding.quote:
                spans.append(candidate.quote)
    item = JudgeItem(key=str(claim.pk), claim=claim.text, spans=tuple(spans))
    return _Prepared(claim, check.binding, item)


def _record(*, judge: Judge, prepared: _Prepared, result: JudgeResult) -> Verdict:
    return Verdict.objects.create(
        claim=prepared.claim,
        binding=prepared.binding if prepared.item is not None else None,
        judge_model=str(judge.model_id)[:200],
        judge_family=str(judge.family)[:100],
        prompt_version=int(judge.prompt_version),
        label=result.label,
        confidence=max(0.0, min(1.0, float(result.confidence))),
        note=(result.note or "")[:NOTE_MAX_CHARS],
    )


def claims_judge(
    *, claims: Sequence[Claim], judge: Judge | None = None, cause: str = "judged"
) -> list[Verdict]:
    """Judge ``claims`` and append one verdict per claim, in input order; refresh states."""
    judge = judge or get_judge()
    size = judge_batch_size()
    verdicts: list[Verdict] = []
    for offset in range(0, len(claims), size):
        batch = [_prepare(claim) for claim in claims[offset : offset + size]]
        items = [p.item for p in batch if p.item is not None]
        results = {r.key: r for r in judge_items(judge, items, batch_size=size)} if items else {}
        with transaction.atomic():
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
                verdicts.append(_record(judge=judge, prepared=prepared, result=result))
                claim_state_refresh(
                    claim=prepared.claim, cause=f"{cause}: {result.label} by {judge.model_id}"
                )
    return verdicts
