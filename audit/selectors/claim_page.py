"""The audit console's claim page: everything it shows, with five live checks of the
claim's verification chain computed when the page is read."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any, Final

from review.selectors.item import verdict_notes_in_words
from review.verdict_words import note_in_words
from verifier import vocabulary
from verifier.binding import span_matches
from verifier.models import (
    Claim,
    EvidenceBinding,
    SourceVersion,
    StateEvent,
    TraceClaim,
    Verdict,
    Workspace,
)
from verifier.scoring.rulesets import validate_definition
from verifier.selectors.claim_state import BindingCheck, claim_state_inputs
from verifier.selectors.claims import claim_in_workspace_or_404
from verifier.selectors.permalinks import binding_permalink
from verifier.selectors.rules import ActiveRules, rule_set_active
from verifier.state_policy import state_policy
from verifier.states import (
    StateDecision,
    StateInputs,
    human_verdict_in_force,
    reason_in_words,
    resolve_state,
)

TRACES_ON_CLAIM_PAGE: Final = 50


@dataclass(frozen=True)
class Comparison:
    label: str
    expected: str
    found: str
    passed: bool | None = None


@dataclass
class LiveCheck:
    number: int
    title: str
    passed: bool | None  # None: nothing to check (shown as "n/a", never as a pass)
    summary: str
    comparisons: list[Comparison] = field(default_factory=list)

    @property
    def status(self) -> str:
        return "n/a" if self.passed is None else ("pass" if self.passed else "fail")


@dataclass
class ClaimAudit:
    claim: Claim
    bindings: list[EvidenceBinding]
    active_binding: EvidenceBinding | None
    inputs: StateInputs
    check: BindingCheck
    decision: StateDecision
    verdicts: list[Verdict]
    events: list[StateEvent]
    traces: list[TraceClaim]
    rules: ActiveRules
    checks: list[LiveCheck]
    timeline: list[dict[str, Any]]
    permalinks: dict[int, str]
    # The active span in its context, for the top of the page.
    span_context: SpanContext | None = None
    # The cited version's text no longer hashes to the SHA-256 recorded on the active
    # binding: it was changed behind the append-only store's back. The state inputs read
    # the stored hashes, so the state and "Why this state" cannot show it; the page says
    # it at the top (check 2 has the hashes).
    cited_text_altered: bool = False

    @property
    def reason_text(self) -> str:
        """Why the claim has its state, in the API's ``reason_text`` words."""
        return reason_in_words(self.claim.state_reason, quote=self.claim.submitted_quote)

    @property
    def model_note_words(self) -> str:
        """The latest model verdict's note in words ("The numbers differ: 2004 vs 1998."),
        never its code ("number_mismatch: 2004 vs 1998 (span 1)"): the review item's
        words for it (``note_in_words``); "" without a note."""
        verdict = self.inputs.model_verdict
        return note_in_words(verdict.note) if verdict is not None else ""


SPAN_CONTEXT_CHARS: Final = 240


@dataclass(frozen=True)
class SpanContext:
    """The active span with up to ``SPAN_CONTEXT_CHARS`` of source text either side:
    ``before + span + after`` is exactly a slice of the source version's text (nothing
    added, so what is copied from the quote is the source's); ``cut_before`` and
    ``cut_after`` say the source goes on beyond it (the page marks that outside the
    quoted text)."""

    before: str
    span: str
    after: str
    cut_before: bool
    cut_after: bool


def _span_context(binding: EvidenceBinding | None) -> SpanContext | None:
    if binding is None:
        return None
    text = binding.source_version.text
    if not (0 <= binding.start < binding.end <= len(text)):
        return None
    lo = max(0, binding.start - SPAN_CONTEXT_CHARS)
    hi = min(len(text), binding.end + SPAN_CONTEXT_CHARS)
    return SpanContext(
        before=text[lo : binding.start],
        span=text[binding.start : binding.end],
        after=text[binding.end : hi],
        cut_before=lo > 0,
        cut_after=hi < len(text),
    )


