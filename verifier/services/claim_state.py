"""The one writer of a claim's state.

``claim_state_refresh`` gathers the inputs of the pure state function from the
database — the active binding re-checked against the current version of the cited
source, the latest model verdict, the latest human verdict, the exclusion and the
legacy flag — resolves the state, and, when it changed, stores it and appends a
``StateEvent`` with the cause. Nothing else writes ``Claim.state``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from django.db import transaction

from verifier.binding import BoundSpan, RecheckStatus, recheck, recheck_span
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


def current_versions(*, source_ids: Iterable[int]) -> dict[int, SourceVersion]:
    """The current (highest-numbered) version of each source, in one query."""
    rows = (
        SourceVersion.objects.filter(source_id__in=set(source_ids))
        .order_by("source_id", "-number")
        .distinct("source_id")
    )
    return {v.source_id: v for v in rows}


def binding_recheck(
    *, binding: EvidenceBinding | None, version: SourceVersion | None
) -> RecheckStatus | None:
    """Re-check a stored binding against the cited source's current version."""
    if binding is None:
        return None
    if version is None:
        return "hash_mismatch"
    return recheck(_bound_span(binding), version.text, version.sha256)


def binding_recheck_span(
    *, binding: EvidenceBinding | None, sha256: str | None, span_text: str
) -> RecheckStatus | None:
    """``binding_recheck`` from the current version's hash and its text at the binding's
    offsets (``sha256`` None: the source has no version)."""
    if binding is None:
        return None
    if sha256 is None:
        return "hash_mismatch"
    return recheck_span(_bound_span(binding), span_text=span_text, sha256=sha256)


def _bound_span(binding: EvidenceBinding) -> BoundSpan:
    return BoundSpan(
        quote=binding.quote,
        start=binding.start,
        end=binding.end,
        match=binding.match,  # type: ignore[arg-type]
        source_hash=binding.source_hash,
    )


def claim_binding_check(*, claim: Claim) -> BindingCheck:
    binding = claim.bindings.filter(is_active=True).first()
    version = current_version(claim)
    return BindingCheck(binding, version, binding_recheck(binding=binding, version=version))


class LatestVerdict(NamedTuple):
    """The fields of a claim's latest verdict that its state depends on (what the state
    inputs read of a ``Verdict``)."""

    binding_id: int | None
    label: str
    confidence: float
    note: str


def _verdict_input(verdict: Verdict | LatestVerdict | None) -> VerdictInput | None:
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
    return _applies(
        verdict,
        binding,
        lambda pk: EvidenceBinding.objects.filter(pk=pk).values_list("quote", flat=True).first(),
    )


def _applies(
    verdict: Verdict | LatestVerdict | None,
    binding: EvidenceBinding | None,
    judged_quote: Callable[[int], str | None],
) -> bool:
    if verdict is None or verdict.binding_id is None:
        return True
    if binding is None:
        return False
    if verdict.binding_id == binding.id:
        return True
    return judged_quote(verdict.binding_id) == binding.quote


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


def _latest_verdicts(ids: list[int], *, human: bool) -> dict[int, LatestVerdict]:
    rows = (
        Verdict.objects.filter(claim_id__in=ids, reviewer__isnull=not human)
        .order_by("claim_id", "-at", "-id")
        .distinct("claim_id")
        .values_list("claim_id", "binding_id", "label", "confidence", "note")
    )
    return {claim_id: LatestVerdict(*fields) for claim_id, *fields in rows}


def claims_binding_checks(*, claims: Sequence[Claim]) -> dict[int, BindingCheck]:
    """``claim_binding_check`` for many claims: two queries however many there are."""
    ids = [c.pk for c in claims]
    bindings: dict[int, EvidenceBinding] = {}
    for binding in EvidenceBinding.objects.filter(claim_id__in=ids, is_active=True).order_by(
        "claim_id", "pk"
    ):
        bindings.setdefault(binding.claim_id, binding)
    versions = current_versions(source_ids={c.source_id for c in claims})
    out: dict[int, BindingCheck] = {}
    for claim in claims:
        binding, version = bindings.get(claim.pk), versions.get(claim.source_id)
        out[claim.pk] = BindingCheck(
            binding, version, binding_recheck(binding=binding, version=version)
        )
    return out


def claims_state_inputs(
    *, claims: Sequence[Claim], checks: Mapping[int, BindingCheck] | None = None
) -> dict[int, tuple[StateInputs, BindingCheck]]:
    """``claim_state_inputs`` for many claims, with a fixed number of queries.
    ``checks``: the claims' binding checks when the caller already has them."""
    ids = [c.pk for c in claims]
    if checks is None:
        checks = claims_binding_checks(claims=claims)
    model, human = _latest_verdicts(ids, human=False), _latest_verdicts(ids, human=True)
    judged_ids = {
        v.binding_id
        for pk, v in model.items()
        if v.binding_id is not None
        and checks[pk].binding is not None
        and v.binding_id != checks[pk].binding.id  # type: ignore[union-attr]
    }
    judged = dict(
        EvidenceBinding.objects.filter(pk__in=judged_ids).values_list("pk", "quote")
        if judged_ids
        else []
    )
    out: dict[int, tuple[StateInputs, BindingCheck]] = {}
    for claim in claims:
        check = checks[claim.pk]
        model_verdict = model.get(claim.pk)
        if not _applies(model_verdict, check.binding, judged.get):
            model_verdict = None
        inputs = StateInputs(
            binding=check.binding_status,
            match=check.binding.match if check.binding else None,
            model_verdict=_verdict_input(model_verdict),
            human_verdict=_verdict_input(human.get(claim.pk)),
            excluded=bool(claim.exclusion_reason),
            legacy_affirmed=claim.legacy_affirmed,
        )
        out[claim.pk] = (inputs, check)
    return out


