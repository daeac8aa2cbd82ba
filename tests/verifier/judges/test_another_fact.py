"""A span about another fact than the claim's is no contradiction (reading 10).

A statement framed by a year ("Acme's revenue in 2022 was 5 million euros") is not
contradicted by a span framed by another year ("… in 2023 was 7 million euros"), nor a
statement about a numbered thing ("Pier 3 …") by one about another of the series
("Pier 4 …"): seed 003's "contradicted" is a chunk that explicitly disagrees. Such a
span does not entail the claim either. The same year with another amount, and another
year for when an event happened, still contradict. Pure rules, the real judge."""

from __future__ import annotations

import pytest

from verifier.judges.base import JudgeItem
from verifier.judges.heuristic import HeuristicJudge
from verifier.judges.signals import compare, profile
from verifier.judges.signals.numbers import numbered_subjects, other_fact, time_frames

REVENUE_2022 = "Acme's revenue in 2022 was 5 million euros."
REVENUE_2023 = "Acme's revenue in 2023 was 7 million euros."


def kinds(claim: str, span: str) -> list[tuple[str, bool]]:
    return [(b.kind, b.contradicts) for b in compare(claim, span).blockers]


def frame_years(text: str) -> list[str]:
    return [m.raw for m in time_frames(profile(text))]


@pytest.mark.parametrize(
    ("text", "years"),
    [
        (REVENUE_2022, ["2022"]),
        ("In 2023, the population was 7,000.", ["2023"]),
        ("The population was 7,000 in 2023.", ["2023"]),
        ("In March 2023 the town had 7,000 residents.", ["2023"]),
        ("Acme's 2022 revenue was 5 million euros.", ["2022"]),
        ("Sales for 2021 reached 40,000 units.", ["2021"]),
        # when something happened is the fact: no frame
        ("The bridge opened in 1925.", []),
        ("The bridge opened in 1925 at a cost of 5 million dollars.", []),
        ("Pier 3 was built in 1903.", []),
        ("In 2022 Acme hired its first engineer.", []),  # no quantity it frames
    ],
)
def test_time_frames(text, years):
    assert frame_years(text) == years


@pytest.mark.parametrize(
    ("text", "subjects"),
    [
        ("Pier 3 was built in 1903.", [("pier", "3")]),
        ("The Route 66 bridge closed.", []),  # "bridge" follows: a count or a name part
        ("Platform 9 is closed.", [("platform", "9")]),
        ("The ship docked at Pier 3 in 1990.", []),  # not what the sentence is about
        ("Acme sold 5 cars in 2022.", []),
    ],
)
def test_numbered_subjects(text, subjects):
    assert [(w, m.raw) for w, m in numbered_subjects(profile(text))] == subjects


def test_another_year_neither_contradicts_nor_supports():
    found = compare(REVENUE_2022, REVENUE_2023)
    assert not any(b.contradicts for b in found.blockers)
    assert found.blockers[0].note == (
        "number_unsupported: 2022 vs 2023, the span is about another year"
    )
    # the claim's amount is unstated, not contradicted: an invented number stays visible
    assert "number_unsupported: 5 million euros" in [b.note for b in found.blockers]


@pytest.mark.parametrize(
    ("claim", "span"),
    [
        ("In 2023, the population was 7,000.", "In 2022, the population was 5,000."),
        ("The population was 7,000 in 2023.", "The population was 5,000 in 2022."),
        ("Acme's 2022 revenue was 5 million euros.", "Acme's 2023 revenue was 7 million euros."),
        (
            "In March 2023 the town had 7,000 residents.",
            "In April 2021 the town had 6,100 residents.",
        ),
        # the same year, another month or day: another date
        ("In March 2022 revenue was 5 million.", "In April 2022 revenue was 7 million."),
        ("On March 5, 2022 the index closed at 300.", "On March 6, 2022 the index closed at 310."),
        ("Pier 3 was built in 1903.", "Pier 4 was built in 1904."),
    ],
)
def test_another_fact_is_no_conflict(claim, span):
    assert other_fact(profile(claim), profile(span)) is not None
    assert kinds(claim, span) and not any(c for _, c in kinds(claim, span))


