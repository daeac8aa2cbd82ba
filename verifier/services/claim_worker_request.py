"""A ``POST /worker/verify`` request as the claim worker reads it: the limits, the checks
(a ``WorkerInputError`` answers 400 and stores nothing), the trust policy mode and the
tuning from settings, and the claim's subclaims."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.conf import settings

from verifier.claim_worker.config import TRUST_POLICY_MODES, WorkerTuning, tuning_from
from verifier.domain_packs import DEFAULT_DOMAIN_PACK, domain_pack_problem
from verifier.errors import ApplicationError
from verifier.extractors.base import MAX_CLAIM_CHARS
from verifier.rag.decompose import decompose

MAX_JOB_ID_CHARS = 200
TOP_K_MIN, TOP_K_MAX, TOP_K_DEFAULT = 1, 20, 5
MAX_SUBCLAIMS = 6


class WorkerInputError(ApplicationError, ValueError):
    """A worker verification request that is unusable (the API answers 400)."""


@dataclass(frozen=True)
class WorkerRequest:
    """The checked request: ``text`` is the claim with its whitespace folded, ``mode``
    the trust policy mode it runs in."""

    job_id: str
    text: str
    room_id: str
    source: str
    domain: str
    top_k: int
    mode: str

    @property
    def domain_pack(self) -> str:
        """The domain pack retrieval is held to ("" for ``general``: every source)."""
        return "" if self.domain == "general" else self.domain

    def echo(self) -> dict[str, Any]:
        """The request's own fields, as the trace and the stored claim keep them."""
        return {
            "job_id": self.job_id,
            "room_id": self.room_id,
            "source": self.source,
            "domain": self.domain,
            "top_k": self.top_k,
        }


def worker_request(
    *,
    job_id: str,
    claim: str,
    room_id: str,
    source: str,
    domain: str,
    top_k: int,
    trust_policy_mode: str | None,
    known_packs: Iterable[str] = (),
) -> WorkerRequest:
    """The request checked, in this order: job id, claim, ``top_k``, trust policy mode,
    domain (against the workspace's ``known_packs``)."""
    text = " ".join((claim or "").split())
    if not str(job_id or "").strip():
        raise WorkerInputError("invalid_job_id", "job_id is required.")
    if len(str(job_id)) > MAX_JOB_ID_CHARS:
        raise WorkerInputError("invalid_job_id", f"job_id is longer than {MAX_JOB_ID_CHARS}.")
    if not text:
        raise WorkerInputError("empty_claim", "claim is required and must not be blank.")
    if len(text) > MAX_CLAIM_CHARS:
        raise WorkerInputError(
            "claim_too_long",
            f"claim is longer than {MAX_CLAIM_CHARS} characters.",
            {"limit": MAX_CLAIM_CHARS},
        )
    if not TOP_K_MIN <= int(top_k) <= TOP_K_MAX:
        raise WorkerInputError(
            "invalid_top_k",
            f"top_k must be between {TOP_K_MIN} and {TOP_K_MAX}.",
            {"min": TOP_K_MIN, "max": TOP_K_MAX},
        )
    mode = worker_trust_policy_mode(trust_policy_mode)
    domain = worker_domain(domain, known_packs)
    return WorkerRequest(str(job_id), text, room_id, source, domain, int(top_k), mode)


def worker_known_domains(known_packs: Iterable[str]) -> list[str]:
    """The domains a request may name: ``general`` (every source) and the workspace's
    domain packs (its sources' and its rule sets')."""
    return sorted({DEFAULT_DOMAIN_PACK, *(k for k in known_packs if k)})


def worker_domain(domain: str, known_packs: Iterable[str]) -> str:
    """The request's domain (blank: ``general``), checked by the rule every door applies
    to a domain pack's name (``verifier.domain_packs``): a name that differs from a known
    pack only in letter case, or that does not read as what it is, is refused. A readable
    name the workspace has no pack of is let through (seed 001 reads values leniently):
    it restricts retrieval to nothing."""
    name = domain or DEFAULT_DOMAIN_PACK
    known = worker_known_domains(known_packs)
    problem = domain_pack_problem(name, known)
    if problem is not None:
        raise WorkerInputError(
            "invalid_domain",
            f"{problem} Known domain packs: {', '.join(known)}.",
            {"field": "domain", "known": known},
        )
    return name


def worker_trust_policy_mode(requested: str | None = None) -> str:
    """The request's ``trust_policy_mode``, else ``settings.SPANPROOF_WORKER_TRUST_POLICY_MODE``
    (env ``SPANPROOF_WORKER_TRUST_POLICY_MODE``, default ``adaptive``)."""
    mode = requested or getattr(settings, "SPANPROOF_WORKER_TRUST_POLICY_MODE", "adaptive")
    if mode not in TRUST_POLICY_MODES:
        raise WorkerInputError(
            "invalid_trust_policy_mode",
            f"trust_policy_mode must be one of {', '.join(TRUST_POLICY_MODES)}.",
            {"allowed": list(TRUST_POLICY_MODES)},
        )
    return str(mode)


def worker_tuning() -> WorkerTuning:
    """The tuning variables from ``settings.SPANPROOF_WORKER_TUNING`` (env-filled)."""
    return tuning_from(dict(getattr(settings, "SPANPROOF_WORKER_TUNING", {}) or {}))


def subclaims_of(claim: str) -> list[str]:
    """The claim's atomic parts (at most ``MAX_SUBCLAIMS``), the whole claim when it
    does not split."""
    parts: list[str] = []
    for sentence in decompose(claim):
        for atom in sentence.atoms:
            text = atom.text.strip()
            if text and text not in parts:
                parts.append(text)
    return parts[:MAX_SUBCLAIMS] or [claim.strip()]
