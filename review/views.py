"""Review console views: parse input, call one selector or service, render.

Item actions answer htmx requests with the ``_item.html`` partial of the next item
and an ``HX-Push-Url`` header, so the next item loads in place and the back button
works; without htmx they redirect to the item page.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from functools import wraps
from typing import TYPE_CHECKING, Any

from django.contrib import messages
from django.forms import Form
from django.http import HttpResponse, QueryDict
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.cache import add_never_cache_headers
from django.views.decorators.http import require_GET, require_POST
from django_htmx.http import push_url

from review.filter_bar import filter_bar_html, filter_bar_key
from review.filters import filter_querystring, without_blind_hidden
from review.forms import (
    BULK_ACTIONS,
    DECISIONS,
    UNASSIGN,
    BulkForm,
    DecisionForm,
    ExcludeForm,
    GuidelinesForm,
    ItemActionForm,
    NoteForm,
)
from review.selectors.home import review_progress
from review.selectors.item import (
    review_decided_by_me,
    review_item_change,
    review_item_detail,
    review_item_get,
    review_undoable_note,
)
from review.selectors.leases import (
    review_assigned_to,
    review_held_by_others_among,
    review_out_of_reach,
)
from review.selectors.queue import (
    review_claims_by_public_ids,
    review_queue_empty_why,
    review_queue_filtered,
    review_queue_page,
)
from review.selectors.rejudge_jobs import (
    review_rejudge_job_get,
    review_rejudge_job_skipped,
    review_rejudge_jobs_under_way,
)
from review.selectors.sentences import review_item_sentence_stops
from review.selectors.workspace import review_assignees, review_guidelines_get
from review.services import (
    BulkOutcome,
    LeasedToOther,
    ReviewError,
    StaleItem,
    review_blind_set,
    review_bulk_assign,
    review_bulk_exclude,
    review_bulk_rejudge,
    review_decide,
    review_exclude,
    review_guidelines_set,
    review_hand_back,
    review_lease_break,
    review_lease_next,
    review_lease_release,
    review_lease_take,
    review_note,
    review_rejudge_one,
    review_restore,
    review_undo,
)
from verifier import vocabulary
from verifier.http import MemberRequest
from verifier.input_guard import same_site_path
from verifier.models import ApiScope, Claim
from verifier.permissions import ADMIN_ROLES, DECIDER_ROLES, role_required
from verifier.pipeline.views import HTMX_STOP_POLLING
from verifier.selectors import counts
from verifier.selectors.worker_beats import job_liveness
from verifier.untrusted_input import decimal_int

if TYPE_CHECKING:
    from review.models import ReviewGuidelines

SKIPPED_KEY = "review_skipped"
# The flash of an item action answered by a redirect (no htmx): shown once by the item
# page it redirects to (Post/Redirect/Get), with the same offers as the htmx answer.
FLASH_KEY = "review_flash"
# Item forms a GET opens without script (``?form=exclude``): the dialog shown in the page.
OPENABLE_FORMS = ("exclude", "note")
TRAIL_KEY = "review_trail"
TRAIL_LENGTH = 50
SKIPPED_LIMIT = 500
# An item action's service call: (request, the item, its valid form) → the flash message.
ItemAction = Callable[[MemberRequest, Claim, Any], str]


def _is_decider(request: MemberRequest) -> bool:
    membership = request.membership
    return membership is not None and membership.role in DECIDER_ROLES


def _item_url(public_id: str, filter_qs: str, extra: str = "") -> str:
    """The item's page with the filter's query and ``extra`` parameters ("at=120")."""
    url = reverse("review:item", args=[public_id])
    query = "&".join(part for part in (filter_qs, extra) if part)
    return f"{url}?{query}" if query else url


def _filter_qs(request: MemberRequest) -> str:
    """The query string's filter, carried from page to page; in blind review without
    the judge-derived filters it does not apply (a link would tell what it hides)."""
    return filter_querystring(request.GET, blind=request.membership.blind_review)


# --- queue ---------------------------------------------------------------------


def _queue_context(
    request: MemberRequest,
    *,
    bulk_form: BulkForm | None = None,
    selected: frozenset[str] = frozenset(),
) -> dict[str, Any]:
    """The queue page's context by the query string (filter and page); ``bulk_form`` and
    ``selected``: a refused bulk action's form (with its errors) and the rows it had."""
    blind = request.membership.blind_review
    queue_page = review_queue_page(
        workspace=request.workspace, reviewer=request.user, params=request.GET, blind=blind
    )
    filter_qs = _filter_qs(request)
    listed = bool(queue_page.page.object_list)
    return {
        # An empty queue with no filter says why: nothing uploaded yet, jobs on their way,
        # or everything decided.
        "empty_why": (
            review_queue_empty_why(workspace=request.workspace)
            if not listed and not filter_qs and not queue_page.error
            else None
        ),
        "filter_bar": filter_bar_html(
            queue_page.filter,
            key=filter_bar_key(request.GET, queue_page.domain_packs, blind=blind),
        ),
        # An invalid filter lists nothing and says why; "left": claims still to decide.
        "filter_error": queue_page.error,
        "left": queue_page.left,
        "blind_ignored": queue_page.blind_ignored,
        "page": queue_page.page,
        "chips": queue_page.chips,
        "count_cap": f"{counts.COUNT_CAP:,}",
        "all_reasons_query": queue_page.all_reasons_query,
        "any_reason_pressed": queue_page.any_reason_pressed,
        "filter_qs": filter_qs,
        # The page's own query (filter and cursor): a refused bulk action shows it again.
        # In blind review without the judge-derived filters (a link would tell them).
        "page_qs": (without_blind_hidden(request.GET) if blind else request.GET).urlencode(),
        # The chips' and page links' path: relative ("?after=…") on the queue's own
        # address; the queue's path where the page is shown at the bulk action's.
        "queue_path": "" if request.method == "GET" else reverse("review:queue"),
        "can_decide": _is_decider(request),
        # Blind review hides each row's state, why and the judge's confidence too.
        "blind": request.membership.blind_review,
        "progress": review_progress(workspace=request.workspace, reviewer=request.user),
        "assignees": review_assignees(workspace=request.workspace),
        "unassign": UNASSIGN,
        "bulk_actions": BULK_ACTIONS,
        "bulk_form": bulk_form or BulkForm(),
        "selected": selected,
        "now": timezone.now(),
        # One reverse() for the page instead of one per row.
        "item_prefix": reverse("review:item", args=["-"])[: -len("-/")],
    }


