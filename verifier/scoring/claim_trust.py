"""One claim's trust score (0–100), for a claim the ingest pipeline stored none for.

A base per state, plus up to 10 points for the latest verdict's confidence when that
verdict is entailed (and the claim supported or inferred), minus 10 for a fuzzy active
binding. Deterministic, monotone in evidence strength. The envelope
(``verifier.selectors.envelopes.claim_trust_score``), the exports and the audit pack's
``claims.jsonl`` all read it here, so every output shows the same number.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Final

STATE_BASE: Final[Mapping[str, int]] = MappingProxyType(
    {
        "supported": 80,
        "inferred": 50,
        "unverified": 20,
        "contradicted": 0,
        "excluded": 0,
    }
)


def claim_trust(
    *,
    stored: int | None,
    state: str,
    verdict_label: str | None,
    verdict_confidence: float | None,
    match: str | None,
) -> int:
    """``stored`` when the pipeline stored one, else the computed value (see module):
    ``verdict_*`` of the claim's latest verdict, ``match`` of its active binding (None
    when it has none)."""
    if stored is not None:
        return int(stored)
    score = STATE_BASE.get(state, 0)
    if verdict_label == "entailed" and state in ("supported", "inferred"):
        score += round(10 * float(verdict_confidence or 0.0))
    if match == "fuzzy":
        score -= 10
    return max(0, min(100, score))
