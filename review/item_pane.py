"""The review item pane in one query.

Keyboard triage loads an item per keypress; the pane needs the claim, its source's
current version, the active binding, candidate spans, verdicts, state events, notes,
the live lease and the item's version token. They come back as JSON columns of one
SELECT on the claim (correlated subqueries), and are turned into unsaved model
instances for the template.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.postgres.expressions import ArraySubquery
from django.db.models import F, OuterRef, Subquery
from django.db.models.functions import JSONObject
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from review.models import ReviewLease, ReviewNote
from verifier.models import (
    Claim,
    EvidenceBinding,
    EvidenceCandidate,
    SourceVersion,
    StateEvent,
    Verdict,
)
from verifier.selectors.claims import claim_in_workspace_or_404

PANE_ROWS = 50
PANE_CANDIDATES = 10


def _rows(queryset, limit: int, **fields: Any) -> ArraySubquery:
    return ArraySubquery(queryset.values(row=JSONObject(**fields))[:limit])


def _one(queryset, **fields: Any) -> Subquery:
    return Subquery(queryset.values(row=JSONObject(**fields))[:1])


def _user(user_id: int | None, username: str | None):
    if user_id is None:
        return None
    return get_user_model()(pk=user_id, username=username or "")


def _at(value: str | None):
    return parse_datetime(value) if value else None


def review_item_pane_row(*, workspace_id: int, public_id: str) -> Claim:
    """The claim with the whole pane as JSON attributes (``pane_*``), in one query."""
    current = SourceVersion.objects.filter(source_id=OuterRef("source_id")).order_by("-number")
    current_id = SourceVersion.objects.filter(source_id=OuterRef(OuterRef("source_id"))).order_by(
        "-number"
    )
    return claim_in_workspace_or_404(
        Claim.objects.select_related("source", "ingest_job").annotate(
            pane_version=_one(
                current, id=F("id"), number=F("number"), text=F("text"), sha256=F("sha256")
            ),
            pane_binding=_one(
                EvidenceBinding.objects.filter(claim_id=OuterRef("pk"), is_active=True).order_by(
                    "-id"
                ),
                id=F("id"),
                source_version_id=F("source_version_id"),
                quote=F("quote"),
                start=F("start"),
                end=F("end"),
                source_hash=F("source_hash"),
                match=F("match"),
                score=F("score"),
                bound_by=F("bound_by"),
            ),
            pane_candidates=_rows(
                EvidenceCandidate.objects.filter(
                    claim_id=OuterRef("pk"), source_version_id=Subquery(current_id.values("id")[:1])
                ).order_by("rank"),
                PANE_CANDIDATES,
                id=F("id"),
                start=F("start"),
                end=F("end"),
                score=F("score"),
                quote=F("quote"),
                rank=F("rank"),
            ),
            pane_verdicts=_rows(
                Verdict.objects.filter(claim_id=OuterRef("pk")).order_by("-at", "-id"),
                PANE_ROWS,
                id=F("id"),
                label=F("label"),
                confidence=F("confidence"),
                note=F("note"),
                judge_model=F("judge_model"),
                judge_family=F("judge_family"),
                prompt_version=F("prompt_version"),
                at=F("at"),
                reviewer_id=F("reviewer_id"),
                reviewer_name=F("reviewer__username"),
            ),
            pane_events=_rows(
                StateEvent.objects.filter(claim_id=OuterRef("pk")).order_by("-at", "-id"),
                PANE_ROWS,
                id=F("id"),
                from_state=F("from_state"),
                to_state=F("to_state"),
                reason=F("reason"),
                cause=F("cause"),
                at=F("at"),
                actor_id=F("actor_id"),
                actor_name=F("actor__username"),
            ),
            pane_notes=_rows(
                ReviewNote.objects.filter(claim_id=OuterRef("pk")).order_by("-at", "-id"),
                PANE_ROWS,
                id=F("id"),
                text=F("text"),
                at=F("at"),
                author_id=F("author_id"),
                author_name=F("author__username"),
            ),
            pane_lease=_one(
                ReviewLease.objects.filter(claim_id=OuterRef("pk"), expires_at__gt=timezone.now()),
                id=F("id"),
                reviewer_id=F("reviewer_id"),
                reviewer_name=F("reviewer__username"),
                served_reason=F("served_reason"),
                expires_at=F("expires_at"),
            ),
        ),
        workspace=workspace_id,
        public_id=public_id,
    )


def pane_version(claim: Claim) -> SourceVersion | None:
    row = claim.pane_version  # type: ignore[attr-defined]
    return SourceVersion(source_id=claim.source_id, **row) if row else None


def pane_binding(claim: Claim) -> EvidenceBinding | None:
    row = claim.pane_binding  # type: ignore[attr-defined]
    return EvidenceBinding(claim_id=claim.pk, is_active=True, **row) if row else None


def pane_candidates(claim: Claim) -> list[EvidenceCandidate]:
    return [EvidenceCandidate(claim_id=claim.pk, **row) for row in claim.pane_candidates or []]  # type: ignore[attr-defined]


def pane_verdicts(claim: Claim) -> list[Verdict]:
    out = []
    for row in claim.pane_verdicts or []:  # type: ignore[attr-defined]
        row = dict(row)
        name = row.pop("reviewer_name")
        at = _at(row.pop("at"))
        verdict = Verdict(claim_id=claim.pk, **row)
        verdict.at = at
        verdict.reviewer = _user(row["reviewer_id"], name)
        out.append(verdict)
    return out


def pane_events(claim: Claim) -> list[StateEvent]:
    out = []
    for row in claim.pane_events or []:  # type: ignore[attr-defined]
        row = dict(row)
        name = row.pop("actor_name")
        at = _at(row.pop("at"))
        event = StateEvent(claim_id=claim.pk, **row)
        event.at = at
        event.actor = _user(row["actor_id"], name)
        out.append(event)
    return out


def pane_notes(claim: Claim) -> list[ReviewNote]:
    out = []
    for row in claim.pane_notes or []:  # type: ignore[attr-defined]
        row = dict(row)
        name = row.pop("author_name")
        at = _at(row.pop("at"))
        note = ReviewNote(claim_id=claim.pk, **row)
        note.at = at
        note.author = _user(row["author_id"], name)
        out.append(note)
    return out


def pane_lease(claim: Claim) -> ReviewLease | None:
    row = claim.pane_lease  # type: ignore[attr-defined]
    if not row:
        return None
    row = dict(row)
    name = row.pop("reviewer_name")
    row["expires_at"] = _at(row["expires_at"])
    lease = ReviewLease(claim_id=claim.pk, **row)
    lease.reviewer = _user(row["reviewer_id"], name)
    return lease