@role_required()
@require_GET
def queue(request: MemberRequest) -> HttpResponse:
    context = _queue_context(request)
    if request.htmx and request.htmx.target == "queue-results":
        return render(request, "review/_queue_results.html", context)
    # the way back to a send-back to the judge still running (its page is its answer's)
    context["send_backs"] = review_rejudge_jobs_under_way(
        workspace=request.workspace, user=request.user
    )
    return render(request, "review/queue.html", context)


@role_required(*DECIDER_ROLES)
@require_POST
def start(request: MemberRequest) -> HttpResponse:
    """ "Start reviewing": lease the next item by the current filter and order."""
    request.session[SKIPPED_KEY] = []
    request.session[TRAIL_KEY] = []
    return _advance(request, current=None)


def _bulk_refused(request: MemberRequest, form: BulkForm) -> HttpResponse:
    """The queue again (422) with the refused bulk form: its errors beside its fields,
    the rows still selected."""
    context = _queue_context(request, bulk_form=form, selected=frozenset(form.claim_ids))
    return render(request, "review/queue.html", context, status=422)


@role_required(*DECIDER_ROLES)
@require_POST
def bulk(request: MemberRequest) -> HttpResponse:
    workspace = request.workspace
    form = BulkForm(request.POST, claim_ids=request.POST.getlist("claims"))
    filter_qs = _filter_qs(request)
    queue_url = reverse("review:queue") + (f"?{filter_qs}" if filter_qs else "")
    if not form.is_valid():
        return _bulk_refused(request, form)
    claims = review_claims_by_public_ids(workspace=workspace, public_ids=form.claim_ids)
    action = form.cleaned_data["action"]
    if action == "assign":
        # Assigning changes no claim: it needs no confirmation.
        try:
            count = review_bulk_assign(
                workspace=workspace, claims=claims, assignee_id=form.assignee_id, by=request.user
            )
        except ReviewError as exc:
            form.add_error("assignee", str(exc))
            return _bulk_refused(request, form)
        who = dict(review_assignees(workspace=workspace)).get(form.assignee_id or -1)
        messages.success(
            request,
            f"Assigned {vocabulary.counted(count, 'claim')} to {who}."
            if who
            else f"Unassigned {vocabulary.counted(count, 'claim')}.",
        )
        return redirect(queue_url)
    if not form.cleaned_data["confirm"]:
        # another reviewer's item: the action will skip it (said before confirming)
        held = review_held_by_others_among(claims=claims, reviewer=request.user)
        return render(
            request,
            "review/bulk_confirm.html",
            {
                "claims": claims,
                # each claim's item version: what changes after this page is left alone
                "seen": [(c.public_id, review_item_change(claim=c).version) for c in claims],
                "rows": [(c, held.get(c.public_id, "")) for c in claims],
                "held_count": len(held),
                "action": action,
                "action_label": dict(BULK_ACTIONS)[action],
                "reason": form.cleaned_data.get("reason", ""),
                "filter_qs": filter_qs,
                "queue_url": queue_url,
                "blind": request.membership.blind_review,
            },
        )
    seen = {c.public_id: request.POST.get(f"seen:{c.public_id}", "") for c in claims}
    target = queue_url
    if action == "exclude":
        outcome = review_bulk_exclude(
            claims=claims, reviewer=request.user, reason=form.cleaned_data["reason"], seen=seen
        )
        messages.success(request, f"Excluded {vocabulary.counted(len(outcome.done), 'claim')}.")
    else:
        # the judge reads them in the background: the job's page follows it
        outcome = review_bulk_rejudge(claims=claims, reviewer=request.user, seen=seen)
        messages.success(
            request,
            f"Sent {vocabulary.counted(len(outcome.done), 'claim')} back to the judge."
            + (" The judge reads them in the background." if outcome.job else ""),
        )
        if outcome.job is not None:
            target = reverse("review:rejudge-job", args=[outcome.job.pk])
            target += f"?{filter_qs}" if filter_qs else ""
    _report_held(request, outcome)
    return redirect(target)


