"""Reading 4 of the heuristic judge's lexical comparison: numbers worked out from the
span, bounds read by their direction, weekdays, and the negations, modals and sentence
openers that paraphrases use (issue 38, from the blind fixtures planted-v11 and v12)."""

from __future__ import annotations

import pytest

from verifier.judges.signals import compare


def kinds(claim: str, span: str) -> list[str]:
    return [b.kind for b in compare(claim, span).blockers]


NUMBER_KINDS = {"number_mismatch", "number_unsupported", "unit_mismatch"}


def number_kinds(claim: str, span: str) -> set[str]:
    return set(kinds(claim, span)) & NUMBER_KINDS


@pytest.mark.parametrize(
    ("claim", "span"),
    [
        # a difference of two amounts in one unit
        (
            "Kestrel ended the quarter with 230 more employees than a year earlier.",
            "Kestrel had 3,710 employees at the end of the quarter, against 3,480 a year earlier.",
        ),
        # a sum
        (
            "Altogether 190 properties flooded in Kelsby, 163 of them homes.",
            "The river flooded 163 residential properties and 27 commercial premises in Kelsby.",
        ),
        # a sum in a magnitude, as precisely as the claim gives it
        (
            "Between them the council and the firm put £1.5 million into the project.",
            "The council gave £1.2 million and the firm £300,000 towards the project.",
        ),
        # a difference in another unit of the same quantity
        (
            "At its peak the river stood 22 cm above the embankment's design level.",
            "The river peaked at 4.62 m; the embankment was designed to hold water up to 4.40 m.",
        ),
        # the years between two years
        (
            "The clock was installed in 1858, four years after the hall was completed.",
            "The hall was completed in 1854. The clock was installed in 1858.",
        ),
        # a share of one count in another
        (
            "Roughly a fifth of the 1,050 registered numbers never got the warning.",
            "212 of the 1,050 registered numbers did not receive the warning.",
        ),
        # a ratio, under a bound
        (
            "The response rate was more than four times higher on the drug than on placebo.",
            "58.3% of patients on the drug responded, compared with 12.7% on placebo.",
        ),
        # a number worked out from another of the claim's numbers the span supports
        (
            "Fifty-three people took part in 2023, twelve more than in 2022.",
            "A team of 34 students and 19 volunteers took part in 2023, up from 41 in 2022.",
        ),
    ],
)
def test_a_number_worked_out_from_the_span_is_supported(claim: str, span: str) -> None:
    assert number_kinds(claim, span) == set()


def test_a_number_no_sum_or_difference_gives_is_still_a_conflict() -> None:
    span = "Kestrel had 3,710 employees at the end of the quarter, against 3,480 a year earlier."
    assert "number_mismatch" in kinds(
        "Kestrel ended the quarter with 250 more employees than a year earlier.", span
    )


def test_an_exact_claim_is_not_worked_out_from_approximate_numbers() -> None:
    span = "The glacier shrank from about 41 square kilometres to about 30 since 1966."
    claim = "Since 1966 the glacier has lost exactly 11 square kilometres."
    assert number_kinds(claim, span)
    assert not number_kinds("Since 1966 the glacier has lost about 11 square kilometres.", span)


def test_a_sum_of_money_is_as_precise_as_the_claim_writes_it() -> None:
    span = "The council gave £1.2 million and the firm £300,000 towards the project."
    assert number_kinds("Together they put £1.55 million into the project.", span)


@pytest.mark.parametrize(
    ("claim", "verdict"),
    [
        ("The survey drew more than 2,300 responses.", set()),
        ("The survey drew at least 2,000 responses.", set()),
        ("The survey drew more than 2,400 responses.", {"number_mismatch"}),
        ("The survey drew fewer than 2,000 responses.", {"number_mismatch"}),
        ("The survey drew fewer than 3,000 responses.", set()),
        # right side of the bound, too far to be what the span says: no conflict either
        ("The survey drew more than 100 responses.", {"number_unsupported"}),
    ],
)
def test_a_bound_is_read_by_its_direction(claim: str, verdict: set[str]) -> None:
    assert number_kinds(claim, "The survey drew 2,316 responses.") == verdict


def test_a_share_under_a_bound_matches_a_percentage_below_it() -> None:
    span = "The endpoint was reached by 51.9% of patients on the drug versus 8.4% on placebo."
    claim = "Fewer than one in ten placebo patients reached the endpoint."
    assert number_kinds(claim, span) == set()
    assert number_kinds("Fewer than one in twenty placebo patients reached the endpoint.", span)


