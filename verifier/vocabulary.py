"""The console's one vocabulary: every code a person reads, with its label and what it means.

Codes (``human_supported``, ``unsupported:drift``, ``srmkg_reject``) stay what the API and
the exports carry as fields; people read the label beside them, and the glossary page,
the exports' header notes and the API documentation all read this table. A code missing
here is shown as itself with its underscores as spaces, never hidden.

Confidence is shown one way everywhere: :func:`confidence_percent` ("84 %"). A verdict
that gave no answer (an abstention, a coverage gap, a withdrawn decision) has no
confidence to show (:data:`ANSWER_VERDICTS`), and neither has a reviewer's decision
(:func:`verdict_confidence`).

Pure Python (no Django): the pure cores' rule applies (``tests/test_import_contracts.py``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Final

from verifier.scoring.rulesets import CORE_V1
from verifier.scoring.trust import TRUST_FACTOR_LABELS
from verifier.states import REASON_DESCRIPTIONS, ClaimState, StateReason


@dataclass(frozen=True)
class Term:
    """One code with its label (a few words) and its explanation (one sentence)."""

    code: str
    label: str
    explanation: str


def _table(rows: tuple[tuple[str, str, str], ...]) -> Mapping[str, Term]:
    return MappingProxyType({code: Term(code, label, text) for code, label, text in rows})


# The five claim states (seed 000, "What verified means").
STATES: Final = _table(
    (
        (
            ClaimState.SUPPORTED,
            "Supported",
            "A quoted span sits at exact offsets in the cited source version, and the judge "
            "or a reviewer found that it states the claim.",
        ),
        (
            ClaimState.INFERRED,
            "Inferred",
            "Taken to follow without a span that shows it: the judge or a reviewer found it "
            "follows but no span of the cited source is bound to it closely enough, or an "
            "earlier system affirmed it; always shown as an inference.",
        ),
        (
            ClaimState.UNVERIFIED,
            "Unverified",
            "The judge could not decide, was not confident enough, or no evidence could be "
            "bound; it waits in the review queue. Also the state of a claim a reviewer found "
            "the source does not state (it then leaves the queue).",
        ),
        (
            ClaimState.CONTRADICTED,
            "Contradicted",
            "The cited evidence states the opposite; kept out of strict retrieval and "
            "reviewed by a person.",
        ),
        (
            ClaimState.EXCLUDED,
            "Excluded",
            "Taken out of use by a person or by remediation; reversible, with its record and "
            "history kept.",
        ),
    )
)

# Why a claim has its state. The one-line explanations are ``verifier.states``'s.
_REASON_LABELS: Final[Mapping[str, str]] = {
    StateReason.ABSTAINED: "Judge undecided",
    StateReason.LOW_CONFIDENCE: "Judge unsure",
    StateReason.COVERAGE_GAP: "No answer from the judge",
    StateReason.CONTRADICTED: "Contradicted by the span",
    StateReason.STALE_SOURCE: "Source changed",
    StateReason.NO_EVIDENCE: "No evidence found",
    StateReason.SELF_CONSISTENCY_DISAGREEMENT: "Judge inconsistent",
    StateReason.JUDGE_REVIEWERS_DISAGREE: "Judge and reviewers disagree",
    StateReason.ENTAILED: "Span supports it (judge)",
    StateReason.NO_BOUND_SPAN: "No span bound",
    StateReason.FUZZY_ONLY: "Only a loose match",
    StateReason.LEGACY_AFFIRMED: "Affirmed by an earlier system",
    StateReason.EXCLUDED: "Excluded",
    StateReason.NOT_JUDGED: "Not judged yet",
    StateReason.HUMAN_SUPPORTED: "Confirmed by a reviewer",
    StateReason.HUMAN_CONTRADICTED: "Contradicted by a reviewer",
    StateReason.HUMAN_NOT_STATED: "Not stated by the source (reviewer)",
}
REASONS: Final = _table(
    tuple(
        (str(reason), _REASON_LABELS[reason], REASON_DESCRIPTIONS[StateReason(reason)])
        for reason in _REASON_LABELS
    )
)

# A verdict's answer: the judge's (a model or a person) about one bound span.
VERDICTS: Final = _table(
    (
        ("entailed", "Supports", "The judge found that the span states the claim."),
        ("contradicted", "Contradicts", "The judge found that the span states the opposite."),
        ("abstained", "No answer", "The judge could not decide either way; a person reviews it."),
        (
            "coverage_gap",
            "Judge failed",
            "The judge was unreachable or left the claim out of its answer; recorded as no "
            "answer, never as a pass.",
        ),
        (
            "withdrawn",
            "Decision withdrawn",
            "The reviewer undid their own decision; the decision before it applies again.",
        ),
        (
            "not_stated",
            "Not stated",
            "A reviewer found that the source does not state the claim, nor its opposite.",
        ),
    )
)
# Verdicts that answer the question, so their confidence means something.
ANSWER_VERDICTS: Final = frozenset({"entailed", "contradicted"})

# How a quote was found in the cited source (Layer 1).
MATCHES: Final = _table(
    (
        ("exact", "Exact", "The quote is in the source character for character."),
        (
            "normalized",
            "Normalized",
            "Found once spacing, case, curly quotes and dashes are folded; the offsets point "
            "at the original text.",
        ),
        (
            "fuzzy",
            "Fuzzy",
            "Found only approximately, with its similarity score; never hidden as exact.",
        ),
    )
)

# What the read-time re-check of a bound span found (Layer 1, ``verifier.binding``).
RECHECKS: Final = _table(
    (
        (
            "fresh",
            "Span is current",
            "The span is bound to the source's current version and the quote is still at its "
            "offsets.",
        ),
        (
            "hash_mismatch",
            "Source has a newer version",
            "The span is bound to an earlier version of the source: the source's current "
            "version has other text (another SHA-256), so the span must be checked again.",
        ),
        (
            "offsets_out_of_range",
            "Offsets outside the text",
            "The span's offsets lie outside the text of the source's current version.",
        ),
        (
            "span_lost",
            "Quote no longer at its offsets",
            "The text at the span's offsets no longer matches the quote.",
        ),
    )
)

# What a trace records: the door (operation) that served or checked claims.
OPERATIONS: Final = _table(
    (
        ("retrieve", "Retrieval", "POST /connect/v1/retrieve: context served to an application."),
        (
            "retrieve_context",
            "Graph: context",
            "POST /connect/v1/graph retrieve_context: claims found for a query.",
        ),
        (
            "expand_context",
            "Graph: expanded context",
            "POST /connect/v1/graph expand_context: claims found, then their neighbours.",
        ),
        (
            "find_relevant_subgraph",
            "Graph: relevant subgraph",
            "POST /connect/v1/graph find_relevant_subgraph: the claims and relations around "
            "a query.",
        ),
        (
            "find_paths",
            "Graph: paths",
            "POST /connect/v1/graph find_paths: how given claims connect.",
        ),
        (
            "summarise_subgraph",
            "Graph: summary",
            "POST /connect/v1/graph summarise_subgraph: a subgraph with its counts.",
        ),
        (
            "claims_verify",
            "Claims verified",
            "Claims an application sent to be verified (claims/verify, the API or the console).",
        ),
        (
            "worker_verify",
            "Claim checked against the corpus",
            "One free-text claim weighed against the whole corpus (the claim worker).",
        ),
        ("rag_audit", "Answer audit", "A RAG answer's claims checked against its chunks."),
        ("memory_verify", "Memory check", "An agent's claims about what it said, checked."),
    )
)

# Why a trace left a claim out of what it served.
EXCLUSIONS: Final = _table(
    (
        (
            "verification_gate",
            "Held back by the verification policy",
            "Its state, or a flag on it, is not one the request's verification policy serves.",
        ),
        (
            "confidence_gate",
            "Trust score below the policy's floor",
            "Its trust score is under the minimum the request's policy asked for.",
        ),
        ("duplicate", "Duplicate", "Another claim served says the same thing."),
        ("budget", "Over the claim budget", "The response already held as many claims as asked."),
        (
            "below_top_k",
            "Not among the top evidence",
            "Weighed, but ranked below the evidence the verdict used.",
        ),
    )
)

# A job's trust score factors (``verifier.scoring.trust``): the Quality page's labels.
_FACTOR_EXPLANATIONS: Final[Mapping[str, str]] = {
    "embedding_coverage": "The share of the job's claims that have an embedding.",
    "verification_coverage": "The share of the job's claims the judge verified.",
    "orphan_rate": "The share of the job's claims related to at least one other claim.",
    "vector_index": "Whether the vector index exists and retrieval uses it.",
    "relation_health": "How dense the relations are and how few contradict each other.",
    "issue_penalty": "How few high-severity issues the job left.",
}
FACTORS: Final = _table(
    tuple(
        (code, text, _FACTOR_EXPLANATIONS.get(code, ""))
        for code, text in TRUST_FACTOR_LABELS.items()
    )
)

# The six quality dimensions a rule set weighs (``verifier.scoring.rulesets``): the Rules
# page, the rule-set form and its comparisons read these words, never the keys. The
# explanation is the built-in rule set's description of the dimension.
_DIMENSION_LABELS: Final[Mapping[str, str]] = {
    "logical_structure": "Logical structure",
    "evidence_grounding": "Evidence grounding",
    "counterargument_coverage": "Counterargument coverage",
    "scope_calibration": "Scope calibration",
    "assumption_transparency": "Assumption transparency",
    "internal_consistency": "Internal consistency",
}
DIMENSIONS: Final = _table(
    tuple((dim.key, _DIMENSION_LABELS[dim.key], dim.description) for dim in CORE_V1.dimensions)
)

# The events a webhook can be sent (``verifier.models.WebhookEvent``): the codes are what a
# receiver finds in a delivery's ``event`` field; the webhooks page shows these words.
WEBHOOK_EVENTS: Final = _table(
    (
        (
            "job.completed",
            "Ingest job finished",
            "An ingest job finished; the delivery carries its report.",
        ),
        (
            "job.quality_below_threshold",
            "Quality below the bar",
            "An ingest job that added claims finished with a trust score below the "
            "webhook's threshold, or failed the G2 gate.",
        ),
        (
            "verification.completed",
            "Verification finished",
            "A background verification job finished; the delivery carries its counts and "
            "where to read its results.",
        ),
    )
)

# How a webhook's delivery went (``WebhookDelivery.status``, written by
# ``verifier.services.webhooks``): the webhooks page's "Latest delivery".
WEBHOOK_DELIVERIES: Final = _table(
    (
        ("pending", "Waiting to be sent", "Queued; its first try has not been made yet."),
        (
            "retrying",
            "Failed, trying again",
            "A try failed (no answer, or an answer other than 2xx); it is tried again "
            "with backoff.",
        ),
        ("delivered", "Delivered", "The receiver answered with a 2xx status."),
        (
            "failed",
            "Failed, given up",
            "Every try failed, or the URL was refused; it is not tried again.",
        ),
        (
            "cancelled",
            "Cancelled",
            "The webhook was turned off before the delivery was made; nothing more is sent.",
        ),
    )
)

# Outcomes of the other front doors: memory checks (seed 002), RAG answer audits
# (seed 003) and relation review (seed 004).
OUTCOMES: Final = _table(
    (
        (
            "supported:exact",
            "Said, word for word",
            "The agent's earlier turn says it verbatim.",
        ),
        (
            "supported:paraphrase",
            "Said, in other words",
            "An earlier turn of the agent says the same thing in other words.",
        ),
        (
            "unsupported:drift",
            "Said differently",
            "An earlier turn is close, but a detail that matters changed (time, scope, "
            "certainty, a condition, a number or who said it).",
        ),
        (
            "unsupported:no_match",
            "Never said",
            "No earlier turn of the agent says anything like it.",
        ),
        (
            "inconclusive:insufficient",
            "Not enough transcript",
            "It could not be checked: the transcript lacks the turns it needs, has none of "
            'the agent\'s, or the claim is not an explicit "I said" (see the reason).',
        ),
        (
            "inconclusive:conflict",
            "Conflicting turns",
            "Earlier turns of the agent say different things about it.",
        ),
        ("supported", "Supported", "A chunk states the claim."),
        ("partial", "Partly supported", "A chunk states part of the claim; the rest is not."),
        ("unsupported", "Unsupported", "No chunk states the claim."),
        ("contradicted", "Contradicted", "A chunk states the opposite of the claim."),
        ("faithful", "Faithful", "Every claim of the answer is supported by the chunks."),
        (
            "unfaithful",
            "Unfaithful",
            "At least one claim of the answer is unsupported by the chunks or contradicted.",
        ),
        ("pending", "Waiting", "Not verified yet."),
        ("accepted", "Accepted", "The relation feeds graph expansion."),
        ("rejected", "Rejected", "The relation is kept out of graph expansion."),
    )
)

# Why a memory check could not be checked (``inconclusive:insufficient``'s ``reason``).
MEMORY_REASONS: Final = _table(
    (
        (
            "out_of_scope",
            "Out of scope",
            'Only an explicit "I said …" of the agent is checked; this claim is implicit, '
            "undeclared, or about what the other party said.",
        ),
        (
            "agent_not_in_transcript",
            "Agent not in transcript",
            "The transcript has no turn by this agent: check the agent's name.",
        ),
        ("no_transcript", "No transcript", "No transcript was given to check it against."),
        (
            "coverage_incomplete",
            "Not enough transcript",
            "Turns are missing from the transcript where the claim would be found.",
        ),
    )
)

# The kinds of memory claim (``MemoryCheck.claim_type``, verifier/memory/detection.py).
MEMORY_LANES: Final = _table(
    (
        (
            "verbatim",
            "Verbatim",
            'The agent quotes its own words: "I said \'…\'", "My exact words were".',
        ),
        ("summarized", "Summarized", 'The agent sums up what it said: "I mentioned that…".'),
        ("implicit", "Implicit", 'An allusion such as "as discussed": not checked.'),
        ("undeclared", "Undeclared", 'No explicit "I said" claim: not checked.'),
    )
)

# The material drift a memory check finds between a claim and the turn (its categories,
# verifier/memory/drift.py ``DRIFT_CATEGORIES``).
DRIFT_CATEGORIES: Final = _table(
    (
        ("temporal_shift", "Time changed", "The claim gives another time or day than the turn."),
        (
            "confidence_shift",
            "Certainty changed",
            "The claim is surer or less sure than the turn: a hedge dropped or certainty added.",
        ),
        (
            "scope_shift",
            "Scope changed",
            "The claim covers more or less than the turn: another quantity or deliverable.",
        ),
        (
            "conditionality_removed",
            "Condition dropped",
            "The turn said it held only under a condition; the claim leaves the condition out.",
        ),
        (
            "precision_added",
            "Detail added",
            "The claim is more precise than the turn: a clock time, a timeframe or a number "
            "the turn did not give.",
        ),
        (
            "actor_shift",
            "Speaker changed",
            "The claim swaps who said it, or to whom, from the turn.",
        ),
    )
)

# Relation verification levels (seed 004): which check decided a relation.
LEVELS: Final = _table(
    (
        (
            "srmkg_accept",
            "Accepted by the graph check",
            "Its graph score (base confidence, shared neighbours, a named type) reached the "
            "accept threshold.",
        ),
        (
            "srmkg_reject",
            "Rejected by the graph check",
            "Its graph score fell below the reject threshold.",
        ),
        (
            "srmkg_cap",
            "Accepted unchecked (judge budget spent)",
            "Borderline, but the cycle's judge calls were used up, so it was accepted at its "
            "graph score; a person should look.",
        ),
        (
            "vog_grounded",
            "Grounded (judge)",
            "The judge read both claims' evidence and found it supports the relation.",
        ),
        (
            "vog_partial",
            "Partly grounded (judge)",
            "The judge found the evidence supports the relation only in part.",
        ),
        (
            "vog_rejected",
            "Not grounded (judge)",
            "The judge found the evidence does not support the relation.",
        ),
        (
            "vog_no_evidence",
            "Rejected: no evidence to read",
            "Neither claim had text the judge could read, so it cannot be grounded.",
        ),
        (
            "vog_unavailable",
            "Rejected: judge unavailable",
            "The judge did not answer; the relation is rejected rather than passed.",
        ),
        ("reviewer", "Decided by a reviewer", "A person accepted or rejected the relation."),
    )
)

# The claim worker's verdict on one free-text claim (``POST /worker/verify``, seed 001).
WORKER_VERDICTS: Final = _table(
    (
        (
            "TRUE",
            "True",
            "The corpus's evidence supports every part of the claim and passed the worker's "
            "gates (trust, anchors, predicate, hedging).",
        ),
        (
            "FALSE",
            "False",
            "Confident evidence from the corpus contradicts the claim.",
        ),
        (
            "PARTIALLY_TRUE",
            "Partly true",
            "The evidence supports part of the claim; the rest is contradicted or not stated.",
        ),
        (
            "UNVERIFIABLE",
            "Cannot be verified",
            "The evidence found neither supports nor contradicts the claim clearly enough to "
            "decide.",
        ),
    )
)

# The status of one part (subclaim) of a claim in the claim worker's breakdown.
SEGMENTS: Final = _table(
    (
        (
            "STRONGLY_VALID",
            "Strongly supported",
            "Two or more evidence items, or one very confident one, state this part.",
        ),
        ("VALID", "Supported", "An evidence item states this part."),
        (
            "PARTIALLY_VALID",
            "Mixed, leaning supported",
            "Evidence both states and contradicts this part; the support is the stronger.",
        ),
        ("UNKNOWN", "Undecided", "No evidence item states or contradicts this part."),
        (
            "PARTIALLY_INVALID",
            "Mixed, leaning contradicted",
            "Evidence both states and contradicts this part; the contradiction is the stronger.",
        ),
        ("INVALID", "Contradicted", "Evidence contradicts this part and none states it."),
    )
)

# How the claim worker answered a request (its ``status``).
WORKER_STATUSES: Final = _table(
    (
        (
            "completed",
            "Verified now",
            "The claim was ranked, judged and decided against the corpus for this request.",
        ),
        (
            "completed_from_cache",
            "Earlier answer reused",
            "The same claim was verified before against exactly this evidence; that answer "
            "was given again.",
        ),
    )
)

# Why the claim worker did or did not reuse an earlier answer (its ``cache.reason``):
# the first gate of the cache precheck that failed, or ``hit``.
WORKER_CACHE: Final = _table(
    (
        (
            "hit",
            "Reused",
            "A recent, confident True or False answer to the same claim, given on the same "
            "evidence by the same judge and mode, was reused.",
        ),
        (
            "trust_insufficient",
            "Not looked up: trust not sufficient",
            "No earlier answer is reused while the evidence found now does not pass the "
            "trust gates.",
        ),
        ("no_cached_result", "No earlier answer", "This claim was not verified here before."),
        ("expired", "Earlier answer too old", "The earlier answer is more than a day old."),
        (
            "judge_changed",
            "Judge changed since",
            "The earlier answer came from another judge model.",
        ),
        (
            "mode_changed",
            "Trust policy mode changed",
            "The earlier answer was given under the other trust policy mode.",
        ),
        (
            "evidence_changed",
            "Evidence changed since",
            "The evidence found now is not the evidence, in the same order, that the "
            "earlier answer rested on.",
        ),
        (
            "not_binary",
            "Earlier answer neither true nor false",
            "Only a True or False answer is reused.",
        ),
        (
            "low_confidence",
            "Earlier answer not confident enough",
            "The earlier answer's confidence is below 60 %, the least a reused answer needs.",
        ),
        (
            "state_disagrees",
            "Stored claim's state changed",
            "The stored claim's state no longer matches the earlier answer (a reviewer or a "
            "re-check changed it).",
        ),
    )
)

# The claim worker's trust policy modes (``trust_policy_mode``).
WORKER_TRUST_MODES: Final = _table(
    (
        (
            "adaptive",
            "Adaptive",
            "The normal trust gates: at least three evidence items for the strict gates, "
            "with the adaptive overrides for fewer but strong or relevant items.",
        ),
        (
            "confidence",
            "Confidence",
            "Lower trust gates: two items that cover part of the claim and agree can be enough.",
        ),
    )
)

# Which of the claim worker's trust gates decided whether the evidence suffices
# (its ``trust_route``), in the order they are tried.
WORKER_ROUTES: Final = _table(
    (
        ("no_evidence", "No evidence", "No evidence item was found, so trust cannot suffice."),
        (
            "low_count_override",
            "Few items, diverse and relevant",
            "Fewer items than the minimum, but from diverse sources and relevant enough to "
            "suffice.",
        ),
        (
            "confidence_mode",
            "Confidence mode's gate met",
            "In confidence mode: enough items cover enough of the claim and agree.",
        ),
        (
            "adaptive_override",
            "Adaptive gate met",
            "No part of the claim is contradicted, and the items cover it from diverse "
            "sources, cover a part strongly, or are highly relevant.",
        ),
        (
            "strict_high_coverage",
            "High coverage and agreement",
            "Enough items cover most of the claim and agree.",
        ),
        (
            "strict_medium_coverage",
            "Medium coverage, diverse and agreeing",
            "Enough items cover part of the claim, from diverse sources, and agree.",
        ),
        (
            "gates_not_met",
            "Gates not met",
            "Enough items, but their coverage, diversity or agreement fell short.",
        ),
        (
            "below_min_evidence",
            "Too few items",
            "Fewer evidence items than the minimum, not diverse or relevant enough to make "
            "up for it.",
        ),
        (
            "weak_relevance_guard",
            "Evidence too weakly relevant",
            "A gate was met, but the trust, the best similarity and the best item's trust "
            "are all so low that the evidence is not taken as sufficient.",
        ),
    )
)

# How far the claim worker trusts the evidence (its ``trust_verdict_state``): it grades
# the evidence, not the verdict.
WORKER_TRUST_STATES: Final = _table(
    (
        (
            "confirmed",
            "Confirmed",
            "The evidence suffices and its trust score is 0.8 or more.",
        ),
        (
            "provisional",
            "Provisional",
            "The evidence suffices and its trust score is from 0.6 to under 0.8.",
        ),
        (
            "revoked",
            "Low trust",
            "The evidence passed a trust gate, but its trust score is under 0.6; the verdict "
            "stands, with less confidence.",
        ),
        (
            "evidence_insufficiency",
            "Evidence not sufficient",
            "The evidence passed none of the trust gates.",
        ),
    )
)

# Where one evidence item stands on the claim in the claim worker's answer.
WORKER_STANCES: Final = _table(
    (
        ("supports", "Supports", "The judge found the item states a part of the claim."),
        (
            "contradicts",
            "Contradicts",
            "The judge found the item contradicts a part of the claim.",
        ),
        (
            "neutral",
            "Takes no side",
            "The judge found the item neither states nor contradicts any part of the claim.",
        ),
    )
)

# What raised or lowered one evidence item's ranking score (its ``adjustments``).
WORKER_ADJUSTMENTS: Final = _table(
    (
        (
            "boost_kg_overlap",
            "Raised: graph signal",
            "The knowledge graph links the item to the claim and they share words.",
        ),
        (
            "boost_entity_kg",
            "Raised: graph and named entities",
            "The graph links the item to the claim and it names the claim's entities.",
        ),
        (
            "boost_kg_anchor",
            "Raised: graph item with the anchors",
            "A graph item, strongly linked, that mentions the claim's names and numbers.",
        ),
        (
            "multihop_kg_hint_capped",
            "Graph raise capped: indirect link",
            "The graph reached the item only through another claim's relation, so its "
            "raise is capped.",
        ),
        (
            "boost_negation_anchor",
            "Raised: negated like the claim",
            "The claim is negated, and so is the item, about the claim's own names and numbers.",
        ),
        (
            "anchor_weak",
            "Lowered: few of the anchors",
            "The item mentions few of the claim's names and numbers.",
        ),
        (
            "backfill_weak",
            "Lowered: weak word match",
            "Found by word search alone, and it shares few of the claim's words.",
        ),
        (
            "object_mismatch",
            "Lowered: another object",
            "The item is about the claim's subject but names another number or entity "
            "where the claim's object (its last number or named entity) should be.",
        ),
        (
            "focus_mismatch",
            "Lowered: says something else",
            "The item shares the claim's names but none of the words of what the claim "
            "says of them.",
        ),
        (
            "subject_mismatch",
            "Lowered: another subject",
            "The item shares words with the claim but never mentions its subject.",
        ),
        (
            "relation_object_mismatch",
            "Lowered: graph leads elsewhere",
            "The graph relation the item was found through ends at something the claim "
            "does not name.",
        ),
        (
            "reporting_style",
            "Lowered: reports what was said",
            "The item reports what someone said or believes, while the claim states a fact.",
        ),
        (
            "uncertainty",
            "Lowered: uncertain wording",
            "The item hedges (may, likely, reportedly), while the claim is assertive.",
        ),
        (
            "floor",
            "Raised to the floor",
            "A highly credible item with no similarity or graph signal is kept at the least score.",
        ),
    )
)

# Why the claim worker's gates changed the verdict the judge's stances proposed (its
# ``reconciliation_reasons``).
WORKER_RECONCILIATIONS: Final = _table(
    (
        (
            "strong_contradiction_forced_false",
            "Strong contradiction: False",
            "Confident contradiction of most of the claim, with enough coverage or "
            "diversity, made the verdict False.",
        ),
        (
            "mixed_signal_band",
            "Support and contradiction too close",
            "The best support and the best contradiction are nearly equal, so the claim "
            "cannot be verified.",
        ),
        (
            "binary_gate_false_weak",
            "Contradiction too weak for False",
            "False needs a confident contradiction of most parts from diverse sources.",
        ),
        (
            "binary_gate_trust_insufficient",
            "Trust not sufficient for True",
            "True needs evidence that passes a trust gate.",
        ),
        (
            "binary_gate_anchor",
            "Anchors missing for True",
            "True needs evidence that mentions the claim's names and numbers.",
        ),
        (
            "binary_gate_predicate",
            "What is said of it missing for True",
            "True needs evidence that says what the claim says of its subject.",
        ),
        (
            "hedged_evidence_blocks_true",
            "Hedged evidence",
            "Too much of the evidence hedges for the verdict to be True.",
        ),
        (
            "absolute_quantifier_guard",
            "All or none needs every part strongly supported",
            "A claim about all or none is True only when every part is strongly supported, "
            "and is never Partly true.",
        ),
        (
            "very_strict_claim_needs_strong_support",
            "Very exacting claim needs strong support",
            "A very exacting claim (numbers, comparisons, several names) is True only when "
            "every part is strongly supported.",
        ),
    )
)

# The counts of the claim worker's first diagnostic step (``analysis_counts``).
WORKER_COUNTS: Final = _table(
    (
        ("subclaims", "Parts of the claim", "The parts the claim was split into."),
        ("evidence", "Evidence items", "The evidence items ranked for the claim."),
        (
            "admissible_evidence",
            "Admissible items",
            "Evidence items the judge found to state or contradict a part of the claim.",
        ),
        (
            "admissible_evidence_ratio",
            "Share admissible",
            "Admissible items as a share of all the evidence items (0 to 1).",
        ),
        ("supporting_evidence", "Supporting items", "Items that state a part of the claim."),
        (
            "contradicting_evidence",
            "Contradicting items",
            "Items that contradict a part of the claim.",
        ),
        (
            "unresolved_segments",
            "Undecided parts",
            "Parts of the claim no item states or contradicts.",
        ),
        (
            "contradicted_segments",
            "Contradicted parts",
            "Parts of the claim the evidence contradicts more than it states.",
        ),
        (
            "strong_covered_subclaims",
            "Strongly covered parts",
            "Parts a confident, relevant item takes a side on.",
        ),
    )
)

# Where an ingest job is (``verifier.models.IngestStatus``, whose labels are these): the
# job pages, the job list and the command's progress read these words.
INGEST_STATUSES: Final = _table(
    (
        ("queued", "Queued", "Not taken by a worker yet: its first stage is still to start."),
        ("running", "Running", "A worker runs its stages, one after the other."),
        ("succeeded", "Succeeded", "Every stage ran; its claims are published."),
        (
            "degraded",
            "Degraded",
            "Finished, but part of the verification did not happen (the judge was "
            "unreachable, say): its warnings say how many claims and why.",
        ),
        ("failed", "Failed", "Stopped by an error it could not get past; its errors say which."),
        (
            "cancelled",
            "Cancelled",
            "Stopped by a person; what it had stored stays, the claims it had not judged are "
            "excluded.",
        ),
    )
)

# The stages of an ingest job, in the order they run (``verifier.models.IngestStage``,
# whose labels are these).
INGEST_STAGES: Final = _table(
    (
        ("extract", "Extract", "Claims are taken from the uploaded sources, or read as sent."),
        ("relate", "Relate", "Entities and relations between the claims are proposed."),
        ("group", "Group", "Near-duplicate claims are grouped under the earliest one."),
        ("embed", "Embed", "Each claim gets the sentence embedding search reads."),
        (
            "validate",
            "Validate",
            "Each claim's quote is bound in its source and the judge reads the span.",
        ),
        (
            "remediate",
            "Remediate",
            "One repair pass for claims left weak or unsupported.",
        ),
        (
            "store",
            "Store",
            "The relations are verified and the claims published, with the quality report.",
        ),
    )
)

# A member's role in a workspace (``verifier.models.Role``, whose labels are these): the
# members page, its form, the header and the activity log read these words.
ROLES: Final = _table(
    (
        (
            "reviewer",
            "Reviewer",
            "Decides the claims in the review queue and may add work (sources, ingest jobs, "
            "checks); the admin pages are closed to a reviewer.",
        ),
        (
            "auditor",
            "Auditor",
            "Reads what the workspace holds and served, and exports it (lists, audit packs); "
            "decides, adds and changes nothing.",
        ),
        (
            "admin",
            "Admin",
            "Everything a reviewer may do, and manages members, API keys, webhooks, rule sets "
            "and calibrators.",
        ),
    )
)

# What an API key may do (``verifier.models.ApiScope``, whose labels are these); each scope
# includes the ones before it.
API_KEY_SCOPES: Final = _table(
    (
        (
            "read",
            "Read",
            "GET endpoints, retrieval and graph queries: the key reads, it changes nothing.",
        ),
        (
            "write",
            "Write",
            "Also adds work: sources, ingest jobs, claim verification, RAG audits and memory "
            "checks.",
        ),
        ("admin", "Admin", "Also manages webhooks."),
    )
)

# A rule set's policies (``verifier.scoring.rulesets``): how high a claim's overall quality
# score must be for it to be classed supported or weak. The thresholds are each rule set's
# own; the explanation gives the built-in rule set's.
_POLICY_WORDS: Final[Mapping[str, tuple[str, str]]] = {
    "strict": ("Strict", "The most demanding policy"),
    "balanced": ("Balanced", "The middle policy"),
    "lenient": ("Lenient", "The least demanding policy"),
}
POLICIES: Final = _table(
    tuple(
        (
            pol.name,
            _POLICY_WORDS[pol.name][0],
            f"{_POLICY_WORDS[pol.name][1]}: in the built-in {CORE_V1.name} a claim "
            f"is supported at an overall score of {pol.min_overall_score:g} or more and weak "
            f"at {pol.weak_threshold:g} or more.",
        )
        for pol in CORE_V1.policies
    )
)

# The steps a trace times (the trace page's "Steps"): a retrieval's flat timing
# (``verifier.services.retrieval``: ``<step>_ms``) and the doors' step trees
# (``verifier.services.traces.TraceSteps``). A numbered step ("chunk 3") reads as its
# base's label with the number (:func:`term`).
TRACE_STEPS: Final = _table(
    (
        (
            "seed",
            "Find the starting claims",
            "Found the claims the query matches best, or the claim asked for by its id: where "
            "the answer starts.",
        ),
        (
            "embedding",
            "Embed the query",
            "Turned the query into a vector with the embedding model.",
        ),
        (
            "vector_search_and_load",
            "Vector search",
            "Found and read the published claims whose vectors are nearest the query's.",
        ),
        (
            "lexical_search",
            "Word search",
            "Searched the claims' text for the query's words, as no embedding could be made.",
        ),
        ("load", "Read the claims", "Read the claims the search or the expansion added."),
        (
            "recheck",
            "Re-check the spans",
            "Checked that each claim's bound span is still at its offsets in its source's "
            "current version, and demoted the claims whose span is not.",
        ),
        (
            "expansion",
            "Follow relations",
            "Followed the relations of the starting claims to the claims around them.",
        ),
        (
            "ranking",
            "Rank and apply the policy",
            "Put the claims in order and kept those the verification policy serves.",
        ),
        (
            "submit",
            "Record the claims",
            "Stored the submitted claims and the sources they cite.",
        ),
        (
            "verify",
            "Verify",
            "Checked the claims against their evidence: their bound spans, or for a memory "
            "check the agent's transcript.",
        ),
        (
            "chunk",
            "Batch",
            "One batch of a large verification job's claims, verified on its own; its steps "
            "are inside it.",
        ),
        ("embed", "Embed the claims", "Made embeddings for the claims that had none."),
        (
            "bind",
            "Bind the quotes",
            "Found each claim's quote in its cited source version, at exact offsets.",
        ),
        ("judge", "Judge", "Asked the judge whether each bound span states its claim."),
        ("state", "Decide the states", "Decided each claim's state from its span and verdicts."),
        (
            "classify",
            "Class by the rule set",
            "Classed the claims supported, weak or unsupported under the rule set in force.",
        ),
        ("parse", "Read the chunks", "Read the answer and the retrieved chunks it was given."),
        (
            "audit",
            "Audit the answer",
            "Split the answer into claims and checked each against the chunks.",
        ),
        ("store", "Store the results", "Wrote what was found to the database."),
        (
            "import_transcript",
            "Import the transcript",
            "Stored the transcript given with the memory check.",
        ),
        (
            "retrieve_and_rank",
            "Find and rank evidence",
            "Searched the workspace for evidence and ranked what it found.",
        ),
        (
            "cache_precheck",
            "Look for an earlier answer",
            "Looked for an earlier answer to the same claim that can be reused.",
        ),
        (
            "web_expansion",
            "Search the web",
            "Searched the configured web provider for more evidence, as the evidence found "
            "was not enough.",
        ),
        ("verdict", "Reach the verdict", "Weighed the judged evidence into one verdict."),
        ("store_claim", "Store the claim", "Stored the verified claim with its evidence."),
    )
)

# What a trace's step records beside its time (``detail``).
TRACE_STEP_DETAILS: Final = _table(
    (
        ("claims", "Claims", "How many claims the step worked on."),
        ("sources", "Sources", "How many sources the step worked on."),
        ("texts", "Texts", "How many texts were embedded."),
        ("bound", "Bound", "How many of the claims got a span bound."),
        ("judge", "Judge model", "The judge model the step asked."),
        ("policy", "Policy", "The rule set's policy the claims were classed under."),
        ("queries", "Queries", "How many search queries were run."),
        ("candidates", "Candidates", "How many evidence items the search found."),
        ("ranked", "Ranked", "How many evidence items were kept after ranking."),
        ("items", "Items judged", "How many (part of a claim, evidence item) pairs were judged."),
        ("reason", "Why", "Why an earlier answer was or was not reused."),
        ("chunks", "Chunks", "How many retrieved chunks were given."),
        ("verdict", "Verdict", "The answer's verdict."),
        ("checks", "Checks", "How many memory checks were stored."),
    )
)

# The policy a claims/verify trace's "classify" step records: one of :data:`POLICIES`,
# or "active" when the request named none (the rule set in force decides).
TRACE_STEP_POLICIES: Final[Mapping[str, Term]] = MappingProxyType(
    {
        **POLICIES,
        "active": Term(
            "active",
            "The rule set's own",
            "No policy was asked for: the policy of the rule set in force was used.",
        ),
    }
)

# Which kind words a trace step's detail value, by its ``trace_step_detail`` key (the
# cache step's ``reason``, the RAG audit's ``verdict``); a key not named here, or a
# value its kind lacks, reads as recorded.
TRACE_STEP_DETAIL_VALUES: Final[Mapping[str, str]] = MappingProxyType(
    {"policy": "trace_step_policy", "reason": "worker_cache", "verdict": "outcome"}
)

# Who judged, as a door's trace records it (``judge``).
TRACE_JUDGE: Final = _table(
    (
        ("model", "Model", "The judge model's name."),
        ("family", "Kind of judge", "The judge's family: heuristic, NLI, cross-encoder or chat."),
        ("rules", "Rules", "The version of the rules the memory checks apply."),
        ("prompt_version", "Prompt version", "The version of the prompt the judge was given."),
    )
)

# A retrieval's verification policy (``VerificationPolicy.to_dict``), field by field.
RETRIEVAL_POLICY: Final = _table(
    (
        ("include", "States served", "Only claims in these states are served."),
        (
            "min_trust_score",
            "Least trust score",
            "Claims with a lower trust score (0 to 100) are left out.",
        ),
        (
            "exclude_flagged",
            "Flagged claims left out",
            "Whether claims with an open flag are left out.",
        ),
        (
            "require_verified",
            "Verified claims only",
            "Whether the caller asked for supported claims only.",
        ),
    )
)

# The quality classes a rule set gives a claim, capped by its state
# (``verifier.scoring.quality.QUALITY_CLASSES``): the claim list's Quality filter.
QUALITY_CLASSES: Final = _table(
    (
        (
            "supported",
            "Supported",
            "The rule set scores the claim at its policy's supported threshold or more, and "
            "its state allows it (only a supported claim can be).",
        ),
        (
            "weak",
            "Weak",
            "Scored between the policy's weak and supported thresholds, or capped here by its "
            "state (inferred or unverified).",
        ),
        (
            "unsupported",
            "Unsupported",
            "Scored under the policy's weak threshold, or contradicted.",
        ),
    )
)


# The claim list's filters (``verifier.audit_pack.scope.CLAIM_FILTER_KEYS``): the fields
# of the audit console's claim list, and what an audit pack of a filtered list records.
CLAIM_FILTERS: Final = _table(
    (
        ("state", "State", "Claims in this state."),
        ("reason", "Reason", "Claims that have their state for this reason."),
        ("source", "Source ref", "Claims that cite the source with this ref."),
        ("job", "Ingest job", "Claims the ingest job with this number extracted."),
        (
            "quality",
            "Quality",
            "Claims the rule set in force classes supported, weak or unsupported.",
        ),
        ("q", "Text", "Claims whose text holds these words."),
    )
)


def claim_filters_in_words(filters: Mapping[str, str]) -> str:
    """A claim list's filters as a person reads them, in the list's order: each by its
    field's label, a state, a reason or a quality class by its label ("Reason: Confirmed
    by a reviewer", not "reason=human_supported"), typed text quoted; "" for none."""
    said = []
    for code, found in CLAIM_FILTERS.items():
        value = str(filters.get(code) or "").strip()
        if not value:
            continue
        if code in ("state", "reason", "quality"):
            shown = label(code, value)
        elif code in ("source", "q"):
            shown = f"“{value}”"
        else:
            shown = value
        said.append(f"{found.label}: {shown}")
    return ", ".join(said)


