"""Reading 7 of the heuristic judge's lexical comparison: what a team's first day with the
console showed it passing or refusing wrongly (claims checked against three documents
they wrote): a number after a bare "to" or "at" is exact, not approximate; a sentence
is never its own negation; "none of which …" negates the clause it opens; a quantifier
that states a share is held to the span's figure; an antonym after "with a" is read."""

from __future__ import annotations

import pytest

from verifier.judges.signals import compare


def kinds(claim: str, span: str) -> list[str]:
    return [b.kind for b in compare(claim, span).blockers]


DREDGED = (
    "In 2025 the authority completed dredging of the outer channel to a depth of 14.5 "
    "metres, allowing vessels with a draught of up to 13 metres to enter at any state of "
    "the tide."
)


@pytest.mark.parametrize(
    ("claim", "span", "expected"),
    [
        ("The outer channel was dredged to 16 metres.", DREDGED, ["number_mismatch"]),
        ("The outer channel was dredged to 14.5 metres.", DREDGED, []),
        ("The ferry sails at 16 knots.", "The ferry sails at 15 knots.", ["number_mismatch"]),
        # bounds and approximators stay inexact
        ("Vessels with a draught of up to 13 metres can enter.", DREDGED, []),
        ("The channel is about 15 metres deep.", "The channel is 14.5 metres deep.", []),
        ("It is close to 15 metres deep.", "It is 14.5 metres deep.", []),
        ("More than 14 metres of water is kept.", "More than 14.5 metres of water is kept.", []),
    ],
)
def test_a_number_after_to_or_at_is_stated_exactly(claim, span, expected) -> None:
    assert [k for k in kinds(claim, span) if k.startswith("number")] == expected


SIMILAR = (
    "The response rate was similar in patients who had received a biologic before (57 "
    "percent) and in those who had not (63 percent)."
)


@pytest.mark.parametrize(
    "claim",
    [
        SIMILAR,
        "The response rate was similar in those who had received a biologic and those who had not.",
        "Patients who had received a biologic responded, and those who had not did too.",
    ],
)
def test_the_spans_own_elliptical_negation_is_no_conflict(claim) -> None:
    span = claim if claim.startswith("Patients") else SIMILAR
    assert "negation" not in kinds(claim, span)


def test_a_claim_negation_the_span_does_not_say_still_conflicts() -> None:
    assert "negation" in kinds(
        "The response rate was not similar in the two groups.",
        "The response rate was similar in the two groups.",
    )


NONE_OF_WHICH = (
    "Three serious adverse events occurred in the velantrib group, none of which the "
    "investigators judged to be related to the study drug."
)


def test_none_of_which_negates_the_clause_it_opens() -> None:
    found = compare("The serious adverse events were judged related to velantrib.", NONE_OF_WHICH)
    assert [(b.kind, b.contradicts) for b in found.blockers] == [("negation", True)]
    assert "negation" not in kinds(
        "The serious adverse events were not judged related to the study drug.", NONE_OF_WHICH
    )


@pytest.mark.parametrize(
    ("claim", "span", "blocked"),
    [
        ("Most participants were women.", "38 percent of participants were women.", True),
        ("Most participants were women.", "62 percent of participants were women.", False),
        ("A majority of voters backed the plan.", "A third of voters backed the plan.", True),
        ("A minority of participants were women.", "38 percent of participants were women.", False),
        # the span's own quantifier is read by the scope check, not here
        ("Most participants were women.", "Most of the 38 percent enrolled were women.", False),
    ],
)
def test_a_quantifier_that_states_a_share_is_held_to_the_spans_figure(claim, span, blocked) -> None:
    notes = [b.note for b in compare(claim, span).blockers if b.kind == "scope"]
    # the share's note names the figure ("span says 38 percent"), not a quoted phrase
    assert any("span says " in n and "span says '" not in n for n in notes) == blocked


@pytest.mark.parametrize(
    ("claim", "span"),
    [
        (
            "The library ended 2025 with a deficit.",
            "The treasurer reported that the library ended 2025 with a surplus of 23,500 pounds.",
        ),
        ("The firm made a profit.", "The firm made a loss in 2020."),
    ],
)
def test_an_antonym_after_an_article_and_a_preposition_is_read(claim, span) -> None:
    assert "antonym" in kinds(claim, span)
