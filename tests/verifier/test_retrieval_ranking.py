"""Serving's pure core: ranking order, the policy gate and its reasons, the summaries.

No database: the claims are plain stand-ins with what the gate reads.
"""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import given
from hypothesis import strategies as st

from verifier.models import ClaimStateChoices
from verifier.retrieval_ranking import (
    EXCLUSION_REASONS,
    STATES,
    Considered,
    VerificationPolicy,
    context_block,
    exclusion_counts,
    gate,
    paths_served,
    rank,
    state_summary,
    subgraph_summary,
)


@dataclass
class FakeClaim:
    text: str
    state: str = "supported"
    flagged: bool = False
    duplicate_of_id: int | None = None


def item(pk: int, claim: FakeClaim | None = None, *, score=1.0, hop=0, trust=80):
    claim = claim or FakeClaim(f"claim {pk}")
    return Considered(pk=pk, score=score, hop_depth=hop, claim=claim, trust_score=trust)


def outcome(ranked):
    return [(c.pk, c.included, c.exclusion_reason, c.exclusion_detail) for c in ranked]


def envelope(text, state="supported", *, evidence=None, citation="Doc, p. 1"):
    return {
        "claim": {"text": text},
        "state": state,
        "citation": citation,
        "evidence": evidence or [],
    }


def span(ref="doc-1", start=3, end=9, match="exact", quote="quoted"):
    return {"source_ref": ref, "offsets": [start, end], "match": match, "quote": quote}


# --- policy ----------------------------------------------------------------------------


def test_states_are_the_claim_states_in_model_order():
    assert tuple(s.value for s in ClaimStateChoices) == STATES


def test_policy_defaults_when_nothing_is_asked():
    policy = VerificationPolicy.from_request(policy=None, require_verified=False)
    # seed 000: every state but excluded, each labelled; require_verified leaves the
    # non-supported out
    assert policy == VerificationPolicy(
        ("supported", "inferred", "unverified", "contradicted"), 0, True, False
    )
    assert policy.to_dict() == {
        "include": ["supported", "inferred", "unverified", "contradicted"],
        "min_trust_score": 0,
        "exclude_flagged": True,
        "require_verified": False,
    }


def test_policy_keeps_include_order_without_repeats_and_reads_its_fields():
    policy = VerificationPolicy.from_request(
        policy={
            "include": ["inferred", "supported", "inferred"],
            "min_trust_score": "40",
            "exclude_flagged": False,
        },
        require_verified=False,
    )
    assert policy.include == ("inferred", "supported")
    assert policy.min_trust_score == 40
    assert policy.exclude_flagged is False


def test_require_verified_narrows_include_to_supported():
    policy = VerificationPolicy.from_request(
        policy={"include": ["inferred", "unverified"], "min_trust_score": None},
        require_verified=True,
    )
    assert policy.include == ("supported",)
    assert policy.min_trust_score == 0
    assert policy.require_verified is True


# --- rank ------------------------------------------------------------------------------


def test_rank_orders_by_score_then_hop_then_trust_then_pk():
    items = [
        item(5, score=0.5, hop=0, trust=90),
        item(4, score=0.9, hop=1, trust=10),
        item(3, score=0.9, hop=0, trust=10),
        item(2, score=0.9, hop=0, trust=50),
        item(1, score=0.9, hop=0, trust=50),
    ]
    assert [c.pk for c in rank(items)] == [1, 2, 3, 4, 5]


def test_rank_returns_a_new_list():
    items = [item(2, score=0.1), item(1, score=0.9)]
    ranked = rank(items)
    assert [c.pk for c in items] == [2, 1]
    assert [c.pk for c in ranked] == [1, 2]


# --- gate ------------------------------------------------------------------------------


def test_gate_gives_each_excluded_claim_its_reason_and_detail():
    ranked = [
        item(1, FakeClaim("marked duplicate", duplicate_of_id=9)),
        item(2, FakeClaim("only inferred", state="inferred")),
        item(3, FakeClaim("flagged one", flagged=True)),
        item(4, FakeClaim("low trust"), trust=10),
        item(5, FakeClaim("Served  first")),
        item(6, FakeClaim("served FIRST ")),
        item(7, FakeClaim("second")),
        item(8, FakeClaim("over budget")),
    ]
    gate(ranked, VerificationPolicy(include=("supported",), min_trust_score=20), max_claims=2)
    assert outcome(ranked) == [
        (1, False, "duplicate", "duplicate_of"),
        (2, False, "verification_gate", "inferred"),
        (3, False, "verification_gate", "flagged"),
        (4, False, "confidence_gate", "trust_score 10 < 20"),
        (5, True, "", ""),
        (6, False, "duplicate", "same_text"),
        (7, True, "", ""),
        (8, False, "budget", ""),
    ]


def test_duplicate_of_is_checked_before_the_state():
    ranked = [item(1, FakeClaim("x", state="contradicted", duplicate_of_id=2, flagged=True))]
    gate(ranked, VerificationPolicy(), max_claims=5)
    assert outcome(ranked) == [(1, False, "duplicate", "duplicate_of")]


def test_flagged_claims_pass_when_the_policy_keeps_them():
    ranked = [item(1, FakeClaim("flagged", flagged=True))]
    gate(ranked, VerificationPolicy(exclude_flagged=False), max_claims=5)
    assert outcome(ranked) == [(1, True, "", "")]