@pytest.mark.parametrize(
    ("claim", "span"),
    [
        ("Earnings per share rose from 93 cents to $1.14.", "EPS was $1.14, against $0.93."),
        ("The peak was 38 centimetres above the record.", "The peak was 0.38 m above the record."),
    ],
)
def test_cents_and_centimetres_are_units(claim: str, span: str) -> None:
    assert number_kinds(claim, span) == set()


def test_at_least_is_no_antonym_of_more() -> None:
    span = "58.3% of patients achieved at least a 75% improvement, compared with 12.7% on placebo."
    claim = "More than four times as many patients on the drug achieved a 75% improvement."
    assert "antonym" not in kinds(claim, span)


def test_another_weekday_is_a_date_conflict_and_a_missing_one_is_not() -> None:
    span = '"It was the last hour of the last Thursday in the trench," Ms Okoro said.'
    assert "date_mismatch" in kinds(
        "Ms Okoro made the find on the last Friday in the trench.", span
    )
    assert "date_mismatch" not in kinds(
        "The timetable changes on Sunday 8 September.", "The timetable changes on 8 September."
    )


def test_first_is_not_a_number_the_span_must_state() -> None:
    span = "The roundhouse lies over an anomaly identified by the 2020 magnetometry survey."
    claim = "The roundhouse lies over an anomaly first picked up by magnetometry in 2020."
    assert number_kinds(claim, span) == set()
    assert "number_mismatch" in kinds(
        "She finished first in the race.", "She finished second in the race."
    )
    # "the first" is a rank, as strong as a superlative
    assert number_kinds(
        "Pagenaud is the first French winner of the race.", "Pagenaud, who is French, won the race."
    ) == {"number_unsupported"}


@pytest.mark.parametrize(
    ("claim", "span"),
    [
        # "nor" goes on with the negation before it
        (
            "Investigators could not establish who had disabled the alarm, nor at what time.",
            "The investigators were unable to establish who had disabled the alarm or when.",
        ),
        # "not … until" is "only then"
        (
            "The captain was not called to the bridge until after the grounding.",
            "The captain was called to the bridge only after the grounding.",
        ),
        # a negation over a word the span states again, un-negated, in another clause
        (
            "Mehta said a $50 million repayment in the quarter cut total debt to $210 million.",
            "Mehta said the company repaid $50 million during the quarter, reducing total debt "
            "to $210 million. Kestrel did not repurchase any shares in the quarter.",
        ),
    ],
)
def test_paraphrased_negations_agree(claim: str, span: str) -> None:
    assert not {"negation", "antonym"} & set(kinds(claim, span))


def test_has_yet_to_is_a_negation() -> None:
    span = "Test equipment demand has not yet recovered, the chief executive said."
    assert "negation" not in kinds(
        "The chief executive said test equipment demand has yet to recover.", span
    )
    assert "negation" in kinds(
        "The chief executive said test equipment demand has recovered.", span
    )


def test_a_negation_over_the_claims_only_mention_of_a_word_still_bears() -> None:
    span = "The board met in May. The merger was not approved by the board."
    assert "negation" in kinds("The merger was approved by the board.", span)


def test_a_modal_hedges_only_the_words_it_governs() -> None:
    span = (
        "Cllr Fenwick voted against, saying the council should not be paying a premium of "
        "over six thousand pounds."
    )
    assert "scope" not in kinds("Cllr Fenwick voted against.", span)
    hedged = "The chief executive said the Authority may need to raise the embankment's height."
    assert "scope" in kinds("The Authority has decided to raise the embankment's height.", hedged)


@pytest.mark.parametrize("opener", ["Despite", "Altogether", "Setting aside"])
def test_a_sentence_opener_is_not_a_missing_name(opener: str) -> None:
    span = "Sigrid Voss sold the painting; the museum paid £92,000 from its own budget."
    claim = f"{opener} the grants, the museum paid £92,000 from its own budget."
    assert "entity_mismatch" not in kinds(claim, span)


def test_all_but_and_not_all_are_no_universal_claims() -> None:
    span = "Calder keeps £45,000; the remainder of the withheld sum was ordered to be paid."
    assert "scope" not in kinds("All but £45,000 of the withheld sum was ordered to be paid.", span)
    most = "Summer temperature explains most, but not all, of the variation in mass loss."
    assert "scope" not in kinds(
        "Summer temperature accounts for the bulk, though not the whole, of the variation in "
        "mass loss.",
        most,
    )
    assert "scope" in kinds(
        "Summer temperature accounts for all of the variation in mass loss.", most
    )


