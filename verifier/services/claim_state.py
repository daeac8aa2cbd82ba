"""The one writer of a claim's state.

``claim_state_refresh`` gathers the inputs of the pure state function from the
database (``verifier.selectors.claim_state``: the active binding re-checked against the
current version of the cited source, the latest model verdict, the latest human verdict,
the exclusion and the legacy flag), resolves the state, and, when it changed, stores it
and appends a ``StateEvent`` with the cause. Nothing else writes ``Claim.state``, nor the
reason's queue rank stored beside it (``Claim.queue_rank``, ``verifier.state_policy``);
``claims_queue_rank_sync`` re-ranks stored claims when the queue's order changes (the
``migrate`` command runs it).

``claims_state_refresh_superseded`` is the bulk path a new source version takes: every
claim bound to an earlier version of that source is re-resolved (supported and inferred
ones become ``unverified`` / ``stale_source``) in the version's own transaction, batch
by batch with a fixed number of statements per batch (one UPDATE per distinct new state,
one INSERT of all the state events), never a statement per claim.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Final

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Case, IntegerField, QuerySet, Value, When

from verifier.models import Claim, EvidenceBinding, SourceVersion, StateEvent
from verifier.selectors.claim_state import (
    BindingCheck,
    claim_binding_check,
    claim_state_inputs,
    claims_binding_checks,
    claims_state_inputs,
)
from verifier.state_policy import queue_rank, queue_reason_order, state_policy
from verifier.states import (
    CAUSE_EXCLUDED,
    CAUSE_NEW_VERSION,
    CAUSE_RECHECK,
    CAUSE_RESTORED,
    UNRANKED,
    ClaimState,
    StateDecision,
    StatePolicy,
    StateReason,
    check_transition,
    demote_on_recheck,
    queue_reason_codes,
    resolve_state,
)


def _state_change(
    *, claim: Claim, decision: StateDecision, cause: str, actor: User | None = None
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
    claim.queue_rank = queue_rank(decision.reason)
    return StateEvent(
        claim=claim,
        from_state=from_state,
        to_state=decision.state.value,
        reason=decision.reason.value,
        cause=cause[:200],
        actor=actor,
    )


def claim_state_set(
    *, claim: Claim, decision: StateDecision, cause: str, actor: User | None = None
) -> bool:
    """Store ``decision`` on the claim and append a state event; False when unchanged."""
    event = _state_change(claim=claim, decision=decision, cause=cause, actor=actor)
    if event is None:
        return False
    Claim.objects.filter(pk=claim.pk).update(
        state=claim.state, state_reason=claim.state_reason, queue_rank=claim.queue_rank
    )
    event.save()
    return True


def _store(changed: Sequence[Claim], events: Sequence[StateEvent]) -> None:
    """Write the new states of ``changed`` (one UPDATE per distinct state and reason,
    the reason's queue rank with it) and append ``events`` in order."""
    by_state: dict[tuple[str, str, int], list[int]] = {}
    for claim in changed:
        key = (claim.state, claim.state_reason, claim.queue_rank)
        by_state.setdefault(key, []).append(claim.pk)
    for (state, reason, rank), pks in by_state.items():
        Claim.objects.filter(pk__in=pks).update(state=state, state_reason=reason, queue_rank=rank)
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

    def __init__(self, claims: Sequence[Claim] | None = None, *, ids: Sequence[int] = ()) -> None:
        """Lock ``claims`` (or the claims with primary keys ``ids``) in id order."""
        if not transaction.get_connection().in_atomic_block:
            raise RuntimeError("ClaimStates needs a transaction")
        self._given = list(claims or ())
        ids = sorted({c.pk for c in self._given} | set(ids))
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

    @property
    def locked(self) -> list[Claim]:
        """The locked claims, in id order."""
        return list(self._locked.values())

    def refresh(
        self,
        *,
        claims: Sequence[Claim],
        causes: Mapping[int, str],
        actor: User | None = None,
        policy: StatePolicy | None = None,
        bindings_unchanged: bool = False,
    ) -> dict[int, StateDecision]:
        """Re-resolve the states of ``claims`` (among the locked ones) from the stored
        evidence and history; ``causes`` by claim id. ``bindings_unchanged``: nothing
        wrote a binding of these claims since their last refresh, so its checks hold.
        ``policy``: the one in force (``state_policy()``) unless given."""
        policy = policy or state_policy()
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

    def flush(self) -> int:
        """Write the changed states and the recorded events; the claims passed in get
        their stored state. Returns how many claims changed."""
        changed = len(self._changed)
        _store(list(self._changed.values()), self._events)
        self._changed, self._events = {}, []
        for claim in self._given:
            locked = self._locked[claim.pk]
            claim.state, claim.state_reason = locked.state, locked.state_reason
            claim.queue_rank = locked.queue_rank
        return changed


def claim_history_note(*, claim: Claim, cause: str, actor: User | None = None) -> StateEvent:
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
    *, claim: Claim, cause: str, actor: User | None = None, policy: StatePolicy | None = None
) -> StateDecision:
    """Re-resolve the claim's state from its stored evidence and history."""
    claim = Claim.objects.select_for_update().get(pk=claim.pk)
    inputs, _ = claim_state_inputs(claim=claim)
    decision = resolve_state(inputs, policy or state_policy())
    claim_state_set(claim=claim, decision=decision, cause=cause, actor=actor)
    return decision


