"""The console's entry points: one list for the top navigation and the home page."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from verifier.models import Role

ALL: Final = (Role.REVIEWER, Role.AUDITOR, Role.ADMIN)


@dataclass(frozen=True)
class EntryPoint:
    label: str
    path: str
    roles: tuple[str, ...]
    description: str


ENTRY_POINTS: Final[tuple[EntryPoint, ...]] = (
    EntryPoint("Queue", "/review/", ALL, "Triage the claims the judge could not decide."),
    EntryPoint(
        "Relations",
        "/review/relations/",
        ALL,
        "Relations between claims that verification rejected or capped.",
    ),
    EntryPoint("Claims", "/audit/claims/", ALL, "Every claim with its state; export CSV or JSONL."),
    EntryPoint("Sources", "/audit/sources/", ALL, "Source versions with their bound spans."),
    EntryPoint("Ingest", "/ingest/", ALL, "Upload sources and claims; follow each job's stages."),
    EntryPoint(
        "RAG audits", "/audit/rag/", ALL, "Check an answer claim by claim against its chunks."
    ),
    EntryPoint("Memory", "/audit/memory/", ALL, "Check what an agent says it said earlier."),
    EntryPoint(
        "Verify", "/verify/", ALL, "Check claims you already have against the sources they cite."
    ),
    EntryPoint(
        "Worker",
        "/worker/console",
        ALL,
        "Verify one free-text claim against the whole corpus, with the evidence that decided.",
    ),
    EntryPoint("Traces", "/audit/traces/", ALL, "What retrieval served, included and excluded."),
    EntryPoint("Quality", "/audit/quality/", ALL, "Trust and quality per ingest job."),
    EntryPoint("Rules", "/audit/rules/", (Role.ADMIN,), "Rule sets: preview, then activate."),
)


def entry_points_for(role: str | None, path: str = "") -> list[dict[str, object]]:
    """The entry points ``role`` may use, each marked current when ``path`` is in it."""
    if role is None:
        return []
    # The most specific entry containing ``path`` is current (/review/relations/ is not
    # the queue at /review/).
    containing = [e.path for e in ENTRY_POINTS if path.startswith(e.path)]
    current = max(containing, key=len) if containing else None
    return [
        {
            "label": e.label,
            "path": e.path,
            "description": e.description,
            "current": e.path == current,
        }
        for e in ENTRY_POINTS
        if role in e.roles
    ]