def test_another_date_says_so():
    claim = "On 5 March 2022 the index closed at 300."
    (lead, *_) = compare(claim, "On 6 March 2022 the index closed at 310.").blockers
    assert lead.note == ("number_unsupported: 2022 vs 6 March 2022, the span is about another date")
    # the same date, another close: a conflict
    (lead, *_) = compare(claim, "On 5 March 2022 the index closed at 310.").blockers
    assert lead.contradicts and lead.note == "number_mismatch: 300 vs 310"


def test_another_numbered_subject_says_so():
    (lead, *_) = compare("Pier 3 was built in 1903.", "Pier 4 was built in 1904.").blockers
    assert lead.note == (
        "number_unsupported: 3 vs 4, the span is about another numbered subject (Pier 4)"
    )


@pytest.mark.parametrize(
    ("claim", "span", "note"),
    [
        # the same year, another amount
        (REVENUE_2022, "Acme's revenue in 2022 was 7 million euros.", "5 million euros vs 7"),
        # another year for when the event happened
        ("The bridge opened in 1925.", "The bridge opened in 1932.", "1925 vs 1932"),
        (
            "The bridge opened in 1925 at a cost of 5 million dollars.",
            "The bridge opened in 1932 at a cost of 5 million dollars.",
            "1925 vs 1932",
        ),
        # a claim about the whole year, a span about a month of it: not another time
        (REVENUE_2022, "In April 2022 Acme's revenue was 7 million euros.", "5 million euros vs 7"),
        # the same pier, another year
        ("Pier 3 was built in 1903.", "Pier 3 was built in 1905.", "1903 vs 1905"),
        # another pier where the ship docked: where is the fact
        ("The ship docked at Pier 3 in 1990.", "The ship docked at Pier 4 in 1990.", "3 vs 4"),
    ],
)
def test_the_same_fact_stated_otherwise_still_contradicts(claim, span, note):
    found = compare(claim, span)
    assert found.blockers[0].contradicts and found.blockers[0].kind == "number_mismatch"
    assert note in found.blockers[0].note


def test_a_span_with_both_years_still_reads_the_claims():
    span = "Acme's revenue was 5 million euros in 2022 and 7 million euros in 2023."
    assert compare(REVENUE_2022, span).blockers == ()


def test_the_heuristic_abstains_on_a_span_about_another_year():
    judge = HeuristicJudge()
    items = [
        JudgeItem("other", REVENUE_2022, (REVENUE_2023,)),
        JudgeItem("same", REVENUE_2022, ("Acme's revenue in 2022 was 7 million euros.",)),
        JudgeItem("pier", "Pier 3 was built in 1903.", ("Pier 4 was built in 1904.",)),
    ]
    other, same, pier = judge.judge_batch(items)
    assert other.label == "abstained" and "another year" in other.note
    assert same.label == "contradicted"
    assert pier.label == "abstained" and "another numbered subject" in pier.note


def test_a_pier_is_entailed_by_its_own_sentence_beside_its_neighbours():
    """ "Pier k was built in 1900+k": the sentences about piers k±1, bound beside the
    pier's own, were a conflict (``spans_conflict: … number_mismatch: 3 vs 4``)."""
    judge = HeuristicJudge()
    items = [
        JudgeItem(
            f"pier-{k}",
            f"Pier {k} was built in {1900 + k}.",
            tuple(f"Pier {n} was built in {1900 + n}." for n in (k, k + 1, k - 1)),
        )
        for k in (2, 3, 7)
    ]
    wrong = JudgeItem(
        "wrong",
        "Pier 3 was built in 1905.",
        ("Pier 3 was built in 1903.", "Pier 4 was built in 1904."),
    )
    *piers, contradicted = judge.judge_batch([*items, wrong])
    assert [r.label for r in piers] == ["entailed"] * 3, [r.note for r in piers]
    assert contradicted.label == "contradicted"
    assert contradicted.note == "number_mismatch: 1905 vs 1903 (span 1)"
