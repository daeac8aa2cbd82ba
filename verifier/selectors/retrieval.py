"""Reads behind retrieval: vector seeds, lexical fallback, relation expansion, paths."""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Iterable, Sequence

import numpy as np
from django.db import connection
from django.db.models import Q, QuerySet
from pgvector.django import CosineDistance

from verifier.models import Claim, ClaimRelation, Entity, SourceVersion, Workspace

HNSW_DEFAULT_EF_SEARCH = 40
LEXICAL_TOKENS = 4
_WORD = re.compile(r"[^\W_]{3,}", re.UNICODE)


def published_claims(*, workspace: Workspace, domain_pack: str = "") -> QuerySet[Claim]:
    qs = Claim.objects.filter(workspace=workspace, published=True)
    if domain_pack:
        qs = qs.filter(source__domain_pack=domain_pack)
    return qs


def claim_seeds_by_vector(
    *, workspace: Workspace, vector: np.ndarray, limit: int, domain_pack: str = ""
) -> list[tuple[int, float]]:
    """(claim pk, cosine similarity) of the ``limit`` nearest published claims (HNSW)."""
    if limit > HNSW_DEFAULT_EF_SEARCH:
        with connection.cursor() as cursor:
            # hnsw.ef_search bounds how many rows one index scan can return.
            cursor.execute("SELECT set_config('hnsw.ef_search', %s, true)", [str(limit)])
    rows = (
        published_claims(workspace=workspace, domain_pack=domain_pack)
        .filter(embedding__isnull=False)
        .annotate(distance=CosineDistance("embedding", vector))
        .order_by("distance")
        .values_list("pk", "distance")[:limit]
    )
    return [(pk, 1.0 - float(distance)) for pk, distance in rows]


def claim_seeds_by_text(
    *, workspace: Workspace, query: str, limit: int, domain_pack: str = ""
) -> list[tuple[int, float]]:
    """Lexical fallback when embeddings are unavailable: claims containing the query's
    longest words; score = fraction of those words present."""
    words = sorted(set(w.lower() for w in _WORD.findall(query)), key=len, reverse=True)
    words = words[:LEXICAL_TOKENS]
    if not words:
        return []
    condition = Q()
    for word in words:
        condition |= Q(text__icontains=word)
    rows = published_claims(workspace=workspace, domain_pack=domain_pack).filter(condition)
    scored = []
    for pk, text in rows.values_list("pk", "text")[: limit * 4]:
        lowered = text.lower()
        scored.append((pk, sum(1 for w in words if w in lowered) / len(words)))
    scored.sort(key=lambda item: (-item[1], item[0]))
    return scored[:limit]


def claim_pks_by_public_id(
    *, workspace: Workspace, public_ids: Sequence[str], published_only: bool = True
) -> dict[str, int]:
    qs = Claim.objects.filter(workspace=workspace, public_id__in=list(public_ids))
    if published_only:
        qs = qs.filter(published=True)
    return dict(qs.values_list("public_id", "pk"))


def claim_pks_by_entity(*, workspace: Workspace, name: str) -> list[int]:
    entity = (
        Entity.objects.filter(workspace=workspace)
        .filter(Q(normalized_name=name.strip().lower()) | Q(name__iexact=name.strip()))
        .first()
    )
    if entity is None:
        return []
    return list(entity.claims.filter(published=True).values_list("pk", flat=True))


def relations_touching(
    *, workspace: Workspace, claim_pks: Iterable[int]
) -> list[tuple[int, int, str, float]]:
    """(from pk, to pk, kind, confidence) of relations with either end in ``claim_pks``
    and both ends published."""
    pks = list(claim_pks)
    if not pks:
        return []
    return list(
        ClaimRelation.objects.filter(workspace=workspace)
        .filter(Q(from_claim_id__in=pks) | Q(to_claim_id__in=pks))
        .filter(from_claim__published=True, to_claim__published=True)
        .values_list("from_claim_id", "to_claim_id", "kind", "confidence")
    )


def relations_among(
    *, workspace: Workspace, claim_pks: Iterable[int]
) -> list[tuple[int, int, str, float]]:
    pks = list(claim_pks)
    if not pks:
        return []
    return list(
        ClaimRelation.objects.filter(
            workspace=workspace, from_claim_id__in=pks, to_claim_id__in=pks
        ).values_list("from_claim_id", "to_claim_id", "kind", "confidence")
    )


def claim_paths(
    *,
    workspace: Workspace,
    start_pks: Sequence[int],
    goal_pks: Sequence[int],
    max_hops: int,
    max_paths: int,
) -> list[list[tuple[int, int, str, float]]]:
    """Shortest undirected relation paths (as edge lists) from any start to any goal,
    by breadth-first search one hop (one query) at a time; at most ``max_paths``."""
    goals = set(goal_pks)
    paths: list[list[tuple[int, int, str, float]]] = []
    for pk in start_pks:
        if pk in goals:
            paths.append([])
    parents: dict[int, list[tuple[int, tuple[int, int, str, float]]]] = {pk: [] for pk in start_pks}
    frontier = deque(start_pks)
    found_at: list[int] = []
    for _hop in range(max_hops):
        if not frontier or found_at:
            break
        edges = relations_touching(workspace=workspace, claim_pks=frontier)
        frontier_set = set(frontier)
        visited = set(parents)
        next_frontier: list[int] = []
        for edge in edges:
            for here, there in ((edge[0], edge[1]), (edge[1], edge[0])):
                if here in frontier_set and there not in visited:
                    if there not in parents:
                        parents[there] = []
                        next_frontier.append(there)
                    parents[there].append((here, edge))
        frontier = deque(next_frontier)
        found_at = [pk for pk in next_frontier if pk in goals]

    def unwind(node: int) -> list[list[tuple[int, int, str, float]]]:
        if not parents.get(node):
            return [[]]
        result = []
        for parent, edge in parents[node]:
            for prefix in unwind(parent):
                result.append([*prefix, edge])
                if len(result) >= max_paths:
                    return result
        return result

    for goal in found_at:
        for path in unwind(goal):
            paths.append(path)
            if len(paths) >= max_paths:
                return paths
    return paths


def current_versions(*, source_pks: Iterable[int]) -> dict[int, SourceVersion]:
    """The highest-numbered version of each source, in one query."""
    pks = sorted(set(source_pks))
    if not pks:
        return {}
    versions = (
        SourceVersion.objects.filter(source_id__in=pks)
        .order_by("source_id", "-number")
        .distinct("source_id")
    )
    return {v.source_id: v for v in versions}
