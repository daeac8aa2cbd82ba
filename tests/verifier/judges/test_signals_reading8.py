"""Reading 8 of the heuristic judge's lexical comparison: what an integrator's and a
reviewer's walk showed it passing wrongly. A claim that reports as done what the span
says is still to come ("has been approved" / "will be approved"); another given name
before the span's surname ("Margaret Pryde" / "Agnes Pryde"); another family relation
("her brother" / "her husband"); another multiplier ("tripled" / "doubled")."""

from __future__ import annotations

import pytest

from verifier.judges.signals import compare

PRYDE = (
    "The first keeper, Agnes Pryde, took over the station after her husband drowned in "
    "the winter of 1861."
)


def notes(claim: str, span: str, context: str = "") -> list[str]:
    return [b.note for b in compare(claim, span, context).blockers]


@pytest.mark.parametrize(
    ("claim", "span", "blocked"),
    [
        (
            "The plan has been approved by the board.",
            "The plan will be approved by the board.",
            True,
        ),
        ("The report was published in May.", "The report will be published in May.", True),
        ("The museum has reopened.", "The museum will reopen.", True),
        ("The station was closed in 2010.", "The station is to be closed in 2010.", True),
        ("Storms destroyed the pier.", "Storms will destroy the pier.", True),
        ("The stadium opened in 2027.", "The stadium is set to open in 2027.", True),
        ("Officials said the road was closed.", "Officials said the road will be closed.", True),
        # the claim speaks of the future too, or of another verb of the span
        ("The museum will reopen in May.", "The museum will reopen in May.", False),
        ("The stadium is set to open in 2027.", "The stadium is set to open in 2027.", False),
        ("The museum may reopen.", "The museum will reopen.", False),
        (
            "The bridge was built in 1932.",
            "The bridge was built in 1932 and will be repainted next year.",
            False,
        ),
        # "was to be a hub": no verb after the future
        ("The port was a hub.", "The port was to be a hub.", False),
    ],
)
def test_a_claim_that_reports_as_done_what_the_span_says_is_to_come(claim, span, blocked):
    assert any(n.startswith("tense:") for n in notes(claim, span)) is blocked


@pytest.mark.parametrize(
    ("claim", "span", "rival"),
    [
        (PRYDE.replace("Agnes", "Margaret"), PRYDE, "agnes pryde"),
        (PRYDE.replace("Agnes", "John"), PRYDE, "agnes pryde"),
        (
            "The last resident keeper, Peter Hale, left in 1988.",
            "The light was automated in 1987, and the last resident keeper, Tomas Hale, left "
            "in 1988.",
            "tomas hale",
        ),
        # the surname alone, a title, a name of a thing, the first word of a sentence
        ("Pryde took over the station in 1861.", PRYDE, None),
        ("Mrs Pryde took over the station in 1861.", PRYDE, None),
        ("Albert Einstein developed relativity.", "Einstein developed relativity.", None),
        (
            "Hurricane Harvey flooded Houston.",
            "Storm Harvey flooded Houston in 2017.",
            None,
        ),
        ("Decca Records signed the band.", "Verve Records signed the band.", None),
        ("Donald Trump spoke.", "Fact Trump spoke at the rally.", None),
    ],
)
def test_another_given_name_before_the_same_surname_is_another_person(claim, span, rival):
    named = [n for n in notes(claim, span) if "the source names" in n]
    if rival is None:
        assert not named
    else:
        assert named and named[0].endswith(f"(the source names '{rival}')")


@pytest.mark.parametrize(
    ("claim", "blocked"),
    [
        (PRYDE.replace("husband", "brother"), True),
        (PRYDE.replace("her husband", "his son"), True),
        (PRYDE, False),
    ],
)
def test_another_family_relation_is_not_the_same_person(claim, blocked):
    assert any("the span says 'husband'" in n for n in notes(claim, PRYDE)) is blocked


@pytest.mark.parametrize(
    ("claim", "blocked"),
    [
        ("The burner roughly tripled the light's range.", True),
        ("The burner roughly halved the light's range.", True),
        ("The burner roughly doubled the light's range.", False),
        ("The burner extended the light's range.", False),
    ],
)
def test_another_multiplier_is_another_number(claim, blocked):
    span = "The burner roughly doubled the light's range."
    assert any(n.startswith("number_mismatch: '") for n in notes(claim, span)) is blocked
