"""The pack's records, built from the rows the selectors read: one claim with its
bindings, verdicts and state events; one source version. People appear by role and a
pack-local reference (``reviewer-1``), never by username: ``People`` labels them and
scrubs the usernames the history's free text may carry (``review: supported by <name>``,
a reviewer verdict's ``human:<name>`` judge id)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Final

from verifier.scoring.claim_trust import claim_trust
from verifier.scoring.quality import quality_class

# Judge ids of people are "human:<username>" (review decisions): recorded as "human".
HUMAN_JUDGE_MODEL: Final = "human"
UNKNOWN_ROLE: Final = "person"


def iso_time(value: datetime | None) -> str | None:
    """UTC with microseconds, one fixed width, so times sort as text."""
    if value is None:
        return None
    return value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


@dataclass
class People:
    """Labels for the people a pack mentions: ``{"role", "ref"}``, ``ref`` numbered per
    role in order of first appearance (``reviewer-1``, ``admin-1``). ``known`` maps user
    id -> (username, role in the workspace or "" for a non-member)."""

    known: Mapping[int, tuple[str, str]]
    _labels: dict[int, dict[str, str]] = field(default_factory=dict)
    _counts: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        names = sorted({name for name, _ in self.known.values() if name}, key=len, reverse=True)
        self._names = (
            re.compile(r"(?<=\bby )(?:" + "|".join(re.escape(n) for n in names) + r")(?![\w.@-])")
            if names
            else None
        )
        self._by_name = {name: uid for uid, (name, _) in self.known.items() if name}

    def label(self, user_id: int | None) -> dict[str, str] | None:
        if user_id is None:
            return None
        found = self._labels.get(user_id)
        if found is None:
            role = self.known.get(user_id, ("", ""))[1] or UNKNOWN_ROLE
            self._counts[role] = self._counts.get(role, 0) + 1
            found = self._labels[user_id] = {"role": role, "ref": f"{role}-{self._counts[role]}"}
        return found

    def named(self, username: str) -> dict[str, str]:
        """The label of the person with this username (``{"role": "person"}`` with no
        ref for one the workspace does not know): never the username itself."""
        found = self.label(self._by_name.get(username))
        return found if found is not None else {"role": UNKNOWN_ROLE}

    def scrub(self, text: str) -> str:
        """``text`` with every "by <username>" of a known person as "by <their ref>"."""
        if self._names is None or " by " not in text:
            return text
        return self._names.sub(lambda m: self._ref(m.group(0)), text)

    def _ref(self, name: str) -> str:
        label = self.label(self._by_name[name])
        return label["ref"] if label else name


def trace_record(trace: Mapping[str, Any], people: People) -> dict[str, Any]:
    """The trace as the pack records it. A trace a person's console call left names its
    caller (``document.caller``: ``{"kind": "member", "name": <username>}``): the pack
    gives the person's role and pack-local ref instead, as everywhere else. An API
    key's caller (its name and first characters) is no person and stays."""
    document = dict(trace.get("document") or {})
    caller = document.get("caller")
    if isinstance(caller, Mapping) and caller.get("kind") == "member":
        document["caller"] = {"kind": "member", **people.named(str(caller.get("name", "")))}
    return {**trace, "document": document}


def binding_record(row: Mapping[str, Any], people: People) -> dict[str, Any]:
    return {
        "id": row["id"],
        "active": row["is_active"],
        "source": row["source_version__source__ref"],
        "version": row["source_version__number"],
        "sha256": row["source_hash"],
        "quote": row["quote"],
        "start": row["start"],
        "end": row["end"],
        "match": row["match"],
        "score": row["score"],
        "bound_by": row["bound_by"],
        "bound_by_person": people.label(row["bound_by_user_id"]),
        "created_at": iso_time(row["created_at"]),
    }


def verdict_record(row: Mapping[str, Any], people: People) -> dict[str, Any]:
    person = people.label(row["reviewer_id"])
    return {
        "id": row["id"],
        "binding": row["binding_id"],
        "judge_model": HUMAN_JUDGE_MODEL if person else row["judge_model"],
        "judge_family": row["judge_family"],
        "prompt_version": row["prompt_version"],
        "person": person,
        "label": row["label"],
        "confidence": row["confidence"],
        "note": people.scrub(row["note"]),
        "at": iso_time(row["at"]),
    }


def event_record(row: Mapping[str, Any], people: People) -> dict[str, Any]:
    return {
        "id": row["id"],
        "from": row["from_state"],
        "to": row["to_state"],
        "reason": row["reason"],
        "cause": people.scrub(row["cause"]),
        "actor": people.label(row["actor_id"]),
        "at": iso_time(row["at"]),
    }


def _trust_score(
    row: Mapping[str, Any],
    bindings: Sequence[Mapping[str, Any]],
    verdicts: Sequence[Mapping[str, Any]],
) -> int:
    latest = verdicts[-1] if verdicts else None
    active = next((b for b in bindings if b["is_active"]), None)
    return claim_trust(
        stored=row["trust_score"],
        state=row["state"],
        verdict_label=latest["label"] if latest is not None else None,
        verdict_confidence=latest["confidence"] if latest is not None else None,
        match=active["match"] if active is not None else None,
    )


def claim_record(
    row: Mapping[str, Any],
    *,
    bindings: Sequence[Mapping[str, Any]],
    verdicts: Sequence[Mapping[str, Any]],
    events: Sequence[Mapping[str, Any]],
    people: People,
) -> dict[str, Any]:
    """One line of ``claims.jsonl``; bindings, verdicts and events oldest first."""
    return {
        "id": row["public_id"],
        "text": row["text"],
        "original_text": row["original_text"],
        "origin": row["origin"],
        "source": row["source__ref"],
        "state": row["state"],
        "state_reason": row["state_reason"],
        "legacy_affirmed": row["legacy_affirmed"],
        "exclusion_reason": people.scrub(row["exclusion_reason"]),
        "published": row["published"],
        # What every other output shows: the class capped by the state, and the trust
        # score the envelope carries (the stored one, else the computed one).
        "quality": quality_class(row["state"], row["quality"]),
        "trust_score": _trust_score(row, bindings, verdicts),
        "created_at": iso_time(row["created_at"]),
        "bindings": [binding_record(b, people) for b in bindings],
        "verdicts": [verdict_record(v, people) for v in verdicts],
        "state_events": [event_record(e, people) for e in events],
    }


def version_record(row: Mapping[str, Any], *, current: bool, path: str) -> dict[str, Any]:
    """One line of ``sources.jsonl``: a source version, its text in ``path``."""
    return {
        "source": row["source__ref"],
        "title": row["source__title"],
        "citation": row["source__citation"],
        "domain_pack": row["source__domain_pack"],
        "version": row["number"],
        "sha256": row["sha256"],
        "chars": len(row["text"]),
        "current": current,
        "created_at": iso_time(row["created_at"]),
        "text": path,
    }


def grouped(rows: Iterable[Mapping[str, Any]], key: str) -> dict[Any, list[Mapping[str, Any]]]:
    out: dict[Any, list[Mapping[str, Any]]] = {}
    for row in rows:
        out.setdefault(row[key], []).append(row)
    return out
