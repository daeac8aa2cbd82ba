"""Layer-2 writes: ask the judge whether each claim's bound span entails it.

Only claims whose active binding re-checks fresh reach the judge; every other claim
gets a local ``abstained`` / ``no_bound_evidence`` verdict (confidence 0) attributed to
the configured judge, so the history says the judge was never shown evidence. Items
the judge omits or garbles become coverage gaps through ``judge_items`` — never passes.
Verdicts are appended (one per claim per call); nothing is rewritten.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from django.db import transaction

from verifier.engine import get_judge, judge_batch_size
from verifier.judges import MAX_SPANS_PER_ITEM, Judge, JudgeItem, JudgeResult, judge_items
from verifier.judges.base import item_context
from verifier.models import (
    Claim,
    EvidenceBinding,
    EvidenceCandidate,
    Source,
    SourceVersion,
    Verdict,
    Workspace,
)
from verifier.selectors.claim_state import BindingCheck, claims_binding_checks
from verifier.selectors.claims import claim_stored_vectors
from verifier.services.claim_state import ClaimStates, claims_state_refresh
from verifier.states import NO_BOUND_EVIDENCE_NOTE
from verifier.text.sentences import sentence_before

NOTE_MAX_CHARS = 500
# Evidence-search runners-up go to the judge beside the bound span only when they are
# strong matches themselves: a judge reads every span it is given as evidence, and a
# weak neighbour imports hedges and negations from unrelated sentences. On
# bench/fixtures/planted-v1.json runners-up of true claims score 0.2–0.55 and best
# windows 0.7–0.99.
JUDGE_CANDIDATE_MIN_SCORE = 0.6
# How far before a bound span the judge's context (the preceding sentence) is looked for.
CONTEXT_LOOKBACK_CHARS = 600


@dataclass(frozen=True)
class _Prepared:
    claim: Claim
    binding: EvidenceBinding | None
    item: JudgeItem | None  # None: no fresh bound span, finalized locally


def _prepare_all(
    claims: Sequence[Claim], states: ClaimStates | None, *, with_context: bool
) -> list[_Prepared]:
    """For each claim: its active binding re-checked against the current version (as
    ``states`` last checked it, when given), and, when fresh, the judge item (the bound
    span plus strong runners-up)."""
    if states is not None:
        checks = states.binding_checks(claims)
    else:
        checks = claims_binding_checks(claims=claims)
    fresh = {
        c.pk: checks[c.pk]
        for c in claims
        if checks[c.pk].binding is not None and checks[c.pk].status == "fresh"
    }
    runners_up: dict[int, list[str]] = {}
    if fresh:
        rows = EvidenceCandidate.objects.filter(
            claim_id__in=list(fresh), score__gte=JUDGE_CANDIDATE_MIN_SCORE
        ).order_by("claim_id", "rank")
        for candidate in rows:
            check = fresh[candidate.claim_id]
            if check.version is not None and candidate.source_version_id == check.version.pk:
                runners_up.setdefault(candidate.claim_id, []).append(candidate.quote)
    contexts = _contexts(fresh) if with_context else {}
    prepared: list[_Prepared] = []
    for claim in claims:
        check = checks[claim.pk]
        if claim.pk not in fresh or check.binding is None:
            prepared.append(_Prepared(claim, check.binding, None))
            continue
        spans = [check.binding.quote]
        for quote in runners_up.get(claim.pk, []):
            if len(spans) >= MAX_SPANS_PER_ITEM:
                break
            if quote != check.binding.quote:
                spans.append(quote)
        item = JudgeItem(
            key=str(claim.pk),
            claim=claim.text,
            spans=tuple(spans),
            context=contexts.get(claim.pk, ""),
        )
        prepared.append(_Prepared(claim, check.binding, item))
    return prepared


def _contexts(fresh: Mapping[int, BindingCheck]) -> dict[int, str]:
    """Per claim: its source's title and the sentence before its bound span, so the judge
    can resolve a name given one sentence earlier. Built only for judges that declare
    ``reads_context`` (the others would ignore it). Version texts that the checks did not
    load are read once per version."""
    version_ids = {c.version.pk for c in fresh.values() if c.version is not None}
    loaded = {
        c.version.pk: c.version
        for c in fresh.values()
        if c.version is not None and "text" not in c.version.get_deferred_fields()
    }
    missing = version_ids - set(loaded)
    if missing:
        loaded.update(SourceVersion.objects.in_bulk(list(missing)))
    titles = dict(
        Source.objects.filter(versions__pk__in=version_ids).values_list("versions__pk", "title")
    )
    out: dict[int, str] = {}
    for claim_pk, check in fresh.items():
        if check.version is None or check.binding is None:
            continue
        text = loaded[check.version.pk].text
        previous = sentence_before(text, check.binding.start, lookback=CONTEXT_LOOKBACK_CHARS)
        out[claim_pk] = item_context(title=titles.get(check.version.pk) or "", previous=previous)
    return out


def _verdict(*, judge: Judge, prepared: _Prepared, result: JudgeResult) -> Verdict:
    return Verdict(
        claim=prepared.claim,
        binding=prepared.binding if prepared.item is not None else None,
        judge_model=str(judge.model_id)[:200],
        judge_family=str(judge.family)[:100],
        prompt_version=int(judge.prompt_version),
        label=result.label,
        confidence=max(0.0, min(1.0, float(result.confidence))),
        note=(result.note or "")[:NOTE_MAX_CHARS],
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
    """Judge ``claims`` and append one verdict per claim, in input order; refresh states.

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
    prepared = _prepare_all(claims, states, with_context=getattr(judge, "reads_context", False))
    chunks = [prepared[offset : offset + size] for offset in range(0, len(prepared), size)]
    if states is not None:  # inside the caller's transaction: record everything once
        recorded = [e for chunk in chunks for e in _judge_chunk(asked, judge, chunk, cause, size)]
        _record_all(recorded, states)
        return [v for v, _, _ in recorded]
    verdicts: list[Verdict] = []
    for chunk in chunks:
        recorded = _judge_chunk(asked, judge, chunk, cause, size)
        with transaction.atomic():
            _record_all(recorded, None)
        verdicts.extend(v for v, _, _ in recorded)
    return verdicts


def _judge_chunk(
    asked: Judge, judge: Judge, batch: list[_Prepared], cause: str, size: int
) -> list[tuple[Verdict, Claim, str]]:
    """One judge call's worth: the (unsaved) verdict and state-refresh cause per claim."""
    items = [p.item for p in batch if p.item is not None]
    results = {r.key: r for r in judge_items(asked, items, batch_size=size)} if items else {}
    recorded: list[tuple[Verdict, Claim, str]] = []
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
        verdict = _verdict(judge=judge, prepared=prepared, result=result)
        recorded.append((verdict, prepared.claim, f"{cause}: {result.label} by {judge.model_id}"))
    return recorded


def _record_all(recorded: list[tuple[Verdict, Claim, str]], states: ClaimStates | None) -> None:
    """Append the verdicts and refresh the states. A claim judged twice in one call gets
    its verdicts and refreshes one after the other, as separate calls would."""
    pending = recorded
    while pending:
        seen: set[int] = set()
        now, later = [], []
        for entry in pending:
            (later if entry[1].pk in seen else now).append(entry)
            seen.add(entry[1].pk)
        Verdict.objects.bulk_create([v for v, _, _ in now])
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
