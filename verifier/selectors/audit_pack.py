"""Reads behind an audit pack, streamed: the claims of a scope in chunks with their
bindings, verdicts and state events (a server-side cursor over the claims, three queries
per chunk), then the source versions one at a time. Nothing lists a whole workspace in
memory; what is kept between chunks is ids (the versions to include, the people met).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Final

from django.contrib.auth import get_user_model
from django.db.models import QuerySet
from django.http import Http404

from verifier.audit_pack.scope import PackScope
from verifier.models import (
    AuditPackJob,
    Claim,
    EvidenceBinding,
    IngestJob,
    Membership,
    Source,
    SourceVersion,
    StateEvent,
    Trace,
    Verdict,
    VerificationJob,
    Workspace,
    WorkspaceSigningKey,
)
from verifier.selectors.claim_filters import claim_filter_list
from verifier.selectors.rules import verification_rules_active
from verifier.selectors.traces import trace_get

# Claims read per round trip (and the bindings, verdicts and events of that many claims).
CLAIM_CHUNK: Final = 1000
# Source versions per round trip: a version's text may be 5,000,000 characters.
VERSION_CHUNK: Final = 4

CLAIM_FIELDS: Final = (
    "id",
    "public_id",
    "text",
    "original_text",
    "origin",
    "source_id",
    "source__ref",
    "state",
    "state_reason",
    "legacy_affirmed",
    "exclusion_reason",
    "published",
    "quality",
    "trust_score",
    "created_at",
)
BINDING_FIELDS: Final = (
    "id",
    "claim_id",
    "source_version_id",
    "source_version__number",
    "source_version__source__ref",
    "quote",
    "start",
    "end",
    "source_hash",
    "match",
    "score",
    "bound_by",
    "bound_by_user_id",
    "is_active",
    "created_at",
)
VERDICT_FIELDS: Final = (
    "id",
    "claim_id",
    "binding_id",
    "judge_model",
    "judge_family",
    "prompt_version",
    "label",
    "confidence",
    "note",
    "reviewer_id",
    "at",
)
EVENT_FIELDS: Final = (
    "id",
    "claim_id",
    "from_state",
    "to_state",
    "reason",
    "cause",
    "actor_id",
    "at",
)
VERSION_FIELDS: Final = (
    "id",
    "source_id",
    "source__ref",
    "source__title",
    "source__citation",
    "source__domain_pack",
    "number",
    "sha256",
    "created_at",
    "text",
)


@dataclass(frozen=True)
class PackSelection:
    """What a scope selects: its claims; a source whose every version goes in; a trace."""

    claims: QuerySet[Claim]
    source: Source | None = None
    trace: Trace | None = None


@dataclass(frozen=True)
class ClaimRows:
    claim: Mapping[str, Any]
    bindings: list[Mapping[str, Any]]
    verdicts: list[Mapping[str, Any]]
    events: list[Mapping[str, Any]]


def audit_pack_selection(*, workspace: Workspace, scope: PackScope) -> PackSelection:
    """The scope's claims in ``workspace``; a missing source, trace or job, and another
    workspace's, give the same 404."""
    claims = Claim.objects.filter(workspace=workspace)
    if scope.kind == "claims":
        return PackSelection(claim_filter_list(workspace=workspace, filters=scope.filters))
    if scope.kind == "source":
        source = Source.objects.filter(workspace=workspace, ref=scope.source).first()
        if source is None:
            raise Http404("No such source in this workspace.")
        return PackSelection(claims.filter(source=source), source=source)
    if scope.kind == "trace":
        trace = trace_get(workspace=workspace, trace_id=scope.trace)
        ids = trace.considered.values("claim_id")
        return PackSelection(claims.filter(pk__in=ids), trace=trace)
    if scope.kind == "ingest_job":
        if (
            scope.job is None
            or not IngestJob.objects.filter(workspace=workspace, pk=scope.job).exists()
        ):
            raise Http404("No such ingest job in this workspace.")
        return PackSelection(claims.filter(ingest_job_id=scope.job))
    job = (
        VerificationJob.objects.filter(workspace=workspace, pk=scope.job).first()
        if scope.job is not None
        else None
    )
    if job is None:
        raise Http404("No such verification job in this workspace.")
    public_ids = {str(item["claim_id"]) for item in job.items if item.get("claim_id")}
    return PackSelection(claims.filter(public_id__in=public_ids))


def audit_pack_claim_count(selection: PackSelection) -> int:
    return selection.claims.order_by().count()


def audit_pack_claim_chunks(
    selection: PackSelection, *, chunk_size: int = CLAIM_CHUNK
) -> Iterator[list[ClaimRows]]:
    """The selected claims in id order, ``chunk_size`` at a time, each with its bindings,
    verdicts and state events oldest first."""
    rows = selection.claims.order_by("id").values(*CLAIM_FIELDS).iterator(chunk_size=chunk_size)
    chunk: list[Mapping[str, Any]] = []
    for row in rows:
        chunk.append(row)
        if len(chunk) == chunk_size:
            yield _with_history(chunk)
            chunk = []
    if chunk:
        yield _with_history(chunk)


