"""Layer-1 writes: bind a claim's evidence in its CITED source's current version.

Binding never looks at another source: a quote that exists only elsewhere in the
corpus does not bind, which is what catches misattribution. Bad input comes back as a
``BindOutcome`` with a reason, never as an exception; a reviewer's explicit selection
that is out of range raises ``BindingRejected`` (the caller turns it into a 4xx).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
from django.contrib.auth.models import User
from django.db import transaction

from verifier.binding import BindingInputError, bind, source_index, validate_quote
from verifier.binding import occurrences as quote_occurrences
from verifier.errors import ApplicationError
from verifier.models import (
    BoundBy,
    Claim,
    EvidenceBinding,
    EvidenceCandidate,
    SourceVersion,
)
from verifier.selectors.claim_state import current_version, current_versions
from verifier.services.claim_state import (
    ClaimStates,
    claim_state_refresh,
)
from verifier.services.evidence_search import embed_claim_texts, evidence_search

# Evidence-search windows kept per claim: the bound one plus this many runners-up.
EVIDENCE_CANDIDATES_KEPT = 4

REASON_QUOTE_NOT_FOUND = "quote_not_found"
REASON_NO_EVIDENCE = "no_evidence"
REASON_INVALID_QUOTE = "invalid_quote"
REASON_NO_SOURCE_VERSION = "no_source_version"


class BindingRejected(ApplicationError, ValueError):
    """A reviewer's span selection that cannot be bound (``code`` says why)."""


@dataclass
class BindOutcome:
    binding: EvidenceBinding | None
    reason: str | None  # None when bound; else one of the REASON_* values
    candidates: list[EvidenceCandidate] = field(default_factory=list)

    @property
    def bound(self) -> bool:
        return self.binding is not None


def _lock(claims: Sequence[Claim]) -> ClaimStates:
    """Lock the claims' rows (in id order) before reading or writing their spans: every
    writer of a claim's span does, first. Two writers of one claim's span (a claims/verify
    batch binding its claim, a new version's re-binding job, a reviewer) then take turns,
    and the second reads the span the first wrote; each reading the span first inserts a
    second active one (the unique constraint ends one writer) or waits for the other's
    span while holding the claim the other needs next (a deadlock). The states writer
    refreshes the claims under these locks."""
    return ClaimStates(claims)


def _deactivate(claim: Claim) -> None:
    EvidenceBinding.objects.filter(claim=claim, is_active=True).update(is_active=False)


def _quote_problem(quote: str, version: SourceVersion) -> str | None:
    try:
        validate_quote(quote)
    except BindingInputError as exc:
        return str(exc)
    if len(quote) > len(version.text):
        return "the quote is longer than the source"
    return None


def _finish(
    claim: Claim, outcome: BindOutcome, cause: str, actor: User | None = None
) -> BindOutcome:
    claim_state_refresh(claim=claim, cause=cause, actor=actor)
    return outcome


@dataclass
class _Attempt:
    """One bind attempt, decided but not written: the outcome (its binding and
    candidates unsaved), the state-refresh cause, and whether the claim's previous
    evidence-search candidates are replaced."""

    claim: Claim
    outcome: BindOutcome
    cause: str
    replaces_candidates: bool = False


def _new_binding(
    *,
    claim: Claim,
    version: SourceVersion,
    start: int,
    end: int,
    match: str,
    score: float,
    bound_by: str,
    actor: User | None = None,
    occurrences: int | None = None,
) -> EvidenceBinding:
    return EvidenceBinding(
        claim=claim,
        source_version=version,
        quote=version.text[start:end],
        start=start,
        end=end,
        source_hash=version.sha256,
        match=match,
        score=max(0.0, min(1.0, float(score))),
        occurrences=occurrences,
        bound_by=bound_by,
        bound_by_user=actor,
        is_active=True,
    )


