"""The console's entry points, grouped by what a person came to do: one list for the top
navigation and the home page.

Review (decide what the judge could not), Audit (read what is stored and served), Check
(verify things you bring) and Admin (feed and configure the workspace). Each entry names
the roles that may use it; a group with no entry for a role is not shown to it. A page
every role may open but whose form needs write (Ingest) is named, for a role that may
only read (an auditor), by what it reads there (``read_only``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from verifier.models import ApiScope, Role
from verifier.permissions import role_scope, scope_allows

ALL: Final = (Role.REVIEWER, Role.AUDITOR, Role.ADMIN)
ADMIN: Final = (Role.ADMIN,)


@dataclass(frozen=True)
class EntryPoint:
    label: str
    path: str
    roles: tuple[str, ...]
    description: str
    # (label, description) for a role without the write scope, where what the page offers
    # it is only a list to read; None where the entry reads the same for every role.
    read_only: tuple[str, str] | None = None


@dataclass(frozen=True)
class NavGroup:
    label: str
    description: str
    entries: tuple[EntryPoint, ...]


NAV_GROUPS: Final[tuple[NavGroup, ...]] = (
    NavGroup(
        "Review",
        "Decide what the judge could not.",
        (
            EntryPoint("Queue", "/review/", ALL, "Triage the claims the judge could not decide."),
            EntryPoint(
                "Decisions",
                "/review/decisions/",
                ALL,
                "Who decided which claim today (or any day), whether it stands, and each "
                "reviewer's progress.",
            ),
            EntryPoint(
                "Relations",
                "/review/relations/",
                ALL,
                "Relations between claims that verification rejected or accepted unchecked.",
            ),
        ),
    ),
    NavGroup(
        "Audit",
        "Read what is stored and what was served.",
        (
            EntryPoint(
                "Claims", "/audit/claims/", ALL, "Every claim with its state; export CSV or JSONL."
            ),
            EntryPoint(
                "Sources", "/audit/sources/", ALL, "Source versions with their bound spans."
            ),
            EntryPoint(
                "Traces",
                "/audit/traces/",
                ALL,
                "What each retrieval or check considered: claims included and left out, why.",
            ),
            EntryPoint("Quality", "/audit/quality/", ALL, "Trust and quality per ingest job."),
            EntryPoint(
                "Activity",
                "/audit/activity/",
                ALL,
                "Who changed members, API keys, webhooks, rule sets and calibrators, and when.",
            ),
        ),
    ),
    NavGroup(
        "Check",
        "Verify things you bring.",
        (
            EntryPoint(
                "Verify claims",
                "/verify/",
                ALL,
                "Check claims you already have against the sources they cite.",
                read_only=(
                    "Verifications",
                    "Claims checked against the sources they cite, batch by batch.",
                ),
            ),
            EntryPoint(
                "RAG answers",
                "/audit/rag/",
                ALL,
                "Check an answer claim by claim against its chunks.",
            ),
            EntryPoint(
                "Memory", "/audit/memory/", ALL, "Check what an agent says it said earlier."
            ),
            EntryPoint(
                "Worker",
                "/worker/console",
                ALL,
                "Verify one free-text claim against the whole corpus, with the evidence that "
                "decided.",
                read_only=(
                    "Claim worker",
                    "Where a reviewer or an admin verifies one free-text claim against the "
                    "corpus; its results are on Traces and Claims.",
                ),
            ),
        ),
    ),
    NavGroup(
        "Admin",
        "Feed and configure the workspace.",
        (
            EntryPoint(
                "Ingest",
                "/ingest/",
                ALL,
                "Upload sources to extract and check their claims; follow each job's stages.",
                read_only=("Ingest jobs", "Follow each ingest job's stages and errors."),
            ),
            EntryPoint("Rule sets", "/audit/rules/", ADMIN, "Rule sets: preview, then activate."),
            EntryPoint(
                "Calibrators",
                "/audit/calibrators/",
                ADMIN,
                "Judge calibrators learned from reviewers' decisions: review, then activate.",
            ),
            EntryPoint(
                "API keys",
                "/audit/api-keys/",
                ADMIN,
                "Keys for programs, with a curl example per endpoint family.",
            ),
            EntryPoint(
                "Members",
                "/audit/members/",
                ADMIN,
                "Who works in the workspace, and as what.",
            ),
            EntryPoint(
                "Webhooks",
                "/audit/webhooks/",
                ADMIN,
                "Where job and verification events are sent, and how each delivery went.",
            ),
            EntryPoint(
                "API docs",
                "/connect/v1/docs",
                ALL,
                "Every endpoint of the HTTP API, with a form to try it (works offline).",
            ),
        ),
    ),
)
ENTRY_POINTS: Final[tuple[EntryPoint, ...]] = tuple(
    entry for group in NAV_GROUPS for entry in group.entries
)


def entry_containing(path: str) -> EntryPoint | None:
    """The most specific entry ``path`` is in (/review/relations/ is in Relations, not in
    the queue at /review/), or None."""
    containing = [e for e in ENTRY_POINTS if path.startswith(e.path)]
    return max(containing, key=lambda e: len(e.path)) if containing else None


def _current(path: str) -> str | None:
    entry = entry_containing(path)
    return entry.path if entry is not None else None


def entry_points_for(role: str | None, path: str = "") -> list[dict[str, object]]:
    """The entry points ``role`` may use, each marked current when ``path`` is in it."""
    return [entry for group in nav_groups_for(role, path) for entry in group["entries"]]  # type: ignore[attr-defined]


def nav_groups_for(role: str | None, path: str = "") -> list[dict[str, object]]:
    """The groups with the entry points ``role`` may use (groups left empty dropped)."""
    if role is None:
        return []
    current = _current(path)
    reads_only = not scope_allows(role_scope(role), ApiScope.WRITE)
    groups = []
    for group in NAV_GROUPS:
        entries = []
        for e in group.entries:
            if role not in e.roles:
                continue
            label, description = (
                e.read_only if reads_only and e.read_only else (e.label, e.description)
            )
            entries.append(
                {
                    "label": label,
                    "path": e.path,
                    "description": description,
                    "current": e.path == current,
                    "group": group.label,
                }
            )
        if entries:
            groups.append(
                {
                    "label": group.label,
                    "description": group.description,
                    "entries": entries,
                    "current": any(e["current"] for e in entries),
                }
            )
    return groups
