"""The review queue's reads: the claims a filter selects, one page of them with its
reason chips, and each row's cells. The queue is a query over claims, not a copy kept
in sync; its order is :mod:`review.selectors.cursor`'s."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol, TypeVar

from django.db import connection
from django.db.models import QuerySet
from django.http import QueryDict
from django.utils import timezone
from django.utils.text import Truncator
from django.utils.timesince import timesince
from psycopg.rows import dict_row

from review.filters import (
    ReviewQueueFilter,
    other_reason_values,
    queue_undecided,
    without_blind_hidden,
)
from review.queue_reasons import HUMAN_DECISION_REASONS, queue_reason_values
from review.selectors.cursor import (
    BlindCursor,
    QueueCursor,
    blind_cursor_parse,
    blind_cursor_token,
    review_blind_queue_keyset,
    review_queue_keyset,
)
from review.selectors.workspace import review_domain_packs
from review.verdict_columns import verdict_in_force_sql
from review.verdict_words import (
    JUDGE_NOT_ASKED,
    confidence_in_words,
    judge_in_words,
    note_in_words,
)
from verifier import vocabulary
from verifier.models import (
    Claim,
    ClaimOrigin,
    IngestJob,
    IngestStatus,
    JudgeCalibrator,
    Workspace,
)
from verifier.selectors.counts import RowCount, row_counts
from verifier.selectors.paging import CURSOR_KEYS, KeysetPage, KeysetWindow, keyset_window
from verifier.states import (
    StateReason,
    human_verdict_in_force,
    judge_not_asked,
    reason_description,
    reason_in_words,
    verdict_judges_active,
)
from verifier.time_words import utc_words

if TYPE_CHECKING:
    from django.contrib.auth.models import User

QUEUE_PAGE_SIZE = 50
TEXT_SHORT_CHARS = 140  # the row's claim text, as ``truncatechars:140``


def review_queue_claims(*, workspace: Workspace) -> QuerySet[Claim]:
    """All of the workspace's claims, what the queue's filters narrow. The columns of
    the verdict in force are annotated by the filters that read them
    (:mod:`review.verdict_columns`), the rows' by :func:`review_queue_rows`."""
    return Claim.objects.filter(workspace=workspace)


def review_queue_default_states(queryset: QuerySet[Claim]) -> QuerySet[Claim]:
    """The default queue (``review.filters.queue_undecided``)."""
    return queue_undecided(queryset)


@dataclass(frozen=True)
class QueueWhy:
    """Why the judge did not decide, in words."""

    reason: str  # the state reason in words
    decisive: str  # the decisive reason from the latest verdict's note
    confidence: str  # the judge's confidence in its own answer, in words ("" when excluded)


def review_why(
    *,
    reason: str,
    label: str | None,
    note: str,
    confidence: float | None,
    human: bool,
    quote: str = "",
) -> QueueWhy:
    """``quote``: the one the claim came with (``reason_in_words`` says why it did not
    bind when an ellipsis is why)."""
    if reason == StateReason.EXCLUDED:
        # A person took the claim out of use: the judge's old reason no longer applies.
        return QueueWhy(reason=reason_description(reason), decisive="", confidence="")
    return QueueWhy(
        reason=reason_in_words(reason, quote=quote),
        decisive=note_in_words(note),
        confidence=confidence_in_words(label, confidence, human=human, note=note),
    )


class _Judged(Protocol):
    """A verdict as the why reads it: a stored ``Verdict`` or a :class:`JudgedRow`."""

    @property
    def label(self) -> str: ...

    @property
    def confidence(self) -> float: ...

    @property
    def note(self) -> str: ...

    @property
    def reviewer_id(self) -> int | None: ...


class _JudgedOn(_Judged, Protocol):
    """A stored verdict with the binding it was recorded against."""

    @property
    def binding_id(self) -> int | None: ...


Judged = TypeVar("Judged", bound=_JudgedOn)


