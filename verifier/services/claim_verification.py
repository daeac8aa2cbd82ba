"""Claims an application already has, verified against the sources they cite.

``POST /connect/v1/claims/verify``, ``manage.py verify_claims`` and the console's
"Verify claims" page all come here. A batch is accepted in one transaction
(``claims_submit``): inline sources are created or versioned, each claim's cited source
is resolved, and the valid claims are stored with origin ``api``. Problems of one claim
(unknown source, empty text, text over ``MAX_CLAIM_CHARS``, an external id already used
for another text) become that claim's error and never fail the batch. Then the stored
claims go through the one chain (``claims_verify``: bind in the CITED source only —
a quote found only in another source does not bind —, judge, state) and are classified
under the active rule set with the requested policy: inline (``claims_submit_and_verify``)
or chunk by chunk in a background job (``verification_job_create`` /
``verification_job_run``), whose end queues the ``verification.completed`` webhooks.
A job is created only when at least one claim was accepted: a batch whose every claim
has a problem is refused as a whole (``no_claim_accepted``), never a job that
"succeeds" with nothing verified.

Idempotency: a claim with an ``external_id`` already stored in the workspace with the
same text and source, by an earlier call or by an earlier item of the same batch, is not
stored again; its stored result is returned (``reused: true``), unless its cited source
changed since it was bound (stored ``unverified`` / ``stale_source``): then the stored
claim (its stored quote) is verified again against the current version
(``verification_unfinished``). Concurrent submissions of the same external id are
serialised by a transaction-scoped advisory lock per id.

Inline sources are documents: a changed text is a new version, in which the source's
earlier claims whose words it still has are bound again, judged and scored by an ingest
job queued on commit (``source_upsert_queue_rebind``, as ``POST /connect/v1/sources``
does): judging a large source's claims inside the request could outlast the web worker,
whose timeout would roll the batch back. Until the job has run they are ``unverified``
(``stale_source``); a claim of this batch among them is verified now, against the new
version, and the job finds it current.
"""

from __future__ import annotations

import uuid
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.db import connection, transaction
from django.db.models import Q
from django.utils import timezone

from verifier.binding import BindingInputError, validate_quote, validate_text
from verifier.engine import get_judge
from verifier.errors import ApplicationError
from verifier.extractors.base import MAX_CLAIM_CHARS
from verifier.judges import Judge
from verifier.models import (
    Claim,
    ClaimOrigin,
    IngestJob,
    Source,
    VerificationJob,
    VerificationJobStatus,
    Workspace,
)
from verifier.selectors.claim_verification import (
    verification_job_trace_id,
    verification_unfinished,
)
from verifier.selectors.rules import rule_set_active
from verifier.selectors.traces import claims_bound_spans
from verifier.services.enqueue import RUN_VERIFICATION_JOB, task_enqueue_on_commit
from verifier.services.ingest_create import source_upsert_queue_rebind
from verifier.services.ingest_validate import claims_classify
from verifier.services.job_heartbeat import (
    job_heartbeat,
    leased_job_take,
)
from verifier.services.sources import SourceInputError
from verifier.services.traces import (
    DoorTrace,
    TracedClaim,
    TraceSteps,
    maybe_step,
    trace_door_record,
)
from verifier.services.verification import claims_verify, source_versions_hold
from verifier.services.verification_webhooks import verification_webhooks_queue
from verifier.states import StateReason
from verifier.trace_caller import caller_document
from verifier.untrusted_input import canonical_ref, identifier_refusal
from verifier.vocabulary import counted

MAX_CLAIMS_PER_BATCH = 1000
# Batches up to this size are verified inline (when the caller waits); larger ones,
# or any batch with ``wait: 0``, become a background job.
INLINE_MAX_CLAIMS = 100
# The background job binds, judges and stores this many claims per transaction, so
# progress moves and a crash loses at most one chunk.
JOB_CHUNK_SIZE = 100


class ClaimVerifyInputError(ApplicationError, ValueError):
    """The request as a whole is unusable (the API answers 400)."""


@dataclass(frozen=True)
class ClaimSubmission:
    text: str
    source: str  # the cited source's ref (never a row id: the API shows none)
    quote: str | None = None
    external_id: str = ""
    metadata: dict[str, Any] = field(default_factory=dict)
    # The 1-based line it was read from, where it came as lines (``claim_lines``): a
    # console page names a refused claim by it.
    line: int | None = field(default=None, compare=False)


@dataclass(frozen=True)
class SourceSubmission:
    ref: str
    text: str
    title: str = ""


