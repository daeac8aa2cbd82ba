"""Adaptive trust for the claim worker: the judge's stances of the top evidence items
(``claim_worker_judging``) read by the pure trust policy (``verifier.claim_worker.trust``)
in the request's mode."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from urllib.parse import urlsplit

from verifier.claim_worker import trust as trust_mod
from verifier.judges import Judge
from verifier.selectors.claim_worker import EvidenceRow
from verifier.services.claim_worker_judging import evidence_stances, stance_key
from verifier.services.claim_worker_retrieval import Found


@dataclass
class Judged:
    """A search's ranked evidence with every top item's stances and the adaptive trust
    over them."""

    found: Found
    evidence_trust: list[trust_mod.TrustEvidence]
    adaptive: trust_mod.AdaptiveTrust


def source_domain(row: EvidenceRow) -> str:
    """The host of a URL-like ref or citation, else the source ref."""
    for value in (row.source_ref, row.source_citation):
        host = urlsplit(value).hostname if "://" in value else None
        if host:
            return host.removeprefix("www.")
    return row.source_ref


def judge_and_trust(judge: Judge, subclaims: Sequence[str], found: Found, mode: str) -> Judged:
    """Layer 2 (the judge's stance of every top item toward every subclaim), then
    adaptive trust over them (``mode``: ``adaptive`` or ``confidence``)."""
    results = evidence_stances(judge, subclaims, found)
    evidence_trust = [
        trust_mod.TrustEvidence(
            key=r.key,
            domain=source_domain(found.by_key[r.key]),
            relevance=r.score,
            trust=r.score,
            semantic=r.candidate.sem_raw,
            stances={
                i: trust_mod.Stance(
                    results[stance_key(i, j)].label,
                    float(results[stance_key(i, j)].confidence),
                    results[stance_key(i, j)].note,
                )
                for i in range(len(subclaims))
            },
        )
        for j, r in enumerate(found.ranked)
    ]
    adaptive = trust_mod.compute_adaptive_trust(
        len(subclaims), evidence_trust, confidence_mode=mode == "confidence"
    )
    return Judged(found, evidence_trust, adaptive)