# The one phrase for "no domain pack chosen": a rule set activated with no pack is in force
# for every pack without one of its own, and a trace with no pack looked across them all.
# Every page and message says it this way (``verifier.domain_packs`` keeps a new pack from
# taking it as a name).
ALL_PACKS: Final = "all packs"

# Who answered, where a claim with no bound span got the verifier's own abstention
# (``verifier.states.judge_not_asked``): no model saw it, so none is named.
JUDGE_NOT_ASKED: Final = "not asked (nothing is bound)"

# Words the console uses, for the glossary (not codes).
WORDS: Final = _table(
    (
        (
            "claim",
            "Claim",
            "One statement, cited to one source, whose evidence is checked.",
        ),
        (
            "span",
            "Span",
            "The quoted text a claim is bound to, at half-open character offsets [start, end) "
            "of one source version.",
        ),
        (
            "source version",
            "Source version",
            "A source's text as it was at one time, identified by the SHA-256 of its exact "
            "text; new text makes a new version.",
        ),
        (
            "judge",
            "Judge",
            "The model (or person) asked only whether the bound span states the claim; it "
            "may decline to answer.",
        ),
        (
            "confidence",
            "Confidence",
            "How sure the judge is of its answer, shown as a percentage; a verdict with no "
            "answer has none.",
        ),
        (
            "confidence floor",
            "Confidence floor",
            "The least confidence that lets an answer decide the state; below it the claim "
            "stays unverified.",
        ),
        (
            "queue",
            "Review queue",
            "The unverified and contradicted claims nobody has decided, riskiest reason first.",
        ),
        (
            "lease",
            "Lease",
            "A reviewer's few-minute hold on the item they are reviewing, so two people do "
            "not decide the same claim.",
        ),
        (
            "trace",
            "Trace",
            "What one request was served: the claims included and excluded, with reasons.",
        ),
        (
            "trust score",
            "Trust score",
            "0 to 100: how much the evidence behind a claim or a job can be trusted.",
        ),
        (
            ALL_PACKS,
            ALL_PACKS.capitalize(),
            f"No domain pack chosen: a rule set activated for {ALL_PACKS} is in force for every "
            "pack without one of its own, and a request with no pack looks across every pack.",
        ),
    )
)

