"""The review item: the claim to review, its version token (who changed it last), and
the item pane (the source window around the span, candidates, history, the lease, the
reviewer's own decision while it can still be undone)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, Final

from django.conf import settings
from django.db.models import Subquery
from django.utils import timezone

from audit.highlighting import Segment, Span, text_window, window_segments
from review import item_pane
from review.models import ReviewLease, ReviewNote
from review.selectors.queue import QueueWhy, deciding_verdict, person_in_words, why_of
from review.verdict_words import (
    confidence_in_words,
    judge_in_words,
    note_in_words,
    undo_note_in_words,
)
from verifier import vocabulary
from verifier.models import (
    Claim,
    EvidenceBinding,
    EvidenceCandidate,
    SourceVersion,
    StateEvent,
    Verdict,
    Workspace,
)
from verifier.selectors.claim_state import binding_recheck
from verifier.selectors.claims import claim_in_workspace_or_404
from verifier.states import (
    CAUSE_EXCLUDED,
    CAUSE_NEW_VERSION,
    CAUSE_RECHECK,
    CAUSE_REJUDGE,
    CAUSE_RESTORED,
    CAUSE_UNDO,
    WITHDRAWN,
    human_verdict_in_force,
)
from verifier.time_words import utc_words

if TYPE_CHECKING:
    from django.contrib.auth.models import User


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
    at: datetime | None
    actor_id: int | None
    actor_name: str
    human_verdict: bool
    # the latest verdict's label (a decision's or the judge's answer), and the cause of
    # the state event when that event is the latest change ("" when a verdict is)
    answer: str = ""
    cause: str = ""

    def in_words(self, *, viewer: User, hide_answer: bool) -> str:
        """What changed the item last, by whom and when, as a refusal of a stale page
        says it: "Already decided by omar at 06:45 UTC, as Supports.", "Already excluded
        by ada at …", "Already re-judged at …: the judge answered No answer.", never only
        "changed". With ``hide_answer`` (blind review) another person's or the judge's
        answer is left out; the viewer's own decision is theirs to read."""
        mine = self.actor_id is not None and self.actor_id == viewer.pk
        who = "you" if mine else self.actor_name
        when = utc_words(self.at, "time") if self.at else "an earlier time"
        answer = vocabulary.label("verdict", self.answer) if self.answer else ""
        cause = self.cause
        withdrawn = cause.startswith(CAUSE_UNDO) if cause else self.answer == WITHDRAWN
        if self.human_verdict and withdrawn:
            whose = "your" if mine else "their"
            return f"Already changed by {who} at {when}: {whose} decision was withdrawn."
        if self.human_verdict:
            said = f", as {answer}" if answer and (mine or not hide_answer) else ""
            return f"Already decided by {who} at {when}{said}."
        judged = f": the judge answered {answer}" if answer and not hide_answer else ""
        if not cause:  # the judge's verdict is the latest change
            return f"Already re-judged at {when}{judged}."
        if cause.startswith(CAUSE_REJUDGE):
            asked = cause.removeprefix(CAUSE_REJUDGE).strip()
            asked = "you" if asked == viewer.get_username() else asked
            return f"Already re-judged at {when}, sent back to the judge by {asked}{judged}."
        if cause.startswith(CAUSE_EXCLUDED):
            return f"Already excluded by {who} at {when}."
        if cause == CAUSE_RESTORED:
            return f"Already restored by {who} at {when}."
        if cause.startswith(CAUSE_NEW_VERSION):
            return f"Already changed at {when}: the cited source has a new version."
        if cause.startswith(CAUSE_RECHECK):
            return f"Already changed at {when}: its span was checked against the source again."
        return f"Already changed by {who} at {when}."


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
            v_label=Subquery(verdicts.values("label")[:1]),
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
            "v_label",
            "e_id",
            "e_at",
            "e_actor",
            "e_actor_name",
            "e_cause",
        )
        .first()
    ) or {}
    version = item_version(row.get("v_id"), row.get("e_id"))
    v_at, e_at = row.get("v_at"), row.get("e_at")
    if v_at is not None and (e_at is None or v_at >= e_at):
        return ItemChange(
            version=version,
            at=v_at,
            actor_id=row.get("v_reviewer"),
            actor_name=row.get("v_reviewer_name") or "the judge",
            human_verdict=row.get("v_reviewer") is not None,
            answer=row.get("v_label") or "",
        )
    return ItemChange(
        version=version,
        at=e_at,
        actor_id=row.get("e_actor"),
        actor_name=row.get("e_actor_name") or "the system",
        # The state event a reviewer's decision appends right after its verdict.
        human_verdict=(row.get("e_cause") or "").startswith("review: "),
        answer=row.get("v_label") or "",
        cause=row.get("e_cause") or "",
    )