def _check_quote(binding: EvidenceBinding | None) -> LiveCheck:
    title = "The quote sits at its offsets in the cited source version"
    if binding is None:
        return LiveCheck(1, title, None, "No evidence span is bound, so there is nothing to find.")
    text = binding.source_version.text
    in_range = 0 <= binding.start < binding.end <= len(text)
    found = text[binding.start : binding.end] if in_range else ""
    matches = in_range and span_matches(binding.quote, found, binding.match)  # type: ignore[arg-type]
    return LiveCheck(
        1,
        title,
        matches,
        (
            f"Recomputed now: the text at [{binding.start}, {binding.end}) of "
            f"v{binding.source_version.number} "
            + ("matches the quote" if matches else "does NOT match the quote")
            + f" under the {binding.match} rule."
        ),
        [
            Comparison(
                "Offsets in range",
                f"0 ≤ {binding.start} < {binding.end} ≤ {len(text)}",
                "yes" if in_range else "no",
                in_range,
            ),
            Comparison(
                f"Quote vs text at offsets ({binding.match})", binding.quote, found, matches
            ),
        ],
    )


def _recomputed_sha256(binding: EvidenceBinding | None) -> str | None:
    """The SHA-256 of the bound version's text, recomputed now; ``None`` with no binding."""
    if binding is None:
        return None
    return hashlib.sha256(binding.source_version.text.encode("utf-8")).hexdigest()


def _check_hash(
    binding: EvidenceBinding | None, current: SourceVersion | None, recomputed: str | None
) -> LiveCheck:
    title = "The span's version is the current one and its text hashes to the recorded SHA-256"
    if binding is None or recomputed is None:
        return LiveCheck(2, title, None, "No evidence span is bound, so no version is cited.")
    version = binding.source_version
    hash_ok = recomputed == binding.source_hash
    # The state writer's rule: the span is current when the current version's text is the
    # text it was bound in (a later version may put the same text back: same SHA-256).
    same_text = (
        current is not None and current.pk != version.pk and current.sha256 == binding.source_hash
    )
    is_current = current is not None and (current.pk == version.pk or same_text)
    comparisons = [
        Comparison(
            "Recorded on the binding vs SHA-256 recomputed now",
            binding.source_hash,
            recomputed,
            hash_ok,
        ),
        Comparison(
            "Stored on the version", version.sha256, recomputed, version.sha256 == recomputed
        ),
        Comparison(
            "Cited version is the current version, or has its text",
            f"v{version.number}",
            (f"v{current.number}" + (" (the same text)" if same_text else ""))
            if current
            else "no version",
            is_current,
        ),
    ]
    passed = hash_ok and is_current
    if not hash_ok:
        summary = "The text of the cited version no longer hashes to the recorded value."
    elif not is_current:
        newer = f"v{current.number}" if current else "none"
        summary = (
            f"The span is bound to v{version.number}, but the source has a newer version "
            f"({newer}): the span is stale until it is bound to the current text again. "
            f"(The text of v{version.number} itself still hashes to the recorded value.)"
        )
    elif same_text and current is not None:
        summary = (
            f"Recomputed now: the span is bound to v{version.number}, and the current version "
            f"v{current.number} has the same text (the same SHA-256), so the span is current."
        )
    else:
        summary = "Recomputed now: the cited version is current and hashes to the recorded value."
    return LiveCheck(2, title, passed, summary, comparisons)


def _judging_verdict(verdicts: list[Verdict]) -> Verdict | None:
    human = human_verdict_in_force([v for v in verdicts if v.reviewer_id is not None])
    model = [v for v in verdicts if v.reviewer_id is None]
    return human or (model[0] if model else None)


def _check_verdicts(verdicts: list[Verdict]) -> LiveCheck:
    title = "Verdict history"
    floor = state_policy().confidence_floor
    judging = _judging_verdict(verdicts)
    if judging is None:
        return LiveCheck(3, title, None, "Not judged yet: no verdict is recorded.")
    passed = judging.label == "entailed" and judging.confidence >= floor
    by_person = judging.reviewer_id is not None
    # The one rule: a verdict that gave no answer, or a reviewer's decision, shows none.
    confidence = vocabulary.verdict_confidence(
        judging.label, judging.confidence, by_person=by_person
    )
    who = (
        f"reviewer {judging.reviewer.get_username()}"
        if judging.reviewer
        else f"reviewer calibrator v{judging.calibrator.version} of model {judging.judge_model}"
        if judging.calibrator is not None
        else f"model {judging.judge_model}"
    )
    if confidence is not None:
        found, floor_passed = vocabulary.confidence_percent(confidence), confidence >= floor
    else:
        found = "none: a reviewer's decision" if by_person else "none: the judge gave no answer"
        floor_passed = None
    return LiveCheck(
        3,
        title,
        passed,
        f"The judging verdict ({who}) is "
        f"{vocabulary.label('verdict', judging.label).lower()}"
        + (
            f" at confidence {vocabulary.confidence_percent(confidence)}"
            if confidence is not None
            else ""
        )
        + f"; {vocabulary.counted(len(verdicts), 'verdict')} recorded.",
        [
            Comparison(
                "Judging verdict",
                vocabulary.label("verdict", "entailed"),
                vocabulary.label("verdict", judging.label),
                judging.label == "entailed",
            ),
            Comparison(
                "Confidence vs policy floor",
                f"≥ {vocabulary.confidence_percent(floor)}",
                found,
                floor_passed,
            ),
        ],
    )