def deciding_verdict(
    verdicts: Sequence[Judged],
    *,
    active_binding_id: int | None,
    active_quote: str | None,
    judged_quote: Callable[[int], str | None],
) -> Judged | None:
    """Of a claim's verdicts (newest first, each with its ``binding_id``), the one its
    state rests on now, by the state writer's rule: the human decision in force (an undo
    takes one back, ``human_verdict_in_force``) where it still judges the active binding
    (``verdict_judges_active``), else the latest model verdict where it does, else none.
    An undo's own ``withdrawn`` verdict never decides. ``judged_quote(binding id)``: the
    quote a verdict was recorded against (read only when it is not the active binding).
    The queue reads the same rule in SQL (``review.verdict_columns``)."""

    def applies(verdict: Judged | None) -> bool:
        if verdict is None:
            return False
        judged_id = verdict.binding_id
        return verdict_judges_active(
            judged_binding_id=judged_id,
            active_binding_id=active_binding_id,
            judged_quote=lambda: judged_quote(judged_id) if judged_id is not None else None,
            active_quote=active_quote,
        )

    standing = human_verdict_in_force([v for v in verdicts if v.reviewer_id is not None])
    if applies(standing):
        return standing
    latest = next((v for v in verdicts if v.reviewer_id is None), None)
    return latest if applies(latest) else None


class JudgedRow(NamedTuple):
    """The verdict in force of one row of :data:`_QUEUE_ROWS_SQL`."""

    label: str
    confidence: float
    note: str
    reviewer_id: int | None
    judge_model: str | None = None
    calibrator_version: int | None = None


def why_of(*, reason: str, verdict: _Judged | None, quote: str = "") -> QueueWhy:
    """:func:`review_why` of the verdict that decides the state (None: not judged) and
    the quote the claim came with."""
    return review_why(
        reason=reason,
        quote=quote,
        label=verdict.label if verdict else None,
        note=verdict.note if verdict else "",
        confidence=verdict.confidence if verdict else None,
        human=verdict is not None and verdict.reviewer_id is not None,
    )


@dataclass(frozen=True, slots=True)
class QueueRow:
    """One row of the queue page: the columns of :data:`_QUEUE_ROWS_SQL` by name, and
    what its cells show, ready for the template (fewer template lookups and filters:
    50 rows × 11 cells are most of the page's Python)."""

    pk: int
    public_id: str
    text: str
    state: str
    state_reason: str
    submitted_quote: str
    origin: str
    created_at: datetime
    dependents: int
    source_ref: str
    lease_expires_at: datetime | None
    lease_reviewer: str | None
    lease_reviewer_id: int | None
    # The verdict the state rests on (``review.verdict_columns``: after an undo the
    # judge's again, never the withdrawal); None without one.
    verdict_judge_model: str | None
    verdict_confidence: float | None
    verdict_label: str | None
    verdict_note: str | None
    verdict_reviewer: int | None
    verdict_calibrator_version: int | None  # a reviewer calibrator's answer: its version
    assignee: str | None  # who the item is assigned to (username); None: nobody
    assignee_id: int | None
    # derived from the columns above by :func:`review_queue_rows`
    text_short: str  # the text cut to TEXT_SHORT_CHARS
    age: str  # as ``|timesince``
    created_iso: str  # as ``|date:"c"``
    lease_holder: str  # the live lease's reviewer in words (:func:`lease_in_words`); ""
    assignee_words: str  # the assignee in words (:func:`person_in_words`); "" for nobody
    judge: str  # who gave the verdict the state stands on, in words ("" without one)
    why: QueueWhy

    @property
    def origin_label(self) -> str:
        if self.origin not in ClaimOrigin.values:
            return self.origin
        return str(ClaimOrigin(self.origin).label)


# The rows of one queue page as fixed SQL text, one statement: each claim with its
# source's ref, its lease (expiry, holder) and the verdict its state rests on
# (``review.verdict_columns.VERDICT_IN_FORCE_SQL``, the rule the judge-model and
# confidence filters read), with its reviewer calibrator's version. The ORM spelling
# (values over three joins plus a second query for the verdicts) cost ~4 ms of Python
# per page to compile and run; this costs a fraction of one. Each column is named as
# :class:`QueueRow`'s field it fills. The verdict is joined LATERAL with a LIMIT (which
# keeps the planner from flattening it), one index lookup per row: a plain join on the
# subquery's id made the planner hash the whole verdict table.
_QUEUE_ROWS_SQL = f"""
SELECT c."id" AS "pk", c."public_id", c."text", c."state", c."state_reason",
       c."submitted_quote", c."origin",
       c."created_at", c."dependents", s."ref" AS "source_ref",
       l."expires_at" AS "lease_expires_at", u."username" AS "lease_reviewer",
       l."reviewer_id" AS "lease_reviewer_id",
       v."judge_model" AS "verdict_judge_model", v."confidence" AS "verdict_confidence",
       v."label" AS "verdict_label", v."note" AS "verdict_note",
       v."reviewer_id" AS "verdict_reviewer", jc."version" AS "verdict_calibrator_version",
       au."username" AS "assignee", ra."assignee_id"
FROM "verifier_claim" c
JOIN "verifier_source" s ON s."id" = c."source_id"
LEFT JOIN "review_reviewlease" l ON l."claim_id" = c."id"
LEFT JOIN "auth_user" u ON u."id" = l."reviewer_id"
LEFT JOIN "review_reviewassignment" ra ON ra."claim_id" = c."id"
LEFT JOIN "auth_user" au ON au."id" = ra."assignee_id"
LEFT JOIN LATERAL (
    SELECT vv.* FROM "verifier_verdict" vv
    WHERE vv."id" = {verdict_in_force_sql('c."id"')} LIMIT 1
) v ON TRUE
LEFT JOIN "{JudgeCalibrator._meta.db_table}" jc ON jc."id" = v."calibrator_id"
WHERE c."workspace_id" = %s AND c."id" = ANY(%s)
"""


