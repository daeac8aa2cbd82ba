"""Reads for the review console. The queue is a query over claims, not a copy kept in sync."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from django.contrib.auth.models import User
from django.db import connection
from django.db.models import (
    BooleanField,
    Exists,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
)
from django.db.models.expressions import RawSQL
from django.http import QueryDict
from django.utils import timezone
from django.utils.text import Truncator
from django.utils.timesince import timesince

from audit.highlighting import Segment, Span, text_window, window_segments
from review.filters import ReviewQueueFilter
from review.models import ReviewLease, ReviewNote
from review.queue_reasons import (
    HUMAN_DECISION_REASONS,
    queue_reason_values,
    reason_values,
)
from verifier import vocabulary
from verifier.models import (
    Claim,
    ClaimOrigin,
    EvidenceCandidate,
    SourceVersion,
    StateEvent,
    Verdict,
    Workspace,
)
from verifier.selectors.claims import claim_in_workspace_or_404
from verifier.selectors.counts import RowCount, row_counts
from verifier.selectors.paging import (
    CURSOR_KEYS,
    KeysetPage,
    datetime_of,
    int_parts,
    keyset_window,
    micros_of,
)

if TYPE_CHECKING:
    from review.models import ReviewGuidelines


def review_queue_claims(*, workspace: Workspace) -> QuerySet[Claim]:
    """All of the workspace's claims, what the queue's filters narrow. The latest
    verdict's columns are annotated by the filters that read them
    (:mod:`review.verdict_columns`), the rows' by :func:`review_queue_rows`."""
    return Claim.objects.filter(workspace=workspace)


@dataclass(slots=True)
class QueueRow:
    """One row of the queue page: what its cells show, ready for the template."""

    pk: int
    public_id: str
    text: str
    state: str
    state_reason: str
    origin: str
    created_at: datetime
    dependents: int
    source_ref: str
    lease_expires_at: datetime | None
    lease_reviewer: str | None
    latest_judge_model: str | None  # the latest verdict's; None without one
    latest_confidence: float | None
    latest_label: str | None
    latest_note: str | None
    latest_reviewer: int | None
    assignee: str | None  # who the item is assigned to (username); None: nobody
    # derived by review_queue_page
    text_short: str = ""
    age: str = ""
    created_iso: str = ""
    lease_holder: str = ""
    why: QueueWhy | None = None

    @property
    def origin_label(self) -> str:
        return ClaimOrigin(self.origin).label if self.origin in ClaimOrigin.values else self.origin


# The rows of one queue page as fixed SQL text, one statement: each claim with its
# source's ref, its lease (expiry, holder) and its latest verdict (by ``-at, -id``, as
# everywhere else; index ``verdict_claim_latest``). The ORM spelling (values over three
# joins plus a second query for the verdicts) cost ~4 ms of Python per page to compile
# and run; this costs a fraction of one.
_QUEUE_ROWS_SQL = """
SELECT c."id", c."public_id", c."text", c."state", c."state_reason", c."origin",
       c."created_at", c."dependents", s."ref", l."expires_at", u."username",
       v."judge_model", v."confidence", v."label", v."note", v."reviewer_id", au."username"
FROM "verifier_claim" c
JOIN "verifier_source" s ON s."id" = c."source_id"
LEFT JOIN "review_reviewlease" l ON l."claim_id" = c."id"
LEFT JOIN "auth_user" u ON u."id" = l."reviewer_id"
LEFT JOIN "review_reviewassignment" ra ON ra."claim_id" = c."id"
LEFT JOIN "auth_user" au ON au."id" = ra."assignee_id"
LEFT JOIN LATERAL (
    SELECT vv."judge_model", vv."confidence", vv."label", vv."note", vv."reviewer_id"
    FROM "verifier_verdict" vv WHERE vv."claim_id" = c."id"
    ORDER BY vv."at" DESC, vv."id" DESC LIMIT 1
) v ON TRUE
WHERE c."workspace_id" = %s AND c."id" = ANY(%s)
"""