def test_a_claim_giving_a_stance_keeps_the_spans_attribution() -> None:
    span = (
        "Critics, among them the engineer Robert Callis, argued that lattice girders were "
        "prone to fatigue."
    )
    assert "scope" not in kinds(
        "The engineer Robert Callis was among those who criticised lattice girders as prone "
        "to fatigue.",
        span,
    )
    assert "scope" in kinds("Lattice girders were prone to fatigue.", span)


def test_holding_off_is_a_negation() -> None:
    span = "The mayor said the city would not raise the lowest tier for at least five years."
    assert "negation" not in kinds(
        "The mayor said the city would hold off raising the lowest tier for at least five years.",
        span,
    )
    assert "negation" in kinds(
        "The mayor said the city would raise the lowest tier within five years.", span
    )


def test_inside_is_not_the_negation_of_side() -> None:
    span = "A line of post-holes inside the enclosure may represent a fence."
    assert "antonym" not in kinds(
        "A row of post-holes on its northern side may belong to a fence.", span
    )
    assert "antonym" in kinds("The drug was used.", "The drug was unused.")


@pytest.mark.parametrize(
    ("claim", "span"),
    [
        # an acronym of part of a name the span gives
        (
            "CFO Raj Mehta said a $50 million repayment brought total debt down to $210 million.",
            "Chief Financial Officer Raj Mehta said the company had repaid $50 million, reducing "
            "total debt to $210 million, the Kestrel Instruments report said.",
        ),
        # a first name the span leaves out: the names check reads "Tomasz Weller"
        (
            "Tomasz Weller acknowledged that the team has not yet tested that.",
            '"We have not yet tested that," Weller said of the Northfield University team.',
        ),
        # a role in the plural opening the claim is no name
        (
            "Investigators could not establish who had disabled the alarm.",
            "The Board was unable to establish who had disabled the alarm.",
        ),
    ],
)
def test_names_the_span_gives_in_other_words(claim: str, span: str) -> None:
    assert "entity_mismatch" not in kinds(claim, span)


def test_a_first_name_for_another_person_is_still_missing() -> None:
    span = '"We have not yet tested that," Weller said of the Northfield University team.'
    assert "entity_mismatch" in kinds(
        "Anna Kowalska acknowledged that the team has not tested that.", span
    )


def test_a_movement_said_as_a_phrase_has_a_direction() -> None:
    span = "Revenue in the Test & Measurement segment fell 1% to $136.2 million."
    assert "antonym" in kinds("Test & Measurement revenue edged up 1% to $136.2 million.", span)
    assert not kinds("Test & Measurement revenue edged down 1% to $136.2 million.", span)
    assert (
        compare(
            "The Aldergrove went down in the Bay of Biscay on 17 November 1893.",
            "The steamer Aldergrove sank in the Bay of Biscay on 17 November 1893.",
        ).coverage
        == 1.0
    )


@pytest.mark.parametrize(
    ("claim", "verdict"),
    [
        ("Whitlock was the Society's president in the early 1870s.", set()),
        ("Whitlock was the Society's president in the 1870s.", set()),
        ("Whitlock was the Society's president in the mid-1860s.", {"number_mismatch"}),
        ("Whitlock was the Society's president in the late 1870s.", {"number_mismatch"}),
    ],
)
def test_a_decade_covers_its_years(claim: str, verdict: set[str]) -> None:
    span = "Whitlock joined the Society in 1849 and was its president from 1871 to 1873."
    assert number_kinds(claim, span) == verdict


def test_a_year_is_more_than_a_decade_says() -> None:
    assert number_kinds("He built the bridge in 1865.", "He built the bridge in the 1860s.") == {
        "number_unsupported"
    }


def test_a_count_that_announces_no_arithmetic_is_not_taken_from_a_sum() -> None:
    span = "The team scored 5 goals and missed 2 penalties."
    assert number_kinds("The team scored 3 goals.", span) == {"number_unsupported"}
    assert number_kinds("The team scored 3 more goals than penalties it missed.", span) == set()


def test_a_sum_the_claim_does_not_announce_is_neither_support_nor_conflict() -> None:
    span = "The river flooded 163 residential properties and 27 commercial premises."
    assert number_kinds("The river flooded 190 properties.", span) == {"number_unsupported"}
    assert number_kinds("The river flooded 190 properties altogether.", span) == set()