@require_GET
@role_required()
def rejudge_job(request: MemberRequest, job_id: int) -> HttpResponse:
    """How far a bulk send-back to the judge has come (polled by htmx)."""
    job = review_rejudge_job_get(workspace=request.workspace, job_id=job_id)
    filter_qs = _filter_qs(request)
    context = {
        "job": job,
        "skipped": review_rejudge_job_skipped(job=job),
        "blind": request.membership.blind_review,
        "queue_url": reverse("review:queue") + (f"?{filter_qs}" if filter_qs else ""),
        **job_liveness(job),
    }
    if request.htmx:
        response = render(request, "review/_rejudge_job.html", context)
        if job.finished:
            response.status_code = HTMX_STOP_POLLING
        return response
    return render(request, "review/rejudge_job.html", context)


def _report_held(request: MemberRequest, outcome: BulkOutcome) -> None:
    if outcome.changed:
        listed = ", ".join(claim.public_id for claim in outcome.changed)
        messages.warning(
            request,
            f"Skipped {vocabulary.counted(len(outcome.changed), 'claim')} that changed after "
            f"you confirmed the selection (someone decided or changed them): {listed}. "
            "Open them to see what they are now.",
        )
    if outcome.held:
        listed = ", ".join(f"{claim.public_id} ({holder})" for claim, holder in outcome.held)
        messages.warning(
            request,
            f"Skipped {vocabulary.counted(len(outcome.held), 'claim')} another reviewer is "
            f"working on: {listed}.",
        )