def review_queue_rows(*, workspace: Workspace, pks: list[int]) -> list[QueueRow]:
    """The queue page's rows for ``pks`` (in that order; others' and unknown pks
    dropped): each claim's cells with its source ref, lease holder and assignee, and its
    latest verdict's judge model, confidence, label, note and reviewer (one query)."""
    if not pks:
        return []
    with connection.cursor() as cursor:
        cursor.execute(_QUEUE_ROWS_SQL, [workspace.pk, list(pks)])
        by_pk = {values[0]: QueueRow(*values) for values in cursor.fetchall()}
    return [by_pk[pk] for pk in pks if pk in by_pk]


@dataclass(frozen=True)
class QueueWhy:
    """Why the judge did not decide, in words."""

    reason: str  # the state reason in words
    decisive: str  # the decisive reason from the latest verdict's note
    confidence: str  # the judge's confidence in its own answer, in words


def review_why(
    *, reason: str, label: str | None, note: str, confidence: float | None, human: bool
) -> QueueWhy:
    from review.verdict_words import confidence_in_words, note_in_words
    from verifier.states import reason_description

    return QueueWhy(
        reason=reason_description(reason),
        decisive=note_in_words(note),
        confidence=confidence_in_words(label, confidence, human=human),
    )


def review_queue_default_states(queryset: QuerySet[Claim]) -> QuerySet[Claim]:
    """The default queue (``review.filters.queue_undecided``)."""
    from review.filters import queue_undecided

    return queue_undecided(queryset)


def review_queue_order(queryset: QuerySet[Claim]) -> QuerySet[Claim]:
    """Riskiest reason first, then the most depended-on claims, then the oldest (the
    ORM spelling of the order :func:`review_queue_keyset` reads from its index)."""
    return queryset.order_by("queue_rank", "-dependents", "created_at", "id")


@dataclass(frozen=True)
class QueueCursor:
    """A position in the queue order: the sort key of one claim.

    In the query string as ``rank.dependents.created-at-in-µs.id`` (``after=`` the
    last row of a page for the next page, ``before=`` the first for the previous)."""

    rank: int
    dependents: int
    created_at: datetime
    id: int

    @property
    def token(self) -> str:
        return f"{self.rank}.{self.dependents}.{micros_of(self.created_at)}.{self.id}"

    @classmethod
    def parse(cls, token: str | None) -> QueueCursor | None:
        """The cursor in ``token``; None for a missing or malformed one."""
        parts = int_parts(token, 4)
        if parts is None:
            return None
        rank, dependents, micros, pk = parts
        at = datetime_of(micros)
        return None if at is None else cls(rank, dependents, at, pk)


# The queue order as SQL, matching the index ``claim_queue_keyset`` (migration 0016):
# (workspace_id, queue_rank, (-dependents), created_at, id), partial on queued states.
_QUEUE_KEY = (
    '"verifier_claim"."queue_rank"',
    '(-"verifier_claim"."dependents")',
    '"verifier_claim"."created_at"',
    '"verifier_claim"."id"',
)


def review_queue_keyset(
    queryset: QuerySet[Claim],
    *,
    limit: int,
    after: QueueCursor | None = None,
    before: QueueCursor | None = None,
    offset: int = 0,
) -> list[QueueCursor]:
    """The sort keys of up to ``limit`` claims of ``queryset`` in queue order, after
    ``after`` (or the last ones before ``before``, still in queue order).

    One index range scan of ``claim_queue_keyset`` whatever the page: the cursor is a
    row comparison on the index's columns, so no page reads the rows before it.
    ``offset`` (only for old ``?page=N`` links) skips rows after the cursor. A claim
    whose key changes between two pages (its reason, a new relation) moves in the
    order, so it may show on two pages or on none; every other claim shows once.
    """
    queryset = queryset.order_by()
    keys = ", ".join(_QUEUE_KEY)
    cursor = after or before
    if cursor is not None:
        op = ">" if before is None else "<"
        queryset = queryset.filter(
            RawSQL(
                f"({keys}) {op} (%s, %s, %s, %s)",
                [cursor.rank, -cursor.dependents, cursor.created_at, cursor.id],
                output_field=BooleanField(),
            )
        )
    backward = before is not None
    order = [RawSQL(key, []).desc() if backward else RawSQL(key, []).asc() for key in _QUEUE_KEY]
    rows = queryset.order_by(*order).values_list("queue_rank", "dependents", "created_at", "id")
    cursors = [QueueCursor(*row) for row in rows[offset : offset + limit]]
    return cursors[::-1] if backward else cursors