def person_in_words(username: str | None, *, mine: bool) -> str:
    """A person as the console names them to the viewer: "you" where it is the viewer
    (``mine``), else their user name ("" for nobody). The queue's Lease and Assigned to
    cells and the item's assignee and lease lines say it so."""
    if not username:
        return ""
    return "you" if mine else username


def lease_in_words(username: str | None, *, mine: bool, expires_at: datetime | None) -> str:
    """A live lease's holder (:func:`person_in_words`), the viewer's own with its end:
    "you (until 14:05 UTC)", what the item page counts down; another's by name."""
    who = person_in_words(username, mine=mine)
    if who and mine and expires_at is not None:
        return f"{who} (until {utc_words(expires_at, 'time')})"
    return who


def _judge_cell(deciding: JudgedRow | None, *, blind: bool) -> str:
    """The Judge cell: who gave the verdict the state rests on ("" without one). The
    abstention recorded for a claim with no bound span names no model: none was asked.
    Blind review says nothing (its queue has no Judge column): who answered can tell
    the answer (a reviewer calibrator answers only where it decides or disagrees with
    the judge; a memory check names the judge only where the judge decided, else its
    rules; "not asked" and no verdict at all tell the reason)."""
    if deciding is None or blind:
        return ""
    if deciding.reviewer_id is None and judge_not_asked(deciding.label, deciding.note):
        return JUDGE_NOT_ASKED
    return judge_in_words(deciding.judge_model, calibrator_version=deciding.calibrator_version)


def _queue_row(
    columns: dict[str, Any], *, now: datetime, blind: bool, viewer_id: int | None
) -> QueueRow:
    """The row of ``columns`` (one result of :data:`_QUEUE_ROWS_SQL`) with its cells;
    ``blind``: the reviewer's blind review (the Judge cell is empty); ``viewer_id``: the
    user the page is for (their own lease and assignment say "you")."""
    text: str = columns["text"]
    created_at: datetime = columns["created_at"]
    expires_at: datetime | None = columns["lease_expires_at"]
    live = expires_at is not None and expires_at > now
    deciding = (
        JudgedRow(
            columns["verdict_label"],
            columns["verdict_confidence"],
            columns["verdict_note"] or "",
            columns["verdict_reviewer"],
            columns["verdict_judge_model"],
            columns["verdict_calibrator_version"],
        )
        if columns["verdict_label"] is not None
        else None
    )
    return QueueRow(
        **columns,
        # truncatechars, without the Truncator's cost for the many short texts
        text_short=(
            text if len(text) <= TEXT_SHORT_CHARS else Truncator(text).chars(TEXT_SHORT_CHARS)
        ),
        age=timesince(created_at, now),
        created_iso=timezone.localtime(created_at).isoformat(),
        lease_holder=(
            lease_in_words(
                columns["lease_reviewer"],
                mine=viewer_id is not None and columns["lease_reviewer_id"] == viewer_id,
                expires_at=expires_at,
            )
            if live
            else ""
        ),
        assignee_words=person_in_words(
            columns["assignee"],
            mine=viewer_id is not None and columns["assignee_id"] == viewer_id,
        ),
        # Who the state stands on now, as the why: after an undo the judge again, not
        # the reviewer whose decision the latest (withdrawn) verdict takes back.
        judge=_judge_cell(deciding, blind=blind),
        why=why_of(
            reason=columns["state_reason"], verdict=deciding, quote=columns["submitted_quote"]
        ),
    )