# An item's version: its latest verdict's and state event's ids ("v12.e30").
ITEM_VERSION: Final = re.compile(r"v\d+\.e\d+")


def item_version(verdict_id: int | None, event_id: int | None) -> str:
    return f"v{verdict_id or 0}.e{event_id or 0}"


@dataclass(frozen=True)
class ReviewItem:
    claim: Claim
    version: SourceVersion | None
    binding: EvidenceBinding | None
    binding_status: str  # fresh | stale | none
    segments: list[Segment]  # the source window; the bound span's segment is highlighted
    candidates: list[EvidenceCandidate]
    verdicts: list[Verdict]
    events: list[StateEvent]
    notes: list[ReviewNote]
    lease: ReviewLease | None
    # The reviewer made a decision on the claim that no undo took back (:func:`decided_by`):
    # what ends blind review's hiding on the item.
    decided_by_me: bool
    change: ItemChange
    window: tuple[int, int] = (0, 0)
    text_length: int = 0
    why: QueueWhy | None = None
    guidelines_html: str = ""  # the workspace's guidelines, sanitized when saved
    assignee: str = ""
    # The assignee as the viewer reads it: "you" for their own (the item's "assigned to
    # you", and its Hand back), else the user name (:func:`person_in_words`).
    assignee_words: str = ""
    assigned_to_me: bool = False
    # The reviewer's own decision that stands on this claim, when it is recent enough to
    # undo (``review.services.review_undo``).
    undoable: Verdict | None = None
    # Another person's decision the claim's state stands on: shown by who and when even
    # in blind review (not what), so nobody replaces it without knowing it is there.
    decided_by_other: Verdict | None = None
    # Who gave the verdict the state rests on, where the workspace's reviewer calibrator
    # answered on top of the judge ("the reviewers' calibrator v3 (on top of ...)");
    # "" otherwise (the verdict history names every verdict's judge).
    decided_by_calibrator: str = ""

    @property
    def shown_segments(self) -> list[tuple[Segment, str, str]]:
        """The window's segments, each with the source's character either side of it:
        how the page writes a text's edges (``audit/partials/exact_text.html``: a carriage
        return whose line feed starts the next segment is no lone one)."""
        text = self.version.text if self.version is not None else ""
        return [
            (seg, text[max(0, seg.start - 1) : seg.start], text[seg.end : seg.end + 1])
            for seg in self.segments
        ]

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
    version = item_version(verdict.pk if verdict else None, event.pk if event else None)
    if verdict is not None and (event is None or verdict.at >= event.at):
        return ItemChange(
            version=version,
            at=verdict.at,
            actor_id=verdict.reviewer_id,
            actor_name=verdict.reviewer.get_username() if verdict.reviewer else "the judge",
            human_verdict=verdict.reviewer_id is not None,
            answer=verdict.label,
        )
    return ItemChange(
        version=version,
        at=event.at if event else None,
        actor_id=event.actor_id if event else None,
        actor_name=event.actor.get_username() if event and event.actor else "the system",
        human_verdict=bool(event and event.cause.startswith("review: ")),
        answer=verdict.label if verdict else "",
        cause=event.cause if event else "",
    )


def review_item_detail(*, claim: Claim, reviewer: User, at: int | None = None) -> ReviewItem:
    """The item pane. The source is shown as a window around the bound span (or the
    best candidate span, or ``at``), so a 200 KB source does not make a 200 KB page."""
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
    notes = verdict_notes_in_words(verdicts)
    for v in verdicts:
        v.judge_words = judge_in_words(  # type: ignore[attr-defined]
            v.judge_model,
            v.reviewer.get_username() if v.reviewer is not None else None,
            calibrator_version=v.calibrator_version,  # type: ignore[attr-defined]
        )
        v.confidence_words = confidence_in_words(  # type: ignore[attr-defined]
            v.label, v.confidence, human=v.reviewer_id is not None, note=v.note
        )
        v.note_words = notes[v.pk]  # type: ignore[attr-defined]
    # Why it is here: the verdict the state stands on now, not merely the latest (after an
    # undo the latest is the withdrawal, and the judge's verdict decides again).
    judged_quotes = {v.binding_id: v.judged_quote for v in verdicts}  # type: ignore[attr-defined]
    deciding = deciding_verdict(
        verdicts,
        active_binding_id=binding.pk if binding is not None else None,
        active_quote=binding.quote if binding is not None else None,
        judged_quote=judged_quotes.get,
    )
    why = why_of(reason=claim.state_reason, verdict=deciding, quote=claim.submitted_quote)
    assigned_to_me = bool(claim.pane_assignee) and claim.pane_assignee == reviewer.get_username()
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
        decided_by_me=decided_by(verdicts, reviewer),
        change=_change_of(verdicts, events),
        window=window,
        text_length=len(version.text) if version is not None else 0,
        why=why,
        guidelines_html=claim.pane_guidelines or "",
        assignee=claim.pane_assignee or "",
        assignee_words=person_in_words(claim.pane_assignee, mine=assigned_to_me),
        assigned_to_me=assigned_to_me,
        undoable=_undoable(verdicts, reviewer),
        decided_by_calibrator=(
            deciding.judge_words  # type: ignore[attr-defined]
            if deciding is not None and deciding.calibrator_id is not None
            else ""
        ),
        decided_by_other=(
            deciding
            if deciding is not None
            and deciding.reviewer_id is not None
            and deciding.reviewer_id != reviewer.pk
            else None
        ),
    )