def review_queue_ordered_ids(*, queryset: QuerySet[Claim], limit: int) -> list[int]:
    """Primary keys of the first ``limit`` claims of ``queryset`` in queue order."""
    return [key.id for key in review_queue_keyset(queryset, limit=limit)]


QUEUE_PAGE_SIZE = 50


def review_queue_filter(
    *,
    workspace: Workspace,
    reviewer: User,
    params: Mapping[str, Any],
    domain_packs: list[str] | None = None,
) -> ReviewQueueFilter:
    """The queue's filter set bound to ``params``, over the workspace's claims.

    ``domain_packs``: the workspace's packs when the caller has read them already."""
    if domain_packs is None:
        domain_packs = review_domain_packs(workspace=workspace)
    return ReviewQueueFilter(
        params,
        queryset=review_queue_claims(workspace=workspace),
        reviewer=reviewer,
        domain_packs=domain_packs,
    )


@dataclass(frozen=True)
class QueueSelection:
    """The claims a queue filter selects (none when the filter is invalid) and the
    filter's values."""

    claims: QuerySet[Claim]
    filters: dict[str, Any]


def review_queue_filtered(
    *, workspace: Workspace, reviewer: User, filters: Mapping[str, Any]
) -> QueueSelection:
    """The queue's claims by ``filters`` (e.g. the query string), for serving the next
    item by the same filter as the queue page."""
    # One value per key (a QueryDict iterates keys; .get gives the last value).
    params = {key: filters.get(key) for key in filters}
    filterset = review_queue_filter(workspace=workspace, reviewer=reviewer, params=params)
    if not filterset.is_valid():
        return QueueSelection(claims=Claim.objects.none(), filters={})
    return QueueSelection(claims=filterset.qs, filters=filterset.form.cleaned_data)


@dataclass(frozen=True)
class ReasonChip:
    """A reason chip: the claims of the filter with this reason, and the query for them."""

    reason: str
    label: str
    count: RowCount
    pressed: bool
    query: str


@dataclass(frozen=True)
class QueuePage:
    filter: ReviewQueueFilter
    page: KeysetPage
    chips: list[ReasonChip]
    all_reasons_query: str  # the filter without its reason
    any_reason_pressed: bool
    domain_packs: list[str]  # the workspace's, the choices of the domain pack filter