KINDS: Final[Mapping[str, Mapping[str, Term]]] = MappingProxyType(
    {
        "state": STATES,
        "reason": REASONS,
        "verdict": VERDICTS,
        "match": MATCHES,
        "recheck": RECHECKS,
        "operation": OPERATIONS,
        "exclusion": EXCLUSIONS,
        "factor": FACTORS,
        "dimension": DIMENSIONS,
        "webhook_event": WEBHOOK_EVENTS,
        "webhook_delivery": WEBHOOK_DELIVERIES,
        "outcome": OUTCOMES,
        "memory_reason": MEMORY_REASONS,
        "memory_lane": MEMORY_LANES,
        "drift": DRIFT_CATEGORIES,
        "level": LEVELS,
        "worker_verdict": WORKER_VERDICTS,
        "segment": SEGMENTS,
        "worker_status": WORKER_STATUSES,
        "worker_cache": WORKER_CACHE,
        "worker_trust_mode": WORKER_TRUST_MODES,
        "worker_route": WORKER_ROUTES,
        "worker_trust_state": WORKER_TRUST_STATES,
        "worker_stance": WORKER_STANCES,
        "worker_adjustment": WORKER_ADJUSTMENTS,
        "worker_reconciliation": WORKER_RECONCILIATIONS,
        "worker_count": WORKER_COUNTS,
        "role": ROLES,
        "api_key_scope": API_KEY_SCOPES,
        "ingest_status": INGEST_STATUSES,
        "ingest_stage": INGEST_STAGES,
        "policy": POLICIES,
        "claim_filter": CLAIM_FILTERS,
        "quality": QUALITY_CLASSES,
        "trace_step": TRACE_STEPS,
        "trace_step_detail": TRACE_STEP_DETAILS,
        "trace_step_policy": TRACE_STEP_POLICIES,
        "trace_judge": TRACE_JUDGE,
        "retrieval_policy": RETRIEVAL_POLICY,
    }
)
KIND_TITLES: Final[Mapping[str, str]] = MappingProxyType(
    {
        "state": "Claim states",
        "reason": "Reasons for a state",
        "verdict": "Verdicts (the judge's answer)",
        "match": "How a quote was found",
        "recheck": "Re-checking a bound span",
        "operation": "What a trace records",
        "exclusion": "Why a trace left a claim out",
        "factor": "A job's trust score factors",
        "dimension": "The quality dimensions a rule set weighs",
        "webhook_event": "The events a webhook is sent",
        "webhook_delivery": "How a webhook's delivery went",
        "outcome": "Outcomes of memory checks, answer audits and relations",
        "memory_reason": "Why a memory check could not be checked",
        "memory_lane": "The kinds of memory claim",
        "drift": "How a memory claim drifted from what was said",
        "level": "Which check decided a relation",
        "worker_verdict": "The claim worker's verdict on a claim",
        "segment": "A part of a claim in the claim worker's breakdown",
        "worker_status": "How the claim worker answered",
        "worker_cache": "Whether the claim worker reused an earlier answer",
        "worker_trust_mode": "The claim worker's trust policy modes",
        "worker_route": "Which trust gate decided whether the evidence suffices",
        "worker_trust_state": "How far the claim worker trusts the evidence",
        "worker_stance": "Where an evidence item stands on the claim",
        "worker_adjustment": "What raised or lowered an evidence item's rank",
        "worker_reconciliation": "Why the claim worker's gates changed the verdict",
        "worker_count": "The claim worker's evidence counts",
        "role": "A member's role in a workspace",
        "ingest_status": "Where an ingest job is",
        "ingest_stage": "The stages of an ingest job",
        "api_key_scope": "What an API key may do",
        "policy": "A rule set's policies",
        "claim_filter": "The claim list's filters",
        "quality": "A claim's quality class",
        "trace_step": "The steps a trace times",
        "trace_step_detail": "What a trace's step records",
        "trace_step_policy": "The policy a verification's classify step used",
        "trace_judge": "Who judged, in a trace",
        "retrieval_policy": "A retrieval's verification policy",
    }
)