def _check_traces(traces: list[TraceClaim]) -> LiveCheck:
    title = "Traces that served this claim"
    if not traces:
        return LiveCheck(4, title, None, "No retrieval has considered this claim yet.")
    unexplained = [t for t in traces if not t.included and not t.exclusion_reason]
    included = sum(1 for t in traces if t.included)
    return LiveCheck(
        4,
        title,
        not unexplained,
        f"Considered by {len(traces)} trace(s): included in {included}, excluded from "
        f"{len(traces) - included}"
        + (
            "; every exclusion carries a reason."
            if not unexplained
            else f"; {vocabulary.counted(len(unexplained), 'exclusion')} "
            + ("has" if len(unexplained) == 1 else "have")
            + " no reason."
        ),
        [Comparison("Exclusions without a reason", "0", str(len(unexplained)), not unexplained)],
    )


def _check_rules(rules: ActiveRules) -> LiveCheck:
    errors = validate_definition(rules.definition)
    policy = rules.definition.policy(rules.policy)
    return LiveCheck(
        5,
        "Active rule set and policy thresholds",
        not errors,
        f"{rules.label}, policy {policy.name}: supported at overall ≥ "
        f"{policy.min_overall_score:.2f}, weak at ≥ {policy.weak_threshold:.2f}."
        + (f" Invalid: {'; '.join(errors)}" if errors else ""),
        [
            Comparison(
                "Policy minimum overall score", "in [0, 1]", f"{policy.min_overall_score:.2f}"
            ),
            Comparison("Policy weak threshold", "in [0, 1]", f"{policy.weak_threshold:.2f}"),
            Comparison(
                "Definition validates", "no errors", "; ".join(errors) or "no errors", not errors
            ),
        ],
    )


def claim_audit(*, workspace: Workspace, public_id: str) -> ClaimAudit:
    """Everything the claim page shows, with the five live checks computed now."""
    claim = claim_in_workspace_or_404(
        Claim.objects.select_related("source"), workspace=workspace, public_id=public_id
    )
    bindings = list(
        claim.bindings.select_related("source_version", "bound_by_user").order_by(
            "-is_active", "-created_at", "-id"
        )
    )
    active = next((b for b in bindings if b.is_active), None)
    inputs, check = claim_state_inputs(claim=claim)
    verdicts = list(claim.verdicts.select_related("reviewer", "calibrator").latest_first())
    notes = verdict_notes_in_words(verdicts)
    for v in verdicts:
        v.note_words = notes[v.pk]
    events = list(claim.state_events.select_related("actor").latest_first())
    traces = list(
        TraceClaim.objects.filter(claim=claim)
        .select_related("trace")
        .order_by("-trace__created_at", "-id")[:TRACES_ON_CLAIM_PAGE]
    )
    rules = rule_set_active(workspace=workspace, domain_pack=claim.source.domain_pack)
    recomputed = _recomputed_sha256(active)
    checks = [
        _check_quote(active),
        _check_hash(active, check.version, recomputed),
        _check_verdicts(verdicts),
        _check_traces(traces),
        _check_rules(rules),
    ]
    timeline: list[dict[str, Any]] = [
        {"at": v.at, "kind": "verdict", "human": v.reviewer_id is not None, "verdict": v}
        for v in verdicts
    ] + [{"at": e.at, "kind": "state", "human": e.actor_id is not None, "event": e} for e in events]
    timeline.sort(key=lambda row: row["at"], reverse=True)
    permalinks = {b.pk: binding_permalink(b) for b in bindings}
    for b in bindings:
        b.permalink = permalinks[b.pk]  # type: ignore[attr-defined]
    return ClaimAudit(
        claim=claim,
        bindings=bindings,
        active_binding=active,
        inputs=inputs,
        check=check,
        decision=resolve_state(inputs, state_policy()),
        verdicts=verdicts,
        events=events,
        traces=traces,
        rules=rules,
        checks=checks,
        timeline=timeline,
        permalinks=permalinks,
        span_context=_span_context(active),
        cited_text_altered=(
            active is not None and recomputed is not None and recomputed != active.source_hash
        ),
    )