def review_queue_page(
    *, workspace: Workspace, reviewer: User, params: QueryDict, page_size: int = QUEUE_PAGE_SIZE
) -> QueuePage:
    """One page of the queue by the filter in ``params`` (the query string), with the
    reason chips. An invalid filter shows the default queue (the form carries the errors).

    Keyset paging: ``after=`` / ``before=`` hold the sort key of the row next to the
    page (:class:`QueueCursor`), so every page is one short index range scan. The chips
    count the same filter without its reason, and the page its own filter, all in one
    query that counts each up to ``COUNT_CAP`` rows; past that, the planner's estimate
    ("about 33,400").
    """
    current_reason = params.get("reason", "")
    domain_packs = review_domain_packs(workspace=workspace)
    filterset = review_queue_filter(
        workspace=workspace, reviewer=reviewer, params=params, domain_packs=domain_packs
    )
    valid = filterset.is_valid()
    claims = (
        filterset.qs
        if valid
        else review_queue_default_states(review_queue_claims(workspace=workspace))
    )
    chip_params = params.copy()
    for key in ("reason", *CURSOR_KEYS):
        chip_params.pop(key, None)
    if valid:
        # The same filter without its reason, from the values already cleaned.
        chip_valid = True
        chip_claims = filterset.qs_without("reason")
    else:
        chip_filter = review_queue_filter(
            workspace=workspace, reviewer=reviewer, params=chip_params, domain_packs=domain_packs
        )
        chip_valid = chip_filter.is_valid()
        chip_claims = chip_filter.qs if chip_valid else Claim.objects.none()
    reasons = queue_reason_values()
    chip_sets = [chip_claims.filter(state_reason__in=reason_values(reason)) for reason in reasons]
    # With a reason chosen (and both filters valid) the page's count is that chip's.
    chosen = (
        reasons.index(current_reason)
        if valid and chip_valid and current_reason in reasons
        else None
    )
    counted = row_counts(chip_sets if chosen is not None else [*chip_sets, claims])
    chip_counts = counted[: len(chip_sets)]
    total = counted[chosen] if chosen is not None else counted[-1]

    window = keyset_window(
        params,
        page_size=page_size,
        parse=QueueCursor.parse,
        fetch=lambda limit, after, before, offset: review_queue_keyset(
            claims, limit=limit, after=after, before=before, offset=offset
        ),
        token=lambda key: key.token,
    )
    keys = window.keys
    pks = [key.id for key in keys]
    rows = review_queue_rows(workspace=workspace, pks=pks)
    now = timezone.now()
    for row in rows:
        # What the row template shows, ready: fewer template lookups and filters
        # (50 rows × 11 cells are most of the page's Python).
        # truncatechars:140, without the Truncator's cost for the many short texts
        row.text_short = row.text if len(row.text) <= 140 else Truncator(row.text).chars(140)
        row.age = timesince(row.created_at, now)
        row.created_iso = timezone.localtime(row.created_at).isoformat()  # as |date:"c"
        live = row.lease_expires_at is not None and row.lease_expires_at > now
        row.lease_holder = (row.lease_reviewer or "") if live else ""
        row.why = review_why(
            reason=row.state_reason,
            label=row.latest_label,
            note=row.latest_note or "",
            confidence=row.latest_confidence,
            human=row.latest_reviewer is not None,
        )
    page = KeysetPage(
        object_list=rows,
        number=window.number,
        count=total,
        page_size=page_size,
        next_query=window.next_query,
        previous_query=window.previous_query,
        first_query=window.first_query,
    )
    chips = []
    for reason, count in zip(reasons, chip_counts, strict=True):
        query = chip_params.copy()
        query["reason"] = reason
        chips.append(
            ReasonChip(
                reason=reason,
                label=vocabulary.label("reason", reason),
                count=count,
                pressed=reason == current_reason,
                query=query.urlencode(),
            )
        )
    return QueuePage(
        filter=filterset,
        page=page,
        chips=chips,
        all_reasons_query=chip_params.urlencode(),
        any_reason_pressed=not current_reason,
        domain_packs=domain_packs,
    )


def review_claims_by_public_ids(*, workspace: Workspace, public_ids: list[str]) -> list[Claim]:
    """The workspace's claims among ``public_ids`` (others' and unknown ids are dropped),
    in creation order."""
    return list(Claim.objects.filter(workspace=workspace, public_id__in=public_ids).order_by("id"))


def review_lease_live(*, claim: Claim) -> ReviewLease | None:
    return (
        ReviewLease.objects.filter(claim=claim, expires_at__gt=timezone.now())
        .select_related("reviewer")
        .first()
    )


def review_held_by_others(*, reviewer: User) -> Q:
    """Claims under a live lease of another reviewer (expired leases free the claim)."""
    return Q(review_lease__expires_at__gt=timezone.now()) & ~Q(review_lease__reviewer=reviewer)


def review_decided_by(*, reviewer: User) -> Q:
    """Claims whose state rests on a reviewer's decision that ``reviewer`` took part in:
    "next" never serves them to that reviewer, whatever the filter. The reason is
    checked first (a column of the queue index), the verdicts only for decided claims."""
    mine = Verdict.objects.filter(claim=OuterRef("pk"), reviewer=reviewer)
    return Q(state_reason__in=HUMAN_DECISION_REASONS) & Q(Exists(mine))


def review_item_get(*, workspace: Workspace, public_id: str) -> Claim:
    """The claim to review, or the same 404 for a missing one and another workspace's."""
    return claim_in_workspace_or_404(
        Claim.objects.select_related("source", "ingest_job"),
        workspace=workspace,
        public_id=public_id,
    )


@dataclass(frozen=True)
class ItemChange:
    """The latest change to a claim a decision could have been made on."""

    version: str  # "v<latest verdict id>.e<latest state-event id>"
    at: Any  # datetime | None
    actor_id: int | None
    actor_name: str
    human_verdict: bool


