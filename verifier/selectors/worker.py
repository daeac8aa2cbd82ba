"""Reads behind ``POST /worker/verify``: evidence rows (published claims with their
active bound span) and the knowledge-graph reach of a claim's entities."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from verifier.models import Claim, Entity, Workspace


@dataclass(frozen=True)
class EvidenceRow:
    claim_pk: int
    public_id: str
    text: str
    state: str
    trust_score: int | None
    source_id: int
    source_ref: str
    source_title: str
    source_citation: str
    domain_pack: str
    binding_id: int
    quote: str
    start: int
    end: int
    source_hash: str
    match: str
    source_version_id: int
    version_created_at: datetime


def worker_evidence_rows(
    *, workspace: Workspace, claim_pks: Iterable[int], domain_pack: str = ""
) -> list[EvidenceRow]:
    """Published claims of ``workspace`` among ``claim_pks`` (of sources in
    ``domain_pack`` when given) that have an active bound span (one query); a claim
    without one cannot be evidence."""
    pks = sorted(set(claim_pks))
    if not pks:
        return []
    qs = Claim.objects.filter(
        workspace=workspace, published=True, pk__in=pks, bindings__is_active=True
    )
    if domain_pack:
        qs = qs.filter(source__domain_pack=domain_pack)
    rows = qs.values_list(
        "pk",
        "public_id",
        "text",
        "state",
        "trust_score",
        "source_id",
        "source__ref",
        "source__title",
        "source__citation",
        "source__domain_pack",
        "bindings__id",
        "bindings__quote",
        "bindings__start",
        "bindings__end",
        "bindings__source_hash",
        "bindings__match",
        "bindings__source_version_id",
        "bindings__source_version__created_at",
    )
    return [EvidenceRow(*row) for row in rows]


def worker_claims_by_entities(
    *, workspace: Workspace, normalized_names: Iterable[str], limit: int
) -> dict[int, set[str]]:
    """{published claim pk: the given entity names it mentions}, at most ``limit``
    claims (those mentioning the most names first)."""
    names = sorted(set(normalized_names))
    if not names:
        return {}
    through = Entity.claims.through
    rows = through.objects.filter(
        entity__workspace=workspace,
        entity__normalized_name__in=names,
        claim__published=True,
    ).values_list("claim_id", "entity__normalized_name")[: limit * 4]
    found: dict[int, set[str]] = defaultdict(set)
    for claim_pk, name in rows:
        found[claim_pk].add(name)
    ordered = sorted(found.items(), key=lambda item: (-len(item[1]), item[0]))[:limit]
    return dict(ordered)


def worker_cached_claim(
    *, workspace: Workspace, text: str, domain: str, top_k: int
) -> tuple[str, str, datetime, dict] | None:
    """(public id, state, created at, stored result) of the newest worker claim of
    ``workspace`` with this exact text, domain and top_k that stored a result."""
    row = (
        Claim.objects.filter(
            workspace=workspace,
            origin="worker",
            text=text,
            metadata__domain=domain,
            metadata__top_k=top_k,
            metadata__has_key="worker_result",
        )
        .order_by("-created_at", "-id")
        .values_list("public_id", "state", "created_at", "metadata")
        .first()
    )
    if row is None:
        return None
    public_id, state, created_at, metadata = row
    return public_id, state, created_at, metadata["worker_result"]
