"""The five claim states and the one pure function that decides them.

No Django imports: the service that stores a claim's state gathers the inputs
(re-check status of the active binding, latest model verdict, latest human
verdict, exclusion, legacy flag), calls :func:`resolve_state`, checks the move
with :func:`check_transition` and appends a state event.

Decision order (first rule that applies wins):

1. ``excluded`` dominates everything (reason ``excluded``).
2. The judging verdict is the latest *human* verdict when there is one, else the
   latest model verdict. A reviewer is a judge like any other: the same
   confidence floor and the same binding rules apply to them.
3. Contradicted with confidence >= floor -> ``contradicted`` (reason
   ``contradicted``, or ``human_contradicted`` for a reviewer). This holds even
   when the binding is stale or absent: a re-check only demotes positive states,
   and surfacing a contradiction is the fail-safe direction.
   A reviewer's ``not_stated`` (the source does not say it, nor its opposite) with
   confidence >= floor -> ``unverified`` / ``human_not_stated``, bound or not: the
   reviewer read the source and decided, so the claim leaves the review queue. A
   stale binding outranks it (the source changed since the reviewer read it:
   ``stale_source``, back in the queue).
4. Entailed with confidence >= floor:
   * stale binding -> ``unverified`` / ``stale_source`` (demoted, never promoted);
   * fresh binding whose match kind the policy accepts -> ``supported``
     (reason ``entailed``, or ``human_supported`` for a reviewer);
   * fresh binding with a match kind the policy does not accept (e.g. fuzzy when
     the policy requires exact/normalized) -> ``inferred`` / ``fuzzy_only``;
   * no binding -> ``inferred`` / ``no_bound_span`` (``legacy_affirmed`` when the
     claim carries the legacy flag).
5. No verdict but the claim is legacy-affirmed: ``inferred`` / ``legacy_affirmed``
   unless the binding is stale (then ``unverified`` / ``stale_source``). A legacy
   flag never makes anything supported, and a real verdict always outranks it.
6. Everything else is ``unverified``. Several reasons can apply at once (say, a
   stale binding and an abstention); the reason recorded is the one that ranks
   highest in the policy's risk order (:data:`QUEUE_REASON_RISK_ORDER` by default),
   so the review queue sorts by the worst thing known about the claim. Candidate
   reasons come from the verdict (``coverage_gap``, ``abstained`` /
   ``self_consistency_disagreement`` / ``judge_reviewers_disagree`` (an abstention a
   reviewer calibrator recorded where it would overrule the judge), ``low_confidence``
   for entailed/contradicted below the floor) and from the binding (``stale_source``;
   ``no_evidence`` when nothing is bound). A claim with a fresh acceptable binding and
   no verdict yet is ``not_judged``. The abstention recorded locally for a claim with
   nothing bound (note :data:`NO_BOUND_EVIDENCE_NOTE`: the judge was not asked) is no
   verdict at all, so such a claim reads ``no_evidence``, never ``abstained``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from functools import lru_cache
from types import MappingProxyType
from typing import Final, Literal, Protocol, TypeVar

from verifier.binding.elision import quote_elision


class ClaimState(StrEnum):
    SUPPORTED = "supported"
    INFERRED = "inferred"
    UNVERIFIED = "unverified"
    CONTRADICTED = "contradicted"
    EXCLUDED = "excluded"


class StateReason(StrEnum):
    # Queue reasons: why an unverified/contradicted claim is in the review queue.
    ABSTAINED = "abstained"
    LOW_CONFIDENCE = "low_confidence"
    COVERAGE_GAP = "coverage_gap"
    CONTRADICTED = "contradicted"
    STALE_SOURCE = "stale_source"
    NO_EVIDENCE = "no_evidence"
    SELF_CONSISTENCY_DISAGREEMENT = "self_consistency_disagreement"
    JUDGE_REVIEWERS_DISAGREE = "judge_reviewers_disagree"
    # Non-queue reasons.
    ENTAILED = "entailed"
    NO_BOUND_SPAN = "no_bound_span"
    FUZZY_ONLY = "fuzzy_only"
    LEGACY_AFFIRMED = "legacy_affirmed"
    EXCLUDED = "excluded"
    NOT_JUDGED = "not_judged"
    HUMAN_SUPPORTED = "human_supported"
    HUMAN_CONTRADICTED = "human_contradicted"
    HUMAN_NOT_STATED = "human_not_stated"


QUEUE_STATES: Final[frozenset[ClaimState]] = frozenset(
    {ClaimState.UNVERIFIED, ClaimState.CONTRADICTED}
)

# The one list of the review queue's reasons, riskiest first. A reason's queue rank is
# its place here (``queue_risk_rank``) and the state writer stores that rank beside the
# reason (``Claim.queue_rank``, a plain column), so adding or moving a reason needs no
# migration: ``migrate`` re-ranks the stored claims whose rank moved. A deployment may
# reorder or extend it (``settings.SPANPROOF_QUEUE_REASON_RISK_ORDER``); the state
# policy carries the order in force (``StatePolicy.risk_order``).
# ``judge_reviewers_disagree`` (the judge decided; the workspace's reviewer calibrator
# is confident its reviewers would decide the other way) ranks right after a
# contradiction: a claim the judge passed may be wrong. ``self_consistency_disagreement``
# is a kind of abstention (the judge disagreed with itself across samples) and ranks
# right after ``abstained``. ``not_judged`` (bound, the judge not asked yet: a job still
# running, or a judge that failed) ranks last, with its own chip, so the queue's total is
# the sum of its chips.
QUEUE_REASON_RISK_ORDER: Final[tuple[StateReason, ...]] = (
    StateReason.CONTRADICTED,
    StateReason.JUDGE_REVIEWERS_DISAGREE,
    StateReason.COVERAGE_GAP,
    StateReason.STALE_SOURCE,
    StateReason.LOW_CONFIDENCE,
    StateReason.ABSTAINED,
    StateReason.SELF_CONSISTENCY_DISAGREEMENT,
    StateReason.NO_EVIDENCE,
    StateReason.NOT_JUDGED,
)

QUEUE_REASONS: Final[frozenset[StateReason]] = frozenset(QUEUE_REASON_RISK_ORDER)

# Codes that count as a reason of the order in the queue (its rank, its chip): a
# reviewer's contradiction is still a contradiction.
QUEUE_REASON_ALIASES: Final[Mapping[str, tuple[str, ...]]] = MappingProxyType(
    {StateReason.CONTRADICTED.value: (StateReason.HUMAN_CONTRADICTED.value,)}
)

# The rank of every reason outside the order: it sorts last. A constant rather than the
# order's length, so that adding a reason re-ranks only the reasons after it.
UNRANKED: Final = 100


# Each reason in words, for people and API clients that do not know the codes.
REASON_DESCRIPTIONS: Final[Mapping[StateReason, str]] = MappingProxyType(
    {
        StateReason.ABSTAINED: "The judge could not decide whether the span supports the claim.",
        StateReason.LOW_CONFIDENCE: "The judge leaned one way, below the confidence floor.",
        StateReason.COVERAGE_GAP: "The judge gave no answer (unreachable or failed).",
        StateReason.CONTRADICTED: "The judge found that the cited span contradicts the claim.",
        StateReason.STALE_SOURCE: "The source changed since the span was bound.",
        StateReason.NO_EVIDENCE: (
            "Nothing in the cited source is bound to the claim: the quote it came with is "
            "not in the source's current version or, without a quote, no passage was found "
            "that states it."
        ),
        StateReason.SELF_CONSISTENCY_DISAGREEMENT: (
            "The judge disagreed with itself across samples."
        ),
        StateReason.JUDGE_REVIEWERS_DISAGREE: (
            "The judge decided, but this workspace's reviewers would most likely decide "
            "the other way."
        ),
        StateReason.ENTAILED: "The cited span entails the claim.",
        StateReason.NO_BOUND_SPAN: "No span of the cited source is bound to the claim.",
        StateReason.FUZZY_ONLY: "Only a fuzzy match of the quote was found in the source.",
        StateReason.LEGACY_AFFIRMED: "Affirmed by an earlier system, without a bound span.",
        StateReason.EXCLUDED: "Excluded by a person.",
        StateReason.NOT_JUDGED: "Not judged yet.",
        StateReason.HUMAN_SUPPORTED: "A reviewer found the span supports the claim.",
        StateReason.HUMAN_CONTRADICTED: "A reviewer found the span contradicts the claim.",
        StateReason.HUMAN_NOT_STATED: (
            "A reviewer found that the source does not state the claim (nor its opposite)."
        ),
    }
)


def reason_description(reason: StateReason | str) -> str:
    """The reason in words; an unknown code is returned as it is."""
    try:
        return REASON_DESCRIPTIONS[StateReason(reason)]
    except ValueError:
        return str(reason)


# Said after ``no_evidence``'s words when the quote the claim came with has an elision
# marker (:func:`verifier.binding.elision.quote_elision`): why it did not bind.
ELISION_JOINS_WORDS: Final = (
    "The quote joins passages with an ellipsis (“{marker}”); a span must be one "
    "continuous passage of the source: quote one passage, or send each passage as its "
    "own claim."
)
ELISION_AT_END_WORDS: Final = (
    "The quote {where} with an ellipsis (“{marker}”), which is not the source's text: "
    "quote the passage without it."
)


def reason_in_words(reason: StateReason | str, *, quote: str | None = None) -> str:
    """The reason a claim has its state, in words, as every door says it (the API's
    ``reason_text``, the console's claim page, the review queue): its description and,
    for a claim with nothing bound (``no_evidence``) whose ``quote`` (the one it came
    with) leaves words out with an ellipsis, why that quote did not bind. The reason
    itself is unchanged."""
    words = reason_description(reason)
    if str(reason) != StateReason.NO_EVIDENCE or not quote:
        return words
    elision = quote_elision(quote)
    if elision is None:
        return words
    if elision.joins:
        return f"{words} {ELISION_JOINS_WORDS.format(marker=elision.marker)}"
    words_before = any(ch.isalnum() for ch in quote[: elision.start])
    where = "ends" if words_before else "starts"
    return f"{words} {ELISION_AT_END_WORDS.format(where=where, marker=elision.marker)}"


def queue_reason_codes(reason: StateReason | str) -> tuple[str, ...]:
    """The state reasons a queue reason stands for: itself and its aliases."""
    return (str(reason), *QUEUE_REASON_ALIASES.get(str(reason), ()))


@lru_cache(maxsize=32)
def _ranks(order: tuple[str, ...]) -> Mapping[str, int]:
    ranks: dict[str, int] = {}
    for rank, reason in enumerate(order):
        for code in queue_reason_codes(reason):
            ranks.setdefault(code, rank)
    return MappingProxyType(ranks)


def queue_risk_rank(
    reason: StateReason | str, order: Sequence[StateReason | str] = QUEUE_REASON_RISK_ORDER
) -> int:
    """Sort key for the review queue: the reason's place in ``order`` (0 is riskiest; an
    alias ranks with its reason); a reason outside the order ranks ``UNRANKED``."""
    return _ranks(tuple(str(r) for r in order)).get(str(reason), UNRANKED)


BindingStatus = Literal["fresh", "stale", "none"]
VerdictLabel = Literal["entailed", "contradicted", "abstained", "coverage_gap", "not_stated"]

# A reviewer's answer that the source does not state the claim, nor its opposite: not
# entailed, not contradicted (a person's decision; no judge gives it).
NOT_STATED: Final = "not_stated"

# The states a reviewer's decision settles, by their reason, with whether the reviewer
# found that the source states the claim: the one list the review queue (these leave it)
# and the reviewer calibrators (these less "not stated" are what they learn from) read.
HUMAN_DECISION_REASONS: Final[Mapping[StateReason, bool]] = MappingProxyType(
    {
        StateReason.HUMAN_SUPPORTED: True,
        StateReason.HUMAN_CONTRADICTED: False,
        StateReason.HUMAN_NOT_STATED: False,
    }
)
# The labels of a reviewer's decision (a withdrawal takes one back; it decides nothing).
HUMAN_DECISION_LABELS: Final[tuple[str, ...]] = ("entailed", "contradicted", NOT_STATED)

# A verdict note containing this marker (case, ``-`` and spaces folded to ``_``)
# marks an abstention caused by the judge disagreeing with itself.
SELF_CONSISTENCY_NOTE: Final = "self_consistency_disagreement"
# The note of the abstention a reviewer calibrator records where the judge decided and
# the calibrator is confident the workspace's reviewers would decide the other way.
JUDGE_REVIEWERS_DISAGREE_NOTE: Final = "judge_reviewers_disagree"
# The note of the abstention recorded locally for a claim with no bound span.
NO_BOUND_EVIDENCE_NOTE: Final = "no_bound_evidence"


def judge_not_asked(label: str, note: str) -> bool:
    """Whether a model verdict is the abstention recorded locally for a claim with no
    bound span (:data:`NO_BOUND_EVIDENCE_NOTE`): the judge was not asked, so it is no
    judgement of the claim — the state rules read it as no verdict, and no output shows
    it as the judge's answer."""
    return label == "abstained" and note == NO_BOUND_EVIDENCE_NOTE