def _by_claim(rows: Iterable[Mapping[str, Any]]) -> dict[int, list[Mapping[str, Any]]]:
    out: dict[int, list[Mapping[str, Any]]] = {}
    for row in rows:
        out.setdefault(row["claim_id"], []).append(row)
    return out


def _with_history(chunk: list[Mapping[str, Any]]) -> list[ClaimRows]:
    ids = [row["id"] for row in chunk]
    bindings = _by_claim(
        EvidenceBinding.objects.filter(claim_id__in=ids)
        .order_by("claim_id", "created_at", "id")
        .values(*BINDING_FIELDS)
    )
    verdicts = _by_claim(
        Verdict.objects.filter(claim_id__in=ids)
        .order_by("claim_id", "at", "id")
        .values(*VERDICT_FIELDS)
    )
    events = _by_claim(
        StateEvent.objects.filter(claim_id__in=ids)
        .order_by("claim_id", "at", "id")
        .values(*EVENT_FIELDS)
    )
    return [
        ClaimRows(
            row,
            bindings.get(row["id"], []),
            verdicts.get(row["id"], []),
            events.get(row["id"], []),
        )
        for row in chunk
    ]


def audit_pack_current_versions(*, source_ids: Iterable[int]) -> dict[int, int]:
    """{source id: id of its current (highest-numbered) version}, texts not read."""
    rows = (
        SourceVersion.objects.filter(source_id__in=set(source_ids))
        .order_by("source_id", "-number")
        .distinct("source_id")
        .values_list("source_id", "id")
    )
    return dict(rows)


def audit_pack_source_version_ids(*, source: Source) -> list[int]:
    return list(source.versions.values_list("id", flat=True))


def audit_pack_versions(*, version_ids: Iterable[int]) -> Iterator[Mapping[str, Any]]:
    """The source versions with their texts, by source ref and number, a few at a time."""
    rows: Iterator[Mapping[str, Any]] = (
        SourceVersion.objects.filter(id__in=set(version_ids))
        .order_by("source__ref", "number")
        .values(*VERSION_FIELDS)
        .iterator(chunk_size=VERSION_CHUNK)
    )
    return rows


def audit_pack_people(*, workspace: Workspace) -> dict[int, tuple[str, str]]:
    """{user id: (username, role in the workspace, "" for a non-member)} of the members
    and of everyone the workspace's history names (reviewers, actors, binders)."""
    people = {
        uid: (name, role)
        for uid, name, role in Membership.objects.filter(workspace=workspace).values_list(
            "user_id", "user__username", "role"
        )
    }
    referenced = set(
        Verdict.objects.filter(claim__workspace=workspace, reviewer__isnull=False)
        .values_list("reviewer_id", flat=True)
        .distinct()
    )
    referenced |= set(
        StateEvent.objects.filter(claim__workspace=workspace, actor__isnull=False)
        .values_list("actor_id", flat=True)
        .distinct()
    )
    referenced |= set(
        EvidenceBinding.objects.filter(claim__workspace=workspace, bound_by_user__isnull=False)
        .values_list("bound_by_user_id", flat=True)
        .distinct()
    )
    others = referenced - people.keys()
    if others:
        users = get_user_model().objects.filter(pk__in=others).values_list("pk", "username")
        people.update({uid: (name, "") for uid, name in users})
    return people


def audit_pack_rule_sets(*, workspace: Workspace) -> list[dict[str, Any]]:
    """The rule sets and policies in force, per domain pack (as the rules API gives them)."""
    return list(verification_rules_active(workspace=workspace)["rule_sets"])


def audit_pack_trace(trace: Trace) -> dict[str, Any]:
    """The trace as the pack records it: the stored document and the claims considered."""
    considered = trace.considered.order_by("id").values(
        "claim__public_id", "included", "exclusion_reason", "verification_state"
    )
    return {
        "trace_id": str(trace.trace_id),
        "operation": trace.operation,
        "query": trace.query,
        "domain_pack": trace.domain_pack,
        "created_at": trace.created_at,
        "document": trace.document,
        "considered": [
            {
                "claim": row["claim__public_id"],
                "included": row["included"],
                "exclusion_reason": row["exclusion_reason"],
                "verification_state": row["verification_state"],
            }
            for row in considered
        ],
    }


def audit_pack_job_get(*, workspace: Workspace, job_id: int) -> AuditPackJob:
    """The job, or the same 404 for a missing one and another workspace's."""
    job = AuditPackJob.objects.filter(workspace=workspace, pk=job_id).first()
    if job is None:
        raise Http404("No such audit-pack job in this workspace.")
    return job


def audit_pack_signing_key(*, workspace: Workspace) -> WorkspaceSigningKey | None:
    return WorkspaceSigningKey.objects.filter(workspace=workspace).first()
