from __future__ import annotations

import numpy as np
from django.db import connection
from django.db.models import Count, QuerySet
from django.http import Http404

from verifier.embeddings import vectors_from_binary
from verifier.models import Claim, ClaimStateChoices, Workspace


def claim_state_counts(*, workspace: Workspace) -> dict[str, int]:
    rows = Claim.objects.filter(workspace=workspace).values("state").annotate(n=Count("id"))
    counts = {state.value: 0 for state in ClaimStateChoices}
    counts.update({row["state"]: row["n"] for row in rows})
    return counts


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