# The exclusion reason remediation records on a claim still unsupported after its repair
# pass (the ingest report counts these as remediation drops).
REMEDIATION_EXCLUSION_REASON: Final = "remediation: unsupported after repair"


@dataclass(frozen=True)
class VerdictInput:
    label: VerdictLabel
    confidence: float
    note: str = ""

    @property
    def is_self_consistency_disagreement(self) -> bool:
        folded = self.note.lower().replace("-", "_").replace(" ", "_")
        return SELF_CONSISTENCY_NOTE in folded

    @property
    def is_judge_reviewers_disagreement(self) -> bool:
        return self.note.startswith(JUDGE_REVIEWERS_DISAGREE_NOTE)

    @property
    def judge_not_asked(self) -> bool:
        return judge_not_asked(self.label, self.note)


# The label of a reviewer's undo: it takes back the human decision before it.
WITHDRAWN: Final = "withdrawn"


class _Labelled(Protocol):
    @property
    def label(self) -> str: ...


Labelled = TypeVar("Labelled", bound=_Labelled)


def verdict_judges_active(
    *,
    judged_binding_id: int | None,
    active_binding_id: int | None,
    judged_quote: Callable[[], str | None],
    active_quote: str | None,
) -> bool:
    """Whether a verdict (a model's, or a person's decision) still judges the active
    evidence: recorded with no binding, against the active one, or about the same quote
    text (say, re-bound on a new source version). One recorded against other words no
    longer counts until the claim is judged or decided again (re-binding alone never
    promotes, and a reviewer's "supported" of "412 metres" is not one of "380 metres");
    one about a span when nothing is bound any more does not either. ``judged_quote`` is
    read only when the ids differ."""
    if judged_binding_id is None:
        return True
    if active_binding_id is None:
        return False
    if judged_binding_id == active_binding_id:
        return True
    return judged_quote() == active_quote


