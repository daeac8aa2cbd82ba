"""Reads for the review console. The queue is a query over claims, not a copy kept in sync."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.core.paginator import Page, Paginator
from django.db import connection
from django.db.models import (
    Case,
    CharField,
    Count,
    FloatField,
    IntegerField,
    Model,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
    Value,
    When,
)
from django.db.models.functions import Coalesce
from django.http import QueryDict
from django.utils import timezone

from audit.highlighting import Segment, Span, text_window, window_segments
from review.filters import ReviewQueueFilter
from review.models import ReviewLease, ReviewNote
from review.queue_reasons import QUEUE_REASON_VALUES, QUEUE_STATE_VALUES, reason_values
from verifier.models import (
    Claim,
    ClaimRelation,
    EvidenceCandidate,
    SourceVersion,
    StateEvent,
    TraceClaim,
    Verdict,
    Workspace,
)
from verifier.selectors.claims import claim_in_workspace_or_404
from verifier.states import QUEUE_REASON_RISK_ORDER


def _risk_rank() -> Case:
    whens = [
        When(state_reason__in=reason_values(reason.value), then=Value(rank))
        for rank, reason in enumerate(QUEUE_REASON_RISK_ORDER)
    ]
    return Case(*whens, default=Value(len(QUEUE_REASON_RISK_ORDER)), output_field=IntegerField())


def _count_of(model: type[Model], field: str) -> Coalesce:
    """COUNT of ``model`` rows pointing at the outer claim, as a correlated subquery.

    Subqueries instead of joins: joining relations_in, relations_out and traces at
    once would multiply rows before counting.
    """
    rows = (
        model.objects.filter(**{field: OuterRef("pk")})
        .order_by()
        .values(field)
        .annotate(n=Count("*"))
        .values("n")
    )
    return Coalesce(Subquery(rows[:1], output_field=IntegerField()), Value(0))


def _latest_verdict(field: str, output_field: Any) -> Subquery:
    rows = Verdict.objects.filter(claim_id=OuterRef("pk")).order_by("-at", "-id").values(field)
    return Subquery(rows[:1], output_field=output_field)


def review_queue_annotated(*, workspace: Workspace) -> QuerySet[Claim]:
    """All of the workspace's claims with the latest verdict's judge model and confidence."""
    return Claim.objects.filter(workspace=workspace).annotate(
        latest_judge_model=_latest_verdict("judge_model", CharField()),
        latest_confidence=_latest_verdict("confidence", FloatField()),
    )


def review_queue_base(*, workspace: Workspace) -> QuerySet[Claim]:
    """The queue page's rows: annotated claims with their source and lease holder, and
    the latest verdict's label and note (for "why it is queued")."""
    return (
        review_queue_annotated(workspace=workspace)
        .annotate(
            latest_label=_latest_verdict("label", CharField()),
            latest_note=_latest_verdict("note", CharField()),
            latest_reviewer=_latest_verdict("reviewer_id", IntegerField()),
        )
        .select_related("source", "review_lease__reviewer")
        # a page row never shows the vector: do not fetch and parse 384 floats per row
        .defer("embedding")
    )


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
    return queryset.filter(state__in=QUEUE_STATE_VALUES)


def review_queue_order(queryset: QuerySet[Claim]) -> QuerySet[Claim]:
    """Riskiest reason first, then the most depended-on claims, then the oldest."""
    return queryset.annotate(
        risk_rank=_risk_rank(),
        dependents=_count_of(ClaimRelation, "to_claim")
        + _count_of(ClaimRelation, "from_claim")
        + _count_of(TraceClaim, "claim"),
    ).order_by("risk_rank", "-dependents", "created_at", "id")


# The queue's risk groups, riskiest first; the last (None) holds every other reason.
RISK_GROUPS: tuple[tuple[str, ...] | None, ...] = (
    *(reason_values(reason.value) for reason in QUEUE_REASON_RISK_ORDER),
    None,
)
RANKED_REASONS: tuple[str, ...] = tuple(v for group in RISK_GROUPS if group for v in group)


def _in_groups(queryset: QuerySet[Claim], groups: list[tuple[str, ...] | None]) -> QuerySet[Claim]:
    condition = Q()
    for group in groups:
        if group is None:
            condition |= ~Q(state_reason__in=RANKED_REASONS)
        else:
            condition |= Q(state_reason__in=group)
    return queryset.filter(condition)