def verdict_notes_in_words(verdicts: Sequence[Verdict]) -> dict[int, str]:
    """Each verdict's note as the console shows it (by id): a judge's note in the words
    the item's "Why" line gives it (``note_in_words``: "The numbers differ: 40
    kilometres vs 14 kilometres.", not its code), a reviewer's own note as they wrote
    it, and an undo's note naming the decision it withdraws, from ``verdicts`` (the
    claim's, reviewers loaded), as its row in the history reads. The review item and
    the audit's claim page both show these."""
    decisions = {v.pk: _decision_in_words(v) for v in verdicts if v.reviewer_id is not None}
    return {
        v.pk: (
            undo_note_in_words(v.note, decisions.get)
            if v.reviewer_id is not None
            else note_in_words(v.note)
        )
        for v in verdicts
    }


def _decision_in_words(verdict: Verdict) -> str:
    """A person's verdict as its row in the history reads: "rita's decision of
    2025-05-02 14:03 UTC" (what an undo's note names instead of the verdict's id)."""
    who = verdict.reviewer.get_username() if verdict.reviewer is not None else "a reviewer"
    return f"{who}'s decision of {utc_words(verdict.at)}"


def decided_by(verdicts: Sequence[Verdict], reviewer: User) -> bool:
    """Whether ``reviewer`` has a decision on the claim that no undo took back, from the
    claim's ``verdicts`` (newest first, as read). A withdrawal takes back the decision
    that stood just before it (:func:`~verifier.states.human_verdict_in_force` of the
    verdicts older than it, the state writer's rule), so a decision made and undone is
    none: in blind review the reviewer decides the item again without its answer shown."""
    human = [v for v in verdicts if v.reviewer_id is not None]
    withdrawn = {
        taken.pk
        for at, verdict in enumerate(human)
        if verdict.label == WITHDRAWN
        and (taken := human_verdict_in_force(human[at + 1 :])) is not None
    }
    return any(
        v.reviewer_id == reviewer.pk and v.label != WITHDRAWN and v.pk not in withdrawn
        for v in human
    )


def review_decided_by_me(*, claim: Claim, reviewer: User) -> bool:
    """:func:`decided_by` of the claim's verdicts (one query): what the item pane's
    ``decided_by_me`` says, for a flash that is written before the pane is read."""
    return decided_by(list(claim.verdicts.filter(reviewer__isnull=False).latest_first()), reviewer)


def review_undo_seconds() -> int:
    """How long after deciding a reviewer may undo the decision
    (``SPANPROOF_REVIEW_UNDO_SECONDS``, 5 minutes by default)."""
    return int(settings.SPANPROOF_REVIEW_UNDO_SECONDS)


def review_undoable_note(*, claim: Claim, reviewer: User) -> str:
    """The note of the reviewer's decision an undo would take back now ("" when there
    is none, or it has no note): the item shown after the undo offers it again in the
    note field, so deciding again does not mean typing it again."""
    verdicts = list(claim.verdicts.filter(reviewer__isnull=False).latest_first())
    standing = _undoable(verdicts, reviewer)
    return standing.note if standing is not None else ""


def _undoable(verdicts: list[Verdict], reviewer: User) -> Verdict | None:
    """The reviewer's decision standing on the claim, if still inside the undo window."""
    standing = human_verdict_in_force([v for v in verdicts if v.reviewer_id is not None])
    if standing is None or standing.reviewer_id != reviewer.pk or standing.at is None:
        return None
    if timezone.now() - standing.at > timedelta(seconds=review_undo_seconds()):
        return None
    return standing