def human_verdict_in_force(verdicts: Sequence[Labelled]) -> Labelled | None:
    """The human decision that stands among a claim's human verdicts (newest first, as
    they are read): each withdrawal takes back the latest decision before it that no
    earlier withdrawal took back, so undoing a decision restores the one it replaced.
    None when no decision stands (the model's verdict judges again)."""
    standing: list[Labelled] = []
    for verdict in reversed(verdicts):
        if verdict.label == WITHDRAWN:
            if standing:
                standing.pop()
        else:
            standing.append(verdict)
    return standing[-1] if standing else None


@dataclass(frozen=True)
class StatePolicy:
    confidence_floor: float = 0.5
    bound_match_kinds: frozenset[str] = field(
        default_factory=lambda: frozenset({"exact", "normalized", "fuzzy"})
    )
    # The queue reasons, riskiest first: of several reasons that apply, the first wins.
    risk_order: tuple[str, ...] = tuple(r.value for r in QUEUE_REASON_RISK_ORDER)


DEFAULT_POLICY: Final = StatePolicy()
STRICT_MATCH_POLICY: Final = StatePolicy(bound_match_kinds=frozenset({"exact", "normalized"}))


@dataclass(frozen=True)
class StateInputs:
    binding: BindingStatus
    match: str | None
    model_verdict: VerdictInput | None
    human_verdict: VerdictInput | None
    excluded: bool
    legacy_affirmed: bool