@dataclass
class SubmittedItem:
    index: int
    claim: Claim | None = None
    error: dict[str, str] | None = None
    reused: bool = False
    external_id: str = ""  # as the request gave it, echoed by every result row

    @property
    def to_verify(self) -> bool:
        """Whether this request verifies the item's claim: a new one, or one stored
        earlier that no judge has read yet (``verification_unfinished``)."""
        return self.claim is not None and verification_unfinished(self.claim, reused=self.reused)

    def as_job_item(self) -> dict[str, Any]:
        echo = {"index": self.index, "external_id": self.external_id or None}
        if self.claim is None:
            return {**echo, "error": self.error}
        return {
            **echo,
            "claim_id": self.claim.public_id,
            "reused": self.reused,
            "verify": self.to_verify,
        }


@dataclass
class SubmittedBatch:
    items: list[SubmittedItem]
    policy: str = ""
    trace_id: uuid.UUID | None = None  # the inline call's trace

    @property
    def claims_to_verify(self) -> list[Claim]:
        """Claims this batch verifies (each once, in request order): those it stored and
        those stored earlier whose verification has not finished (``to_verify``)."""
        seen: set[int] = set()
        out = []
        for item in self.items:
            if item.to_verify and item.claim is not None and item.claim.pk not in seen:
                seen.add(item.claim.pk)
                out.append(item.claim)
        return out


def _user(actor: Any) -> Any:
    """The console user behind a write, or None (an API key is not a user)."""
    return actor if isinstance(actor, get_user_model()) else None


def _error(code: str, message: str) -> dict[str, str]:
    return {"code": code, "message": message}


def _text_problem(text: str) -> dict[str, str] | None:
    if not text.strip():
        return _error("empty_text", "The claim text is empty.")
    if len(text) > MAX_CLAIM_CHARS:
        return _error(
            "text_too_long",
            f"The claim text has {len(text)} characters; the limit is {MAX_CLAIM_CHARS}.",
        )
    try:
        validate_text(text, what="the claim text")
    except BindingInputError as exc:
        return _error("invalid_text", str(exc))
    return None


def _upsert_sources(
    workspace: Workspace,
    sources: Sequence[SourceSubmission],
    actor: User | None,
    cited: Iterable[str] = (),
) -> list[IngestJob]:
    """Store the inline sources as documents: a changed text is a new version, whose
    ingest job binds the source's earlier claims again where their words still are
    (``source_upsert_queue_rebind``, module docstring). Returns those jobs.

    The other sources the claims cite (``cited``, refs) are held at their current
    versions (``source_versions_hold``) in the same pass, so that the batch takes every
    source's row lock in one order: held after the inline ones, a batch storing X and
    citing Y waited for one storing Y and citing X, which waited for it."""
    refs = [canonical_ref(s.ref) for s in sources]  # one ref in either Unicode form
    if len(set(refs)) != len(refs):
        raise ClaimVerifyInputError("duplicate_source_ref", "Each inline source needs its own ref.")
    others = set(map(canonical_ref, cited)) - set(refs)
    to_hold = sorted(
        Source.objects.filter(workspace=workspace, ref__in=others).values_list("ref", "pk")
    )
    rebinds: list[IngestJob] = []
    # In the refs' order, as every door storing several sources: two batches sending the
    # same sources in other orders would each hold a source's row the other waits for.
    for index, spec in sorted(enumerate(sources), key=lambda pair: refs[pair[0]]):
        before = [pk for ref, pk in to_hold if ref < refs[index]]
        source_versions_hold(source_ids=before)
        to_hold = to_hold[len(before) :]
        try:
            write = source_upsert_queue_rebind(
                workspace=workspace,
                ref=spec.ref,
                text=spec.text,
                title=spec.title,
                door_name="claims/verify",
                actor=actor,
            )
            if write.rebind_job is not None:
                rebinds.append(write.rebind_job)
        except SourceInputError as exc:
            details: dict[str, Any] = {"index": index}
            if refused := exc.details.get("field"):  # the source's field its rule refused
                details["field"] = f"sources[{index}].{refused}"
            raise ClaimVerifyInputError(
                exc.code,
                f"sources[{index}]: {exc.message}",
                details,
                status_code=exc.status_code,
            ) from exc
    source_versions_hold(source_ids=[pk for _, pk in to_hold])
    return rebinds