def review_item_change(*, claim: Claim) -> ItemChange:
    """The claim's version token and who changed it last, in one query.

    A decision form carries the token of the item it was shown on; a POST whose token
    differs was made on a stale page (the back button, or a second reviewer).
    """
    verdicts = Verdict.objects.filter(claim_id=claim.pk).order_by("-id")
    events = StateEvent.objects.filter(claim_id=claim.pk).order_by("-id")
    row: Mapping[str, Any] = (
        Claim.objects.filter(pk=claim.pk)
        .annotate(
            v_id=Subquery(verdicts.values("id")[:1]),
            v_at=Subquery(verdicts.values("at")[:1]),
            v_reviewer=Subquery(verdicts.values("reviewer_id")[:1]),
            v_reviewer_name=Subquery(verdicts.values("reviewer__username")[:1]),
            e_id=Subquery(events.values("id")[:1]),
            e_at=Subquery(events.values("at")[:1]),
            e_actor=Subquery(events.values("actor_id")[:1]),
            e_actor_name=Subquery(events.values("actor__username")[:1]),
            e_cause=Subquery(events.values("cause")[:1]),
        )
        .values(
            "v_id",
            "v_at",
            "v_reviewer",
            "v_reviewer_name",
            "e_id",
            "e_at",
            "e_actor",
            "e_actor_name",
            "e_cause",
        )
        .first()
    ) or {}
    version = f"v{row.get('v_id') or 0}.e{row.get('e_id') or 0}"
    v_at, e_at = row.get("v_at"), row.get("e_at")
    if v_at is not None and (e_at is None or v_at >= e_at):
        return ItemChange(
            version=version,
            at=v_at,
            actor_id=row.get("v_reviewer"),
            actor_name=row.get("v_reviewer_name") or "the judge",
            human_verdict=row.get("v_reviewer") is not None,
        )
    return ItemChange(
        version=version,
        at=e_at,
        actor_id=row.get("e_actor"),
        actor_name=row.get("e_actor_name") or "the system",
        # The state event a reviewer's decision appends right after its verdict.
        human_verdict=(row.get("e_cause") or "").startswith("review: "),
    )


@dataclass(frozen=True)
class ReviewItem:
    claim: Claim
    version: SourceVersion | None
    binding: Any  # EvidenceBinding | None
    binding_status: str  # fresh | stale | none
    segments: list[Segment]  # the source window; the bound span's segment is highlighted
    candidates: list[EvidenceCandidate]
    verdicts: list[Verdict]
    events: list[StateEvent]
    notes: list[ReviewNote]
    lease: ReviewLease | None
    decided_by_me: bool
    change: ItemChange
    window: tuple[int, int] = (0, 0)
    text_length: int = 0
    why: QueueWhy | None = None
    guidelines_html: str = ""  # the workspace's guidelines, sanitized when saved
    assignee: str = ""
    # The reviewer's own decision that stands on this claim, when it is recent enough to
    # undo (``review.services.review_undo``).
    undoable: Verdict | None = None

    @property
    def earlier_at(self) -> int | None:
        start, end = self.window
        return max(0, start - (end - start)) if start > 0 else None

    @property
    def later_at(self) -> int | None:
        return self.window[1] if self.window[1] < self.text_length else None


def _change_of(verdicts: list[Verdict], events: list[StateEvent]) -> ItemChange:
    """:func:`review_item_change` from the pane's verdicts and events (no query)."""
    verdict = max(verdicts, key=lambda v: v.pk, default=None)
    event = max(events, key=lambda e: e.pk, default=None)
    version = f"v{verdict.pk if verdict else 0}.e{event.pk if event else 0}"
    if verdict is not None and (event is None or verdict.at >= event.at):
        return ItemChange(
            version=version,
            at=verdict.at,
            actor_id=verdict.reviewer_id,
            actor_name=verdict.reviewer.get_username() if verdict.reviewer else "the judge",
            human_verdict=verdict.reviewer_id is not None,
        )
    return ItemChange(
        version=version,
        at=event.at if event else None,
        actor_id=event.actor_id if event else None,
        actor_name=event.actor.get_username() if event and event.actor else "the system",
        human_verdict=bool(event and event.cause.startswith("review: ")),
    )