@transaction.atomic
def claims_state_refresh(
    *,
    claims: Sequence[Claim],
    causes: Mapping[int, str],
    actor: User | None = None,
    policy: StatePolicy | None = None,
) -> dict[int, StateDecision]:
    """``claim_state_refresh`` for many claims (``causes`` by claim id): the same locks,
    inputs, decisions and state events, with a fixed number of queries. The passed claim
    objects get the stored state."""
    states = ClaimStates(claims)
    decisions = states.refresh(claims=claims, causes=causes, actor=actor, policy=policy)
    states.flush()
    return decisions


# Claims re-resolved per batch when a new source version supersedes their bindings: the
# batch's rows are locked and read at once, and its writes are one UPDATE per distinct
# new state and one INSERT of the events.
SUPERSEDED_BATCH: Final = 2000


def claims_state_refresh_superseded(*, version: SourceVersion, actor: User | None = None) -> int:
    """Re-resolve every claim whose active binding is to an earlier version of
    ``version``'s source: the binding no longer matches the current version's hash, so a
    supported or inferred claim becomes ``unverified`` / ``stale_source`` (and the stale
    binding becomes the riskiest reason of other unverified ones) — exactly what
    ``claim_state_refresh`` of each would record, with the same state events. Runs in the
    caller's transaction (the one that stores the version); returns how many claims
    changed state or reason."""
    if not transaction.get_connection().in_atomic_block:
        raise RuntimeError("claims_state_refresh_superseded needs the version's transaction")
    ids = list(
        EvidenceBinding.objects.filter(is_active=True, source_version__source_id=version.source_id)
        .exclude(source_version_id=version.pk)
        .order_by("claim_id")
        .values_list("claim_id", flat=True)
        .distinct()
    )
    cause = f"{CAUSE_NEW_VERSION}{version.number} of the cited source"
    changed = 0
    for first in range(0, len(ids), SUPERSEDED_BATCH):
        states = ClaimStates(ids=ids[first : first + SUPERSEDED_BATCH])
        claims = states.locked
        causes = dict.fromkeys((c.pk for c in claims), cause)
        states.refresh(claims=claims, causes=causes, actor=actor)
        changed += states.flush()
    return changed


def _recheck_demotion(state: str, status: str) -> StateDecision | None:
    """What a re-check whose status is ``status`` makes of a claim in ``state``
    (``demote_on_recheck``: a demotion, never a promotion); None when it stays."""
    new_state, reason = demote_on_recheck(ClaimState(state), status)
    if new_state == ClaimState(state):
        return None
    return StateDecision(state=new_state, reason=reason or StateReason.STALE_SOURCE)


