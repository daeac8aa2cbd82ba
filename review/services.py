"""Writes of the review console: human decisions, notes, exclusions, leases.

A reviewer's decision is a verdict like any other (judge = the person), appended to
the claim's history; the claim's state is then re-resolved by the one state writer,
so the same rules apply: nobody makes a claim ``supported`` without a fresh bound span.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import timedelta
from typing import TYPE_CHECKING, Any, Literal

from django.conf import settings
from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Case, F, IntegerField, QuerySet, Value, When
from django.utils import timezone

from review.filters import filter_in_words
from review.models import ReviewAssignment, ReviewLease, ReviewNote
from verifier import vocabulary
from verifier.errors import ApplicationError
from verifier.models import (
    HUMAN_JUDGE_FAMILY,
    Claim,
    EvidenceBinding,
    Membership,
    ReviewRejudgeJob,
    ReviewRejudgeJobStatus,
    Verdict,
    VerdictLabel,
    Workspace,
)
from verifier.permissions import DECIDER_ROLES
from verifier.selectors.claim_state import claim_binding_check, current_version
from verifier.services.claim_state import claim_exclude, claim_state_refresh
from verifier.services.enqueue import RUN_REVIEW_REJUDGE_JOB, task_enqueue_on_commit
from verifier.services.job_heartbeat import (
    job_heartbeat,
    leased_job_take,
)
from verifier.services.sources import claim_restore_rebind
from verifier.services.workspaces import member_added_record, member_remove, member_role_change
from verifier.state_policy import state_policy
from verifier.states import CAUSE_REJUDGE, CAUSE_UNDO, StateDecision, judge_not_asked

if TYPE_CHECKING:
    from review.models import ReviewGuidelines
    from review.selectors.item import ItemChange

Decision = Literal["supported", "contradicted", "not_stated"]
# A decision's verdict label: "not_stated" (the source does not say it, nor its opposite)
# is neither an entailment nor a contradiction.
DECISION_LABELS: Mapping[str, str] = {
    "supported": VerdictLabel.ENTAILED.value,
    "contradicted": VerdictLabel.CONTRADICTED.value,
    "not_stated": VerdictLabel.NOT_STATED.value,
}
HUMAN_PROMPT_VERSION = 0  # a person reads the span; there is no prompt
# How many items a skip loop may pass over before giving up (leases held elsewhere).
LEASE_ATTEMPTS = 5
# How many claims in queue order are candidates for one lease attempt.
LEASE_CANDIDATES = 16
# Claims a bulk send-back's job locks, judges and writes per transaction: reviewers wait
# on one chunk's locks for a moment, never on the whole selection.
REJUDGE_CHUNK = 20

logger = logging.getLogger(__name__)


class ReviewError(ApplicationError, ValueError):
    """A decision the rules refuse; the message is shown to the reviewer as a form error."""

    def __init__(self, message: str, *, code: str = "review_refused") -> None:
        super().__init__(code, message)


class StaleItem(ReviewError):
    """The item changed since the page the action was made on (409 in the console)."""

    def __init__(
        self,
        change: ItemChange,
        reviewer: User,
        *,
        message: str | None = None,
        code: str = "stale_item",
    ) -> None:
        self.change = change
        self.reviewer = reviewer
        self._message = message
        # the console's answer links to the current item after it (_item.html); the
        # message leaves out others' answers, as blind review would (``in_words``)
        super().__init__(self.in_words(hide_answer=True), code=code)

    def in_words(self, *, hide_answer: bool) -> str:
        """What changed since the page, in words ("Already excluded by ada at 06:45
        UTC."); ``hide_answer``: leave out another person's or the judge's answer (the
        reviewer's blind review)."""
        if self._message is not None:
            return self._message
        return self.change.in_words(viewer=self.reviewer, hide_answer=hide_answer)


class VersionMissing(StaleItem):
    """An action that does not say which version of the item it was made on (409 in the
    console, with the current item): it could land on a state its reviewer never saw."""

    def __init__(self, change: ItemChange, reviewer: User) -> None:
        super().__init__(
            change,
            reviewer,
            message="This action did not say which version of the item it was made on; "
            "the current item is shown — act on it again.",
            code="version_required",
        )


class LeasedToOther(ReviewError):
    """Another reviewer holds a live lease on the claim (409 in the console)."""

    def __init__(self, holder_name: str) -> None:
        super().__init__(
            f"{holder_name} is reviewing this claim right now.", code="leased_to_other"
        )


def review_version_check(*, claim: Claim, reviewer: User, expected_version: str | None) -> None:
    """Lock the claim's row; refuse (``LeasedToOther``) when another reviewer holds a
    live lease on it, (``VersionMissing``) when no ``expected_version`` is given, and
    (``StaleItem``) when it changed since ``expected_version`` (the token the page was
    rendered with, ``review_item_change``)."""
    from review.selectors.item import ITEM_VERSION, review_item_change
    from review.selectors.leases import review_lease_live

    Claim.objects.select_for_update().filter(pk=claim.pk).first()
    lease = review_lease_live(claim=claim)
    if lease is not None and lease.reviewer_id != reviewer.pk:
        raise LeasedToOther(lease.reviewer.get_username())
    change = review_item_change(claim=claim)
    if not expected_version or not ITEM_VERSION.fullmatch(expected_version):
        # missing, or not one a page was given (hand-made): the same as missing
        raise VersionMissing(change, reviewer)
    if change.version != expected_version:
        raise StaleItem(change, reviewer)


def _lease_seconds() -> int:
    return int(getattr(settings, "SPANPROOF_REVIEW_LEASE_SECONDS", 900))


def _check_selected_span(claim: Claim, span: tuple[int, int], span_text: str | None) -> None:
    start, end = span
    version = current_version(claim)
    if version is None:
        raise ReviewError("The cited source has no version to bind a span in.")
    if not (0 <= start < end <= len(version.text)):
        raise ReviewError("The selected span is outside the source text.")
    if span_text is not None and version.text[start:end] != span_text:
        raise ReviewError(
            "The selected text does not match the source at those offsets; select it again."
        )


@transaction.atomic
def review_decide(
    *,
    claim: Claim,
    reviewer: User,
    decision: Decision,
    note: str = "",
    span: tuple[int, int] | None = None,
    span_text: str | None = None,
    expected_version: str | None,
) -> StateDecision:
    """Append the reviewer's verdict (optionally binding a selected span) and re-resolve.

    ``supported`` needs a fresh bound span (bound now from ``span``, or already bound),
    ``contradicted`` a bound span (the one that contradicts); ``not_stated`` (the source
    does not state the claim, nor its opposite) needs none and binds none: a selected
    span is not evidence of anything, so it is left unbound, and the verdict records the
    span bound now, if any, as the one the reviewer found silent.

    ``expected_version`` is the item's version the decision was made on: without one
    (``VersionMissing``) or on a stale page (``StaleItem``) it is refused; the same
    decision repeated by the same reviewer on an unchanged claim is refused too, so a
    double submit never appends a second identical verdict.
    """
    from review.selectors.item import review_item_change
    from verifier.services.binding import BindingRejected, claim_bind_span

    if decision not in DECISION_LABELS:
        raise ReviewError(f"Unknown decision {decision!r}.")
    if decision == "not_stated":
        span = span_text = None
    review_version_check(claim=claim, reviewer=reviewer, expected_version=expected_version)
    claim = Claim.objects.select_for_update().get(pk=claim.pk)
    latest = claim.verdicts.order_by("-id").first()
    if (
        span is None
        and latest is not None
        and latest.reviewer_id == reviewer.pk
        and latest.label == DECISION_LABELS[decision]
    ):
        raise StaleItem(review_item_change(claim=claim), reviewer)
    if claim.exclusion_reason:
        raise ReviewError("This claim is excluded; restore it before deciding.")
    before: EvidenceBinding | None = None  # the evidence a selected span replaces
    if span is not None:
        _check_selected_span(claim, span, span_text)
        before = EvidenceBinding.objects.filter(claim=claim, is_active=True).first()
        try:
            claim_bind_span(claim=claim, start=span[0], end=span[1], actor=reviewer)
        except BindingRejected as exc:
            raise ReviewError(f"That span cannot be bound: {exc}") from exc
    check = claim_binding_check(claim=claim)
    binding_ok = (
        check.binding_status == "fresh"
        and check.binding is not None
        and check.binding.match in state_policy().bound_match_kinds
    )
    if decision == "supported" and not binding_ok:
        raise ReviewError(
            "Supported needs a bound span that still matches the current source: "
            "select the supporting text in the source pane."
        )
    if decision == "contradicted" and check.binding is None:
        raise ReviewError("Contradicted needs the span that contradicts: select it in the source.")
    Verdict.objects.create(
        claim=claim,
        binding=check.binding,
        judge_model=f"human:{reviewer.get_username()}",
        judge_family=HUMAN_JUDGE_FAMILY,
        prompt_version=HUMAN_PROMPT_VERSION,
        label=DECISION_LABELS[decision],
        confidence=1.0,
        note=note.strip(),
        reviewer=reviewer,
        bound_selection=span is not None,
        binding_before=before,
    )
    said = decision.replace("_", " ")  # "not stated", as the history reads it
    result = claim_state_refresh(
        claim=claim, cause=f"review: {said} by {reviewer.get_username()}", actor=reviewer
    )
    review_lease_release(claim=claim, reviewer=reviewer)
    return result


@transaction.atomic
def review_exclude(
    *, claim: Claim, reviewer: User, reason: str, expected_version: str | None
) -> StateDecision:
    if not reason.strip():
        raise ReviewError("An exclusion needs a reason.")
    review_version_check(claim=claim, reviewer=reviewer, expected_version=expected_version)
    result = claim_exclude(claim=claim, reason=reason, actor=reviewer)
    review_lease_release(claim=claim, reviewer=reviewer)
    return result


@transaction.atomic
def review_restore(*, claim: Claim, reviewer: User, expected_version: str | None) -> StateDecision:
    review_version_check(claim=claim, reviewer=reviewer, expected_version=expected_version)
    claim.refresh_from_db(fields=["exclusion_reason"])
    if not claim.exclusion_reason:
        raise ReviewError("This claim is not excluded.")
    return claim_restore_rebind(claim=claim, actor=reviewer)


def review_note(*, claim: Claim, reviewer: User, text: str) -> ReviewNote:
    if not text.strip():
        raise ReviewError("A note needs some text.")
    return ReviewNote.objects.create(claim=claim, author=reviewer, text=text.strip())


def review_rejudge_one(
    *, claim: Claim, reviewer: User, expected_version: str | None
) -> list[Verdict]:
    """Send one claim back to the judge, refusing a stale page (``StaleItem``). Checked
    and judged under the claim's row lock, in one transaction: checked in one of its own,
    two sends of one page at once (a double click, two reviewers) both passed the check
    and the judge's answer was appended twice, and an exclusion made between the check
    and the judging had its excluded claim judged."""
    with transaction.atomic():
        review_version_check(claim=claim, reviewer=reviewer, expected_version=expected_version)
        claim.refresh_from_db(fields=["exclusion_reason"])
        if claim.exclusion_reason:
            raise ReviewError("Restore the claim first.")
        return review_rejudge(claims=[claim], reviewer=reviewer)


def review_rejudge(*, claims: Iterable[Claim], reviewer: User) -> list[Verdict]:
    """Send claims back to the judge; returns each sent claim's last verdict. A claim whose span is
    in an earlier version of its source with other text is bound again in the current
    version first (``claims_rebind_superseded``): the judge reads the source as it is."""
    from verifier.services.binding import claims_rebind_superseded
    from verifier.services.judging import claims_judge

    claims = [claim for claim in claims if not claim.exclusion_reason]
    if not claims:
        return []
    why = f"{CAUSE_REJUDGE}{reviewer.get_username()}"
    claims_rebind_superseded(claims=claims, actor=reviewer, why=why)
    verdicts = claims_judge(claims=claims, cause=why)
    for claim in claims:
        review_lease_release(claim=claim, reviewer=reviewer)
    return verdicts


@dataclass(frozen=True)
class BulkOutcome:
    """What a bulk action did: ``done`` claims were acted on; ``held`` ones were left
    alone because another reviewer holds a live lease on them (claim, holder name)."""

    done: list[Claim] = field(default_factory=list)
    held: list[tuple[Claim, str]] = field(default_factory=list)
    # changed since the confirmation page showed them (decided, excluded, re-judged by
    # someone else): left alone, as the single item's stale check refuses them
    changed: list[Claim] = field(default_factory=list)
    # a send-back's background job, which judges ``done`` (None: nothing to send)
    job: ReviewRejudgeJob | None = None


def _bulk_partition(
    claims: Iterable[Claim], reviewer: User, seen: Mapping[str, str] | None = None
) -> tuple[list[Claim], list[tuple[Claim, str]], list[Claim]]:
    """Lock the claims' rows (in id order) and split off those leased to someone else
    and, with ``seen`` (public id -> the item version the confirmation page showed),
    those that changed since: the single item's stale check, for each claim.

    ``review_lease_claim`` locks the claim row before it writes a lease, so under these
    locks no other reviewer can take a lease on a claim we are about to act on."""
    from review.selectors.item import review_item_change

    ids = sorted({claim.pk for claim in claims})
    locked = list(Claim.objects.select_for_update().filter(pk__in=ids).order_by("pk"))
    holders = {
        lease.claim_id: lease.reviewer.get_username()
        for lease in ReviewLease.objects.filter(claim__in=ids, expires_at__gt=timezone.now())
        .exclude(reviewer=reviewer)
        .select_related("reviewer")
    }
    held = [(claim, holders[claim.pk]) for claim in locked if claim.pk in holders]
    free, changed = [], []
    for claim in locked:
        if claim.pk in holders:
            continue
        if (
            seen is not None
            and seen.get(claim.public_id) != review_item_change(claim=claim).version
        ):
            changed.append(claim)
        else:
            free.append(claim)
    return free, held, changed


@transaction.atomic
def review_bulk_exclude(
    *,
    claims: Iterable[Claim],
    reviewer: User,
    reason: str,
    seen: Mapping[str, str] | None = None,
) -> BulkOutcome:
    """Exclude the claims, skipping (and reporting) those another reviewer is holding
    and those changed since ``seen`` — the same rules as the single-item path, which
    refuses them with a 409."""
    if not reason.strip():
        raise ReviewError("An exclusion needs a reason.")
    free, held, changed = _bulk_partition(claims, reviewer, seen)
    done = []
    for claim in free:
        if claim.exclusion_reason:
            continue
        claim_exclude(claim=claim, reason=reason, actor=reviewer)
        done.append(claim)
    ReviewLease.objects.filter(claim__in=[c.pk for c in free]).delete()  # own or expired
    return BulkOutcome(done=done, held=held, changed=changed)


def review_bulk_rejudge(
    *, claims: Iterable[Claim], reviewer: User, seen: Mapping[str, str] | None = None
) -> BulkOutcome:
    """Send the claims back to the judge in the background: skip (and report) now those
    another reviewer is holding and those changed since ``seen``, and record the rest in
    a job (``outcome.job``) that a worker runs once this commits
    (:func:`review_rejudge_job_run`), checking each claim again when its chunk runs. The
    request never waits on the judge (a model loading, an external judge's backend)."""
    with transaction.atomic():
        free, held, changed = _bulk_partition(claims, reviewer, seen)
        free = [claim for claim in free if not claim.exclusion_reason]
        job = _rejudge_job_create(claims=free, reviewer=reviewer, seen=seen) if free else None
    return BulkOutcome(done=free, held=held, changed=changed, job=job)


def _rejudge_job_create(
    *, claims: list[Claim], reviewer: User, seen: Mapping[str, str] | None
) -> ReviewRejudgeJob:
    """Record a send-back of ``claims`` (one workspace's) asked for by ``reviewer`` and
    enqueue it once the caller's transaction commits."""
    workspaces = {claim.workspace_id for claim in claims}
    if len(workspaces) != 1:
        raise ReviewError("A send-back to the judge takes the claims of one workspace.")
    ids = sorted(claim.pk for claim in claims)
    job = ReviewRejudgeJob.objects.create(
        workspace_id=workspaces.pop(),
        created_by=reviewer,
        claim_ids=ids,
        seen=None if seen is None else {c.public_id: seen.get(c.public_id, "") for c in claims},
        total=len(ids),
    )
    task_enqueue_on_commit(RUN_REVIEW_REJUDGE_JOB, job.pk)
    return job


@dataclass(frozen=True)
class RejudgeChunk:
    """What one chunk of a send-back did: ``judged`` claims the judge answered,
    ``unbound`` ones it was not asked about (no span bound), ``unanswered`` ones it gave
    no usable answer for (a coverage gap: unreachable, malformed, omitted); ``moved`` of
    the claims sent changed state; ``skipped``: the claims left alone and why
    (``ReviewRejudgeJob``)."""

    judged: int
    unbound: int
    unanswered: int
    moved: int
    skipped: list[dict[str, str]]


def review_rejudge_chunk(
    *, ids: list[int], reviewer: User, seen: Mapping[str, str] | None
) -> RejudgeChunk:
    """Send the claims ``ids`` back to the judge under their row locks, by the single
    item's rules: a claim another reviewer holds, one changed since ``seen`` and an
    excluded one are left alone (and named). The caller holds a transaction."""
    free, held, changed = _bulk_partition(Claim.objects.filter(pk__in=ids), reviewer, seen)
    found = {claim.pk for claim in free} | {c.pk for c in changed} | {c.pk for c, _ in held}
    skipped = [{"claim": c.public_id, "why": "held", "holder": name} for c, name in held]
    skipped += [{"claim": c.public_id, "why": "changed"} for c in changed]
    skipped += [{"claim": c.public_id, "why": "excluded"} for c in free if c.exclusion_reason]
    skipped += [{"claim": f"#{pk}", "why": "gone"} for pk in ids if pk not in found]
    sent = [claim for claim in free if not claim.exclusion_reason]
    before = {claim.pk: claim.state for claim in sent}
    verdicts = review_rejudge(claims=sent, reviewer=reviewer)
    after = dict(Claim.objects.filter(pk__in=before).values_list("pk", "state"))
    moved = sum(1 for pk, state in before.items() if after.get(pk) != state)
    unbound = sum(1 for v in verdicts if judge_not_asked(label=v.label, note=v.note))
    unanswered = sum(1 for v in verdicts if v.label == VerdictLabel.COVERAGE_GAP)
    return RejudgeChunk(
        judged=len(verdicts) - unbound - unanswered,
        unbound=unbound,
        unanswered=unanswered,
        moved=moved,
        skipped=skipped,
    )


def _rejudge_job_finish(job: ReviewRejudgeJob, status: str, error: str = "") -> None:
    ReviewRejudgeJob.objects.filter(pk=job.pk, runner=job.runner).update(
        status=status, error=error[:2000], finished_at=timezone.now(), runner=""
    )


def review_rejudge_job_run(*, job_id: int) -> ReviewRejudgeJob:
    """Run a send-back to its end, chunk by chunk (``REJUDGE_CHUNK`` claims in id order,
    each chunk and the job's progress in one transaction). A finished job, or one a live
    worker holds, is left alone; an interrupted one goes on after ``done_through``."""
    job, taken = leased_job_take(ReviewRejudgeJob.objects.select_related("created_by"), job_id)
    if not taken:
        return job
    try:
        with job_heartbeat(model=ReviewRejudgeJob, pk=job.pk, runner=job.runner):
            _rejudge_job_chunks(job)
    except Exception as exc:
        _rejudge_job_finish(job, ReviewRejudgeJobStatus.FAILED, f"{type(exc).__name__}: {exc}")
        logger.exception("send-back job %s failed", job.pk)
    job.refresh_from_db()
    return job


def _rejudge_job_chunks(job: ReviewRejudgeJob) -> None:
    reviewer = job.created_by
    ours = ReviewRejudgeJob.objects.filter(pk=job.pk, runner=job.runner)
    ids = [int(pk) for pk in job.claim_ids]
    while True:
        with transaction.atomic():
            current = ours.select_for_update().first()
            if current is None:  # the watchdog gave the job to another worker
                return
            rest = [pk for pk in ids if pk > current.done_through][:REJUDGE_CHUNK]
            if not rest:
                _rejudge_job_finish(job, ReviewRejudgeJobStatus.SUCCEEDED)
                return
            if (
                reviewer is None
                or not Membership.objects.filter(
                    workspace_id=job.workspace_id, user=reviewer, role__in=DECIDER_ROLES
                ).exists()
            ):
                _rejudge_job_finish(
                    job,
                    ReviewRejudgeJobStatus.FAILED,
                    "the member who sent them back may no longer decide in this workspace: "
                    "the claims not judged yet were left as they are",
                )
                return
            done = review_rejudge_chunk(ids=rest, reviewer=reviewer, seen=current.seen)
            ours.update(
                done=F("done") + len(rest),
                done_through=rest[-1],
                judged=F("judged") + done.judged,
                unbound=F("unbound") + done.unbound,
                unanswered=F("unanswered") + done.unanswered,
                moved=F("moved") + done.moved,
                skipped=[*current.skipped, *done.skipped],
                heartbeat_at=timezone.now(),
            )


def review_lease_release(*, claim: Claim, reviewer: User) -> None:
    ReviewLease.objects.filter(claim=claim, reviewer=reviewer).delete()


@transaction.atomic
def review_lease_break(*, claim: Claim) -> str | None:
    """End whoever's live lease on ``claim`` (an admin frees an item a reviewer left
    mid-way, rather than everyone waiting out the lease): the holder's user name, or
    None when no live lease was held. Nothing the holder decided is touched; a decision
    they send later is checked against the item's version as any other."""
    lease = (
        ReviewLease.objects.select_for_update()
        .filter(claim=claim, expires_at__gt=timezone.now())
        .select_related("reviewer")
        .first()
    )
    if lease is None:
        return None
    holder = lease.reviewer.get_username()
    lease.delete()
    return holder


@transaction.atomic
def review_hand_back(*, claim: Claim, reviewer: User) -> bool:
    """Give an item back: the reviewer's lease on ``claim`` is released and, where the
    claim is assigned to them, the assignment is taken off (someone else's assignment
    is left alone). Whether an assignment of theirs was taken off."""
    review_lease_release(claim=claim, reviewer=reviewer)
    removed, _ = ReviewAssignment.objects.filter(claim=claim, assignee=reviewer).delete()
    return removed > 0


@transaction.atomic
def review_lease_take(*, claim: Claim, reviewer: User, served_reason: str) -> ReviewLease | None:
    """Move the reviewer to ``claim`` (one item at a time): their other leases in its
    workspace are released and this one is leased, unless another reviewer holds it
    (None). An undo or a restore shows its item again to work on: without this the
    reviewer kept the lease on the item they had left and none on this one."""
    if not _deciding_in(workspace_id=claim.workspace_id, reviewer=reviewer):
        return None
    review_lease_release_all(workspace=claim.workspace, reviewer=reviewer)
    return _lease(claim=claim, reviewer=reviewer, served_reason=served_reason)


def review_lease_release_all(*, workspace: Workspace, reviewer: User) -> None:
    ReviewLease.objects.filter(claim__workspace=workspace, reviewer=reviewer).delete()


def review_lease_release_signed_out(*, reviewer: User) -> None:
    """Release every lease of a reviewer who signed out (``review.signals``): nobody is
    reviewing those items, so others may take them at once instead of reading "X is
    reviewing this claim" until the leases run out."""
    ReviewLease.objects.filter(reviewer=reviewer).delete()


def _deciding_in(*, workspace_id: int, reviewer: User) -> bool:
    """Lock the reviewer's membership row of the workspace (FOR NO KEY UPDATE) and tell
    whether they may decide there. Every lease is taken under that lock, first in its
    transaction, and every change after which a member no longer reviews the workspace
    (a role lowered, a member taken out, a row moved: ``review_member_*``) locks the row
    before it releases their leases there: a lease asked for at that moment waits for the
    change and then is not taken, or is taken first and released with the others. Not
    locked, it was written after the release, and kept the item from everyone else
    ("X is reviewing this claim") for the lease's length."""
    mine = Membership.objects.select_for_update(no_key=True, of=("self",)).filter(
        workspace_id=workspace_id, user=reviewer, user__is_active=True, role__in=DECIDER_ROLES
    )
    return mine.values_list("pk", flat=True).first() is not None


@transaction.atomic
def review_lease_claim(*, claim: Claim, reviewer: User, served_reason: str) -> ReviewLease | None:
    """Lease one specific claim; None when another reviewer holds a live lease on it, or
    the reviewer no longer decides in its workspace."""
    if not _deciding_in(workspace_id=claim.workspace_id, reviewer=reviewer):
        return None
    return _lease(claim=claim, reviewer=reviewer, served_reason=served_reason)


def _lease(*, claim: Claim, reviewer: User, served_reason: str) -> ReviewLease | None:
    """``review_lease_claim`` under the reviewer's membership lock (``_deciding_in``)."""
    Claim.objects.select_for_update().filter(pk=claim.pk).first()
    now = timezone.now()
    lease = ReviewLease.objects.select_for_update().filter(claim=claim).first()
    if lease is not None and lease.expires_at > now and lease.reviewer_id != reviewer.pk:
        return None
    expires = now + timedelta(seconds=_lease_seconds())
    if lease is None:
        return ReviewLease.objects.create(
            claim=claim, reviewer=reviewer, served_reason=served_reason[:200], expires_at=expires
        )
    taken_over = lease.reviewer_id != reviewer.pk  # an expired lease of someone else
    lease.reviewer = reviewer
    lease.expires_at = expires
    if taken_over or not lease.served_reason:
        lease.served_reason = served_reason[:200]
    lease.save(update_fields=["reviewer", "expires_at", "served_reason"])
    return lease


def _describe_filters(filters: Mapping[str, Any]) -> str:
    """The filter an item was served by, in words (the item page shows it): "; by the
    filter Reason: Judge undecided, Whose: Mine"; "" for the default queue."""
    said = filter_in_words(filters)
    return f"; by the filter {said}" if said else ""


def review_lease_next(
    *,
    workspace: Workspace,
    reviewer: User,
    queryset: QuerySet[Claim],
    filters: Mapping[str, Any] | None = None,
    skip: Iterable[int] = (),
    blind: bool = False,
) -> ReviewLease | None:
    """Lease the next claim of ``queryset`` in the queue order (in blind review,
    ``blind``, oldest first: the risk order would tell the judge's answer).

    ``queryset``: the queue's claims by the current filter, prepared by the caller
    (``review_queue_filtered``); ``filters``: that filter's values, recorded in the
    lease's served reason. The first few claims in queue order (not held by another
    reviewer, not decided by this reviewer, not in ``skip``; claims assigned to another
    member only when no other claim is left) are candidates; the first
    of them that is not row-locked is claimed with ``SELECT ... ORDER BY ... LIMIT 1 FOR UPDATE SKIP
    LOCKED``, so reviewers asking at once lock different rows. The lease is then
    re-checked under the row lock. The reviewer's previous leases in the workspace are
    released (one item at a time).
    """
    from review.selectors.cursor import review_queue_ordered_ids
    from review.selectors.leases import (
        review_assigned_to_others,
        review_decided_by,
        review_held_by_others,
    )

    described = _describe_filters(filters or {})
    passed_over = set(skip)
    for _ in range(LEASE_ATTEMPTS):
        with transaction.atomic():
            if not _deciding_in(workspace_id=workspace.pk, reviewer=reviewer):
                return None
            review_lease_release_all(workspace=workspace, reviewer=reviewer)
            candidate_claims = queryset.exclude(review_held_by_others(reviewer=reviewer))
            # Never an item this reviewer decided (a filter such as state=contradicted
            # still lists it).
            candidate_claims = candidate_claims.exclude(review_decided_by(reviewer=reviewer))
            if passed_over:
                candidate_claims = candidate_claims.exclude(pk__in=passed_over)
            # One range scan of the queue index, in queue order. A claim assigned to
            # another member is theirs to take first: it is served only when nothing
            # else is left in the filter (anyone may still open and decide it).
            candidates = review_queue_ordered_ids(
                queryset=candidate_claims.exclude(review_assigned_to_others(reviewer=reviewer)),
                limit=LEASE_CANDIDATES,
                blind=blind,
            ) or review_queue_ordered_ids(
                queryset=candidate_claims, limit=LEASE_CANDIDATES, blind=blind
            )
            if not candidates:
                return None
            in_order = Case(
                *(When(pk=pk, then=Value(rank)) for rank, pk in enumerate(candidates)),
                output_field=IntegerField(),
            )
            claim = (
                Claim.objects.filter(pk__in=candidates)
                .order_by(in_order)
                .select_for_update(skip_locked=True)
                .only("pk", "state_reason", "public_id", "workspace_id")
                .first()
            )
            if claim is None:  # every candidate is being taken right now
                passed_over.update(candidates)
                continue
            # A lease committed after the candidates were read is only visible to a
            # new statement: re-check under the row lock before taking it.
            reason = (
                f"next oldest (blind review){described}"
                if blind
                else f"next by risk: {vocabulary.label('reason', claim.state_reason)}{described}"
            )
            lease = _lease(claim=claim, reviewer=reviewer, served_reason=reason)
            if lease is not None:
                return lease
            passed_over.add(claim.pk)
    return None


def review_blind_set(*, membership: Membership, blind: bool) -> None:
    """The reviewer's blind-review setting for this workspace."""
    type(membership).objects.filter(pk=membership.pk).update(blind_review=blind)
    membership.blind_review = blind


# --- undo, assignment, guidelines (issue 40.5) --------------------------------------


@transaction.atomic
def review_undo(*, claim: Claim, reviewer: User) -> StateDecision:
    """Take back the reviewer's own decision on ``claim`` within the undo window: a new
    ``withdrawn`` verdict is appended (nothing is deleted; the history shows both) and the
    state is re-resolved by the one state writer, from the decision before it (another
    reviewer's, or the judge's verdict). A decision made on a span the reviewer selected
    is taken back whole: the binding active before it (or none) is the claim's evidence
    again, unless the claim was bound again since. Refused when the decision that stands
    is not this reviewer's, or is older than the window."""
    from review.selectors.item import review_undo_seconds
    from verifier.services.binding import claim_selection_unbind
    from verifier.states import human_verdict_in_force

    claim = Claim.objects.select_for_update().get(pk=claim.pk)
    human = list(claim.verdicts.filter(reviewer__isnull=False).latest_first())
    standing = human_verdict_in_force(human)
    if standing is None or standing.reviewer_id != reviewer.pk:
        raise ReviewError("There is no decision of yours on this claim to undo.", code="no_undo")
    window = review_undo_seconds()
    if timezone.now() - standing.at > timedelta(seconds=window):
        raise ReviewError(
            f"Too late to undo: a decision can be undone for {window // 60} minutes. "
            "Decide again instead; the history keeps both.",
            code="undo_expired",
        )
    Verdict.objects.create(
        claim=claim,
        binding=standing.binding,
        judge_model=f"human:{reviewer.get_username()}",
        judge_family=HUMAN_JUDGE_FAMILY,
        prompt_version=HUMAN_PROMPT_VERSION,
        label=VerdictLabel.WITHDRAWN.value,
        confidence=0.0,
        note=f"undo: withdraws verdict {standing.pk} ({standing.label})",
        reviewer=reviewer,
    )
    if standing.bound_selection and standing.binding_id is not None:
        claim_selection_unbind(
            claim=claim, selection_id=standing.binding_id, restore_id=standing.binding_before_id
        )
    return claim_state_refresh(
        claim=claim, cause=f"{CAUSE_UNDO}{reviewer.get_username()}", actor=reviewer
    )


def _decider_in(workspace: Workspace, user_id: int) -> User:
    """The assignee, a reviewer or admin of ``workspace``, their membership row locked
    (FOR NO KEY UPDATE, as a lease locks it) until the assignment commits: a member taken
    out meanwhile (``review_member_remove``, which deletes the row and then their
    assignments) waits for it and takes its assignments out too, or is gone before and
    refused here. Unlocked, the assignment was written after that removal and named a
    member who is no longer here."""
    membership = (
        Membership.objects.select_for_update(no_key=True, of=("self",))
        .filter(workspace=workspace, user_id=user_id, role__in=DECIDER_ROLES)
        .select_related("user")
        .first()
    )
    if membership is None:
        raise ReviewError("Assign to a reviewer or admin of this workspace.", code="bad_assignee")
    return membership.user


@transaction.atomic
def review_bulk_assign(
    *, workspace: Workspace, claims: Iterable[Claim], assignee_id: int | None, by: User
) -> int:
    """Assign the claims to a reviewer or admin of the workspace (``assignee_id`` None:
    unassign them). Returns how many claims it covered."""
    claims = [claim for claim in claims if claim.workspace_id == workspace.pk]
    ids = sorted({claim.pk for claim in claims})
    if assignee_id is None:
        ReviewAssignment.objects.filter(claim_id__in=ids).delete()
        return len(ids)
    assignee = _decider_in(workspace, assignee_id)
    # One upsert for the lot (a page of fifty took 200 queries, one by one).
    ReviewAssignment.objects.bulk_create(
        [ReviewAssignment(claim_id=pk, assignee=assignee, assigned_by=by) for pk in ids],
        update_conflicts=True,
        unique_fields=["claim"],
        update_fields=["assignee", "assigned_by", "assigned_at"],
    )
    return len(ids)


@transaction.atomic
def review_guidelines_set(*, workspace: Workspace, text: str, by: User) -> ReviewGuidelines:
    """Store the workspace's guidelines (markdown) with their sanitized HTML."""
    from review.guidelines import MAX_GUIDELINES_CHARS, guidelines_html
    from review.models import ReviewGuidelines

    text = text.strip()
    if len(text) > MAX_GUIDELINES_CHARS:
        raise ReviewError(f"Guidelines are limited to {MAX_GUIDELINES_CHARS:,} characters.")
    guidelines, _ = ReviewGuidelines.objects.update_or_create(
        workspace=workspace,
        defaults={"text": text, "html": guidelines_html(text) if text else "", "updated_by": by},
    )
    return guidelines


# --- members: a role that cannot decide holds no item --------------------------------


@transaction.atomic
def review_member_role_change(*, membership: Membership, role: str) -> Membership:
    """``member_role_change`` (the workspace keeps an admin); where the new role cannot
    decide (an auditor), the member's leases in the workspace are released in the same
    transaction. A lease kept others out ("X is reviewing this claim") for up to the
    lease's length, though X could no longer decide the item."""
    changed = member_role_change(membership=membership, role=role)
    if changed.role not in DECIDER_ROLES:
        review_lease_release_all(workspace=membership.workspace, reviewer=membership.user)
    return changed


@transaction.atomic
def review_member_remove(*, membership: Membership) -> None:
    """``member_remove`` (the workspace keeps an admin), the member's leases and
    assignments in the workspace released in the same transaction: a member taken out
    reviews nothing, and "Assigned to" names nobody who is no longer here (a role
    lowered keeps its assignments: an admin may raise it again)."""
    member_remove(membership=membership)
    review_lease_release_all(workspace=membership.workspace, reviewer=membership.user)
    ReviewAssignment.objects.filter(
        claim__workspace=membership.workspace, assignee=membership.user
    ).delete()


@transaction.atomic
def review_member_move(*, membership: Membership) -> Membership:
    """The Django admin's change of a membership's workspace or user (``membership``
    carries the new ones): the member it was (that user in that workspace) is taken out as
    ``review_member_remove`` takes one out (the workspace keeps an admin; their leases
    and assignments there released, under their row's lock), and the member it now is
    is added, under the same row id. Saved as a plain change, the user kept their items
    in a workspace they no longer belonged to."""
    before = Membership.objects.select_related("user", "workspace").get(pk=membership.pk)
    review_member_remove(membership=before)
    membership.save(force_insert=True)
    member_added_record(membership=membership)
    return membership