@dataclass(frozen=True)
class StateDecision:
    state: ClaimState
    reason: StateReason


def _riskiest(reasons: list[StateReason], order: tuple[str, ...]) -> StateReason:
    return min(reasons, key=lambda reason: queue_risk_rank(reason, order))


def resolve_state(inputs: StateInputs, policy: StatePolicy = DEFAULT_POLICY) -> StateDecision:
    """Map one claim's verification inputs to its state and the reason for it."""
    if inputs.excluded:
        return StateDecision(ClaimState.EXCLUDED, StateReason.EXCLUDED)

    is_human = inputs.human_verdict is not None
    verdict = inputs.human_verdict if is_human else inputs.model_verdict
    if verdict is not None and not is_human and judge_not_asked(verdict.label, verdict.note):
        # The local "nothing to judge" finalisation is not a judgement of the claim (the
        # judge was not asked): a claim without a bound span is unverified for want of
        # evidence (``no_evidence``, not "the judge could not decide"), and a
        # legacy-affirmed one stays inferred at best.
        verdict = None
    confident = verdict is not None and verdict.confidence >= policy.confidence_floor
    fresh = inputs.binding == "fresh"
    bound = fresh and inputs.match is not None and inputs.match in policy.bound_match_kinds

    if verdict is not None and verdict.label == "contradicted" and confident:
        reason = StateReason.HUMAN_CONTRADICTED if is_human else StateReason.CONTRADICTED
        return StateDecision(ClaimState.CONTRADICTED, reason)
    if (
        is_human
        and verdict is not None
        and verdict.label == NOT_STATED
        and confident
        and inputs.binding != "stale"
    ):
        return StateDecision(ClaimState.UNVERIFIED, StateReason.HUMAN_NOT_STATED)

    positive = (verdict is not None and verdict.label == "entailed" and confident) or (
        verdict is None and inputs.legacy_affirmed
    )
    if positive and inputs.binding != "stale":
        if verdict is None:  # legacy flag only
            return StateDecision(ClaimState.INFERRED, StateReason.LEGACY_AFFIRMED)
        if bound:
            reason = StateReason.HUMAN_SUPPORTED if is_human else StateReason.ENTAILED
            return StateDecision(ClaimState.SUPPORTED, reason)
        if fresh and inputs.match is not None:
            return StateDecision(ClaimState.INFERRED, StateReason.FUZZY_ONLY)
        if inputs.legacy_affirmed:
            return StateDecision(ClaimState.INFERRED, StateReason.LEGACY_AFFIRMED)
        return StateDecision(ClaimState.INFERRED, StateReason.NO_BOUND_SPAN)

    reasons: list[StateReason] = []
    if inputs.binding == "stale":
        reasons.append(StateReason.STALE_SOURCE)
    elif not fresh:
        reasons.append(StateReason.NO_EVIDENCE)
    if verdict is not None:
        if verdict.label == "coverage_gap":
            reasons.append(StateReason.COVERAGE_GAP)
        elif verdict.label == "abstained":
            if verdict.is_judge_reviewers_disagreement:
                reasons.append(StateReason.JUDGE_REVIEWERS_DISAGREE)
            elif verdict.is_self_consistency_disagreement:
                reasons.append(StateReason.SELF_CONSISTENCY_DISAGREEMENT)
            else:
                reasons.append(StateReason.ABSTAINED)
        elif not confident:
            reasons.append(StateReason.LOW_CONFIDENCE)
    if not reasons:
        reasons.append(StateReason.NOT_JUDGED)
    return StateDecision(ClaimState.UNVERIFIED, _riskiest(reasons, policy.risk_order))