# Blind review is the member's own preference, not workspace data: auditors may set it.
@role_required(unsafe_scope=ApiScope.READ)
@require_POST
def blind_toggle(request: MemberRequest) -> HttpResponse:
    membership = request.membership
    review_blind_set(membership=membership, blind=not membership.blind_review)
    target = same_site_path(request, request.POST.get("next", "")) or reverse("review:queue")
    return redirect(target)


# --- one item ------------------------------------------------------------------


def _trail_note(request: MemberRequest, public_id: str) -> str | None:
    """Remember the served item; return the one before it (for ``k``)."""
    trail: list[str] = list(request.session.get(TRAIL_KEY, []))
    if public_id in trail:
        index = len(trail) - 1 - trail[::-1].index(public_id)
        return trail[index - 1] if index > 0 else None
    previous = trail[-1] if trail else None
    trail.append(public_id)
    request.session[TRAIL_KEY] = trail[-TRAIL_LENGTH:]
    return previous


def _trail_serve(request: MemberRequest, public_id: str) -> None:
    """Put the item "next" serves last on the trail (moved there if it is on it already),
    so that ``k`` from it opens the item served before it."""
    trail = [kept for kept in request.session.get(TRAIL_KEY, []) if kept != public_id]
    request.session[TRAIL_KEY] = [*trail, public_id][-TRAIL_LENGTH:]


def _countdown(expires_at: datetime) -> str:
    """Time left on a lease as m:ss (the page's script keeps counting down)."""
    seconds = max(0, int((expires_at - timezone.now()).total_seconds()))
    return f"{seconds // 60}:{seconds % 60:02d}"


def _offers(request: MemberRequest) -> dict[str, str]:
    """What the flash after an action offers to take back: Undo of the decision just made
    (``review_decided``), Restore of the claim just excluded (``review_excluded``: its id
    and the item version it has now); and the note of the decision just undone, for the
    note field (``review_undone_note``)."""
    restore, restore_version = getattr(request, "review_excluded", ("", ""))
    return {
        "undo_previous": getattr(request, "review_decided", ""),
        "restore_previous": restore,
        "restore_version": restore_version,
        "undone_note": getattr(request, "review_undone_note", ""),
    }


def _flash_after_redirect(request: MemberRequest, *, public_id: str, flash: str) -> None:
    """Keep ``flash`` (and its offers) for the item page a redirect leads to."""
    request.session[FLASH_KEY] = {"for": public_id, "text": flash, **_offers(request)}


def _flash_kept(request: MemberRequest, public_id: str) -> dict[str, str]:
    """The flash a redirect to this item kept (once; {} for none or another item's)."""
    kept = request.session.pop(FLASH_KEY, None)
    if not isinstance(kept, dict) or kept.get("for") != public_id:
        return {}
    return {key: str(value) for key, value in kept.items() if key != "for"}


def _unsent_note(form: Form | None) -> str:
    """The note typed with a decision ``form`` that was sent ("" without one)."""
    if form is None or not form.is_bound:
        return ""
    return str(form.data.get("note") or "").strip()