def term(kind: str, code: object) -> Term:
    """The term for ``code`` of ``kind``; a numbered code ("chunk 3") whose base is of
    ``kind`` reads as the base's label with its number ("Batch 3"); an unknown code reads
    as itself."""
    text = "" if code is None else str(code)
    terms = KINDS.get(kind, {})
    found = terms.get(text)
    if found is not None:
        return found
    base, _, number = text.rpartition(" ")
    numbered = terms.get(base) if number.isdecimal() and number.isascii() else None
    if numbered is not None:
        return Term(text, f"{numbered.label} {number}", numbered.explanation)
    return Term(text, text.replace("_", " ").replace(":", ": ").capitalize(), "")


def code_of(kind: str, text: str) -> str | None:
    """The code of ``kind`` that ``text`` names, by its code or by its label (case and
    surrounding spaces ignored): what a person typed into a field that offers both."""
    wanted = text.strip().casefold()
    for found in KINDS.get(kind, {}).values():
        if wanted in (found.code.casefold(), found.label.casefold()):
            return found.code
    return None


def label(kind: str, code: object) -> str:
    return term(kind, code).label


def explanation(kind: str, code: object) -> str:
    return term(kind, code).explanation


# The re-check's words where a span bound to one version (``{old}``) is checked against
# another chosen one (``{new}``), the source diff page's: neither need be the current
# version, nor ``{new}`` the later one, so :data:`RECHECKS`' words would not be true.
_RECHECKS_BETWEEN: Final[Mapping[str, tuple[str, str]]] = MappingProxyType(
    {
        "fresh": ("Span holds in {new}", "The quote is still at the span's offsets in {new}."),
        "hash_mismatch": (
            "{new} has other text",
            "The span is bound to {old}, and {new} has other text (another SHA-256), so the "
            "span must be checked again.",
        ),
        "offsets_out_of_range": (
            "Offsets outside {new}",
            "The span's offsets lie outside the text of {new}.",
        ),
        "span_lost": (
            "Quote not at its offsets in {new}",
            "The text of {new} at the span's offsets no longer matches the quote.",
        ),
    }
)