def review_queue_rows(
    *,
    workspace: Workspace,
    pks: list[int],
    now: datetime,
    blind: bool = False,
    viewer: User | None = None,
) -> list[QueueRow]:
    """The queue page's rows for ``pks`` (in that order; others' and unknown pks
    dropped): each claim's cells with its source ref, lease holder (live at ``now``)
    and assignee, and the judge model, confidence, label, note, reviewer and reviewer
    calibrator of the verdict its state rests on (one query). ``blind``: the
    reviewer's blind review; ``viewer``: who reads the page (their own lease and
    assignment are "you")."""
    if not pks:
        return []
    with connection.cursor() as cursor:
        # Rows as {column: value}, the columns named as QueueRow's fields.
        cursor.cursor.row_factory = dict_row
        cursor.execute(_QUEUE_ROWS_SQL, [workspace.pk, list(pks)])
        found: list[dict[str, Any]] = cursor.fetchall()
    by_pk = {columns["pk"]: columns for columns in found}
    viewer_id = viewer.pk if viewer is not None else None
    return [
        _queue_row(by_pk[pk], now=now, blind=blind, viewer_id=viewer_id)
        for pk in pks
        if pk in by_pk
    ]


def review_queue_filter(
    *,
    workspace: Workspace,
    reviewer: User,
    params: Mapping[str, Any],
    domain_packs: list[str] | None = None,
    blind: bool = False,
) -> ReviewQueueFilter:
    """The queue's filter set bound to ``params``, over the workspace's claims.

    ``domain_packs``: the workspace's packs when the caller has read them already;
    ``blind``: the reviewer's blind review (no judge-derived filters)."""
    if domain_packs is None:
        domain_packs = review_domain_packs(workspace=workspace)
    return ReviewQueueFilter(
        params,
        queryset=review_queue_claims(workspace=workspace),
        reviewer=reviewer,
        domain_packs=domain_packs,
        blind=blind,
    )


@dataclass(frozen=True)
class QueueSelection:
    """The claims a queue filter selects (none when the filter is invalid, and then
    ``error`` says why, as the queue page does) and the filter's values."""

    claims: QuerySet[Claim]
    filters: dict[str, Any]
    error: str = ""


def review_queue_filtered(
    *, workspace: Workspace, reviewer: User, filters: Mapping[str, Any], blind: bool = False
) -> QueueSelection:
    """The queue's claims by ``filters`` (e.g. the query string), for serving the next
    item by the same filter as the queue page."""
    # One value per key (a QueryDict iterates keys; .get gives the last value).
    params = {key: filters.get(key) for key in filters}
    filterset = review_queue_filter(
        workspace=workspace, reviewer=reviewer, params=params, blind=blind
    )
    if not filterset.is_valid():
        return QueueSelection(
            claims=Claim.objects.none(), filters={}, error=filterset.error_message()
        )
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
    # The page's claims still waiting for a reviewer (not decided by one); None when
    # the filter is invalid.
    left: RowCount | None = None
    error: str = ""  # what is wrong with the filter ("" when it is valid)
    # In blind review: the judge-derived filters of the query it leaves out.
    blind_ignored: tuple[str, ...] = ()


def _empty_page(page_size: int) -> KeysetPage:
    return KeysetPage(
        object_list=[],
        number=1,
        count=RowCount(0),
        page_size=page_size,
        next_query=None,
        previous_query=None,
        first_query=None,
    )