def review_item_detail(*, claim: Claim, reviewer: User, at: int | None = None) -> ReviewItem:
    """The item pane. The source is shown as a window around the bound span (or the
    best candidate span, or ``at``), so a 200 KB source does not make a 200 KB page."""
    from review import item_pane
    from verifier.selectors.claim_state import binding_recheck

    # One query for the whole pane (keyboard triage loads one per keypress).
    claim = item_pane.review_item_pane_row(
        workspace_id=claim.workspace_id, public_id=claim.public_id
    )
    version = item_pane.pane_version(claim)
    binding = item_pane.pane_binding(claim)
    status = binding_recheck(binding=binding, version=version)
    binding_status = "none" if binding is None else ("fresh" if status == "fresh" else "stale")
    segments: list[Segment] = []
    window = (0, 0)
    candidates = item_pane.pane_candidates(claim) if version is not None else []
    if version is not None:
        on_version = binding is not None and binding.source_version_id == version.pk
        span = (
            (binding.start, binding.end)
            if binding is not None and on_version and binding_status == "fresh"
            else None
        )
        anchor = span or (
            (binding.start, binding.end)
            if binding is not None and on_version
            else ((candidates[0].start, candidates[0].end) if candidates else None)
        )
        window = text_window(len(version.text), focus=anchor, at=at)
        # The bound span is marked only when the window holds all of it.
        marks = (
            [Span(span[0], span[1], "bound")]
            if span is not None and window[0] <= span[0] and span[1] <= window[1]
            else []
        )
        segments = window_segments(version.text, marks, window)
    verdicts = item_pane.pane_verdicts(claim)
    events = item_pane.pane_events(claim)
    from review.verdict_words import confidence_in_words

    for v in verdicts:
        v.confidence_words = confidence_in_words(  # type: ignore[attr-defined]
            v.label, v.confidence, human=v.reviewer_id is not None
        )
    latest = verdicts[0] if verdicts else None
    why = review_why(
        reason=claim.state_reason,
        label=latest.label if latest else None,
        note=latest.note if latest else "",
        confidence=latest.confidence if latest else None,
        human=latest is not None and latest.reviewer_id is not None,
    )
    return ReviewItem(
        claim=claim,
        version=version,
        binding=binding,
        binding_status=binding_status,
        segments=segments,
        candidates=candidates,
        verdicts=verdicts,
        events=events,
        notes=item_pane.pane_notes(claim),
        lease=item_pane.pane_lease(claim),
        decided_by_me=any(v.reviewer_id == reviewer.pk for v in verdicts),
        change=_change_of(verdicts, events),
        window=window,
        text_length=len(version.text) if version is not None else 0,
        why=why,
        guidelines_html=claim.pane_guidelines or "",
        assignee=claim.pane_assignee or "",
        undoable=_undoable(verdicts, reviewer),
    )


def review_undo_seconds() -> int:
    """How long after deciding a reviewer may undo the decision
    (``SPANPROOF_REVIEW_UNDO_SECONDS``, 5 minutes by default)."""
    from django.conf import settings

    return int(settings.SPANPROOF_REVIEW_UNDO_SECONDS)


def _undoable(verdicts: list[Verdict], reviewer: User) -> Verdict | None:
    """The reviewer's decision standing on the claim, if still inside the undo window."""
    from verifier.states import human_verdict_in_force

    standing = human_verdict_in_force([v for v in verdicts if v.reviewer_id is not None])
    if standing is None or standing.reviewer_id != reviewer.pk or standing.at is None:
        return None
    if timezone.now() - standing.at > timedelta(seconds=review_undo_seconds()):
        return None
    return standing


def review_domain_packs(*, workspace: Workspace) -> list[str]:
    from verifier.models import Source

    rows = (
        Source.objects.filter(workspace=workspace)
        .exclude(domain_pack="")
        .order_by("domain_pack")
        .values_list("domain_pack", flat=True)
        .distinct()
    )
    return list(rows)


# --- a reviewer's own progress, assignees, guidelines (issue 40.5) -----------------


@dataclass(frozen=True)
class ReviewProgress:
    """A reviewer's own pace: decisions today (since local midnight) and in the last hour,
    an undone decision taking its own back."""

    today: int
    last_hour: int