def recheck_between(code: object, *, bound: str, against: str) -> Term:
    """The words of re-check ``code`` for a span bound to version ``bound`` (its name,
    "v2") checked against version ``against``; an unknown code reads as ``term`` reads it."""
    found = term("recheck", code)
    words = _RECHECKS_BETWEEN.get(found.code)
    if words is None:
        return found
    label_words, explanation_words = (w.format(old=bound, new=against) for w in words)
    return Term(found.code, label_words, explanation_words)


def counted(n: int, noun: str, plural: str = "") -> str:
    """``n`` and its noun as a person writes them: "1 claim", "5 claims" (``plural`` where
    it is not the noun and an "s"). Console messages say counts this way, never
    "claim(s)"."""
    return f"{n:,} {noun if n == 1 else (plural or noun + 's')}"


_API_FIELD = re.compile(r"`([^`\n]+)`")
# A bare run of five digits or more (a limit, a size): not inside a word, an id or quotes
_BIG_NUMBER = re.compile(r"(?<![\w.#'\"])(\d{5,})(?![\w.'\"])")


def api_message_in_words(message: str) -> str:
    """An API error's message as the console shows it beside a form: the field names the
    API writes in backticks quoted as a person writes them (“message”), and a large
    number with its thousands separated ("200,000 characters"), as every console number
    is."""
    quoted = _API_FIELD.sub(lambda m: f"\u201c{m.group(1)}\u201d", message)
    return _BIG_NUMBER.sub(lambda m: f"{int(m.group(1)):,}", quoted)