def _risk_case_sql(column: str) -> tuple[str, list[str]]:
    whens, params = [], []
    for rank, group in enumerate(RISK_GROUPS[:-1]):
        assert group is not None
        whens.append(f"WHEN {column} IN ({', '.join(['%s'] * len(group))}) THEN {rank}")
        params.extend(group)
    return f"CASE {' '.join(whens)} ELSE {len(RISK_GROUPS) - 1} END", params


def _ordered_ids(queryset: QuerySet[Claim], offset: int, limit: int) -> list[int]:
    """Primary keys in queue order: risk, dependents (desc), age, id.

    Raw SQL for speed at 100,000 claims: the claims come from the covering queue
    index, and their dependents (relations in and out, traces) are counted in one
    pass over the rows that point at them, instead of three correlated subqueries
    per claim. Callers narrow ``queryset`` to the risk groups the page needs.
    """
    inner_sql, inner_params = (
        queryset.order_by().values("id", "state_reason", "created_at").query.sql_with_params()
    )
    risk_sql, risk_params = _risk_case_sql("q.state_reason")
    relation = ClaimRelation._meta.db_table
    trace_claim = TraceClaim._meta.db_table
    sql = f"""
        WITH q AS MATERIALIZED ({inner_sql}),
        deps AS (
            SELECT d.claim_id, COUNT(*) AS n FROM (
                SELECT r.to_claim_id AS claim_id FROM {relation} r
                    WHERE r.to_claim_id IN (SELECT id FROM q)
                UNION ALL
                SELECT r.from_claim_id FROM {relation} r
                    WHERE r.from_claim_id IN (SELECT id FROM q)
                UNION ALL
                SELECT tc.claim_id FROM {trace_claim} tc WHERE tc.claim_id IN (SELECT id FROM q)
            ) d GROUP BY d.claim_id
        )
        SELECT q.id FROM q LEFT JOIN deps ON deps.claim_id = q.id
        ORDER BY {risk_sql}, COALESCE(deps.n, 0) DESC, q.created_at, q.id
        LIMIT %s OFFSET %s
    """
    with connection.cursor() as cursor:
        cursor.execute(sql, [*inner_params, *risk_params, limit, offset])
        return [row[0] for row in cursor.fetchall()]


def _group_size(tally: dict[str, int], group: tuple[str, ...] | None) -> int:
    if group is None:
        return sum(n for reason, n in tally.items() if reason not in RANKED_REASONS)
    return sum(tally.get(reason, 0) for reason in group)


def review_queue_ordered_ids(
    *,
    queryset: QuerySet[Claim],
    offset: int,
    limit: int,
    tally: dict[str, int] | None = None,
) -> list[int]:
    """Primary keys of ``queryset`` in queue order (:func:`review_queue_order`), one page.

    Risk is the first sort key, so only the risk groups the page overlaps need
    sorting. With the per-reason ``tally`` of the same queryset they are known by
    count (one query); without it (``offset`` 0 only) groups are read riskiest first
    until the page is full — one query when the riskiest group fills it.
    """
    if tally is None and offset:
        tally = review_reason_tally(queryset)
    if tally is None:
        ids: list[int] = []
        for group in RISK_GROUPS:
            ids.extend(_ordered_ids(_in_groups(queryset, [group]), 0, limit - len(ids)))
            if len(ids) >= limit:
                break
        return ids
    needed: list[tuple[str, ...] | None] = []
    skip, seen = offset, 0
    for group in RISK_GROUPS:
        size = _group_size(tally, group)
        if size == 0:
            continue
        if not needed and size <= skip:
            skip -= size
            continue
        needed.append(group)
        seen += size - (skip if len(needed) == 1 else 0)
        if seen >= limit:
            break
    if not needed:
        return []
    return _ordered_ids(_in_groups(queryset, needed), skip, limit)


def review_reason_tally(queryset: QuerySet[Claim]) -> dict[str, int]:
    """Claims per stored ``state_reason`` (every reason, queue or not)."""
    rows = queryset.order_by().values("state_reason").annotate(n=Count("id"))
    return {row["state_reason"]: row["n"] for row in rows}


def review_reason_counts(tally: dict[str, int]) -> list[tuple[str, int]]:
    """Claims per queue reason (in risk order) for the chips."""
    return [
        (reason, sum(tally.get(value, 0) for value in reason_values(reason)))
        for reason in QUEUE_REASON_VALUES
    ]


def review_tally_total(tally: dict[str, int], reason: str = "") -> int:
    """How many claims the filter matches, from the tally of the same filter minus reason."""
    if reason:
        return sum(tally.get(value, 0) for value in reason_values(reason))
    return sum(tally.values())


