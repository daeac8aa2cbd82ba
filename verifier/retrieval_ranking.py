"""What serving decides about the claims it considered: their order, the policy gate,
and the summaries of what was served. Plain Python, no Django: the serving run
(``verifier.services.retrieval``) loads the claims and hands them here.

Every claim considered ends up included, or excluded with one reason:

* ``duplicate`` — the claim is marked ``duplicate_of`` another, or its text (case- and
  whitespace-folded) equals a claim already included;
* ``verification_gate`` — its state (after the read-time re-check) is not in the
  policy's ``include``, or it is flagged and the policy excludes flagged claims;
* ``confidence_gate`` — its trust score is below ``min_trust_score``;
* ``budget`` — it passed every gate but ``max_claims`` were already included.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Generic, Protocol, TypeVar

from verifier.states import ClaimState

STATES: Final = tuple(s.value for s in ClaimState)
EXCLUSION_REASONS: Final = ("verification_gate", "confidence_gate", "duplicate", "budget")

# A relation as serving reads it: (from claim pk, to claim pk, kind, confidence).
Edge = tuple[int, int, str, float]


class GatedClaim(Protocol):
    """What the gate reads of a claim (a ``Claim`` or a ``ServedClaim``)."""

    @property
    def duplicate_of_id(self) -> int | None: ...

    @property
    def state(self) -> str: ...

    @property
    def flagged(self) -> bool: ...

    @property
    def text(self) -> str: ...


ClaimT = TypeVar("ClaimT", bound=GatedClaim)


# Seed 000: every returned unit carries its verified-claim envelope (its state said) and
# the metadata a per-state summary, "so a consumer can gate on 'anything non-supported in
# this context?'"; ``require_verified`` (or a policy's ``include``) is how a request
# excludes the non-supported claims, counted and recorded in the trace. So by default
# every state but ``excluded`` (taken out of use by a person) is served, labelled.
DEFAULT_INCLUDE: Final[tuple[str, ...]] = ("supported", "inferred", "unverified", "contradicted")


@dataclass(frozen=True)
class VerificationPolicy:
    include: tuple[str, ...] = DEFAULT_INCLUDE
    min_trust_score: int = 0
    exclude_flagged: bool = True
    require_verified: bool = False

    @classmethod
    def from_request(
        cls, *, policy: Mapping[str, Any] | None, require_verified: bool
    ) -> VerificationPolicy:
        policy = policy or {}
        include = tuple(dict.fromkeys(policy.get("include") or DEFAULT_INCLUDE))
        if require_verified:
            include = ("supported",)
        return cls(
            include=include,
            min_trust_score=int(policy.get("min_trust_score") or 0),
            exclude_flagged=bool(policy.get("exclude_flagged", True)),
            require_verified=require_verified,
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "include": list(self.include),
            "min_trust_score": self.min_trust_score,
            "exclude_flagged": self.exclude_flagged,
            "require_verified": self.require_verified,
        }


@dataclass
class Considered(Generic[ClaimT]):
    """One claim a serving run considered: how it was reached, and what the gate said."""

    pk: int
    score: float
    hop_depth: int
    edge_path: list[dict[str, Any]] = field(default_factory=list)
    claim: ClaimT | None = None
    trust_score: int = 0
    included: bool = False
    exclusion_reason: str = ""
    exclusion_detail: str = ""
    demoted_from: str = ""


def _fold(text: str) -> str:
    return " ".join(text.casefold().split())


def rank(considered: list[Considered[ClaimT]]) -> list[Considered[ClaimT]]:
    """Best first: relevance score, then nearer hops, then trust, then a stable id."""
    return sorted(considered, key=lambda c: (-c.score, c.hop_depth, -c.trust_score, c.pk))


def gate(ranked: Sequence[Considered[ClaimT]], policy: VerificationPolicy, max_claims: int) -> None:
    """Mark every claim included or excluded with its reason (in ranked order)."""
    seen_texts: set[str] = set()
    included = 0
    for item in ranked:
        claim = item.claim
        assert claim is not None
        if claim.duplicate_of_id is not None:
            item.exclusion_reason, item.exclusion_detail = "duplicate", "duplicate_of"
        elif claim.state not in policy.include:
            item.exclusion_reason, item.exclusion_detail = "verification_gate", claim.state
        elif policy.exclude_flagged and claim.flagged:
            item.exclusion_reason, item.exclusion_detail = "verification_gate", "flagged"
        elif item.trust_score < policy.min_trust_score:
            item.exclusion_reason = "confidence_gate"
            item.exclusion_detail = f"trust_score {item.trust_score} < {policy.min_trust_score}"
        elif _fold(claim.text) in seen_texts:
            item.exclusion_reason, item.exclusion_detail = "duplicate", "same_text"
        elif included >= max_claims:
            item.exclusion_reason = "budget"
        else:
            item.included = True
            included += 1
            seen_texts.add(_fold(claim.text))


def exclusion_counts(ranked: Sequence[Considered[Any]]) -> dict[str, int]:
    """{reason: how many claims the gate excluded for it}, every reason present."""
    reasons = Counter(c.exclusion_reason for c in ranked if not c.included)
    return {r: reasons.get(r, 0) for r in EXCLUSION_REASONS}


def context_block(envelopes: Sequence[Mapping[str, Any]]) -> str:
    """Included claims as numbered lines with state, citation and evidence location."""
    lines = []
    for n, env in enumerate(envelopes, start=1):
        line = f"[{n}] {env['claim']['text']} ({env['state']}) — {env['citation']}"
        if env["evidence"]:
            ev = env["evidence"][0]
            start, end = ev["offsets"]
            match = "" if ev["match"] == "exact" else f", {ev['match']} match"
            line += f' [{ev["source_ref"]} {start}–{end}{match}: "{ev["quote"]}"]'
        else:
            line += " [no bound evidence]"
        lines.append(line)
    return "\n".join(lines)


def state_summary(envelopes: Sequence[Mapping[str, Any]]) -> dict[str, int]:
    """{state: how many served envelopes are in it}, every state present."""
    counts = Counter(env["state"] for env in envelopes)
    return {state: counts.get(state, 0) for state in STATES}


def subgraph_summary(
    *, edges: Sequence[Edge], envelopes: Sequence[Mapping[str, Any]]
) -> dict[str, Any]:
    """``summarise_subgraph``'s summary of the served nodes and the relations among them."""
    kinds = Counter(kind for _a, _b, kind, _c in edges)
    return {
        "nodes": len(envelopes),
        "edges": len(edges),
        "edge_types": dict(sorted(kinds.items())),
        "states": state_summary(envelopes),
        "sources": sorted({e["evidence"][0]["source_ref"] for e in envelopes if e["evidence"]}),
    }


def paths_served(
    paths: Sequence[Sequence[Edge]], served_pks: Collection[int]
) -> tuple[list[Sequence[Edge]], int]:
    """The paths whose every claim was served, and how many were dropped by the policy."""
    kept: list[Sequence[Edge]] = []
    dropped = 0
    for path in paths:
        if all(pk in served_pks for a, b, _k, _c in path for pk in (a, b)):
            kept.append(path)
        else:
            dropped += 1
    return kept, dropped