def _render_item(
    request: MemberRequest,
    claim: Claim,
    *,
    status: int = 200,
    error: str = "",
    flash: str = "",
    forms: dict[str, Any] | None = None,
    stale: bool = False,
) -> HttpResponse:
    reviewer = request.user
    membership = request.membership
    filter_qs = _filter_qs(request)
    at = request.GET.get("at", "")
    detail = review_item_detail(claim=claim, reviewer=reviewer, at=decimal_int(at, max_digits=9))
    claim = detail.claim
    previous = _trail_note(request, claim.public_id)
    held_by_other = detail.lease is not None and detail.lease.reviewer_id != reviewer.pk
    forms = forms or {}
    offers = _offers(request)
    if not flash and not request.htmx and request.method == "GET":
        kept = _flash_kept(request, claim.public_id)
        flash = kept.pop("text", "")
        offers |= kept
    item_url = _item_url(claim.public_id, filter_qs)
    opened = request.GET.get("form", "")
    context: dict[str, Any] = {
        "item": detail,
        # the window's sentences, for selecting a span from the keyboard (review.js)
        "sentence_stops": review_item_sentence_stops(detail),
        "claim": claim,
        "filter_qs": filter_qs,
        "can_decide": _is_decider(request) and not held_by_other,
        "can_skip": _is_decider(request),
        "lease_left": _countdown(detail.lease.expires_at) if detail.lease else "",
        "held_by_other": held_by_other,
        # "Hand back" beside "Stop reviewing": the item is assigned to this reviewer.
        "assigned_to_me": detail.assigned_to_me,
        # An admin may free an item another reviewer left mid-way.
        "can_release_hold": held_by_other and membership.role in ADMIN_ROLES,
        "blind": _blind(request, claim, decided_by_me=detail.decided_by_me),
        "blind_review": membership.blind_review,
        "error": error,
        "stale": stale,
        "flash": flash,
        "previous_url": _item_url(previous, filter_qs) if previous else "",
        # After an undo the note field holds the undone decision's note again.
        "decision_form": forms.get("decision")
        or DecisionForm(initial={"note": offers.get("undone_note", "")}),
        # A refused decision's note, where no decision form shows it again (another
        # reviewer holds the item): the reviewer copies it instead of typing it again.
        "unsent_note": _unsent_note(forms.get("decision")) if held_by_other else "",
        "exclude_form": forms.get("exclude") or ExcludeForm(),
        "note_form": forms.get("note") or NoteForm(),
        # The Exclude and Note forms as pages of their own, for a browser without script
        # (with it, review.js opens them as dialogs); the one asked for is shown open.
        "open_form": opened if request.method == "GET" and opened in OPENABLE_FORMS else "",
        "exclude_url": _item_url(claim.public_id, filter_qs, "form=exclude"),
        "note_url": _item_url(claim.public_id, filter_qs, "form=note"),
        "item_url": item_url,
        **offers,
    }
    for key, offset in (("earlier_url", detail.earlier_at), ("later_url", detail.later_at)):
        context[key] = (
            _item_url(claim.public_id, filter_qs, f"at={offset}") if offset is not None else ""
        )
    template = "review/_item.html" if request.htmx else "review/item.html"
    response = render(request, template, context, status=status)
    # The page shows a lease and carries the item's version: never serve it stale from
    # the back/forward cache.
    add_never_cache_headers(response)
    if request.htmx:
        response = push_url(response, context["item_url"])
    return response


def _refused(
    request: MemberRequest, claim: Claim, exc: ReviewError, *, forms: dict[str, Any] | None = None
) -> HttpResponse:
    """The item page for an action the review services refused: 409 with the current
    item when the page was stale, 409 when another reviewer holds the lease, else 422
    with the form (``forms``) and the reason."""
    if isinstance(exc, StaleItem):
        current = review_item_get(workspace=request.workspace, public_id=claim.public_id)
        # What was typed with the refused action (a decision's note) stays in its form;
        # what changed is said in words, others' answers hidden in blind review.
        said = exc.in_words(hide_answer=request.membership.blind_review)
        return _render_item(request, current, status=409, error=said, stale=True, forms=forms)
    if isinstance(exc, LeasedToOther):
        return _render_item(request, claim, status=409, error=str(exc), forms=forms)
    return _render_item(request, claim, status=422, error=str(exc), forms=forms)