def test_trust_equal_to_the_minimum_passes():
    ranked = [item(1, trust=30), item(2, trust=29)]
    gate(ranked, VerificationPolicy(min_trust_score=30), max_claims=5)
    assert [c.included for c in ranked] == [True, False]


def test_an_excluded_claims_text_does_not_shadow_a_later_one():
    ranked = [
        item(1, FakeClaim("same words", state="unverified")),
        item(2, FakeClaim("Same words")),
    ]
    gate(ranked, VerificationPolicy(include=("supported",)), max_claims=5)
    assert outcome(ranked) == [
        (1, False, "verification_gate", "unverified"),
        (2, True, "", ""),
    ]


def test_a_budget_cut_claims_text_does_not_shadow_either():
    ranked = [item(1, FakeClaim("a")), item(2, FakeClaim("b")), item(3, FakeClaim("b"))]
    gate(ranked, VerificationPolicy(), max_claims=1)
    assert [c.exclusion_reason for c in ranked] == ["", "budget", "budget"]


def test_zero_budget_includes_nothing():
    ranked = [item(1), item(2)]
    gate(ranked, VerificationPolicy(), max_claims=0)
    assert [c.exclusion_reason for c in ranked] == ["budget", "budget"]


claims = st.builds(
    FakeClaim,
    text=st.sampled_from(["a", "A ", "b", "c"]),
    state=st.sampled_from(STATES),
    flagged=st.booleans(),
    duplicate_of_id=st.none() | st.just(1),
)


@given(
    st.lists(st.tuples(claims, st.integers(0, 100)), max_size=12),
    st.integers(0, 5),
    st.integers(0, 100),
)
def test_gate_decides_every_claim_once_within_budget(rows, max_claims, min_trust):
    ranked = [item(i, claim, trust=trust) for i, (claim, trust) in enumerate(rows)]
    policy = VerificationPolicy(include=("supported", "inferred"), min_trust_score=min_trust)
    gate(ranked, policy, max_claims)
    included = [c for c in ranked if c.included]
    assert len(included) <= max_claims
    for c in included:
        assert c.exclusion_reason == ""
        assert c.claim.state in policy.include and not c.claim.flagged
        assert c.claim.duplicate_of_id is None and c.trust_score >= min_trust
    folded = [" ".join(c.claim.text.casefold().split()) for c in included]
    assert len(folded) == len(set(folded))
    assert all(c.exclusion_reason in EXCLUSION_REASONS for c in ranked if not c.included)
    counts = exclusion_counts(ranked)
    assert sum(counts.values()) == len(ranked) - len(included)


# --- summaries -------------------------------------------------------------------------


def test_exclusion_counts_name_every_reason():
    ranked = [item(1), item(2, trust=5), item(3, FakeClaim("x", state="excluded"))]
    gate(ranked, VerificationPolicy(min_trust_score=10), max_claims=0)
    assert exclusion_counts(ranked) == {
        "verification_gate": 1,
        "confidence_gate": 1,
        "duplicate": 0,
        "budget": 1,
    }
    assert list(exclusion_counts([])) == list(EXCLUSION_REASONS)


def test_context_block_numbers_lines_with_state_citation_and_evidence():
    block = context_block(
        [
            envelope("Water boils at 100 C.", evidence=[span()]),
            envelope(
                "Ice floats.",
                "inferred",
                evidence=[span("doc-2", 10, 20, "fuzzy", "ice is less dense")],
                citation="Book",
            ),
            envelope("No span here.", "unverified", citation="Web"),
        ]
    )
    assert block.split("\n") == [
        '[1] Water boils at 100 C. (supported) — Doc, p. 1 [doc-1 3–9: "quoted"]',
        '[2] Ice floats. (inferred) — Book [doc-2 10–20, fuzzy match: "ice is less dense"]',
        "[3] No span here. (unverified) — Web [no bound evidence]",
    ]


def test_context_block_of_nothing_is_empty():
    assert context_block([]) == ""


def test_state_summary_counts_every_state():
    summary = state_summary([envelope("a"), envelope("b"), envelope("c", "contradicted")])
    assert summary == {
        "supported": 2,
        "inferred": 0,
        "unverified": 0,
        "contradicted": 1,
        "excluded": 0,
    }
    assert list(summary) == list(STATES)


def test_subgraph_summary():
    envelopes = [
        envelope("a", evidence=[span("doc-b")]),
        envelope("b", "inferred", evidence=[span("doc-a")]),
        envelope("c", evidence=[span("doc-b")]),
        envelope("d"),
    ]
    edges = [(1, 2, "supports", 0.9), (2, 3, "elaborates", 0.7), (3, 1, "supports", 0.8)]
    assert subgraph_summary(edges=edges, envelopes=envelopes) == {
        "nodes": 4,
        "edges": 3,
        "edge_types": {"elaborates": 1, "supports": 2},
        "states": {
            "supported": 3,
            "inferred": 1,
            "unverified": 0,
            "contradicted": 0,
            "excluded": 0,
        },
        "sources": ["doc-a", "doc-b"],
    }


def test_paths_served_keeps_only_paths_whose_every_claim_was_served():
    whole = [(1, 2, "supports", 0.9), (2, 3, "supports", 0.8)]
    broken = [(1, 4, "supports", 0.9), (4, 3, "supports", 0.8)]
    kept, dropped = paths_served([whole, broken, []], {1, 2, 3})
    assert kept == [whole, []]
    assert dropped == 1
    assert paths_served([whole], set()) == ([], 1)