def _state_change(
    *, claim: Claim, decision: StateDecision, cause: str, actor=None
) -> StateEvent | None:
    """Apply ``decision`` to the in-memory claim and return its (unsaved) state event;
    None when unchanged. Raises on an illegal transition before touching anything."""
    if claim.state == decision.state and claim.state_reason == decision.reason:
        return None
    if claim.state != decision.state:
        check_transition(ClaimState(claim.state), decision.state)
    from_state = claim.state
    claim.state = decision.state.value
    claim.state_reason = decision.reason.value
    return StateEvent(
        claim=claim,
        from_state=from_state,
        to_state=decision.state.value,
        reason=decision.reason.value,
        cause=cause[:200],
        actor=actor,
    )


def claim_state_set(*, claim: Claim, decision: StateDecision, cause: str, actor=None) -> bool:
    """Store ``decision`` on the claim and append a state event; False when unchanged."""
    event = _state_change(claim=claim, decision=decision, cause=cause, actor=actor)
    if event is None:
        return False
    Claim.objects.filter(pk=claim.pk).update(state=claim.state, state_reason=claim.state_reason)
    event.save()
    return True


def _store(changed: Sequence[Claim], events: Sequence[StateEvent]) -> None:
    """Write the new states of ``changed`` (one UPDATE per distinct state) and append
    ``events`` in order."""
    by_state: dict[tuple[str, str], list[int]] = {}
    for claim in changed:
        by_state.setdefault((claim.state, claim.state_reason), []).append(claim.pk)
    for (state, reason), pks in by_state.items():
        Claim.objects.filter(pk__in=pks).update(state=state, state_reason=reason)
    if events:
        StateEvent.objects.bulk_create(events)


class ClaimStates:
    """Claims locked for several state refreshes in one transaction (say, after binding
    and again after judging) whose rows are written once, by ``flush``.

    Each ``refresh`` resolves and records exactly what ``claim_state_refresh`` would at
    that point (the same decision, the same state event with its cause); only the
    intermediate row writes are skipped, which nothing outside the transaction can see.
    A refresh keeps the binding checks it made: a caller that writes no bindings after
    it (judging) reads them back with ``binding_checks`` and refreshes again with
    ``bindings_unchanged=True`` instead of re-reading and re-checking every binding.
    """

    def __init__(self, claims: Sequence[Claim]) -> None:
        if not transaction.get_connection().in_atomic_block:
            raise RuntimeError("ClaimStates needs a transaction")
        self._given = list(claims)
        ids = sorted({c.pk for c in claims})
        locked = Claim.objects.select_for_update().filter(pk__in=ids).defer("embedding")
        locked = locked.order_by("pk")
        self._locked = {c.pk: c for c in locked}
        self._changed: dict[int, Claim] = {}
        self._events: list[StateEvent] = []
        self._checks: dict[int, BindingCheck] = {}

    def binding_checks(self, claims: Sequence[Claim]) -> dict[int, BindingCheck]:
        """The binding checks of ``claims`` as of their last refresh (checked now for
        claims not refreshed yet)."""
        missing = [c for c in claims if c.pk not in self._checks]
        if missing:
            self._checks.update(claims_binding_checks(claims=missing))
        return {c.pk: self._checks[c.pk] for c in claims}

    def refresh(
        self,
        *,
        claims: Sequence[Claim],
        causes: Mapping[int, str],
        actor=None,
        policy: StatePolicy = DEFAULT_POLICY,
        bindings_unchanged: bool = False,
    ) -> dict[int, StateDecision]:
        """Re-resolve the states of ``claims`` (among the locked ones) from the stored
        evidence and history; ``causes`` by claim id. ``bindings_unchanged``: nothing
        wrote a binding of these claims since their last refresh, so its checks hold."""
        locked = [self._locked[pk] for pk in sorted({c.pk for c in claims})]
        if bindings_unchanged:
            checks = self.binding_checks(locked)
        else:
            checks = claims_binding_checks(claims=locked)
            self._checks.update(checks)
        inputs = claims_state_inputs(claims=locked, checks=checks)
        decisions: dict[int, StateDecision] = {}
        for claim in locked:
            decisions[claim.pk] = decision = resolve_state(inputs[claim.pk][0], policy)
            event = _state_change(
                claim=claim, decision=decision, cause=causes[claim.pk], actor=actor
            )
            if event is not None:
                self._changed[claim.pk] = claim
                self._events.append(event)
        return decisions

    def flush(self) -> None:
        """Write the changed states and the recorded events; the claims passed in get
        their stored state."""
        _store(list(self._changed.values()), self._events)
        self._changed, self._events = {}, []
        for claim in self._given:
            locked = self._locked[claim.pk]
            claim.state, claim.state_reason = locked.state, locked.state_reason


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
def claims_state_refresh(
    *,
    claims: Sequence[Claim],
    causes: Mapping[int, str],
    actor=None,
    policy: StatePolicy = DEFAULT_POLICY,
) -> dict[int, StateDecision]:
    """``claim_state_refresh`` for many claims (``causes`` by claim id): the same locks,
    inputs, decisions and state events, with a fixed number of queries. The passed claim
    objects get the stored state."""
    states = ClaimStates(claims)
    decisions = states.refresh(claims=claims, causes=causes, actor=actor, policy=policy)
    states.flush()
    return decisions


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