def _leave_to_the_batch(rebinds: Sequence[IngestJob], claims: Iterable[Claim]) -> None:
    """The re-binding jobs of the batch's new versions leave the batch's own claims
    alone (``exclude_claims`` of their payload): the batch verifies them against the new
    version itself, and both binding one claim at once deadlocked on its one active
    span (a ``verify_claims --source-dir`` run with a changed source failed so)."""
    ids = sorted({c.pk for c in claims if c.pk is not None})
    for job in rebinds:
        job.payload = {**job.payload, "exclude_claims": ids}
        job.save(update_fields=["payload"])


def _resolve_sources(workspace: Workspace, names: Iterable[str]) -> dict[str, Source]:
    """Cited source by its ref, in this workspace only. Never by the row's id: the API
    shows no ids, so "12" meant another source's ref, and binding it to whatever row has
    id 12 (a memory transcript, a RAG chunk) answered about a source nobody cited. Keyed
    by the stored ref, in its one form (``canonical_ref``): look a cited ref up in it so."""
    return {s.ref: s for s in Source.objects.filter(workspace=workspace, ref__in=set(names))}


def _check_policy(workspace: Workspace, policy: str, sources: Iterable[Source]) -> None:
    if not policy:
        return
    for pack in sorted({s.domain_pack for s in sources}):
        definition = rule_set_active(workspace=workspace, domain_pack=pack).definition
        names = [p.name for p in definition.policies]
        if policy not in names:
            raise ClaimVerifyInputError(
                "unknown_policy",
                f"Policy {policy!r} is not in the rule set active for {pack!r} "
                f"({definition.name}); choose one of {', '.join(names)}.",
                {"policies": names},
            )


def _lock_external_ids(workspace: Workspace, external_ids: Iterable[str]) -> None:
    """Transaction-scoped advisory locks, taken in a fixed order (no deadlock), so two
    concurrent batches with the same external id cannot both store it."""
    keys = sorted({f"claim-external-id:{workspace.pk}:{e}" for e in external_ids})
    if not keys:
        return
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_advisory_xact_lock(hashtextextended(k, 0)) FROM unnest(%s::text[]) AS k",
            [keys],
        )


@transaction.atomic
def claims_submit(
    *,
    workspace: Workspace,
    claims: Sequence[ClaimSubmission],
    sources: Sequence[SourceSubmission] = (),
    policy: str = "",
    actor: User | None = None,
) -> SubmittedBatch:
    """Store a batch's inline sources and valid new claims (not yet verified)."""
    if not claims:
        raise ClaimVerifyInputError("no_claims", "Send at least one claim.")
    if len(claims) > MAX_CLAIMS_PER_BATCH:
        raise ClaimVerifyInputError(
            "too_many_claims",
            f"{len(claims)} claims in one call; the limit is {MAX_CLAIMS_PER_BATCH}.",
        )
    rebinds = _upsert_sources(workspace, sources, actor, cited=(c.source for c in claims))
    resolved = _resolve_sources(workspace, (c.source for c in claims))
    _check_policy(workspace, policy, resolved.values())
    external_ids = {c.external_id for c in claims if c.external_id}
    _lock_external_ids(workspace, external_ids)
    stored = {
        c.external_id: c
        for c in Claim.objects.filter(workspace=workspace, external_id__in=external_ids)
    }
    items: list[SubmittedItem] = []
    pending: list[Claim] = []
    for index, spec in enumerate(claims):
        item = SubmittedItem(index=index, external_id=spec.external_id)
        items.append(item)
        source = resolved.get(canonical_ref(spec.source))
        problem = _text_problem(spec.text)
        if problem is None and spec.external_id:
            refused = identifier_refusal("external id", spec.external_id)
            if refused is not None:
                problem = _error("invalid_external_id", refused)
        if problem is None and source is None:
            problem = _error(
                "unknown_source", f"No source with the ref {spec.source!r} in this workspace."
            )
        if problem is None and spec.quote is not None:
            # a quote sent must be able to bind: "" is invalid, only null is "no quote"
            try:
                validate_quote(spec.quote)
            except BindingInputError as exc:
                problem = _error("invalid_quote", str(exc))
        if problem is not None:
            item.error = problem
            continue
        assert source is not None
        previous = stored.get(spec.external_id) if spec.external_id else None
        if previous is not None:
            if previous.text != spec.text and previous.original_text != spec.text:
                item.error = _error(
                    "external_id_conflict",
                    f"External id {spec.external_id!r} was already used for another claim "
                    f"text ({previous.public_id}).",
                )
            elif previous.source_id != source.pk:
                item.error = _error(
                    "external_id_conflict",
                    f"External id {spec.external_id!r} was already used with another source "
                    f"({previous.public_id}).",
                )
            elif spec.quote is not None and spec.quote != previous.submitted_quote:
                # a quote sent is checked, never dropped: answering the stored result
                # would say a quote was verified that no judge read
                item.error = _error(
                    "external_id_conflict",
                    f"External id {spec.external_id!r} was already used with another quote "
                    f"({previous.public_id}); send the claim under a new external id to "
                    "verify it with this quote.",
                )
            else:
                # Stored earlier: its result is returned as it is, unless its cited
                # source changed since (``verification_unfinished``: it is verified
                # again). Earlier in this batch (not saved yet): the claim that item
                # stores answers this one too, ``reused`` as well: only the item that
                # stored a claim reads ``reused: false``, so the rows say how many
                # claims the call stored.
                item.claim, item.reused = previous, True
            continue
        claim = Claim(
            workspace=workspace,
            source=source,
            text=spec.text,
            original_text=spec.text,
            origin=ClaimOrigin.API,
            submitted_quote=spec.quote if spec.quote and spec.quote.strip() else "",
            external_id=spec.external_id,
            metadata=spec.metadata or {},
            created_by=_user(actor),
        )
        if spec.external_id:
            stored[spec.external_id] = claim
        pending.append(claim)
        item.claim = claim
    Claim.objects.bulk_create(pending)
    _leave_to_the_batch(rebinds, (item.claim for item in items if item.claim is not None))
    return SubmittedBatch(items=items, policy=policy)


