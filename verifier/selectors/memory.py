"""Reads of memory transcripts and checks, always scoped to one workspace."""

from __future__ import annotations

from typing import Any

import numpy as np
from django.db import connection
from django.db.models import QuerySet
from django.http import Http404

from verifier.embeddings import vectors_from_binary
from verifier.memory import agent_stats, speaker_key
from verifier.models import MemoryCheck, MemoryTranscript, MemoryUnitVector, Workspace


def memory_transcript_get(*, workspace: Workspace, transcript_id: int) -> MemoryTranscript:
    """The transcript, or the same 404 for a missing one and another workspace's."""
    row = (
        MemoryTranscript.objects.select_related("source", "version")
        .filter(workspace=workspace, pk=transcript_id)
        .first()
    )
    if row is None:
        raise Http404("No such transcript.")
    return row


def memory_check_list(*, workspace: Workspace, agent: str | None = None) -> QuerySet[MemoryCheck]:
    checks = MemoryCheck.objects.filter(workspace=workspace).order_by("-created_at", "-id")
    if agent is not None:
        checks = checks.filter(agent_key=speaker_key(agent))
    return checks


def memory_checks_of_message(
    *, workspace: Workspace, check: MemoryCheck, ids: list[int]
) -> list[MemoryCheck]:
    """The checks of ``ids`` that are this workspace's checks of ``check``'s message by the
    same agent, in reading order (an id of another message or workspace is left out)."""
    return list(
        memory_check_list(workspace=workspace)
        .filter(pk__in=ids, message=check.message, agent_key=check.agent_key)
        .order_by("claim_start", "id")
    )


def memory_check_get(*, workspace: Workspace, check_id: int) -> MemoryCheck:
    check = (
        MemoryCheck.objects.select_related("transcript__version", "claim")
        .filter(workspace=workspace, pk=check_id)
        .first()
    )
    if check is None:
        raise Http404("No such memory check.")
    return check


def memory_agent_stats(*, workspace: Workspace, agent: str) -> dict[str, Any] | None:
    """Seed-002 aggregates for one agent, or ``None`` when it has no check here."""
    if "\x00" in agent:
        return None
    rows = list(
        memory_check_list(workspace=workspace, agent=agent).values_list(
            "claim_type", "outcome", "drift_categories", "result__reason"
        )
    )
    if not rows:
        return None
    return {"agent": agent, **agent_stats(rows)}


_UNIT_VECTORS = f"""
SELECT start, "end", vector_send(embedding) FROM {MemoryUnitVector._meta.db_table}
WHERE transcript_id = %s AND embedding_model = %s
"""


def memory_unit_vectors(
    *, transcript: MemoryTranscript, embedding_model: str
) -> dict[tuple[int, int], np.ndarray]:
    """{(start, end): vector} of the transcript's units stored by ``embedding_model`` (one
    query, vectors in pgvector's binary form; another model's are never read)."""
    with connection.cursor() as cursor:
        cursor.execute(_UNIT_VECTORS, [transcript.pk, embedding_model])
        rows = cursor.fetchall()
    matrix = vectors_from_binary([bytes(r[2]) for r in rows])
    return {(int(r[0]), int(r[1])): matrix[i] for i, r in enumerate(rows)}