def _advance(request: MemberRequest, *, current: Claim | None, flash: str = "") -> HttpResponse:
    """Serve the next item in place (htmx) or by redirect."""
    workspace = request.workspace
    selection = review_queue_filtered(
        workspace=workspace,
        reviewer=request.user,
        filters=QueryDict(_filter_qs(request)),
        blind=request.membership.blind_review,
    )
    if selection.error and current is None and not request.htmx:
        # Start reviewing by an invalid filter: the queue with the same message, 422.
        return render(request, "review/queue.html", _queue_context(request), status=422)
    skipped = list(request.session.get(SKIPPED_KEY, []))
    lease = review_lease_next(
        workspace=workspace,
        reviewer=request.user,
        queryset=selection.claims,
        filters=selection.filters,
        skip=skipped + ([current.pk] if current is not None else []),
        blind=request.membership.blind_review,
    )
    filter_qs = _filter_qs(request)
    if current is not None:
        _trail_note(request, current.public_id)
    if lease is None:
        queue_url = reverse("review:queue") + (f"?{filter_qs}" if filter_qs else "")
        out_of_reach = review_out_of_reach(
            queryset=selection.claims, reviewer=request.user, skipped=skipped
        ).in_words()
        done = (flash + " " if flash else "") + (
            selection.error
            or (
                f"Nothing left for you in this filter; it still holds {out_of_reach}."
                if out_of_reach
                else "Nothing left to review for this filter."
            )
        )
        if request.htmx:
            response = render(
                request,
                "review/_queue_done.html",
                {"flash": done, "queue_url": queue_url, "filter_qs": filter_qs, **_offers(request)},
            )
            return push_url(response, queue_url)
        messages.info(request, done)
        return redirect(queue_url)
    # Served going forward: k from it goes back to the item just left, even where it
    # was opened before (a claim sent back to the judge and served again).
    _trail_serve(request, lease.claim.public_id)
    if request.htmx:
        # The pane query loads the claim itself: no separate fetch.
        return _render_item(request, lease.claim, flash=flash)
    if flash:
        _flash_after_redirect(request, public_id=lease.claim.public_id, flash=flash)
    return redirect(_item_url(lease.claim.public_id, filter_qs))


@role_required()
@require_GET
def item(request: MemberRequest, public_id: str) -> HttpResponse:
    """Read one item. Opening it takes no lease (reading writes nothing): an item is
    leased when "next" serves it, and a decision on it is taken under its row lock,
    refused while another reviewer holds a live lease."""
    claim = review_item_get(workspace=request.workspace, public_id=public_id)
    return _render_item(request, claim)


def _item_action(
    form_class: type[Form], *, form_key: str = "", advance: bool = True
) -> Callable[[ItemAction], Callable[[MemberRequest, str], HttpResponse]]:
    """Make the view of an action on one item from ``act``, its service call: the view
    gets the item, validates the ``form_class`` form from the POST, calls ``act`` (which
    returns the flash message), answers a refusal with ``_refused``, then serves the
    next item (``advance``) or this one again: in place for htmx, else by a redirect to
    its page, which shows the flash (Post/Redirect/Get).

    With a ``form_key`` an invalid form is shown again with its errors (422) and with a
    refusal; without one the form only carries the item's version."""

    def decorator(act: ItemAction) -> Callable[[MemberRequest, str], HttpResponse]:
        @wraps(act)
        def view(request: MemberRequest, public_id: str) -> HttpResponse:
            claim = review_item_get(workspace=request.workspace, public_id=public_id)
            form = form_class(request.POST)
            forms = {form_key: form} if form_key else None
            if not form.is_valid() and forms:
                return _render_item(request, claim, status=422, forms=forms)
            try:
                flash = act(request, claim, form)
            except ReviewError as exc:
                return _refused(request, claim, exc, forms=forms)
            if advance:
                return _advance(request, current=claim, flash=flash)
            # shown again to work on (an undo, a restore): the reviewer's item now
            review_lease_take(claim=claim, reviewer=request.user, served_reason="shown again")
            if request.htmx:
                return _render_item(request, claim, flash=flash)
            _flash_after_redirect(request, public_id=claim.public_id, flash=flash)
            return redirect(_item_url(claim.public_id, _filter_qs(request)))

        return view

    return decorator


@role_required(*DECIDER_ROLES)
@require_POST
@_item_action(DecisionForm, form_key="decision")
def decide(request: MemberRequest, claim: Claim, form: DecisionForm) -> str:
    decision = form.cleaned_data["decision"]
    result = review_decide(
        claim=claim,
        reviewer=request.user,
        decision=decision,
        note=form.cleaned_data["note"],
        span=form.span,
        span_text=form.cleaned_data["span_text"] if form.span else None,
        expected_version=form.expected_version,
    )
    request.review_decided = claim.public_id  # type: ignore[attr-defined]
    return (
        f"{claim.public_id} marked {dict(DECISIONS)[decision].lower()}: now "
        f"{vocabulary.label('state', result.state)} ({vocabulary.label('reason', result.reason)})."
    )