def claim_recheck_on_read(
    *, claim: Claim, check: BindingCheck | None = None
) -> StateDecision | None:
    """Read-time re-check: demote a supported/inferred claim whose span went stale.

    Returns the claim's decision when it is lower than the state it was read in
    (demoted now, or since it was read), else None. Never promotes.
    Only a demotion writes (in a transaction of its own, nested in the caller's); a
    check that leaves the state as it is costs no savepoint.

    A demotion is decided again under the claim's row lock, from the row and its span as
    they are then: ``claim`` and ``check`` were read before, and meanwhile the source's
    re-binding job may have bound the claim in the current version and judged it again,
    or a reviewer decided it. Demoted on the earlier reading, a claim supported on a
    current span was stored ``unverified`` / ``stale_source``, and a reviewer's
    ``contradicted`` was overwritten.
    """
    if claim.state not in _SERVED_RANK:
        return None
    check = check or claim_binding_check(claim=claim)
    status = check.status if check.status is not None else "none"
    if _recheck_demotion(claim.state, status) is None:
        return None
    read = claim.state
    with transaction.atomic():
        locked = Claim.objects.select_for_update().get(pk=claim.pk)
        now = _demotions_now([locked], {claim.pk: check}).get(locked.pk)
        if now is not None:
            claim_state_set(claim=locked, decision=now[0], cause=f"{CAUSE_RECHECK} {now[1]}")
    claim.state, claim.state_reason = locked.state, locked.state_reason
    claim.queue_rank = locked.queue_rank
    if _SERVED_RANK.get(locked.state, 0) >= _SERVED_RANK[read]:
        return None  # as served as when it was read (bound again, say)
    # lower than it was read: demoted now, or since it was read
    return StateDecision(state=ClaimState(locked.state), reason=StateReason(locked.state_reason))


# The states a re-check may demote, highest first: a claim read in one of them and found
# lower under its lock was demoted, now or since it was read.
_SERVED_RANK: Final = {ClaimState.SUPPORTED.value: 2, ClaimState.INFERRED.value: 1}


def _demotions_now(
    locked: Sequence[Claim], earlier: Mapping[int, BindingCheck]
) -> dict[int, tuple[StateDecision, str]]:
    """The re-check's demotions of claims read under their row locks, by claim id, each
    with its span's status, from their states and spans as they are now: a claim decided
    since its re-check (``earlier``) read it is judged by its state now, and one bound
    again since is checked again (one query finds them; the span of the others, an
    immutable row, reads as it did). Claims that stay are left out."""
    served = [c for c in locked if c.state in _SERVED_RANK]
    if not served:
        return {}
    active: dict[int, int] = {}
    for claim_id, binding_id in (
        EvidenceBinding.objects.filter(claim_id__in=[c.pk for c in served], is_active=True)
        .order_by("claim_id", "pk")
        .values_list("claim_id", "pk")
    ):
        active.setdefault(claim_id, binding_id)
    checks = dict(earlier)
    bound_again = [
        c for c in served if c.pk not in earlier or active.get(c.pk) != _binding_id(earlier[c.pk])
    ]
    if bound_again:
        checks.update(claims_binding_checks(claims=bound_again))
    demotions: dict[int, tuple[StateDecision, str]] = {}
    for claim in served:
        status = checks[claim.pk].status or "none"
        decision = _recheck_demotion(claim.state, status)
        if decision is not None:
            demotions[claim.pk] = (decision, status)
    return demotions


def _binding_id(check: BindingCheck) -> int | None:
    # ``id``: a read model's binding (retrieval's ``ServedBinding``) has no ``pk``
    return check.binding.id if check.binding is not None else None


# Claims re-checked per batch by ``claims_recheck_stored``.
RECHECK_BATCH: Final = 2000


def claims_recheck_stored(*, claims: QuerySet[Claim]) -> int:
    """The read-time re-check of every supported or inferred claim among ``claims``,
    for a door that tells their stored states without reading each one through the API
    (the claims exports, an audit pack): each whose span no longer matches the current
    version of its source is demoted as ``claim_recheck_on_read`` demotes one, with its
    state event, before the door reads it, so no export vouches for text that is not
    there. Batch by batch: two queries to check one, and a batch's demotions written in
    one transaction (its claims locked in id order, one UPDATE per new state and one
    INSERT of the events: a transaction each kept an export of 13,000 stale claims from
    sending its first byte for three minutes). Returns how many it demoted."""
    served = (ClaimState.SUPPORTED.value, ClaimState.INFERRED.value)
    rechecked = claims.filter(state__in=served).defer("embedding").order_by("pk")
    demoted = last = 0
    while True:
        batch = list(rechecked.filter(pk__gt=last)[:RECHECK_BATCH])
        if not batch:
            return demoted
        checks = claims_binding_checks(claims=batch)
        stale = {c.pk: checks[c.pk] for c in batch if checks[c.pk].status != "fresh"}
        if stale:
            demoted += _demote_stale(stale)
        last = batch[-1].pk