def _attempt(
    *,
    claim: Claim,
    version: SourceVersion | None,
    quote: str | None,
    actor: User | None = None,
    bound_by: str | None = None,
    claim_vector: np.ndarray | None = None,
) -> _Attempt:
    """Decide what binding ``claim`` gets; no writes (see ``claim_bind``)."""
    if quote is None and claim.submitted_quote:
        quote = claim.submitted_quote
    if version is None:
        return _Attempt(
            claim, BindOutcome(None, REASON_NO_SOURCE_VERSION), "bind: no source version"
        )

    if quote is not None:
        problem = _quote_problem(quote, version)
        if problem is not None:
            return _Attempt(
                claim, BindOutcome(None, REASON_INVALID_QUOTE), f"bind: invalid quote ({problem})"
            )
        index = source_index(version.text, version.sha256)
        found = bind(quote, version.text, index=index)
        if found is None:
            return _Attempt(
                claim, BindOutcome(None, REASON_QUOTE_NOT_FOUND), "bind: quote not found"
            )
        binding = _new_binding(
            claim=claim,
            version=version,
            start=found.start,
            end=found.end,
            match=found.match,
            score=found.score,
            bound_by=bound_by or BoundBy.QUOTE,
            actor=actor,
            occurrences=quote_occurrences(quote, version.text, found, index=index),
        )
        return _Attempt(claim, BindOutcome(binding, None), f"bind: {found.match} quote")

    spans = evidence_search(
        version=version,
        claim_text=claim.text,
        limit=EVIDENCE_CANDIDATES_KEPT + 1,
        claim_vector=claim_vector,
    )
    if not spans:
        return _Attempt(
            claim,
            BindOutcome(None, REASON_NO_EVIDENCE),
            "bind: no evidence in source",
            replaces_candidates=True,
        )
    best, runners_up = spans[0], spans[1:]
    binding = _new_binding(
        claim=claim,
        version=version,
        start=best.start,
        end=best.end,
        match="exact",
        score=1.0,
        bound_by=bound_by or BoundBy.EVIDENCE_SEARCH,
        actor=actor,
    )
    candidates = [
        EvidenceCandidate(
            claim=claim,
            source_version=version,
            quote=span.quote,
            start=span.start,
            end=span.end,
            score=span.score,
            rank=rank,
        )
        for rank, span in enumerate(runners_up, start=1)
    ]
    return _Attempt(
        claim,
        BindOutcome(binding, None, candidates),
        f"bind: evidence search (score {best.score:.2f})",
        replaces_candidates=True,
    )


def _write(attempts: Sequence[_Attempt]) -> None:
    """Store decided attempts: every attempt, bound or not, deactivates the claim's
    previous binding; evidence search replaces the claim's candidates."""
    if not attempts:
        return
    EvidenceBinding.objects.filter(
        claim_id__in=[a.claim.pk for a in attempts], is_active=True
    ).update(is_active=False)
    EvidenceCandidate.objects.filter(
        claim_id__in=[a.claim.pk for a in attempts if a.replaces_candidates]
    ).delete()
    EvidenceBinding.objects.bulk_create(
        [a.outcome.binding for a in attempts if a.outcome.binding is not None]
    )
    EvidenceCandidate.objects.bulk_create(
        [candidate for a in attempts for candidate in a.outcome.candidates]
    )


@transaction.atomic
def claim_bind(
    *,
    claim: Claim,
    quote: str | None = None,
    actor: User | None = None,
    bound_by: str | None = None,
) -> BindOutcome:
    """Bind ``quote`` (or, without one, the best evidence-search window) in the cited
    source's current version; deactivate the previous binding; refresh the state.

    A failed attempt also deactivates the previous binding: the claim's evidence is
    whatever the latest attempt found, so a stale span never lingers as "active".
    """
    _lock([claim])
    attempt = _attempt(
        claim=claim, version=current_version(claim), quote=quote, actor=actor, bound_by=bound_by
    )
    _write([attempt])
    return _finish(claim, attempt.outcome, attempt.cause, actor)


@transaction.atomic
def claims_bind(
    *,
    claims: Sequence[Claim],
    actor: User | None = None,
    states: ClaimStates | None = None,
    vectors: Mapping[str, np.ndarray] | None = None,
) -> list[BindOutcome]:
    """``claim_bind`` for many claims, each with its submitted quote (else evidence
    search): the same bindings, candidates and state events, written with a fixed number
    of queries, and one batch state refresh (recorded in ``states`` when given, which
    the caller flushes). Outcomes in input order."""
    claims = list(claims)
    if not claims:
        return []
    if len({c.pk for c in claims}) != len(claims):
        raise ValueError("claims_bind needs distinct claims")
    own_states = states is None  # the caller's ``states`` locked the claims already
    states = _lock(claims) if states is None else states
    versions = current_versions(source_ids={c.source_id for c in claims})
    # Claims that go to evidence search (no quote) are embedded in one batch, not one
    # model call each; ``vectors`` already known (stored embeddings) are reused.
    searching = [c.text for c in claims if not c.submitted_quote and versions.get(c.source_id)]
    known = dict(vectors or {})
    known.update(embed_claim_texts([t for t in searching if t not in known]))
    attempts = [
        _attempt(
            claim=c,
            version=versions.get(c.source_id),
            quote=None,
            actor=actor,
            claim_vector=known.get(c.text),
        )
        for c in claims
    ]
    _write(attempts)
    states.refresh(claims=claims, causes={a.claim.pk: a.cause for a in attempts}, actor=actor)
    if own_states:
        states.flush()
    return [a.outcome for a in attempts]