# --- transitions -----------------------------------------------------------------

# The state is re-resolved from its inputs whenever they change, and a new verdict
# or binding may move a claim anywhere, so every move between different states is
# allowed; excluded may be restored to whatever the inputs re-resolve to. Same ->
# same is a no-op, not a transition: the writer must not append an event for it.
ALLOWED_TRANSITIONS: Final[Mapping[ClaimState, frozenset[ClaimState]]] = MappingProxyType(
    {frm: frozenset(s for s in ClaimState if s is not frm) for frm in ClaimState}
)


class IllegalTransition(ValueError):
    """Raised for a same-state no-op, an unknown state, or a move outside the table."""


def check_transition(frm: ClaimState | str, to: ClaimState | str) -> None:
    try:
        frm_state, to_state = ClaimState(frm), ClaimState(to)
    except ValueError as exc:
        raise IllegalTransition(f"unknown claim state in {frm!r} -> {to!r}") from exc
    if frm_state is to_state:
        raise IllegalTransition(f"{frm_state} -> {to_state} is a no-op, not a transition")
    if to_state not in ALLOWED_TRANSITIONS[frm_state]:
        raise IllegalTransition(f"{frm_state} -> {to_state} is not allowed")


# --- read-time re-check ----------------------------------------------------------

RECHECK_FRESH: Final = "fresh"
# Statuses meaning "there is no binding to re-check"; an inferred claim is inferred
# precisely because nothing is bound, so these do not demote it.
RECHECK_NOTHING_BOUND: Final[frozenset[str]] = frozenset({"none", "unbound"})


