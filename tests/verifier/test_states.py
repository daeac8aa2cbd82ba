"""The state function against a hand-written decision table, over every combination."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from verifier.states import (
    ALLOWED_TRANSITIONS,
    DEFAULT_POLICY,
    QUEUE_REASON_RISK_ORDER,
    QUEUE_REASONS,
    QUEUE_STATES,
    STRICT_MATCH_POLICY,
    UNRANKED,
    BindingStatus,
    ClaimState,
    IllegalTransition,
    StateDecision,
    StateInputs,
    StatePolicy,
    StateReason,
    VerdictInput,
    VerdictLabel,
    check_transition,
    demote_on_recheck,
    queue_risk_rank,
    resolve_state,
)

SUP, INF, UNV, CON, EXC = (
    ClaimState.SUPPORTED,
    ClaimState.INFERRED,
    ClaimState.UNVERIFIED,
    ClaimState.CONTRADICTED,
    ClaimState.EXCLUDED,
)
R = StateReason
FLOOR = 0.5
SC_NOTE = "Self-consistency disagreement: 2 of 5 samples entailed"

# Oracle: rows are what the judging verdict amounts to, columns what the binding
# amounts to under the policy. Written by hand from the spec, not derived from code.
#   bound     = fresh re-check and a match kind the policy accepts
#   loose     = fresh re-check but a match kind the policy rejects (fuzzy under strict)
#   unmatched = fresh status with no match kind recorded
BINDING_KINDS = ("bound", "loose", "unmatched", "stale", "none")
ENT, FUZ, NBS, STA = R.ENTAILED, R.FUZZY_ONLY, R.NO_BOUND_SPAN, R.STALE_SOURCE
LEG, SCD = R.LEGACY_AFFIRMED, R.SELF_CONSISTENCY_DISAGREEMENT
ABS, LOW, NJ, NOE = R.ABSTAINED, R.LOW_CONFIDENCE, R.NOT_JUDGED, R.NO_EVIDENCE
TABLE: dict[str, tuple[tuple[ClaimState, StateReason], ...]] = {
    #               bound           loose           unmatched       stale           none
    "pos":         ((SUP, ENT),     (INF, FUZ),     (INF, NBS),     (UNV, STA),     (INF, NBS)),
    "pos_legacy":  ((SUP, ENT),     (INF, FUZ),     (INF, LEG),     (UNV, STA),     (INF, LEG)),
    "neg":         ((CON, R.CONTRADICTED),) * 5,
    "gap":         ((UNV, R.COVERAGE_GAP),) * 5,
    "abst":        ((UNV, ABS),     (UNV, ABS),     (UNV, ABS),     (UNV, STA),     (UNV, ABS)),
    "sc":          ((UNV, SCD),     (UNV, SCD),     (UNV, SCD),     (UNV, STA),     (UNV, SCD)),
    "low":         ((UNV, LOW),     (UNV, LOW),     (UNV, LOW),     (UNV, STA),     (UNV, LOW)),
    "none_legacy": ((INF, LEG),     (INF, LEG),     (INF, LEG),     (UNV, STA),     (INF, LEG)),
    "none":        ((UNV, NJ),      (UNV, NJ),      (UNV, NJ),      (UNV, STA),     (UNV, NOE)),
}  # fmt: skip
HUMAN_REASON = {R.ENTAILED: R.HUMAN_SUPPORTED, R.CONTRADICTED: R.HUMAN_CONTRADICTED}


def verdict_kind(v: VerdictInput | None, legacy: bool, floor: float) -> str:
    if v is None:
        return "none_legacy" if legacy else "none"
    if v.label == "coverage_gap":
        return "gap"
    if v.label == "abstained":
        return "sc" if "consistency" in v.note.lower() else "abst"
    if v.confidence < floor:
        return "low"
    if v.label == "contradicted":
        return "neg"
    return "pos_legacy" if legacy else "pos"


def binding_kind(binding: str, match: str | None, policy: StatePolicy) -> str:
    if binding != "fresh":
        return binding
    if match is None:
        return "unmatched"
    return "bound" if match in policy.bound_match_kinds else "loose"


def oracle(inputs: StateInputs, policy: StatePolicy) -> StateDecision:
    if inputs.excluded:
        return StateDecision(EXC, R.EXCLUDED)
    judge = inputs.human_verdict or inputs.model_verdict
    kind = verdict_kind(judge, inputs.legacy_affirmed, policy.confidence_floor)
    column = BINDING_KINDS.index(binding_kind(inputs.binding, inputs.match, policy))
    state, reason = TABLE[kind][column]
    if inputs.human_verdict is not None:
        reason = HUMAN_REASON.get(reason, reason)
    return StateDecision(state, reason)


BINDINGS: tuple[BindingStatus, ...] = ("fresh", "stale", "none")
MATCHES = ("exact", "normalized", "fuzzy", None)
LABELS: tuple[VerdictLabel, ...] = ("entailed", "contradicted", "abstained", "coverage_gap")
CONFIDENCES = (FLOOR - 0.01, FLOOR, FLOOR + 0.01, 1.0)
MODEL_VERDICTS: list[VerdictInput | None] = [None] + [
    VerdictInput(label, conf, note)
    for label, conf, note in itertools.product(LABELS, CONFIDENCES, ("", SC_NOTE))
]
HUMAN_VERDICTS: list[VerdictInput | None] = [
    None,
    VerdictInput("entailed", 1.0),
    VerdictInput("entailed", 0.2),
    VerdictInput("contradicted", 1.0),
    VerdictInput("contradicted", FLOOR),
    VerdictInput("abstained", 1.0, "reviewer unsure"),
    VerdictInput("coverage_gap", 1.0),
]
POLICIES = (DEFAULT_POLICY, STRICT_MATCH_POLICY)

ALL_CASES = list(
    itertools.product(
        BINDINGS, MATCHES, MODEL_VERDICTS, HUMAN_VERDICTS, (False, True), (False, True), POLICIES
    )
)


def test_every_combination_matches_the_table() -> None:
    mismatches = []
    for binding, match, model, human, excluded, legacy, policy in ALL_CASES:
        inputs = StateInputs(binding, match, model, human, excluded, legacy)
        got, want = resolve_state(inputs, policy), oracle(inputs, policy)
        if got != want:
            mismatches.append((inputs, policy, got, want))
    assert len(ALL_CASES) == 3 * 4 * 33 * 7 * 2 * 2 * 2
    assert mismatches == []


@pytest.mark.parametrize(
    ("inputs", "policy", "expected"),
    [
        # The spec's sentences, one by one.
        (StateInputs("fresh", "exact", VerdictInput("entailed", 0.93), None, False, False),
         DEFAULT_POLICY, (SUP, R.ENTAILED)),
        (StateInputs("fresh", "exact", VerdictInput("entailed", 0.5), None, False, False),
         DEFAULT_POLICY, (SUP, R.ENTAILED)),
        (StateInputs("fresh", "exact", VerdictInput("entailed", 0.49), None, False, False),
         DEFAULT_POLICY, (UNV, R.LOW_CONFIDENCE)),
        (StateInputs("fresh", "fuzzy", VerdictInput("entailed", 0.9), None, False, False),
         DEFAULT_POLICY, (SUP, R.ENTAILED)),
        (StateInputs("fresh", "fuzzy", VerdictInput("entailed", 0.9), None, False, False),
         STRICT_MATCH_POLICY, (INF, R.FUZZY_ONLY)),
        (StateInputs("none", None, VerdictInput("entailed", 0.9), None, False, False),
         DEFAULT_POLICY, (INF, R.NO_BOUND_SPAN)),
        (StateInputs("stale", "exact", VerdictInput("entailed", 0.99), None, False, False),
         DEFAULT_POLICY, (UNV, R.STALE_SOURCE)),
        (StateInputs("none", None, None, None, False, True), DEFAULT_POLICY,
         (INF, R.LEGACY_AFFIRMED)),
        (StateInputs("fresh", "exact", None, None, False, True), DEFAULT_POLICY,
         (INF, R.LEGACY_AFFIRMED)),
        (StateInputs("none", None, None, None, False, False), DEFAULT_POLICY, (UNV, R.NO_EVIDENCE)),
        (StateInputs("fresh", "exact", None, None, False, False), DEFAULT_POLICY,
         (UNV, R.NOT_JUDGED)),
        (StateInputs("fresh", "exact", VerdictInput("abstained", 0.9), None, False, False),
         DEFAULT_POLICY, (UNV, R.ABSTAINED)),
        (StateInputs("fresh", "exact", VerdictInput("abstained", 0.0, SC_NOTE), None, False,
                     False), DEFAULT_POLICY, (UNV, R.SELF_CONSISTENCY_DISAGREEMENT)),
        (StateInputs("fresh", "exact", VerdictInput("coverage_gap", 0.0), None, False, False),
         DEFAULT_POLICY, (UNV, R.COVERAGE_GAP)),
        (StateInputs("fresh", "exact", VerdictInput("contradicted", 0.8), None, False, False),
         DEFAULT_POLICY, (CON, R.CONTRADICTED)),
        (StateInputs("fresh", "exact", VerdictInput("contradicted", 0.3), None, False, False),
         DEFAULT_POLICY, (UNV, R.LOW_CONFIDENCE)),
        (StateInputs("fresh", "exact", VerdictInput("entailed", 1.0), None, True, True),
         DEFAULT_POLICY, (EXC, R.EXCLUDED)),
        # Humans: precedence over the model, same rules.
        (StateInputs("fresh", "exact", VerdictInput("contradicted", 0.9),
                     VerdictInput("entailed", 1.0), False, False), DEFAULT_POLICY,
         (SUP, R.HUMAN_SUPPORTED)),
        (StateInputs("none", None, None, VerdictInput("entailed", 1.0), False, False),
         DEFAULT_POLICY, (INF, R.NO_BOUND_SPAN)),
        (StateInputs("fresh", "exact", VerdictInput("entailed", 0.99),
                     VerdictInput("contradicted", 1.0), False, False), DEFAULT_POLICY,
         (CON, R.HUMAN_CONTRADICTED)),
        (StateInputs("fresh", "exact", VerdictInput("entailed", 0.99),
                     VerdictInput("abstained", 1.0), False, False), DEFAULT_POLICY,
         (UNV, R.ABSTAINED)),
        # Several unverified reasons: the riskiest wins.
        (StateInputs("stale", "exact", VerdictInput("coverage_gap", 0.0), None, False, False),
         DEFAULT_POLICY, (UNV, R.COVERAGE_GAP)),
        (StateInputs("none", None, VerdictInput("abstained", 0.7), None, False, False),
         DEFAULT_POLICY, (UNV, R.ABSTAINED)),
        (StateInputs("stale", "exact", VerdictInput("contradicted", 0.9), None, False, False),
         DEFAULT_POLICY, (CON, R.CONTRADICTED)),
        # A custom floor.
        (StateInputs("fresh", "exact", VerdictInput("entailed", 0.7), None, False, False),
         StatePolicy(confidence_floor=0.8), (UNV, R.LOW_CONFIDENCE)),
    ],
)  # fmt: skip
def test_spec_examples(
    inputs: StateInputs, policy: StatePolicy, expected: tuple[ClaimState, StateReason]
) -> None:
    assert resolve_state(inputs, policy) == StateDecision(*expected)


@st.composite
def state_inputs(draw: st.DrawFn) -> StateInputs:
    verdicts = st.none() | st.builds(
        VerdictInput,
        st.sampled_from(LABELS),
        st.floats(0.0, 1.0),
        st.sampled_from(["", SC_NOTE, "other"]),
    )
    return StateInputs(
        binding=draw(st.sampled_from(BINDINGS)),
        match=draw(st.sampled_from([*MATCHES, "weird"])),
        model_verdict=draw(verdicts),
        human_verdict=draw(verdicts),
        excluded=draw(st.booleans()),
        legacy_affirmed=draw(st.booleans()),
    )


policies = st.builds(
    StatePolicy,
    st.floats(0.0, 1.0),
    st.frozensets(st.sampled_from(["exact", "normalized", "fuzzy"])),
)


@given(state_inputs(), policies)
def test_never_supported_without_fresh_accepted_binding_and_confident_entailment(
    inputs: StateInputs, policy: StatePolicy
) -> None:
    decision = resolve_state(inputs, policy)
    if decision.state is SUP:
        judge = inputs.human_verdict or inputs.model_verdict
        assert inputs.binding == "fresh"
        assert inputs.match in policy.bound_match_kinds
        assert judge is not None and judge.label == "entailed"
        assert judge.confidence >= policy.confidence_floor
        assert not inputs.excluded


@given(state_inputs(), policies)
def test_excluded_dominates(inputs: StateInputs, policy: StatePolicy) -> None:
    decision = resolve_state(inputs, policy)
    assert (decision.state is EXC) == inputs.excluded
    if inputs.excluded:
        assert decision.reason is R.EXCLUDED


@given(state_inputs(), policies)
def test_legacy_flag_never_promotes(inputs: StateInputs, policy: StatePolicy) -> None:
    with_flag = resolve_state(
        StateInputs(inputs.binding, inputs.match, inputs.model_verdict, inputs.human_verdict,
                    inputs.excluded, True), policy)  # fmt: skip
    without = resolve_state(
        StateInputs(inputs.binding, inputs.match, inputs.model_verdict, inputs.human_verdict,
                    inputs.excluded, False), policy)  # fmt: skip
    assert (with_flag.state is SUP) == (without.state is SUP)
    if inputs.model_verdict is None and inputs.human_verdict is None:
        assert with_flag.state is not SUP


@given(state_inputs(), policies)
def test_stale_binding_never_positive(inputs: StateInputs, policy: StatePolicy) -> None:
    if inputs.binding == "stale":
        assert resolve_state(inputs, policy).state not in (SUP, INF)


@given(state_inputs(), policies)
def test_queue_states_carry_queue_reasons(inputs: StateInputs, policy: StatePolicy) -> None:
    decision = resolve_state(inputs, policy)
    if decision.state in QUEUE_STATES and decision.reason != R.HUMAN_CONTRADICTED:
        assert decision.reason in QUEUE_REASONS
    if decision.state not in QUEUE_STATES:
        assert decision.reason not in QUEUE_REASONS


@given(state_inputs(), policies)
def test_deterministic(inputs: StateInputs, policy: StatePolicy) -> None:
    assert resolve_state(inputs, policy) == resolve_state(inputs, policy)


def test_queue_reason_values_are_exact() -> None:
    assert {r.value for r in QUEUE_REASONS} == {
        "abstained",
        "low_confidence",
        "coverage_gap",
        "contradicted",
        "stale_source",
        "no_evidence",
        "self_consistency_disagreement",
        "judge_reviewers_disagree",
        "not_judged",
    }
    assert [r.value for r in QUEUE_REASON_RISK_ORDER] == [
        "contradicted",
        "judge_reviewers_disagree",
        "coverage_gap",
        "stale_source",
        "low_confidence",
        "abstained",
        "self_consistency_disagreement",
        "no_evidence",
        "not_judged",
    ]
    assert {UNV, CON} == QUEUE_STATES
    assert [s.value for s in ClaimState] == [
        "supported",
        "inferred",
        "unverified",
        "contradicted",
        "excluded",
    ]


def test_a_calibrator_overruling_the_judge_queues_the_claim_as_a_disagreement() -> None:
    """A reviewer calibrator never overrules a judge that decided: its abstention marked
    ``judge_reviewers_disagree`` puts the claim in the queue under that reason, ranked
    right after a contradiction; a stale span still ranks first among the two."""
    note = "judge_reviewers_disagree: the judge said entailed 0.90; P 0.05, calibrator v1"
    inputs = StateInputs(
        binding="fresh",
        match="exact",
        model_verdict=VerdictInput("abstained", 0.0, note),
        human_verdict=None,
        excluded=False,
        legacy_affirmed=False,
    )
    assert resolve_state(inputs) == StateDecision(UNV, R.JUDGE_REVIEWERS_DISAGREE)
    assert queue_risk_rank(R.JUDGE_REVIEWERS_DISAGREE) == 1
    stale = StateInputs(**{**inputs.__dict__, "binding": "stale"})
    assert resolve_state(stale).reason is R.JUDGE_REVIEWERS_DISAGREE  # riskier than stale


def test_queue_risk_rank() -> None:
    ranks = [queue_risk_rank(r) for r in QUEUE_REASON_RISK_ORDER]
    assert ranks == sorted(ranks) == list(range(9))
    assert queue_risk_rank("human_contradicted") == queue_risk_rank(R.CONTRADICTED)
    assert queue_risk_rank(R.NOT_JUDGED) == 8  # last: waiting for the judge
    assert queue_risk_rank("nonsense") == UNRANKED
    # Another order ranks by its own places; the state function follows the policy's.
    order = ("abstained", "stale_source")
    assert [queue_risk_rank(r, order) for r in ("abstained", "stale_source", "contradicted")] == [
        0,
        1,
        UNRANKED,
    ]
    stale_abstained = StateInputs(
        binding="stale",
        match="exact",
        model_verdict=VerdictInput("abstained", 0.0),
        human_verdict=None,
        excluded=False,
        legacy_affirmed=False,
    )
    assert resolve_state(stale_abstained).reason is R.STALE_SOURCE
    assert resolve_state(stale_abstained, StatePolicy(risk_order=order)).reason is R.ABSTAINED


@pytest.mark.parametrize(("frm", "to"), list(itertools.product(ClaimState, ClaimState)))
def test_transitions(frm: ClaimState, to: ClaimState) -> None:
    if frm is to:
        assert to not in ALLOWED_TRANSITIONS[frm]
        with pytest.raises(IllegalTransition, match="no-op"):
            check_transition(frm, to)
    else:
        assert to in ALLOWED_TRANSITIONS[frm]
        check_transition(frm, to)
        check_transition(frm.value, to.value)


def test_everything_may_be_excluded_and_restored() -> None:
    for state in ClaimState:
        if state is not EXC:
            assert EXC in ALLOWED_TRANSITIONS[state]
            assert state in ALLOWED_TRANSITIONS[EXC]


def test_unknown_state_is_illegal() -> None:
    with pytest.raises(IllegalTransition):
        check_transition("supported", "approved")
    assert issubclass(IllegalTransition, ValueError)


@pytest.mark.parametrize(
    ("state", "status", "expected"),
    [
        (SUP, "fresh", (SUP, None)),
        (SUP, "hash_mismatch", (UNV, R.STALE_SOURCE)),
        (SUP, "offsets_out_of_range", (UNV, R.STALE_SOURCE)),
        (SUP, "span_lost", (UNV, R.STALE_SOURCE)),
        (SUP, "none", (UNV, R.STALE_SOURCE)),
        (INF, "fresh", (INF, None)),
        (INF, "span_lost", (UNV, R.STALE_SOURCE)),
        (INF, "hash_mismatch", (UNV, R.STALE_SOURCE)),
        (INF, "none", (INF, None)),
        (INF, "unbound", (INF, None)),
        (UNV, "fresh", (UNV, None)),
        (UNV, "hash_mismatch", (UNV, None)),
        (CON, "span_lost", (CON, None)),
        (CON, "fresh", (CON, None)),
        (EXC, "hash_mismatch", (EXC, None)),
    ],
)
def test_demote_on_recheck(
    state: ClaimState, status: str, expected: tuple[ClaimState, StateReason | None]
) -> None:
    assert demote_on_recheck(state, status) == expected


@given(st.sampled_from(list(ClaimState)), st.text(max_size=20))
def test_recheck_never_promotes(state: ClaimState, status: str) -> None:
    order = [EXC, CON, UNV, INF, SUP]  # higher index = more trusted
    new_state, _ = demote_on_recheck(state, status)
    assert order.index(new_state) <= order.index(state)


def test_local_no_bound_evidence_abstention_leaves_a_legacy_claim_inferred() -> None:
    no_span = VerdictInput(label="abstained", confidence=0.0, note="no_bound_evidence")
    legacy = StateInputs(
        binding="none",
        match=None,
        model_verdict=no_span,
        human_verdict=None,
        excluded=False,
        legacy_affirmed=True,
    )
    assert resolve_state(legacy) == StateDecision(ClaimState.INFERRED, StateReason.LEGACY_AFFIRMED)
    not_legacy = StateInputs(
        binding="none",
        match=None,
        model_verdict=no_span,
        human_verdict=None,
        excluded=False,
        legacy_affirmed=False,
    )
    # Nothing bound and the judge not asked: no evidence, never "the judge could not
    # decide" (auditor walk L3).
    assert resolve_state(not_legacy) == StateDecision(
        ClaimState.UNVERIFIED, StateReason.NO_EVIDENCE
    )
    # A real abstention on a claim with nothing bound still counts as the judge's.
    judged = StateInputs(
        binding="none",
        match=None,
        model_verdict=VerdictInput(label="abstained", confidence=0.4),
        human_verdict=None,
        excluded=False,
        legacy_affirmed=False,
    )
    assert resolve_state(judged) == StateDecision(ClaimState.UNVERIFIED, StateReason.ABSTAINED)
