"""The review item pane in one query.

Keyboard triage loads an item per keypress; the pane needs the claim, its source's
current version, the active binding, candidate spans, verdicts, state events, notes,
the live lease and the item's version token. They come back as JSON columns of one
SELECT on the claim (correlated subqueries), and are turned into unsaved model
instances for the template.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any, TypedDict, cast, overload

from django.contrib.auth import get_user_model
from django.contrib.postgres.expressions import ArraySubquery
from django.db.models import F, OuterRef, QuerySet, Subquery
from django.db.models.functions import JSONObject
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from review.models import ReviewAssignment, ReviewGuidelines, ReviewLease, ReviewNote
from review.verdict_words import JUDGE_NOT_ASKED
from verifier.models import (
    Claim,
    EvidenceBinding,
    EvidenceCandidate,
    SourceVersion,
    StateEvent,
    Verdict,
)
from verifier.selectors.claims import claim_in_workspace_or_404
from verifier.states import judge_not_asked

if TYPE_CHECKING:
    from django.contrib.auth.models import User
    from django_stubs_ext import WithAnnotations

PANE_ROWS = 50
PANE_CANDIDATES = 10
# The fields each part of the pane carries (space-separated; the JSON keys are the names).
VERSION_COLUMNS = "id number text sha256"
BINDING_COLUMNS = "id source_version_id quote start end source_hash match score bound_by"
CANDIDATE_COLUMNS = "id start end score quote rank"
VERDICT_COLUMNS = (
    "id label confidence note judge_model judge_family prompt_version at reviewer_id "
    "binding_id calibrator_id"
)
# Read beside a verdict's columns, kept on the unsaved verdict as attributes: the quote
# it was recorded against (whether it still judges the active binding) and its reviewer
# calibrator's version (who answered, in words).
VERDICT_EXTRAS = {"judged_quote": "binding__quote", "calibrator_version": "calibrator__version"}
EVENT_COLUMNS = "id from_state to_state reason cause at actor_id"
NOTE_COLUMNS = "id text at author_id"
LEASE_COLUMNS = "id reviewer_id served_reason expires_at"


class PaneColumns(TypedDict):
    """The pane as JSON attributes of the claim (``review_item_pane_row``): a row is a
    dict of the ``*_COLUMNS`` above, None (or no rows) when there is none."""

    pane_version: dict[str, Any] | None
    pane_binding: dict[str, Any] | None
    pane_candidates: list[dict[str, Any]] | None
    pane_verdicts: list[dict[str, Any]] | None
    pane_events: list[dict[str, Any]] | None
    pane_notes: list[dict[str, Any]] | None
    pane_lease: dict[str, Any] | None
    pane_guidelines: str | None
    pane_assignee: str | None


if TYPE_CHECKING:
    PaneClaim = WithAnnotations[Claim, PaneColumns]


def _columns(names: str, **paths: str) -> dict[str, F]:
    """JSON keys → expressions: each of ``names`` as itself, each ``key=path`` by lookup."""
    return {name: F(name) for name in names.split()} | {key: F(path) for key, path in paths.items()}


def _rows(queryset: QuerySet[Any], limit: int, **fields: Any) -> ArraySubquery:
    return ArraySubquery(queryset.values(row=JSONObject(**fields))[:limit])


def _one(queryset: QuerySet[Any], **fields: Any) -> Subquery:
    return Subquery(queryset.values(row=JSONObject(**fields))[:1])


@overload
def _user(user_id: int, username: str | None) -> User: ...
@overload
def _user(user_id: None, username: str | None) -> None: ...
def _user(user_id: int | None, username: str | None) -> User | None:
    if user_id is None:
        return None
    return get_user_model()(pk=user_id, username=username or "")


def _at(value: str | None) -> datetime | None:
    return parse_datetime(value) if value else None


def review_item_pane_row(*, workspace_id: int, public_id: str) -> PaneClaim:
    """The claim with the whole pane as JSON attributes (``pane_*``), in one query."""
    current = SourceVersion.objects.filter(source_id=OuterRef("source_id")).order_by("-number")
    current_id = SourceVersion.objects.filter(source_id=OuterRef(OuterRef("source_id"))).order_by(
        "-number"
    )
    pane = claim_in_workspace_or_404(
        Claim.objects.select_related("source", "ingest_job").annotate(
            pane_version=_one(current, **_columns(VERSION_COLUMNS)),
            pane_binding=_one(
                EvidenceBinding.objects.filter(claim_id=OuterRef("pk"), is_active=True).order_by(
                    "-id"
                ),
                **_columns(BINDING_COLUMNS),
            ),
            pane_candidates=_rows(
                EvidenceCandidate.objects.filter(
                    claim_id=OuterRef("pk"), source_version_id=Subquery(current_id.values("id")[:1])
                ).order_by("rank"),
                PANE_CANDIDATES,
                **_columns(CANDIDATE_COLUMNS),
            ),
            pane_verdicts=_rows(
                Verdict.objects.filter(claim_id=OuterRef("pk")).latest_first(),
                PANE_ROWS,
                **_columns(VERDICT_COLUMNS, reviewer_name="reviewer__username", **VERDICT_EXTRAS),
            ),
            pane_events=_rows(
                StateEvent.objects.filter(claim_id=OuterRef("pk")).latest_first(),
                PANE_ROWS,
                **_columns(EVENT_COLUMNS, actor_name="actor__username"),
            ),
            pane_notes=_rows(
                ReviewNote.objects.filter(claim_id=OuterRef("pk")).latest_first(),
                PANE_ROWS,
                **_columns(NOTE_COLUMNS, author_name="author__username"),
            ),
            pane_lease=_one(
                ReviewLease.objects.filter(claim_id=OuterRef("pk"), expires_at__gt=timezone.now()),
                **_columns(LEASE_COLUMNS, reviewer_name="reviewer__username"),
            ),
            # The workspace's guidelines (sanitized HTML) and the item's assignee.
            pane_guidelines=Subquery(
                ReviewGuidelines.objects.filter(workspace_id=OuterRef("workspace_id")).values(
                    "html"
                )[:1]
            ),
            pane_assignee=Subquery(
                ReviewAssignment.objects.filter(claim_id=OuterRef("pk")).values(
                    "assignee__username"
                )[:1]
            ),
        ),
        workspace=workspace_id,
        public_id=public_id,
    )
    return cast("PaneClaim", pane)  # annotated with exactly PaneColumns above


def pane_version(claim: PaneClaim) -> SourceVersion | None:
    row = claim.pane_version
    return SourceVersion(source_id=claim.source_id, **row) if row else None


def pane_binding(claim: PaneClaim) -> EvidenceBinding | None:
    row = claim.pane_binding
    return EvidenceBinding(claim_id=claim.pk, is_active=True, **row) if row else None


def pane_candidates(claim: PaneClaim) -> list[EvidenceCandidate]:
    return [EvidenceCandidate(claim_id=claim.pk, **row) for row in claim.pane_candidates or []]


def _history(
    claim: Claim,
    rows: list[dict[str, Any]] | None,
    model: type[Verdict | StateEvent | ReviewNote],
    person: str,
    extras: tuple[str, ...] = (),
) -> list[Any]:
    """Unsaved ``model`` instances of the claim from the pane's JSON ``rows``, ``at``
    parsed, ``person`` (the reviewer, actor or author) an unsaved user and ``extras``
    (keys that are no field) set as attributes."""
    out = []
    for row in rows or []:
        row = dict(row)
        name = row.pop(f"{person}_name")
        kept = {key: row.pop(key) for key in extras}
        at = _at(row.pop("at"))
        instance = model(claim_id=claim.pk, **row)
        instance.at = cast(datetime, at)  # the history tables' ``at`` is NOT NULL
        setattr(instance, person, _user(row[f"{person}_id"], name))
        for key, value in kept.items():
            setattr(instance, key, value)
        out.append(instance)
    return out


def pane_verdicts(claim: PaneClaim) -> list[Verdict]:
    """The claim's verdicts, newest first, each with ``judged_quote`` and
    ``calibrator_version`` (:data:`VERDICT_EXTRAS`), and ``not_asked_words``: for the
    abstention recorded where nothing is bound (no model was asked, so none is named),
    :data:`~review.verdict_words.JUDGE_NOT_ASKED`, as the queue's Judge column says it;
    else ""."""
    verdicts = _history(claim, claim.pane_verdicts, Verdict, "reviewer", tuple(VERDICT_EXTRAS))
    for v in verdicts:
        not_asked = v.reviewer_id is None and judge_not_asked(v.label, v.note)
        v.not_asked_words = JUDGE_NOT_ASKED if not_asked else ""
    return verdicts


def pane_events(claim: PaneClaim) -> list[StateEvent]:
    return _history(claim, claim.pane_events, StateEvent, "actor")


def pane_notes(claim: PaneClaim) -> list[ReviewNote]:
    return _history(claim, claim.pane_notes, ReviewNote, "author")


def pane_lease(claim: PaneClaim) -> ReviewLease | None:
    row = claim.pane_lease
    if not row:
        return None
    row = dict(row)
    name = row.pop("reviewer_name")
    row["expires_at"] = _at(row["expires_at"])
    lease = ReviewLease(claim_id=claim.pk, **row)
    lease.reviewer = _user(row["reviewer_id"], name)
    return lease
