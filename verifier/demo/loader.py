"""Load the demo workspace idempotently through the real verification chain."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction

from verifier.demo.content import CLAIMS, SOURCES, DemoClaim
from verifier.embeddings import embed_texts
from verifier.models import (
    Claim,
    ClaimOrigin,
    ClaimRelation,
    RelationKind,
    Source,
    Trace,
    Workspace,
)
from verifier.services.claim_state import claim_exclude
from verifier.services.ingest_validate import claims_classify
from verifier.services.retrieval import context_retrieve
from verifier.services.sources import source_upsert
from verifier.services.workspaces import member_add, workspace_create

DEMO_SLUG = "demo"
DEMO_PASSWORD = "spanproof-demo"
DEMO_USERS = (("admin", "admin"), ("reviewer", "reviewer"), ("auditor", "auditor"))
_BASE36 = "0123456789abcdefghijklmnopqrstuvwxyz"

# Relations between demo claims (by key) so graph expansion has something to walk.
DEMO_RELATIONS = (
    ("delta-load", "delta-sand", RelationKind.ELABORATES),
    ("delta-sand", "delta-spartina", RelationKind.ELABORATES),
    ("delta-spartina", "delta-sealevel", RelationKind.SUPPORTS),
    ("light-lit", "light-automated", RelationKind.ELABORATES),
    ("light-automated", "light-electrified", RelationKind.CONTRADICTS),
    ("ann-ivf", "ann-memory", RelationKind.CONTRADICTS),
)
# The retrieval the demo asks once, through the real retrieve service, so the Traces page
# has a trace to walk on a fresh start (its steps, the claims served and left out).
DEMO_RETRIEVE_QUERY = "How much sediment does the Marrow River carry to its delta?"


def demo_public_id(key: str) -> str:
    digest = int(hashlib.sha256(f"spanproof-demo:{key}".encode()).hexdigest(), 16)
    chars = []
    for _ in range(12):
        digest, rem = divmod(digest, 36)
        chars.append(_BASE36[rem])
    return "claim:" + "".join(chars)


@dataclass
class DemoReport:
    workspace: Workspace
    created_users: list[str] = field(default_factory=list)
    created_sources: int = 0
    created_claims: int = 0
    states: dict[str, str] = field(default_factory=dict)
    surprises: list[str] = field(default_factory=list)


def _users(workspace: Workspace, report: DemoReport) -> None:
    users = get_user_model().objects
    for username, role in DEMO_USERS:
        user = users.filter(username=username).first()
        if user is None:
            user = users.create_user(username=username, password=DEMO_PASSWORD)
            if role == "admin":
                user.is_staff = user.is_superuser = True
                user.save(update_fields=["is_staff", "is_superuser"])
            report.created_users.append(username)
        if not workspace.memberships.filter(user=user).exists():
            # The console's own service: the activity log records the member added, with
            # no actor (a command or a task), as it records every change of who may do what.
            member_add(workspace=workspace, username=username, role=role)


def _new_claims(
    workspace: Workspace, sources: dict[str, Any], report: DemoReport
) -> list[tuple[Any, ...]]:
    created = []
    for item in CLAIMS:
        public_id = demo_public_id(item.key)
        if Claim.objects.filter(public_id=public_id).exists():
            continue
        claim = Claim.objects.create(
            workspace=workspace,
            public_id=public_id,
            source=sources[item.source_ref],
            text=item.text,
            original_text=item.text,
            origin=ClaimOrigin.IMPORTED,
            legacy_affirmed=item.legacy_affirmed,
            submitted_quote=item.quote or "",
        )
        created.append((item, claim))
    report.created_claims = len(created)
    return created


def _embed_and_publish(claims: list[Claim]) -> None:
    vectors = embed_texts([c.text for c in claims])
    for claim, vector in zip(claims, vectors, strict=True):
        claim.embedding = vector.tolist()
        claim.published = True
    Claim.objects.bulk_update(claims, ["embedding", "published"])


def _relations(workspace: Workspace) -> None:
    for from_key, to_key, kind in DEMO_RELATIONS:
        a = Claim.objects.filter(public_id=demo_public_id(from_key)).first()
        b = Claim.objects.filter(public_id=demo_public_id(to_key)).first()
        if a and b:
            ClaimRelation.objects.get_or_create(
                workspace=workspace,
                from_claim=a,
                to_claim=b,
                kind=kind,
                defaults={
                    "confidence": 0.8,
                    "verification": "accepted",
                    "verification_level": "demo",
                },
            )


def _classify(workspace: Workspace) -> None:
    """Class the demo's claims not classed yet (supported, weak or unsupported) under the
    rule set in force for their source's domain pack, as an ingest job classes its own, so
    that the rule-set pages, the quality filter and an activation's re-classing have
    classes to work on. Only the demo's own claims: another claim without a class belongs
    to a job still validating it."""
    claims = list(
        Claim.objects.filter(
            workspace=workspace,
            quality="",
            public_id__in=[demo_public_id(item.key) for item in CLAIMS],
        )
        .select_related("source")
        .order_by("pk")
    )
    if claims:
        with transaction.atomic():
            claims_classify(workspace=workspace, claims=claims)


def _retrieve_once(workspace: Workspace) -> None:
    """One retrieval of the demo's claims, as an application asks for context, when the
    workspace has no retrieval trace yet (a later start adds none)."""
    if not Trace.objects.filter(workspace=workspace, operation="retrieve").exists():
        context_retrieve(workspace=workspace, query=DEMO_RETRIEVE_QUERY, depth="deep")


def load_demo() -> DemoReport:
    from verifier.services.sentence_index import source_sentences_index
    from verifier.services.verification import claims_verify

    with transaction.atomic():
        workspace = workspace_create(slug=DEMO_SLUG, name="Demo workspace")
        report = DemoReport(workspace=workspace)
        _users(workspace, report)
        sources = {}
        for spec in SOURCES:
            # Loaded again at each start: a source the workspace already has is left as it
            # is. An admin may have given it new versions or a title since; putting the
            # demo text back would be a version nobody asked for, and would move claims.
            kept = Source.objects.filter(workspace=workspace, ref=spec.ref).first()
            if kept is not None:
                sources[spec.ref] = kept
                continue
            write = source_upsert(
                workspace=workspace,
                ref=spec.ref,
                text=spec.text,
                title=spec.title,
                citation=spec.citation,
                domain_pack=spec.domain_pack,
            )
            sources[spec.ref] = write.source
            report.created_sources += int(write.created_source)
        created = _new_claims(workspace, sources, report)
    if created:
        claims = [claim for _, claim in created]
        claims_verify(claims=claims)
    _classify(workspace)
    if created:
        admin = get_user_model().objects.get(username="admin")
        for item, claim in created:
            if item.exclude_reason:
                claim_exclude(claim=claim, reason=item.exclude_reason, actor=admin)
        _embed_and_publish(claims)
    _relations(workspace)
    # the worker's sentence index, as ingest fills it (idempotent: indexed spans are kept)
    source_sentences_index(
        version_pks=[
            s.versions.order_by("-number").values_list("pk", flat=True)[0] for s in sources.values()
        ]
    )
    _retrieve_once(workspace)
    for item in CLAIMS:
        claim = Claim.objects.filter(public_id=demo_public_id(item.key)).first()
        if claim is None:
            continue
        report.states[item.key] = claim.state
        if claim.state != item.expect:
            report.surprises.append(_surprise(item, claim))
    return report


def _surprise(item: DemoClaim, claim: Claim) -> str:
    return (
        f"{item.key}: written to be {item.expect}, the chain made it {claim.state} "
        f"({claim.state_reason})"
    )
