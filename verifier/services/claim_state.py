"""The one writer of a claim's state.

``claim_state_refresh`` gathers the inputs of the pure state function from the
database — the active binding re-checked against the current version of the cited
source, the latest model verdict, the latest human verdict, the exclusion and the
legacy flag — resolves the state, and, when it changed, stores it and appends a
``StateEvent`` with the cause. Nothing else writes ``Claim.state``.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db import transaction

from verifier.binding import BoundSpan, RecheckStatus, recheck
from verifier.models import Claim, EvidenceBinding, SourceVersion, StateEvent, Verdict
from verifier.states import (
    DEFAULT_POLICY,
    BindingStatus,
    ClaimState,
    StateDecision,
    StateInputs,
    StatePolicy,
    StateReason,
    VerdictInput,
    check_transition,
    demote_on_recheck,
    resolve_state,
)


@dataclass(frozen=True)
class BindingCheck:
    binding: EvidenceBinding | None
    version: SourceVersion | None
    status: RecheckStatus | None  # None when nothing is bound

    @property
    def binding_status(self) -> BindingStatus:
        if self.binding is None:
            return "none"
        return "fresh" if self.status == "fresh" else "stale"


def current_version(claim: Claim) -> SourceVersion | None:
    return SourceVersion.objects.filter(source_id=claim.source_id).order_by("-number").first()


def binding_recheck(
    *, binding: EvidenceBinding | None, version: SourceVersion | None
) -> RecheckStatus | None:
    """Re-check a stored binding against the cited source's current version."""
    if binding is None:
        return None
    if version is None:
        return "hash_mismatch"
    span = BoundSpan(
        quote=binding.quote,
        start=binding.start,
        end=binding.end,
        match=binding.match,  # type: ignore[arg-type]
        source_hash=binding.source_hash,
    )
    return recheck(span, version.text, version.sha256)


def claim_binding_check(*, claim: Claim) -> BindingCheck:
    binding = claim.bindings.filter(is_active=True).first()
    version = current_version(claim)
    return BindingCheck(binding, version, binding_recheck(binding=binding, version=version))


def _verdict_input(verdict: Verdict | None) -> VerdictInput | None:
    if verdict is None:
        return None
    return VerdictInput(label=verdict.label, confidence=verdict.confidence, note=verdict.note)  # type: ignore[arg-type]


def verdict_applies(*, verdict: Verdict | None, binding: EvidenceBinding | None) -> bool:
    """Whether a model verdict still judges the active evidence.

    A verdict recorded against a binding whose quote differs from the active binding's
    quote judged other text: after a re-bind to a different span it no longer counts
    until the claim is re-judged (re-binding alone never promotes). Verdicts without a
    binding, or about the same quote text (say, re-bound on a new source version),
    still apply; a verdict about a span when nothing is bound any more does not.
    """
    if verdict is None or verdict.binding_id is None:
        return True
    if binding is None:
        return False
    if verdict.binding_id == binding.id:
        return True
    judged = EvidenceBinding.objects.filter(pk=verdict.binding_id).values_list("quote", flat=True)
    return judged.first() == binding.quote


def claim_state_inputs(*, claim: Claim) -> tuple[StateInputs, BindingCheck]:
    check = claim_binding_check(claim=claim)
    model_verdict = claim.verdicts.filter(reviewer__isnull=True).order_by("-at", "-id").first()
    if not verdict_applies(verdict=model_verdict, binding=check.binding):
        model_verdict = None
    human_verdict = claim.verdicts.filter(reviewer__isnull=False).order_by("-at", "-id").first()
    inputs = StateInputs(
        binding=check.binding_status,
        match=check.binding.match if check.binding else None,
        model_verdict=_verdict_input(model_verdict),
        human_verdict=_verdict_input(human_verdict),
        excluded=bool(claim.exclusion_reason),
        legacy_affirmed=claim.legacy_affirmed,
    )
    return inputs, check


def claim_state_set(*, claim: Claim, decision: StateDecision, cause: str, actor=None) -> bool:
    """Store ``decision`` on the claim and append a state event; False when unchanged."""
    if claim.state == decision.state and claim.state_reason == decision.reason:
        return False
    if claim.state != decision.state:
        check_transition(ClaimState(claim.state), decision.state)
    from_state = claim.state
    Claim.objects.filter(pk=claim.pk).update(
        state=decision.state.value, state_reason=decision.reason.value
    )
    claim.state = decision.state.value
    claim.state_reason = decision.reason.value
    StateEvent.objects.create(
        claim=claim,
        from_state=from_state,
        to_state=decision.state.value,
        reason=decision.reason.value,
        cause=cause[:200],
        actor=actor,
    )
    return True


def claim_history_note(*, claim: Claim, cause: str, actor=None) -> StateEvent:
    """Append a state event that records a step without a state change (e.g. the claim
    text was repaired); from and to are both the current state."""
    return StateEvent.objects.create(
        claim=claim,
        from_state=claim.state,
        to_state=claim.state,
        reason=claim.state_reason,
        cause=cause[:200],
        actor=actor,
    )


@transaction.atomic
def claim_state_refresh(
    *, claim: Claim, cause: str, actor=None, policy: StatePolicy = DEFAULT_POLICY
) -> StateDecision:
    """Re-resolve the claim's state from its stored evidence and history."""
    claim = Claim.objects.select_for_update().get(pk=claim.pk)
    inputs, _ = claim_state_inputs(claim=claim)
    decision = resolve_state(inputs, policy)
    claim_state_set(claim=claim, decision=decision, cause=cause, actor=actor)
    return decision


@transaction.atomic
def claim_recheck_on_read(
    *, claim: Claim, check: BindingCheck | None = None
) -> StateDecision | None:
    """Read-time re-check: demote a supported/inferred claim whose span went stale.

    Returns the new decision when the claim was demoted, else None. Never promotes.
    """
    if claim.state not in (ClaimState.SUPPORTED, ClaimState.INFERRED):
        return None
    check = check or claim_binding_check(claim=claim)
    status = check.status if check.status is not None else "none"
    new_state, reason = demote_on_recheck(ClaimState(claim.state), status)
    if new_state == ClaimState(claim.state):
        return None
    decision = StateDecision(state=new_state, reason=reason or StateReason.STALE_SOURCE)
    locked = Claim.objects.select_for_update().get(pk=claim.pk)
    claim_state_set(claim=locked, decision=decision, cause=f"read-time re-check: {status}")
    claim.state, claim.state_reason = locked.state, locked.state_reason
    return decision


@transaction.atomic
def claim_exclude(*, claim: Claim, reason: str, actor=None) -> StateDecision:
    if not reason.strip():
        raise ValueError("An exclusion needs a reason.")
    Claim.objects.filter(pk=claim.pk).update(exclusion_reason=reason.strip()[:300])
    claim.exclusion_reason = reason.strip()[:300]
    return claim_state_refresh(claim=claim, cause=f"excluded: {reason.strip()}"[:200], actor=actor)


@transaction.atomic
def claim_restore(*, claim: Claim, actor=None) -> StateDecision:
    Claim.objects.filter(pk=claim.pk).update(exclusion_reason="")
    claim.exclusion_reason = ""
    return claim_state_refresh(claim=claim, cause="restored", actor=actor)