# A claims/verify claim with no result to answer yet: not classified (stored, not verified
# yet), or bound in an earlier version of its cited source (``verification_unfinished``).
_NOT_VERIFIED: Final = Q(quality="") | Q(state_reason=StateReason.STALE_SOURCE)


def claims_verify_submitted(
    *,
    workspace: Workspace,
    claims: Sequence[Claim],
    policy: str = "",
    judge: Judge | None = None,
    steps: TraceSteps | None = None,
) -> None:
    """Bind, judge and state the claims, then classify them under the rule set.

    Under their row locks, those another request verified meanwhile (a retry's claims
    while the first request, or the job, still judged them; the job's claims while a
    retry did) are left with that result: each is judged once."""
    claims = list(claims)
    if not claims:
        return
    with transaction.atomic():
        # the cited sources first, as ``claims_verify`` and every writer of a source
        source_versions_hold(source_ids=(c.source_id for c in claims))
        unfinished = set(
            Claim.objects.select_for_update()
            .filter(_NOT_VERIFIED, pk__in=[c.pk for c in claims])
            .order_by("pk")
            .values_list("pk", flat=True)
        )
        claims = [c for c in claims if c.pk in unfinished]
        if not claims:
            return
        claims_verify(claims=claims, judge=judge, steps=steps)
        with maybe_step(steps, "classify", policy=policy or "active"):
            claims_classify(workspace=workspace, claims=claims, policy=policy or None)


# The claim texts a claims/verify trace repeats in its request (the rest are counted).
TRACE_REQUEST_CLAIMS = 50


def _trace_request(
    claims: Sequence[ClaimSubmission], sources: Sequence[SourceSubmission], policy: str
) -> tuple[str, dict[str, Any]]:
    """(query, request) of a claims/verify trace: what was asked."""
    texts = [c.text for c in claims]
    query = texts[0] if len(texts) == 1 else f"{len(texts)} claims: " + " | ".join(texts[:3])
    request = {
        "claims": [
            {"text": c.text[:500], "source": c.source, "quote": c.quote or None}
            for c in claims[:TRACE_REQUEST_CLAIMS]
        ],
        "claims_total": len(claims),
        "sources": [s.ref for s in sources],
        "policy": policy or None,
    }
    return query[:2000], request


def _trace_claims_verify(
    *,
    workspace: Workspace,
    trace: DoorTrace,
    steps: TraceSteps,
    items: Sequence[dict[str, Any]],
) -> None:
    """Record a claims/verify call (inline or a job) once its claims are verified: each
    claim with its state now and the span it was checked against."""
    ids = [i["claim_id"] for i in items if i.get("claim_id")]
    claims = {
        c.public_id: c
        for c in Claim.objects.filter(workspace=workspace, public_id__in=ids).only(
            "pk", "public_id", "state", "state_reason"
        )
    }
    for item in items:
        claim = claims.get(item.get("claim_id") or "")
        if claim is not None:
            role = "reused" if item.get("reused") else "verified"
            trace.claims.append(TracedClaim(claim.pk, claim.public_id, claim.state, role=role))
    trace.spans = claims_bound_spans(list(claims.values()))
    states = Counter(c.state for c in claims.values())
    trace.result = {
        **trace.result,
        "states": dict(sorted(states.items())),
        "errors": [{"index": i["index"], **i["error"]} for i in items if i.get("error")],
    }
    trace_door_record(workspace=workspace, trace=trace, steps=steps)