@role_required(*DECIDER_ROLES)
@require_POST
@_item_action(ExcludeForm, form_key="exclude")
def exclude(request: MemberRequest, claim: Claim, form: ExcludeForm) -> str:
    reason = form.cleaned_data["reason"]
    review_exclude(
        claim=claim, reviewer=request.user, reason=reason, expected_version=form.expected_version
    )
    # The next page's flash offers to restore it, on the version the exclusion made.
    request.review_excluded = (  # type: ignore[attr-defined]
        claim.public_id,
        review_item_change(claim=claim).version,
    )
    return f"{claim.public_id} excluded."


def _blind(request: MemberRequest, claim: Claim, *, decided_by_me: bool | None = None) -> bool:
    """Whether blind review hides what the judge and others found on ``claim`` from this
    reviewer, on the item page and in every flash about it: their blind review is on and
    they made no decision on it that an undo did not take back (one they undid is none,
    so the item is blind again until they decide it again). ``decided_by_me``: the item
    pane's, where read; else it is read here (:func:`review_decided_by_me`, the same
    rule)."""
    if not request.membership.blind_review:
        return False
    if decided_by_me is None:
        decided_by_me = review_decided_by_me(claim=claim, reviewer=request.user)
    return not decided_by_me


def _now_in_words(request: MemberRequest, claim: Claim, state: str, reason: str) -> str:
    """ "now <state> (<reason>)" after an action, or "" where blind review hides it
    (:func:`_blind`: the flash would tell what the page hides)."""
    if _blind(request, claim):
        return ""
    return f"now {vocabulary.label('state', state)} ({vocabulary.label('reason', reason)})"


@role_required(*DECIDER_ROLES)
@require_POST
@_item_action(ItemActionForm, advance=False)
def restore(request: MemberRequest, claim: Claim, form: ItemActionForm) -> str:
    result = review_restore(
        claim=claim, reviewer=request.user, expected_version=form.expected_version
    )
    claim.refresh_from_db()
    now = _now_in_words(request, claim, result.state, result.reason)
    return "Restored" + (f": {now}." if now else f" {claim.public_id}.")


@role_required(*DECIDER_ROLES)
@require_POST
@_item_action(ItemActionForm)
def rejudge(request: MemberRequest, claim: Claim, form: ItemActionForm) -> str:
    review_rejudge_one(claim=claim, reviewer=request.user, expected_version=form.expected_version)
    claim.refresh_from_db()
    now = _now_in_words(request, claim, claim.state, claim.state_reason)
    return f"{claim.public_id} sent back to the judge" + (f": {now}." if now else ".")


@role_required(*DECIDER_ROLES)
@require_POST
@_item_action(ItemActionForm, advance=False)
def undo(request: MemberRequest, claim: Claim, form: ItemActionForm) -> str:
    """Take back my own recent decision on this item (a new verdict; history kept); its
    note is offered again in the note field (``review_undone_note``)."""
    note = review_undoable_note(claim=claim, reviewer=request.user)
    result = review_undo(claim=claim, reviewer=request.user)
    request.review_undone_note = note  # type: ignore[attr-defined]
    claim.refresh_from_db()
    # In blind review the undone decision is none: the state the judge's answer (or
    # another reviewer's decision) gives the claim again stays hidden, as on the item.
    now = _now_in_words(request, claim, result.state, result.reason)
    return (
        f"Undone: your decision on {claim.public_id} is withdrawn; "
        + (f"{now}." if now else "its state and verdicts are hidden again until you decide.")
        + (" Its note is back in the note field." if note else "")
    )


@role_required()
@require_GET
def guidelines(request: MemberRequest) -> HttpResponse:
    """The workspace's review guidelines; admins edit them here."""
    current = review_guidelines_get(workspace=request.workspace)
    form = GuidelinesForm(initial={"text": current.text if current else ""})
    return _guidelines_page(request, current=current, form=form)


def _guidelines_page(
    request: MemberRequest,
    *,
    current: ReviewGuidelines | None,
    form: GuidelinesForm,
    status: int = 200,
) -> HttpResponse:
    return render(
        request,
        "review/guidelines.html",
        {"guidelines": current, "form": form, "can_edit": request.membership.role in ADMIN_ROLES},
        status=status,
    )


