from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
from django.db import connection
from django.db.models import Count, Exists, OuterRef, Q, QuerySet, Subquery
from django.http import Http404

from verifier.embeddings import vectors_from_binary
from verifier.models import (
    Claim,
    ClaimStateChoices,
    EvidenceBinding,
    SourceVersion,
    Verdict,
    Workspace,
)
from verifier.scoring.quality import QUALITY_CLASSES, quality_class_sources


def _no_states() -> dict[str, int]:
    return {state.value: 0 for state in ClaimStateChoices}


def claims_state_counts(claims: QuerySet[Claim]) -> dict[str, int]:
    """How many of ``claims`` are in each of the five states now (every state listed, 0
    when none): the one definition of the per-state counts that the home page, the job
    and quality reports, the rule-set preview and the exports (one row per claim, its
    ``state``) all show. One query: ``count(*)``, not ``count(id)``, so a workspace's
    counts are an index-only scan of ``claim_ws_state`` (the id is not in that index)."""
    counts = _no_states()
    for row in claims.order_by().values("state").annotate(n=Count("*")):
        counts[row["state"]] = row["n"]
    return counts


def claims_state_counts_by(
    claims: QuerySet[Claim], field: str, keys: Iterable[Any]
) -> dict[Any, dict[str, int]]:
    """``claims_state_counts`` of each group of ``claims`` by ``field`` (say, the ingest
    job), for the groups ``keys``: one query for all of them."""
    out = {key: _no_states() for key in keys}
    rows = claims.order_by().values(field, "state").annotate(n=Count("*"))
    for row in rows:
        if row[field] in out:
            out[row[field]][row["state"]] = row["n"]
    return out


def claim_state_counts(*, workspace: Workspace) -> dict[str, int]:
    return claims_state_counts(Claim.objects.filter(workspace=workspace))


def quality_class_filter(quality: str) -> Q:
    """The claims whose class (``verifier.scoring.quality.quality_class``: the rule-set
    class capped by the state) is ``quality``; matches nothing for an unknown class."""
    sources = quality_class_sources(quality) if quality in QUALITY_CLASSES else {}
    q = Q(pk__in=[])
    for state, rule_classes in sources.items():
        q |= Q(state=state, quality__in=rule_classes)
    return q


def claim_list(*, workspace: Workspace) -> QuerySet[Claim]:
    return Claim.objects.filter(workspace=workspace).select_related("source")


def claim_in_workspace_or_404(
    queryset: QuerySet[Claim], *, workspace: Workspace | int, public_id: str
) -> Claim:
    """The claim ``public_id`` of ``workspace`` (an instance or its pk) from ``queryset``,
    which carries the caller's ``select_related`` / annotations; the same 404 for a
    missing claim and another workspace's."""
    claim = queryset.filter(workspace=workspace, public_id=public_id).first()
    if claim is None:
        raise Http404("No such claim in this workspace.")
    return claim


def claim_get(*, workspace: Workspace, public_id: str) -> Claim:
    """The claim, or the same 404 for a missing one and another workspace's."""
    return claim_in_workspace_or_404(
        Claim.objects.select_related("source"), workspace=workspace, public_id=public_id
    )


# Stored vectors in pgvector's binary form (uint16 dimensions, uint16 unused, then
# big-endian float32s): one query, parsed in bulk, instead of a text parse per claim.
_STORED_VECTORS = f"""
SELECT id, vector_send(embedding) FROM {Claim._meta.db_table}
WHERE id = ANY(%s) AND embedding IS NOT NULL
"""


def claim_stored_vectors(*, claim_pks: list[int]) -> dict[int, np.ndarray]:
    """{claim pk: its stored embedding as float32} for the claims that have one."""
    if not claim_pks:
        return {}
    with connection.cursor() as cursor:
        cursor.execute(_STORED_VECTORS, [list(claim_pks)])
        rows = cursor.fetchall()
    matrix = vectors_from_binary([bytes(r[1]) for r in rows])
    return {int(r[0]): matrix[i] for i, r in enumerate(rows)}


def claim_pks_without_vectors(*, claim_pks: list[int]) -> set[int]:
    """The claims among ``claim_pks`` whose embedding column is empty."""
    rows = Claim.objects.filter(pk__in=claim_pks, embedding__isnull=True)
    return set(rows.values_list("pk", flat=True))


def claim_checked_before(
    *,
    workspace: Workspace,
    source_id: int,
    origin: str,
    text: str,
    original_text: str,
    quote: str,
    judge_model: str,
    prompt_version: int,
) -> Claim | None:
    """An earlier claim of the same door (``origin``) with the same words, on the same
    source, submitted with the same quote and bound in the source's current version (or
    bound nowhere, for ``quote`` ""), not excluded, that a judge of the same model and
    reading already answered: what a repeated memory check or RAG audit finds again
    instead of storing the claim twice (and queueing it twice for review)."""
    current = SourceVersion.objects.filter(source_id=source_id).order_by("-number").values("pk")[:1]
    bound = EvidenceBinding.objects.filter(claim=OuterRef("pk"), is_active=True)
    candidates = Claim.objects.filter(
        workspace=workspace,
        source_id=source_id,
        origin=origin,
        text=text,
        original_text=original_text,
        submitted_quote=quote,
        exclusion_reason="",
    ).filter(
        Exists(
            Verdict.objects.filter(
                claim=OuterRef("pk"), judge_model=judge_model, prompt_version=prompt_version
            )
        )
    )
    if quote:
        candidates = candidates.filter(Exists(bound.filter(source_version_id=Subquery(current))))
    else:
        candidates = candidates.exclude(Exists(bound))
    return candidates.order_by("pk").first()
