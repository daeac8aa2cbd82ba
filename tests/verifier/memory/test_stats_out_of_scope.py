"""Seed 002 aggregates count only the claims the verifier evaluated.

A "you said" claim about the addressee's own words is out of scope (outcome
``inconclusive:insufficient``, reason ``out_of_scope``), as implicit and undeclared claims
are: it is counted with them, and neither lowers the agent's support or coverage rate nor
counts towards the 10 evaluated claims the rates need. Before, an agent that quoted its
own words exactly ten times and the user's correctly ten times had a support rate and a
coverage rate of 0.5, and ``out_of_scope_claims`` said 0."""

from __future__ import annotations

from verifier.memory import agent_stats


def test_a_claim_about_the_addressees_words_is_counted_out_of_scope():
    rows = [("verbatim", "supported:exact", [], "")] * 10 + [
        ("verbatim", "inconclusive:insufficient", [], "out_of_scope")
    ] * 10
    stats = agent_stats(rows)
    assert stats["evaluated_claims"] == 10
    assert stats["out_of_scope_claims"] == 10
    assert stats["claim_types"] == {"verbatim": 10}
    assert stats["outcomes"]["inconclusive:insufficient"] == 0
    assert stats["support_rate"]["value"] == 1.0
    assert stats["coverage_rate"]["value"] == 1.0


def test_out_of_scope_claims_do_not_make_up_the_ten_the_rates_need():
    rows = [("summarized", "unsupported:no_match", [], "")] * 9 + [
        ("verbatim", "inconclusive:insufficient", [], "out_of_scope")
    ]
    stats = agent_stats(rows)
    assert stats["evaluated_claims"] == 9 and stats["out_of_scope_claims"] == 1
    assert stats["support_rate"] is None and "at least 10" in stats["note"]


def test_insufficient_coverage_still_counts_against_coverage():
    # missing turns are not out of scope: the claim was evaluated and coverage fell short
    rows = [("verbatim", "supported:exact", [], "")] * 9 + [
        ("verbatim", "inconclusive:insufficient", [], "coverage_incomplete")
    ]
    stats = agent_stats(rows)
    assert stats["evaluated_claims"] == 10 and stats["out_of_scope_claims"] == 0
    assert stats["coverage_rate"]["value"] == 0.9