@transaction.atomic
def claims_submit_and_verify(
    *,
    workspace: Workspace,
    claims: Sequence[ClaimSubmission],
    sources: Sequence[SourceSubmission] = (),
    policy: str = "",
    actor: User | None = None,
    judge: Judge | None = None,
) -> SubmittedBatch:
    """The inline path: submit and verify in one transaction (a failure stores nothing),
    recorded as one trace."""
    judge = judge or get_judge()
    steps = TraceSteps()
    query, request = _trace_request(claims, sources, policy)
    trace = DoorTrace(
        operation="claims_verify",
        query=query,
        request=request,
        judge={"model": judge.model_id, "family": judge.family},
    )
    with steps.step("submit", claims=len(claims), sources=len(sources)):
        batch = claims_submit(
            workspace=workspace, claims=claims, sources=sources, policy=policy, actor=actor
        )
    with steps.step("verify", claims=len(batch.claims_to_verify)):
        claims_verify_submitted(
            workspace=workspace,
            claims=batch.claims_to_verify,
            policy=policy,
            judge=judge,
            steps=steps,
        )
    batch.trace_id = trace.trace_id
    _trace_claims_verify(
        workspace=workspace,
        trace=trace,
        steps=steps,
        items=[item.as_job_item() for item in batch.items],
    )
    return batch


@transaction.atomic
def verification_job_create(
    *,
    workspace: Workspace,
    claims: Sequence[ClaimSubmission],
    sources: Sequence[SourceSubmission] = (),
    policy: str = "",
    actor: User | None = None,
    enqueue: bool = True,
) -> VerificationJob:
    """The background path: submit now, verify in a Celery task after commit (or, with
    ``enqueue=False``, when the caller runs ``verification_job_run`` itself)."""
    batch = claims_submit(
        workspace=workspace, claims=claims, sources=sources, policy=policy, actor=actor
    )
    _refuse_if_nothing_accepted(batch)
    job = VerificationJob.objects.create(
        workspace=workspace,
        created_by=_user(actor),
        caller=caller_document(),
        policy=policy,
        items=[item.as_job_item() for item in batch.items],
        total=len(batch.claims_to_verify),
    )
    if enqueue:
        task_enqueue_on_commit(RUN_VERIFICATION_JOB, job.pk)
    return job


# Claim problems named in the message of a batch that has no claim to verify.
REFUSAL_PROBLEMS_SHOWN = 5
# The field of a claim each item problem is about (``details.field`` of the refusal).
PROBLEM_FIELDS: Final = {
    "empty_text": "text",
    "text_too_long": "text",
    "invalid_text": "text",
    "invalid_external_id": "external_id",
    "external_id_conflict": "external_id",
    "unknown_source": "source",
    "invalid_quote": "quote",
}


def _refuse_if_nothing_accepted(batch: SubmittedBatch) -> None:
    """A job would verify none of the batch's claims (each has a problem: an unknown
    source, an empty text, ...): refuse the batch, naming the problems, so nothing is
    stored (the caller's transaction rolls back the inline sources too) and no job
    reports "succeeded, 0 of 0 verified"."""
    if any(item.claim is not None for item in batch.items):
        return
    # numbered as ``index`` and ``details.errors`` number them (0-based)
    problems = [
        f"claims[{i.index}]: {i.error['message'].rstrip('.')}" for i in batch.items if i.error
    ]
    shown = "; ".join(problems[:REFUSAL_PROBLEMS_SHOWN])
    more = len(problems) - REFUSAL_PROBLEMS_SHOWN
    first = next((i for i in batch.items if i.error), None)
    code = (first.error or {}).get("code", "") if first is not None else ""
    about = PROBLEM_FIELDS.get(code)
    raise ClaimVerifyInputError(
        "no_claim_accepted",
        f"No claim could be verified — {shown}" + (f"; and {more} more." if more > 0 else "."),
        {
            # the first field in the wrong, as every 400 names it
            "field": (
                f"claims[{first.index}]" + (f".{about}" if about else "")
                if first is not None
                else "claims"
            ),
            "errors": [
                {"index": i.index, "external_id": i.external_id or None, **(i.error or {})}
                for i in batch.items
            ],
        },
    )