@role_required(*ADMIN_ROLES)
@require_POST
def guidelines_edit(request: MemberRequest) -> HttpResponse:
    form = GuidelinesForm(request.POST)
    if not form.is_valid():
        current = review_guidelines_get(workspace=request.workspace)
        return _guidelines_page(request, current=current, form=form, status=422)
    try:
        review_guidelines_set(
            workspace=request.workspace, text=form.cleaned_data["text"], by=request.user
        )
    except ReviewError as exc:
        form.add_error("text", str(exc))
        current = review_guidelines_get(workspace=request.workspace)
        return _guidelines_page(request, current=current, form=form, status=422)
    if form.cleaned_data["text"].strip():
        messages.success(request, "Guidelines saved: reviewers see them beside every item.")
    else:
        messages.success(request, "Guidelines cleared: reviewers see none beside the items.")
    return redirect("review:guidelines")


# review_note refuses only with a plain ReviewError, which _refused shows with the form (422).
@role_required(*DECIDER_ROLES)
@require_POST
@_item_action(NoteForm, form_key="note", advance=False)
def note(request: MemberRequest, claim: Claim, form: NoteForm) -> str:
    review_note(claim=claim, reviewer=request.user, text=form.cleaned_data["text"])
    return "Note added."


@role_required(*DECIDER_ROLES)
@require_POST
def skip(request: MemberRequest, public_id: str) -> HttpResponse:
    claim = review_item_get(workspace=request.workspace, public_id=public_id)
    skipped = list(request.session.get(SKIPPED_KEY, []))
    if claim.pk not in skipped:
        skipped.append(claim.pk)
    request.session[SKIPPED_KEY] = skipped[-SKIPPED_LIMIT:]
    review_lease_release(claim=claim, reviewer=request.user)
    return _advance(request, current=claim, flash=f"Skipped {claim.public_id}.")


@role_required(*DECIDER_ROLES)
@require_POST
def release(request: MemberRequest, public_id: str) -> HttpResponse:
    """Stop reviewing: give the item back to the queue. With ``hand_back`` (the item's
    "Hand back" where it is assigned to you) the assignment is taken off too; without
    it the item stays assigned to you, and the flash says so."""
    claim = review_item_get(workspace=request.workspace, public_id=public_id)
    if request.POST.get("hand_back") == "1":
        if review_hand_back(claim=claim, reviewer=request.user):
            said = (
                f"Handed back: {claim.public_id} is no longer assigned to you; it is back in "
                "the queue for anyone."
            )
        else:
            said = (
                f"Stopped reviewing: {claim.public_id} is back in the queue for anyone (it was "
                "not assigned to you, so no assignment changed)."
            )
        messages.info(request, said)
    else:
        review_lease_release(claim=claim, reviewer=request.user)
        messages.info(
            request,
            f"Stopped reviewing {claim.public_id}: it stays assigned to you (Hand back on the "
            "item unassigns it)."
            if review_assigned_to(claim=claim, reviewer=request.user)
            else f"Stopped reviewing: {claim.public_id} is back in the queue for anyone.",
        )
    filter_qs = _filter_qs(request)
    return redirect(reverse("review:queue") + (f"?{filter_qs}" if filter_qs else ""))


@role_required(*ADMIN_ROLES)
@require_POST
def release_hold(request: MemberRequest, public_id: str) -> HttpResponse:
    """An admin ends another reviewer's hold on an item (they left it mid-way), so that
    anyone can review it now; the item page says whose hold ended."""
    claim = review_item_get(workspace=request.workspace, public_id=public_id)
    holder = review_lease_break(claim=claim)
    flash = (
        f"Released {holder}'s hold on {claim.public_id}: anyone may review it now."
        if holder
        else f"Nobody holds {claim.public_id} any more: anyone may review it now."
    )
    _flash_after_redirect(request, public_id=claim.public_id, flash=flash)
    return redirect(_item_url(claim.public_id, _filter_qs(request)))
