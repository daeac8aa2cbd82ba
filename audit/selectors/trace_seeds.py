"""Reads for a trace page's seed claims: each id, and whether its claim's page exists."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from verifier.models import Claim, Workspace


@dataclass(frozen=True, slots=True)
class TraceSeed:
    """One seed of a trace document as the page lists it: the claim's public id (or the
    seed as it was recorded, when it names none) and ``known``: whether that claim is in
    this workspace (its page is linked; a claim of another workspace or one gone is
    plain text)."""

    claim_id: str
    known: bool


def _seed_id(seed: Any) -> str:
    if isinstance(seed, dict):
        return str(seed.get("id") or seed.get("claim_id") or seed)
    return str(seed)


def trace_seed_rows(*, workspace: Workspace, seeds: Any) -> list[TraceSeed]:
    """``seeds`` (a trace document's list: ``{"claim_id": ...}`` or ``{"id": ...}`` items,
    or plain ids; anything else is no list) as rows, in order. One query."""
    listed: Sequence[Any] = seeds if isinstance(seeds, list | tuple) else []
    ids = [_seed_id(seed) for seed in listed]
    known = (
        set(
            Claim.objects.filter(workspace=workspace, public_id__in=set(ids)).values_list(
                "public_id", flat=True
            )
        )
        if ids
        else set()
    )
    return [TraceSeed(claim_id=claim_id, known=claim_id in known) for claim_id in ids]