def _job_claim_ids_to_verify(job: VerificationJob) -> list[str]:
    """The claims the job verifies (``SubmittedItem.to_verify``; a job stored before
    items said so verifies the claims it stored)."""
    seen: set[str] = set()
    out = []
    for item in job.items:
        claim_id = item.get("claim_id")
        if claim_id and item.get("verify", not item.get("reused")) and claim_id not in seen:
            seen.add(claim_id)
            out.append(claim_id)
    return out


def verification_job_run(
    *,
    job_id: int,
    judge: Judge | None = None,
    on_progress: Callable[[int, int], None] | None = None,
) -> VerificationJob:
    """Verify a job's claims chunk by chunk (each chunk its own transaction, progress
    saved after each); claims already judged by an earlier, interrupted run are skipped,
    so running a job twice verifies every claim once."""
    job, taken = leased_job_take(VerificationJob.objects.all(), job_id)
    if not taken:
        return job  # done, or a live worker has it (a redelivered message)
    try:
        with job_heartbeat(model=VerificationJob, pk=job.pk, runner=job.runner):
            return _verification_job_chunks(job, judge=judge, on_progress=on_progress)
    finally:
        VerificationJob.objects.filter(pk=job.pk, runner=job.runner).update(runner="")


def _verification_job_chunks(
    job: VerificationJob, *, judge: Judge | None, on_progress: Callable[[int, int], None] | None
) -> VerificationJob:
    ours = VerificationJob.objects.filter(
        pk=job.pk, runner=job.runner, status=VerificationJobStatus.RUNNING
    )
    judge = judge or get_judge()
    ids = _job_claim_ids_to_verify(job)
    steps = TraceSteps()
    trace = DoorTrace(
        operation="claims_verify",
        query=f"verification job #{job.pk}: {counted(len(job.items), 'claim')}",
        request={"job": job.pk, "claims_total": len(job.items), "policy": job.policy or None},
        judge={"model": judge.model_id, "family": judge.family},
        caller=job.caller,
        # the job's answer names it by this id once the job has ended
        trace_id=verification_job_trace_id(job_id=job.pk),
    )
    try:
        for offset in range(0, len(ids), JOB_CHUNK_SIZE):
            if not ours.exists():
                job.refresh_from_db()
                return job  # presumed dead and handed to another worker, or failed
            chunk_ids = ids[offset : offset + JOB_CHUNK_SIZE]
            # not verified yet: unclassified, or stale (a claim stored earlier whose
            # source changed since: ``verification_unfinished``)
            chunk = list(
                Claim.objects.filter(workspace=job.workspace, public_id__in=chunk_ids)
                .filter(_NOT_VERIFIED)
                .select_related("source")
                .order_by("pk")
            )
            with transaction.atomic():
                with steps.step(f"chunk {offset // JOB_CHUNK_SIZE + 1}", claims=len(chunk)):
                    claims_verify_submitted(
                        workspace=job.workspace,
                        claims=chunk,
                        policy=job.policy,
                        judge=judge,
                        steps=steps,
                    )
                done = min(len(ids), offset + len(chunk_ids))
                ours.update(done=done, heartbeat_at=timezone.now())
            if on_progress is not None:
                on_progress(done, len(ids))
    except Exception as exc:
        with transaction.atomic():
            failed = ours.update(
                status=VerificationJobStatus.FAILED,
                error=f"{type(exc).__name__}: {exc}"[:2000],
                finished_at=timezone.now(),
            )
            if failed:
                trace.result = {"status": "failed", "error": f"{type(exc).__name__}: {exc}"}
                _trace_claims_verify(
                    workspace=job.workspace, trace=trace, steps=steps, items=job.items
                )
        raise
    with transaction.atomic():
        current = VerificationJob.objects.select_for_update().get(pk=job.pk)
        if current.runner != job.runner or current.status != VerificationJobStatus.RUNNING:
            return current  # another worker finishes it (it holds the lease now)
        current.status = VerificationJobStatus.SUCCEEDED
        current.done = len(ids)
        current.finished_at = timezone.now()
        current.save(update_fields=["status", "done", "finished_at"])
        verification_webhooks_queue(job=current)
        trace.result = {"status": "succeeded"}
        _trace_claims_verify(workspace=job.workspace, trace=trace, steps=steps, items=job.items)
    return current