@transaction.atomic
def claims_rebind_superseded(
    *, claims: Sequence[Claim], actor: User | None, why: str, keep_changed: bool = False
) -> list[Claim]:
    """Bind again, in the cited source's current version, each claim whose active span
    is in an earlier version with other text (what the state writer calls stale), so a
    judge reads the source as it is now: the same words (the claim's submitted quote,
    else the old span's text, bound by whoever bound it), or, for a span evidence search
    found, a new search. A claim whose words are gone is left unbound ("quote not
    found"), as binding it anew would leave it. With ``keep_changed`` (ingest of a new
    version) only words still there as they were are bound again: a span evidence search
    found is looked for by its words, not searched again, and a claim whose words are
    gone or found only fuzzily (its sentence changed: "1962" became "1965") keeps its
    span in the earlier version, stale ("source changed"), as the new version left it. A
    claim with no span (its quote was not found, or search found nothing) is tried again
    the way it was first bound: the source may now hold it. Claims whose span is current
    are left alone. ``why`` ends each state event's cause (who asked). Returns the claims
    it bound in the current version (for the caller to judge)."""
    claims = list(claims)
    states = _lock(claims)  # before reading their spans (``_lock``)
    versions = current_versions(source_ids={c.source_id for c in claims})
    active = {
        b.claim_id: b
        for b in EvidenceBinding.objects.filter(
            claim_id__in=[c.pk for c in claims], is_active=True
        ).select_related("bound_by_user")
    }
    attempts = []
    for claim in claims:
        binding, version = active.get(claim.pk), versions.get(claim.source_id)
        if version is None or (binding is not None and binding.source_hash == version.sha256):
            continue
        if binding is None:  # never bound, or its words were not found: try the text now
            attempt = _attempt(claim=claim, version=version, quote=None)
        else:
            searched = (
                binding.bound_by == BoundBy.EVIDENCE_SEARCH
                and not claim.submitted_quote
                and not keep_changed
            )
            attempt = _attempt(
                claim=claim,
                version=version,
                quote=None if searched else (claim.submitted_quote or binding.quote),
                actor=binding.bound_by_user,
                bound_by=None if searched else binding.bound_by,
            )
        found = attempt.outcome.binding
        if keep_changed and binding is not None and (found is None or found.match == "fuzzy"):
            continue
        attempt.cause = f"{attempt.cause} in v{version.number} ({why})"
        attempts.append(attempt)
    if not attempts:
        return []
    _write(attempts)
    states.refresh(
        claims=[a.claim for a in attempts],
        causes={a.claim.pk: a.cause for a in attempts},
        actor=actor,
    )
    states.flush()
    return [a.claim for a in attempts if a.outcome.bound]


@transaction.atomic
def claim_bind_span(*, claim: Claim, start: int, end: int, actor: User | None) -> EvidenceBinding:
    """A reviewer's selection ``[start, end)`` of the current version, bound exactly."""
    _lock([claim])
    version = current_version(claim)
    if version is None:
        raise BindingRejected("no_source_version", "The cited source has no version to bind.")
    if (
        not isinstance(start, int)
        or not isinstance(end, int)
        or isinstance(start, bool)
        or isinstance(end, bool)
    ):
        raise BindingRejected("invalid_offsets", "Offsets must be integers.")
    if not 0 <= start < end <= len(version.text):
        raise BindingRejected(
            "offsets_out_of_range",
            f"The selection [{start}, {end}) is not inside the source text "
            f"(0 to {len(version.text)}) or is empty.",
        )
    if not version.text[start:end].strip():
        raise BindingRejected("empty_selection", "The selection is only whitespace.")
    _deactivate(claim)
    binding = _new_binding(
        claim=claim,
        version=version,
        start=start,
        end=end,
        match="exact",
        score=1.0,
        bound_by=BoundBy.REVIEWER,
        actor=actor,
    )
    binding.save()
    claim_state_refresh(claim=claim, cause="bind: reviewer selection", actor=actor)
    return binding


@transaction.atomic
def claim_selection_unbind(*, claim: Claim, selection_id: int, restore_id: int | None) -> bool:
    """Take back the span a reviewer selected with a decision that is being undone
    (``review.services.review_undo``): the selection ``selection_id`` stops being the
    claim's evidence and the binding it replaced, ``restore_id`` (None: none was bound),
    is active again. Nothing changes when the selection is no longer the active binding
    (the claim was bound again since: that later binding stands). The caller refreshes
    the state under the same lock, after recording the undo. Returns whether it changed.
    """
    _lock([claim])
    active = EvidenceBinding.objects.filter(claim=claim, is_active=True)
    if not active.filter(pk=selection_id).update(is_active=False):
        return False
    if restore_id is not None:
        EvidenceBinding.objects.filter(pk=restore_id, claim=claim).update(is_active=True)
    return True