def demote_on_recheck(
    state: ClaimState, recheck_status: str
) -> tuple[ClaimState, StateReason | None]:
    """Apply a read-time Layer-1 re-check. Demotes, never promotes.

    A supported claim whose re-check is not ``fresh`` (hash_mismatch,
    offsets_out_of_range, span_lost, or its binding has gone) becomes
    unverified/stale_source. An inferred claim is demoted the same way when a
    binding it has fails; with nothing bound there is nothing to re-check. Other
    states are returned unchanged with reason ``None``.
    """
    if recheck_status == RECHECK_FRESH:
        return state, None
    if state is ClaimState.SUPPORTED or (
        state is ClaimState.INFERRED and recheck_status not in RECHECK_NOTHING_BOUND
    ):
        return ClaimState.UNVERIFIED, StateReason.STALE_SOURCE
    return state, None


# How the state events' causes that a reader tells apart begin (the review item's
# stale-item refusal says what changed from them, ``review.selectors.item``): each
# written once, here, for the services that write those causes and the reader.
CAUSE_UNDO: Final = "review: undo by "
CAUSE_REJUDGE: Final = "re-judge requested by "
CAUSE_EXCLUDED: Final = "excluded:"
CAUSE_RESTORED: Final = "restored"
CAUSE_NEW_VERSION: Final = "new version v"
CAUSE_RECHECK: Final = "read-time re-check:"