def review_queue_page(
    *,
    workspace: Workspace,
    reviewer: User,
    params: QueryDict,
    page_size: int = QUEUE_PAGE_SIZE,
    blind: bool = False,
) -> QueuePage:
    """One page of the queue by the filter in ``params`` (the query string), with the
    reason chips and how many of its claims are left to review. An invalid filter lists
    nothing and says why (``error``; the form carries each field's error), as the claim
    list does; in blind review (``blind``) the judge-derived filters and the chips are
    left out.

    Keyset paging: ``after=`` / ``before=`` hold the sort key of the row next to the
    page (:class:`QueueCursor`; in blind review, oldest first, :class:`BlindCursor`, sealed
    in the links), so every page is one short index range scan. The chips
    count the same filter without its reason (the queue's reasons, then any other
    reason the filter holds claims of, so they add up to its count), the page its own
    filter, and "left" its claims no reviewer has decided, all in one query that counts
    each up to ``COUNT_CAP`` rows; past that, the planner's estimate ("about 33,400").
    """
    domain_packs = review_domain_packs(workspace=workspace)
    filterset = review_queue_filter(
        workspace=workspace,
        reviewer=reviewer,
        params=params,
        domain_packs=domain_packs,
        blind=blind,
    )
    if blind:
        # The page links carry the query: blind review leaves the judge-derived filters
        # out of them, as it leaves them out of the filter (a link would tell them).
        params = without_blind_hidden(params)
    chip_params = params.copy()
    for key in ("reason", *CURSOR_KEYS):
        chip_params.pop(key, None)
    if not filterset.is_valid():
        return QueuePage(
            filter=filterset,
            page=_empty_page(page_size),
            chips=[],
            all_reasons_query=chip_params.urlencode(),
            any_reason_pressed=True,
            domain_packs=domain_packs,
            error=filterset.error_message(),
            blind_ignored=tuple(filterset.blind_ignored),
        )
    cleaned = filterset.form.cleaned_data
    current_reason: str = cleaned.get("reason") or ""
    claims = filterset.qs
    reasons = () if blind else (*queue_reason_values(), *other_reason_values())
    # The same filter without its reason, from the values already cleaned.
    chip_claims = filterset.qs_without("reason")
    chip_sets = [chip_claims.filter(state_reason=reason) for reason in reasons]
    # With a reason chosen the page's count is that chip's.
    chosen = reasons.index(current_reason) if current_reason in reasons else None
    # The default queue holds no decided claim: what is left is all of it.
    count_left = cleaned.get("state", "queue") != "queue"
    counted = row_counts(
        [
            *chip_sets,
            *([claims] if chosen is None else []),
            *([claims.exclude(state_reason__in=HUMAN_DECISION_REASONS)] if count_left else []),
        ]
    )
    total = counted[chosen] if chosen is not None else counted[len(chip_sets)]
    left = counted[-1] if count_left else total

    def fetch(
        limit: int, after: QueueCursor | None, before: QueueCursor | None, offset: int
    ) -> list[QueueCursor]:
        return review_queue_keyset(claims, limit=limit, after=after, before=before, offset=offset)

    def fetch_blind(
        limit: int, after: BlindCursor | None, before: BlindCursor | None, offset: int
    ) -> list[BlindCursor]:
        return review_blind_queue_keyset(
            claims, limit=limit, after=after, before=before, offset=offset
        )

    # Blind review lists oldest first (the risk order would tell the judge's answer by
    # a claim's place), its page links carrying the cursor sealed.
    window: KeysetWindow[QueueCursor] | KeysetWindow[BlindCursor] = (
        keyset_window(
            params,
            page_size=page_size,
            parse=blind_cursor_parse,
            fetch=fetch_blind,
            token=blind_cursor_token,
        )
        if blind
        else keyset_window(
            params,
            page_size=page_size,
            parse=QueueCursor.parse,
            fetch=fetch,
            token=lambda key: key.token,
        )
    )
    pks = [key.id for key in window.keys]
    rows = review_queue_rows(
        workspace=workspace, pks=pks, now=timezone.now(), blind=blind, viewer=reviewer
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
    order = queue_reason_values()
    for reason, count in zip(reasons, counted[: len(chip_sets)], strict=True):
        pressed = reason == current_reason
        if reason not in order and not count.n and not pressed:
            continue  # a reason outside the queue's order shows only where it has claims
        query = chip_params.copy()
        query["reason"] = reason
        chips.append(
            ReasonChip(
                reason=reason,
                label=vocabulary.label("reason", reason),
                count=count,
                pressed=pressed,
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
        left=left,
        blind_ignored=tuple(filterset.blind_ignored),
    )


def review_claims_by_public_ids(*, workspace: Workspace, public_ids: list[str]) -> list[Claim]:
    """The workspace's claims among ``public_ids`` (others' and unknown ids are dropped),
    in creation order: the queue's selection for a bulk action."""
    return list(Claim.objects.filter(workspace=workspace, public_id__in=public_ids).order_by("id"))


@dataclass(frozen=True)
class QueueEmptyWhy:
    """Why a queue with no filter lists nothing: what the empty state says."""

    any_claims: bool  # the workspace has claims at all (else nothing was uploaded yet)
    jobs_running: int  # ingest jobs queued or running: claims may still come


def review_queue_empty_why(*, workspace: Workspace) -> QueueEmptyWhy:
    """For the empty queue with no filter: whether anything was uploaded yet, and how
    many ingest jobs are still on their way (two bounded queries)."""
    return QueueEmptyWhy(
        any_claims=Claim.objects.filter(workspace=workspace).exists(),
        jobs_running=IngestJob.objects.filter(
            workspace=workspace, status__in=(IngestStatus.QUEUED, IngestStatus.RUNNING)
        ).count(),
    )