@transaction.atomic
def _demote_stale(checks: Mapping[int, BindingCheck]) -> int:
    """Demote the claims whose re-check (``checks``, by claim id) found their spans not
    fresh, as ``demote_on_recheck`` says, under their row locks, in one transaction:
    decided again under the locks (``_demotions_now``), as each may have been bound
    again, judged or decided since that re-check read it."""
    changed: list[Claim] = []
    events: list[StateEvent] = []
    locked = Claim.objects.select_for_update().filter(pk__in=list(checks)).defer("embedding")
    locked_claims = list(locked.order_by("pk"))
    demotions = _demotions_now(locked_claims, checks)
    for claim in locked_claims:
        if claim.pk not in demotions:
            continue  # decided otherwise, or bound again, since it was read
        decision, status = demotions[claim.pk]
        event = _state_change(claim=claim, decision=decision, cause=f"{CAUSE_RECHECK} {status}")
        if event is not None:
            changed.append(claim)
            events.append(event)
    _store(changed, events)
    return len(changed)


@transaction.atomic
def claim_exclude(*, claim: Claim, reason: str, actor: User | None = None) -> StateDecision:
    if not reason.strip():
        raise ValueError("An exclusion needs a reason.")
    Claim.objects.filter(pk=claim.pk).update(exclusion_reason=reason.strip()[:300])
    claim.exclusion_reason = reason.strip()[:300]
    return claim_state_refresh(
        claim=claim, cause=f"{CAUSE_EXCLUDED} {reason.strip()}"[:200], actor=actor
    )


@transaction.atomic
def claim_restore(*, claim: Claim, actor: User | None = None) -> StateDecision:
    """Clear the exclusion and re-resolve the state. The doors restore through
    ``services.sources.claim_restore_rebind``, which also binds and judges again a claim
    whose span a new version superseded while it was excluded."""
    Claim.objects.filter(pk=claim.pk).update(exclusion_reason="")
    claim.exclusion_reason = ""
    return claim_state_refresh(claim=claim, cause=CAUSE_RESTORED, actor=actor)


def _rank_expression(order: Sequence[str]) -> Case:
    """The queue rank of ``state_reason`` by ``order``, as SQL (what ``queue_rank``
    gives each reason and its aliases; every other reason ``UNRANKED``)."""
    ranks = {code: queue_rank(code) for reason in order for code in queue_reason_codes(reason)}
    whens = [When(state_reason=code, then=Value(rank)) for code, rank in ranks.items()]
    return Case(*whens, default=Value(UNRANKED), output_field=IntegerField())


@transaction.atomic
def claims_queue_rank_sync() -> int:
    """Store the rank the queue's order in force gives each claim's reason where the
    stored one differs (after a reason was added or the order moved; ``migrate`` runs
    this). One UPDATE; with nothing to change it writes no row. Returns how many claims
    it re-ranked."""
    rank = _rank_expression(queue_reason_order())
    return Claim.objects.exclude(queue_rank=rank).update(queue_rank=rank)


# Claims re-resolved per batch by ``claims_unbound_restate``.
RESTATE_BATCH: Final = 2000


def claims_unbound_restate() -> int:
    """Re-resolve the claims with nothing bound whose stored reason is ``abstained``:
    until 2026-11-28 the local "nothing to judge" abstention (the judge was not asked)
    counted as the judge's answer, and such a claim read "the judge could not decide"
    instead of ``no_evidence`` (``verifier.states.resolve_state``). ``migrate`` runs this;
    with nothing to change it writes nothing. Returns how many claims it changed: one
    whose abstention is the judge's own (a RAG audit's unsupported sentence, judged over
    the answer's chunks) reads ``abstained`` still and is not counted."""
    done = last = 0
    while True:
        with transaction.atomic():
            batch = list(
                Claim.objects.filter(state_reason=StateReason.ABSTAINED.value, pk__gt=last)
                .exclude(bindings__is_active=True)
                .order_by("pk")[:RESTATE_BATCH]
            )
            if not batch:
                return done
            cause = "state rule: a claim with no span bound reads no_evidence"
            states = ClaimStates(batch)
            states.refresh(claims=batch, causes={c.pk: cause for c in batch})
            done += states.flush()
        last = batch[-1].pk