def confidence_percent(value: float | None) -> str:
    """A confidence in [0, 1] as the console shows it everywhere: "84 %" ("–" for none)."""
    if value is None:
        return "–"
    return f"{round(100 * float(value))}\u00a0%"


def verdict_confidence(
    verdict: str | None, value: float | None, *, by_person: bool = False
) -> float | None:
    """The confidence of a verdict's answer; None for a verdict that gave none, and for a
    reviewer's decision (``by_person``: a person decides, they state no confidence)."""
    return value if verdict in ANSWER_VERDICTS and not by_person else None


def choices(kind: str) -> list[tuple[str, str]]:
    """(code, label) pairs of ``kind``: the choices of a form field or an API enum."""
    return [(t.code, t.label) for t in KINDS[kind].values()]


def header_note(kind: str) -> str:
    """One line per code of ``kind``: ``code = label: explanation`` (the exports' notes)."""
    return "; ".join(
        f"{t.code} = {t.label}" + (f": {t.explanation}" if t.explanation else "")
        for t in KINDS[kind].values()
    )


# What an active ingest job's page says of its worker's heartbeat (``services.job_heartbeat``,
# ``services.ingest_watch``); not codes of a kind, so not in :data:`KINDS`.
JOB_LIVENESS: Final = _table(
    (
        (
            "worker_silent",
            "No word from its worker",
            "The worker running the job's current stage beats every fifth of "
            "SPANPROOF_JOB_STALE_SECONDS; once it has missed two beats it is probably gone "
            "(killed, out of memory, its machine lost). When it has been silent for "
            "SPANPROOF_JOB_STALE_SECONDS, the watchdog's next round (every "
            "SPANPROOF_JOB_WATCH_SECONDS) sends the stage to another worker, or fails the job "
            "after SPANPROOF_JOB_MAX_ATTEMPTS silent workers.",
        ),
        (
            "stage_sent_again",
            "Stage sent again",
            "Times the watchdog sent the current stage to another worker because the worker "
            "running it went silent; the job fails after SPANPROOF_JOB_MAX_ATTEMPTS.",
        ),
    )
)