def review_progress(*, workspace: Workspace, reviewer: User) -> ReviewProgress:
    from django.db.models import Count

    now = timezone.now()
    midnight = timezone.localtime(now).replace(hour=0, minute=0, second=0, microsecond=0)
    hour_ago = now - timedelta(hours=1)
    decided = Q(label__in=("entailed", "contradicted"))
    withdrawn = Q(label="withdrawn")
    row = Verdict.objects.filter(
        claim__workspace=workspace, reviewer=reviewer, at__gte=min(midnight, hour_ago)
    ).aggregate(
        today=Count("id", filter=decided & Q(at__gte=midnight)),
        today_undone=Count("id", filter=withdrawn & Q(at__gte=midnight)),
        hour=Count("id", filter=decided & Q(at__gte=hour_ago)),
        hour_undone=Count("id", filter=withdrawn & Q(at__gte=hour_ago)),
    )
    return ReviewProgress(
        today=max(0, row["today"] - row["today_undone"]),
        last_hour=max(0, row["hour"] - row["hour_undone"]),
    )


def review_assignees(*, workspace: Workspace) -> list[tuple[int, str]]:
    """(user id, username) of the workspace's reviewers and admins: who an item may be
    assigned to."""
    from verifier.models import Membership
    from verifier.permissions import DECIDER_ROLES

    return list(
        Membership.objects.filter(workspace=workspace, role__in=DECIDER_ROLES)
        .order_by("user__username")
        .values_list("user_id", "user__username")
    )


def review_guidelines_get(*, workspace: Workspace) -> ReviewGuidelines | None:
    from review.models import ReviewGuidelines

    return ReviewGuidelines.objects.filter(workspace=workspace).first()


@dataclass(frozen=True)
class NextAction:
    """One thing a role can do next on the home page, with how many rows it concerns."""

    title: str
    count: RowCount | None
    path: str
    description: str
    key: str  # stable id for the page and tests


def review_home_actions(*, workspace: Workspace, user: User, role: str) -> list[NextAction]:
    """What this role should look at next, with counts (capped like every count): the
    queue and one's assignments for deciders, contradicted and stale claims for auditors,
    ingest jobs that need attention for admins. One counting query."""
    from verifier.models import ClaimRelation, IngestJob, IngestStatus
    from verifier.permissions import ADMIN_ROLES, DECIDER_ROLES

    claims = review_queue_claims(workspace=workspace)
    queue = review_queue_default_states(claims)
    # The same filter as the queue's "Assigned to me", so the two counts agree.
    mine = review_queue_filtered(
        workspace=workspace, reviewer=user, filters={"mine": "true"}
    ).claims
    relations = ClaimRelation.objects.filter(workspace=workspace, needs_review=True)
    contradicted = claims.filter(state="contradicted")
    stale = claims.filter(state_reason="stale_source")
    jobs = IngestJob.objects.filter(
        workspace=workspace, status__in=(IngestStatus.FAILED, IngestStatus.DEGRADED)
    )
    queue_n, mine_n, relations_n, contradicted_n, stale_n, jobs_n = row_counts(
        [queue, mine, relations, contradicted, stale, jobs]
    )
    actions: list[NextAction] = []
    if role in DECIDER_ROLES:
        actions += [
            NextAction(
                "Review the queue",
                queue_n,
                "/review/",
                "Claims the judge could not decide, riskiest first.",
                "queue",
            ),
            NextAction(
                "Assigned to you",
                mine_n,
                "/review/?mine=true",
                "Queue items someone assigned to you.",
                "mine",
            ),
            NextAction(
                "Relations to decide",
                relations_n,
                "/review/relations/",
                "Relations rejected or accepted unchecked.",
                "relations",
            ),
        ]
    actions += [
        NextAction(
            "Contradicted claims",
            contradicted_n,
            "/audit/claims/?state=contradicted",
            "Kept out of strict retrieval: check what the evidence says.",
            "contradicted",
        ),
        NextAction(
            "Source changed under a span",
            stale_n,
            "/audit/claims/?reason=stale_source",
            "Claims whose cited source has a new version since their span was bound.",
            "stale",
        ),
    ]
    if role in ADMIN_ROLES:
        actions.append(
            NextAction(
                "Ingest jobs to look at",
                jobs_n,
                "/ingest/",
                "Failed or degraded jobs (the judge unreachable, a source refused).",
                "jobs",
            )
        )
    return actions