class QueueRows:
    """The ordered queue as a sliceable sequence for ``Paginator``, in two narrow steps.

    Sorting 30,000 full claim rows (text and all) spills to disk; sorting only
    ``(pk, risk, dependents, created_at)`` does not. A page slice first takes the
    ordered primary keys, then loads those rows with their source and lease holder.
    ``total`` (when known from the reason tally) spares a COUNT query.
    """

    ordered = True  # for Paginator's check: the order is the queue order

    def __init__(
        self,
        *,
        claims: QuerySet[Claim],
        rows: QuerySet[Claim],
        tally: dict[str, int] | None,
        total: int | None,
    ) -> None:
        self.claims = claims
        self.rows = rows
        self.tally = tally
        self.total = total

    def count(self) -> int:
        if self.total is None:
            self.total = self.claims.order_by().count()
        return self.total

    def __len__(self) -> int:
        return self.count()

    def __getitem__(self, index: slice) -> list[Claim]:
        if not isinstance(index, slice):
            raise TypeError("QueueRows supports slices only")
        start, stop = index.start or 0, index.stop if index.stop is not None else self.count()
        pks = review_queue_ordered_ids(
            queryset=self.claims, offset=start, limit=stop - start, tally=self.tally
        )
        by_pk = self.rows.filter(pk__in=pks).in_bulk()
        return [by_pk[pk] for pk in pks if pk in by_pk]


QUEUE_PAGE_SIZE = 50


def review_queue_filter(
    *,
    workspace: Workspace,
    reviewer,
    params: Mapping[str, Any],
    domain_packs: list[str] | None = None,
) -> ReviewQueueFilter:
    """The queue's filter set bound to ``params``, over the workspace's claims.

    ``domain_packs``: the workspace's packs when the caller has read them already."""
    if domain_packs is None:
        domain_packs = review_domain_packs(workspace=workspace)
    return ReviewQueueFilter(
        params,
        queryset=review_queue_annotated(workspace=workspace),
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
    *, workspace: Workspace, reviewer, filters: Mapping[str, Any]
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
    count: int
    pressed: bool
    query: str


@dataclass(frozen=True)
class QueuePage:
    filter: ReviewQueueFilter
    page: Page
    chips: list[ReasonChip]
    all_reasons_query: str  # the filter without its reason
    any_reason_pressed: bool


def review_queue_page(
    *, workspace: Workspace, reviewer, params: QueryDict, page_size: int = QUEUE_PAGE_SIZE
) -> QueuePage:
    """One page of the queue by the filter in ``params`` (the query string), with the
    reason chips. An invalid filter shows the default queue (the form carries the errors).

    The chips count the same filter without its reason; that tally also gives the page
    count (no separate COUNT) when both filters are valid.
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
        else review_queue_default_states(review_queue_annotated(workspace=workspace))
    )
    chip_params = params.copy()
    for key in ("reason", "page"):
        chip_params.pop(key, None)
    chip_filter = review_queue_filter(
        workspace=workspace, reviewer=reviewer, params=chip_params, domain_packs=domain_packs
    )
    tally = review_reason_tally(chip_filter.qs) if chip_filter.is_valid() else {}
    exact = valid and chip_filter.is_valid()
    # The tally of the page's own filter: the chip tally narrowed to the chosen reason.
    page_tally = None
    if exact:
        wanted = set(reason_values(current_reason)) if current_reason else None
        page_tally = {r: n for r, n in tally.items() if wanted is None or r in wanted}
    rows = QueueRows(
        claims=claims,
        rows=review_queue_order(review_queue_base(workspace=workspace)),
        tally=page_tally,
        total=review_tally_total(tally, current_reason) if exact else None,
    )
    page = Paginator(rows, page_size).get_page(params.get("page"))
    for row in page.object_list:
        row.why = review_why(
            reason=row.state_reason,
            label=row.latest_label,
            note=row.latest_note or "",
            confidence=row.latest_confidence,
            human=row.latest_reviewer is not None,
        )
    chips = []
    for reason, count in review_reason_counts(tally):
        query = chip_params.copy()
        query["reason"] = reason
        chips.append(
            ReasonChip(
                reason=reason,
                label=reason.replace("_", " "),
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


def review_held_by_others(*, reviewer) -> Q:
    """Claims under a live lease of another reviewer (expired leases free the claim)."""
    return Q(review_lease__expires_at__gt=timezone.now()) & ~Q(review_lease__reviewer=reviewer)


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
    row = (
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


def review_item_detail(*, claim: Claim, reviewer, at: int | None = None) -> ReviewItem:
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
    )


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
