from __future__ import annotations

import pytest

from verifier.judges.lexicon import concept, lemma
from verifier.judges.signals import compare


def kinds(claim: str, span: str) -> list[str]:
    return [b.kind for b in compare(claim, span).blockers]


def notes(claim: str, span: str) -> str:
    return " | ".join(b.note for b in compare(claim, span).blockers)


def test_lemmatizer_and_synonyms_are_consistent() -> None:
    assert lemma("increases") == lemma("increasing") == lemma("increased")
    assert concept("rose") == concept("increase") == concept("grew")
    assert concept("studies") == concept("research")
    assert lemma("stopped") == lemma("stop")


def test_identical_text_is_fully_covered_without_blockers() -> None:
    text = "The committee approved the budget on 14 March 2021."
    result = compare(text, text)
    assert result.coverage == 1.0
    assert result.blockers == ()


def test_synonyms_count_as_coverage() -> None:
    result = compare("The company's revenue rose in 2019.", "The firm's revenue increased in 2019.")
    assert result.coverage == 1.0


@pytest.mark.parametrize(
    ("claim", "span", "kind"),
    [
        ("Exercise does not reduce the risk.", "Exercise reduces the risk.", "negation"),
        ("Exercise reduces the risk.", "Exercise never reduces the risk.", "negation"),
        ("Revenue decreased in 2019.", "Revenue increased in 2019.", "antonym"),
        ("The treatment was ineffective.", "The treatment was effective.", "antonym"),
        ("The bridge is 1,200 metres long.", "The bridge is 1,100 metres long.", "number_mismatch"),
        ("The bridge is 5 km long.", "The bridge is 5 miles long.", "unit_mismatch"),
        ("It opened in March 1998.", "It opened in May 1998.", "date_mismatch"),
        ("It opened in 1998.", "It opened after the war.", "number_unsupported"),
        (
            "The prize went to Niels Bohr in 1922.",
            "The prize went to Albert Einstein in 1922.",
            "entity_mismatch",
        ),
    ],
)
def test_blocking_signals(claim: str, span: str, kind: str) -> None:
    assert kind in kinds(claim, span)


def test_number_note_names_both_values() -> None:
    assert "1,200 metres vs 1,100 metres" in notes(
        "The bridge is 1,200 metres long.", "The bridge is 1,100 metres long."
    )


@pytest.mark.parametrize(
    ("claim", "span", "note"),
    [
        ("It cost $40.", "It cost $45.", "number_mismatch: $40 vs $45"),
        ("Growth was 40%.", "Growth was 45%.", "number_mismatch: 40% vs 45%"),
        ("The fee is 12 per cent.", "The fee is 14 per cent.", "12 per cent vs 14 per cent"),
        ("Exports hit 3 million tonnes.", "Exports hit 4 million tonnes.", "3 million tonnes vs"),
        ("It ran 5 km.", "It ran 5 miles.", "unit_mismatch: 5 km vs 5 miles"),
    ],
)
def test_a_number_note_words_each_number_as_its_text_does(claim, span, note) -> None:
    assert note in notes(claim, span)


HARBOUR = "Harbour report. The harbour wall was rebuilt in 1998."


def test_a_span_pronoun_stands_for_the_subject_before_a_number_in_the_predicate() -> None:
    """The API guide's example: "It" is the wall, and the numbers are then compared."""
    found = compare("The wall is 412 metres long.", "It is 412 metres long.", HARBOUR)
    assert found.coverage == 1.0 and found.blockers == ()
    assert kinds("The wall is 420 metres long.", "It is 412 metres long.") == ["number_mismatch"]


def test_a_number_before_the_subject_leaves_the_pronoun_unresolved() -> None:
    found = compare("In 1998 the wall was 412 metres long.", "It was 412 metres long.", HARBOUR)
    assert found.coverage < 1.0


def test_approximate_numbers_tolerate_rounding() -> None:
    assert kinds("About 1,200 people attended.", "Some 1,187 people attended.") == []


def test_double_negation_cancels_antonym() -> None:
    assert "antonym" not in kinds("Revenue did not decrease.", "Revenue increased.")


@pytest.mark.parametrize(
    ("claim", "span", "fragment"),
    [
        ("Coffee reduces the risk.", "Coffee may reduce the risk.", "span hedges 'may'"),
        ("Patients always recover.", "Patients tend to recover.", "claim says 'always'"),
        ("All birds migrate.", "Most birds migrate.", "claim says 'all', span says 'most'"),
        ("Scientists agree sugar harms.", "Some scientists think sugar harms.", "'agree'"),
        ("The study proves it works.", "The study suggests it works.", "proves"),
        ("Walking speeds recovery.", "In his experience, walking speeds recovery.", "experience"),
        ("It is the longest bridge.", "It is a long bridge.", "longest"),
        ("Only women were hired.", "Women were hired.", "'only'"),
    ],
)
def test_scope_and_modality(claim: str, span: str, fragment: str) -> None:
    assert "scope" in kinds(claim, span)
    assert fragment in notes(claim, span)


@pytest.mark.parametrize(
    ("claim", "span"),
    [
        ("Coffee might lower the risk.", "Coffee may reduce the risk."),
        ("Patients often recover.", "Patients frequently recover."),
        ("He walks every day.", "He walks daily."),
        ("Every student passed.", "All students passed."),
        ("Tea can reduce stress.", "Tea often reduces stress."),
    ],
)
def test_equivalent_hedges_do_not_block(claim: str, span: str) -> None:
    assert "scope" not in kinds(claim, span)


@pytest.mark.parametrize(
    ("claim", "span"),
    [
        (
            "The ferry crossed the strait between Dover and Calais in 1821.",
            "In 1821 the ferry crossed the strait between Dover and Calais, a distance of "
            "about 34 kilometres.",
        ),
        (
            "The old mill, which employed villagers, closed in 1962.",
            "The old mill, which employed around forty villagers, closed in 1962.",
        ),
    ],
)
def test_an_approximator_hedges_only_the_number_it_precedes(claim: str, span: str) -> None:
    """The claim leaves the quantity out: it drops no hedge."""
    assert "scope" not in kinds(claim, span)


@pytest.mark.parametrize(
    ("claim", "span"),
    [
        (
            "The strait between Dover and Calais is 34 kilometres wide.",
            "The strait between Dover and Calais is about 34 kilometres wide.",
        ),
        (
            "The old mill employed forty villagers.",
            "The old mill employed around forty villagers.",
        ),
    ],
)
def test_a_claim_that_states_the_hedged_number_as_exact_drops_the_hedge(
    claim: str, span: str
) -> None:
    assert "span hedges" in notes(claim, span)


def test_hedge_dropped_behind_another_shared_hedge_still_blocks() -> None:
    assert "scope" in kinds("People may get sick.", "Some people may get sick.")


def test_negation_far_away_in_another_clause_is_ignored() -> None:
    span = (
        "The museum opened in 1998 and attracts many visitors, although the original "
        "architect did not live to see it."
    )
    assert "negation" not in kinds("The museum opened in 1998.", span)


# Paraphrases a careful writer makes, each read as the same statement (planted-v3 kinds).
@pytest.mark.parametrize(
    ("claim", "span"),
    [
        # an attribution frame keeps the span's "estimates suggest" / "records indicate"
        (
            "According to estimates, the fissure released 120 million tonnes of gas.",
            "Estimates suggest that the fissure released 120 million tonnes of gas.",
        ),
        (
            "According to the parish records, half of the sheep died.",
            "The parish records indicate that half of the sheep died.",
        ),
        (
            "Franklin put forward the idea that a volcano caused the fog.",
            "Franklin proposed that a volcano caused the fog.",
        ),
        # "the most detailed" is a superlative, not the quantifier "most"
        (
            "Jones wrote a detailed account of the flood.",
            "The most detailed account of the flood was written by Jones.",
        ),
        # "could not" is inability, not a hedge
        ("The engineers failed to open the gate.", "The engineers could not open the gate."),
        # "appeared in 1725" is publication, "settled on" is coming to rest
        ("A German translation was published in 1725.", "A German translation appeared in 1725."),
        (
            "Ash that settled on the fields killed the grass.",
            "Ash settling on the fields killed the grass.",
        ),
        # two hedges on two propositions, each kept in other words
        (
            "The piano is believed to have been altered, so it possibly sounds different.",
            "The piano is thought to have been altered, so it may sound different.",
        ),
        # "certain deposits" is "some deposits"
        (
            "Many sites formed early, though certain deposits are older.",
            "Many sites formed early, although some deposits are older.",
        ),
        # "contributed" says "partly"
        (
            "Early printers contributed to fixing the spelling.",
            "The spelling became fixed partly through the work of early printers.",
        ),
    ],
)
def test_reworded_hedges_and_frames_do_not_block(claim: str, span: str) -> None:
    assert "scope" not in kinds(claim, span), notes(claim, span)


def test_a_partial_cause_stated_as_the_cause_drops_the_hedge() -> None:
    assert "scope" in kinds("Printers caused the decline.", "Printers contributed to the decline.")


@pytest.mark.parametrize(
    ("text", "marker"),
    [
        ("The drug appears to reduce pain.", "appears"),
        ("The question of its origin is settled.", "settled"),
        ("Ash settled on the fields.", None),
        ("A translation appeared in 1725.", None),
    ],
)
def test_appear_and_settled_are_markers_only_in_their_hedging_sense(
    text: str, marker: str | None
) -> None:
    from verifier.judges.signals import profile

    assert [m.phrase for m in profile(text).scope] == ([marker] if marker else [])


@pytest.mark.parametrize(
    ("claim", "span"),
    [
        # the negation scopes "spread evenly", not the reform the claim is about
        (
            "The northern towns adopted the reform early.",
            "The reform did not spread evenly across the country; the northern towns "
            "adopted it early.",
        ),
        # "not X but Y": the claim states Y
        ("The fire began in the kitchen.", "The fire began not in the hall but in the kitchen."),
        # "rather than" is "not"
        (
            "The soils were made by people, not by natural processes.",
            "The soils were made by people rather than by natural processes.",
        ),
        # "opened" is the claim's "opening", not the antonym of its "finished"
        (
            "From its opening until the Quebec Bridge was finished in 1917, the Forth Bridge "
            "had the longest spans.",
            "When it opened, the Forth Bridge had the longest spans, a record it held until "
            "the Quebec Bridge was completed in 1917.",
        ),
        # a comparison turned round with the opposite comparative says the same
        (
            "The south keeps the old vowel less faithfully than the north does.",
            "The north keeps the old vowel more faithfully than the south does.",
        ),
    ],
)
def test_polarity_read_where_it_bears(claim: str, span: str) -> None:
    found = kinds(claim, span)
    assert "negation" not in found and "antonym" not in found, notes(claim, span)


def test_a_negated_truth_predicate_refutes_what_came_before() -> None:
    span = "Claims that sourdough is safe for coeliacs are not supported."
    assert "negation" in kinds("Sourdough is safe for coeliacs.", span)


@pytest.mark.parametrize(
    ("claim", "span"),
    [
        # the two things swapped, the same comparative
        (
            "The gas was more destructive than the lava.",
            "The lava was more destructive than the gas.",
        ),
        # a superlative turned into its antonym
        (
            "Each cantilever is shallowest over its pier.",
            "Each cantilever is deepest over its pier.",
        ),
    ],
)
def test_reversed_comparisons_contradict(claim: str, span: str) -> None:
    blockers = compare(claim, span).blockers
    assert any(b.kind == "antonym" and b.contradicts for b in blockers), notes(claim, span)


def test_a_participle_opening_the_claim_is_not_a_missing_name() -> None:
    claim = "Scanning the sky from the roof, Maria Mitchell noticed a faint object."
    span = "While sweeping the sky from the roof of the family home, she noticed a faint object."
    context = "Maria Mitchell and the comet. She worked at the Nantucket Atheneum."
    assert "scanning" not in " ".join(b.note for b in compare(claim, span, context).blockers)


def test_a_place_adjective_names_its_place() -> None:
    claim = "Franklin thought an Icelandic volcano caused the fog."
    assert "entity_mismatch" not in kinds(
        claim, "Franklin thought a volcano in Iceland caused the fog."
    )


@pytest.mark.parametrize(
    ("claim", "span"),
    [
        ("The change took three hundred years.", "The change took three centuries."),
        ("The road is 5 km long.", "The road is 5,000 metres long."),
        ("The load was 2 tonnes.", "The load was 2,000 kg."),
    ],
)
def test_a_quantity_in_another_unit_is_the_same_quantity(claim: str, span: str) -> None:
    found = kinds(claim, span)
    assert not {"number_unsupported", "number_mismatch", "unit_mismatch"} & set(found), found


def test_a_magnitude_word_is_part_of_its_number() -> None:
    from verifier.judges.signals import profile

    numbers = profile("It lasted three hundred years and cost 3 million pounds.").numbers
    assert [m.value for m in numbers] == [300.0, 3_000_000.0]
    assert [m.value for m in profile("Twenty-one of the thirty-four survived.").numbers] == [
        21.0,
        34.0,
    ]


def test_most_of_them_agreeing_is_a_majority_not_a_consensus() -> None:
    claim = "Sombroek held that people made the soils, and most researchers now agree with him."
    span = "He argued that people made the soils, a view that most researchers now share."
    assert "scope" not in kinds(claim, span), notes(claim, span)
    assert "claim says 'agree'" in notes(
        "Researchers agree with him.", "Most researchers share his view."
    )


def test_no_fewer_than_is_at_least_not_a_negation() -> None:
    claim = "No fewer than 73 workers died during construction."
    assert "negation" not in kinds(claim, "At least 73 workers died during construction.")


@pytest.mark.parametrize(
    ("claim", "span"),
    [
        # "zero recorded cases" is "no cases were recorded"
        (
            "There were zero recorded cases among the staff.",
            "No cases were recorded among the staff.",
        ),
        # "rather than" and "instead of" are the same "not"
        (
            "The council approved a plan with one reservoir rather than two.",
            "The council approved a plan with one reservoir instead of two.",
        ),
        # "none of" is the negation of the whole, read by parity
        (
            "None of the changes have been reversed.",
            "The authority has not reversed any of the changes.",
        ),
        # an attributive "independent" is no negation
        (
            "An institute estimated that the redesign caused half of the increase.",
            "An independent review by an institute estimated that the redesign caused half "
            "of the increase.",
        ),
        # a negation far before the claim's words in their clause still bears
        (
            "The ruling does not settle how much the couriers are owed.",
            "The ruling does not by itself determine how much the couriers are owed.",
        ),
    ],
)
def test_negation_paraphrases_keep_their_parity(claim: str, span: str) -> None:
    found = kinds(claim, span)
    assert "negation" not in found and "scope" not in found, notes(claim, span)


def test_a_negation_far_before_the_claims_words_contradicts_a_claim_without_it() -> None:
    claim = "The ruling determines how much the couriers are owed."
    span = "It does not by itself at this stage determine how much the couriers are owed."
    assert "negation" in kinds(claim, span)


@pytest.mark.parametrize(
    ("claim", "span"),
    [
        # a superlative of a synonym
        ("Chile was the biggest foreign market.", "Chile was the largest foreign market."),
        # "less often" compares frequencies; it hedges nothing
        (
            "Dormouse numbers are thought to have fallen by half.",
            "Cutting hedges less often helps the dormouse, whose numbers are thought to have "
            "fallen by half.",
        ),
    ],
)
def test_comparatives_and_superlatives_in_other_words_do_not_block(claim: str, span: str) -> None:
    assert "scope" not in kinds(claim, span), notes(claim, span)


def test_an_organisations_kind_is_not_a_missing_name() -> None:
    claim = "Halvorsen Therapeutics filed for approval in June 2021."
    assert "entity_mismatch" not in kinds(claim, "Halvorsen filed for approval in June 2021.")


def test_a_common_word_opening_the_claim_is_not_a_missing_name() -> None:
    claim = "Work on the scheme began in April 2018."
    span = "The Environment Agency's construction of the scheme began in April 2018."
    assert "'work' not in span" not in notes(claim, span)


def test_irregular_past_forms_are_their_verbs() -> None:
    assert lemma("slept") == lemma("sleeping") and lemma("broken") == lemma("break")


def test_a_gain_reported_by_someone_does_not_excuse_the_spans_suggested() -> None:
    claim = "The scanner was responsible for most of the speed gain reported by Corvid."
    span = (
        "Benchmarks later suggested that most of the speed gain reported by Corvid came "
        "from the scanner."
    )
    assert "scope" in kinds(claim, span)


@pytest.mark.parametrize(
    ("claim", "span"),
    [
        ("Twenty-one of the passengers survived.", "Exactly 21 of the passengers survived."),
        ("The game went on for close to six hours.", "The game lasted nearly six hours."),
    ],
)
def test_numbers_in_words_and_their_approximators(claim: str, span: str) -> None:
    found = kinds(claim, span)
    assert not {"number_unsupported", "number_mismatch", "scope"} & set(found), found


@pytest.mark.parametrize(
    ("claim", "span"),
    [
        (
            "Rao, a grandmaster from India, won the event.",
            "The Indian grandmaster Rao won the event.",
        ),
        (
            "Children are vaccinated at no cost in schools.",
            "Children are vaccinated free of charge in schools.",
        ),
        (
            "All households paid the same rate no matter how much water they used.",
            "All households paid the same rate whatever their use of water.",
        ),
        (
            "Vaccination began in the provinces with the most frequent outbreaks.",
            "Vaccination began in the provinces where outbreaks had been most frequent.",
        ),
    ],
)
def test_names_idioms_and_superlatives_in_other_words(claim: str, span: str) -> None:
    found = kinds(claim, span)
    assert not {"entity_mismatch", "negation", "scope"} & set(found), notes(claim, span)


def test_a_reporting_verb_matches_the_spans_said() -> None:
    claim = "The ministry reported that 1.2 million children had received a first dose."
    span = "The ministry said that 1.2 million children had received a first dose."
    assert compare(claim, span).coverage == 1.0


@pytest.mark.parametrize(
    ("claim", "span"),
    [
        # a bound, not a negation
        (
            "FastFreeze cools to -26 °C for no more than 52 hours.",
            "FastFreeze cools to -26 °C for up to 52 hours.",
        ),
        # "rather than just Q" keeps Q, as "not only Q" does
        (
            "A long request needs a department head's approval rather than just the manager's.",
            "A long request must be approved by a department head, not only by the manager.",
        ),
        # "in lieu of" is "instead of"
        (
            "The company can pay salary instead of notice.",
            "The company may pay salary in lieu of notice.",
        ),
        # "a sickness absence" is time off, not the absence of something
        (
            "Staff can self-certify a sickness absence of up to a week.",
            "Employees may self-certify absences of up to seven days.",
        ),
        # "if the power fails" is a breakdown, not "did not"
        (
            "During a power cut, a full freezer keeps food frozen for about 30 hours.",
            "If the power fails, keep the lid closed. A full freezer will keep food frozen "
            "for approximately 30 hours.",
        ),
        # a negation on each side about words the other says otherwise: a paraphrase pair
        (
            "Not all ticks carry the infection, and most tick bites don't make people ill.",
            "Not every tick carries the infection, and most tick bites do not lead to illness.",
        ),
    ],
)
def test_bounds_phrases_and_paraphrased_negations_keep_polarity(claim: str, span: str) -> None:
    assert "negation" not in kinds(claim, span), notes(claim, span)


def test_a_span_negation_on_a_word_the_claim_states_plainly_contradicts() -> None:
    claim = (
        "Antibiotics are routinely recommended after a tick bite, even when no symptoms "
        "have developed."
    )
    span = "Antibiotics are not routinely recommended after a bite unless symptoms develop."
    assert "negation" in kinds(claim, span), notes(claim, span)


def test_a_negated_saying_bears_on_what_is_said() -> None:
    claim = "Oyelaran said it is not known whether the effects would apply to people with dementia."
    span = (
        "'We cannot say whether these effects would apply to people with dementia,' Oyelaran said."
    )
    assert "negation" not in kinds(claim, span), notes(claim, span)


@pytest.mark.parametrize(
    ("claim", "span"),
    [
        (
            "Roughly a third of people with the disease never notice a rash.",
            "Around one in three people with the disease never notice a rash.",
        ),
        ("About 40 percent of the members voted.", "Two in five of the members voted."),
        (
            "Two thirds of the budget went on salaries.",
            "67 percent of the budget went on salaries.",
        ),
        ("Carers receive full pay for the first 16 weeks.", "Carers receive 16 weeks at full pay."),
    ],
)
def test_shares_in_words_are_numbers(claim: str, span: str) -> None:
    found = kinds(claim, span)
    assert not {"number_unsupported", "number_mismatch", "scope"} & set(found), notes(claim, span)


@pytest.mark.parametrize(
    ("claim", "span"),
    [
        ("A quarter of the members voted by post.", "10 percent of the members voted by post."),
        ("One in four members voted by post.", "One in ten members voted by post."),
    ],
)
def test_a_share_in_words_that_differs_is_a_mismatch(claim: str, span: str) -> None:
    assert "number_mismatch" in kinds(claim, span), notes(claim, span)


def test_a_number_is_contradicted_only_by_one_of_its_kind_and_unit() -> None:
    claim = "Markets were held at the Exchange twice a week."
    span = "For nearly seventy years the Exchange held market days every Tuesday and Friday."
    assert "number_mismatch" not in kinds(claim, span), notes(claim, span)


@pytest.mark.parametrize(
    ("claim", "span"),
    [
        (
            "The rash typically shows up 3 to 30 days after a bite.",
            "The rash usually appears between 3 and 30 days after the bite.",
        ),
        (
            "Full-time staff get 25 days of paid leave each calendar year.",
            "Full-time employees receive 25 days of paid leave per calendar year.",
        ),
    ],
)
def test_frequencies_and_physical_appearing_are_not_hedges(claim: str, span: str) -> None:
    assert "scope" not in kinds(claim, span), notes(claim, span)


def test_a_fee_reported_to_be_a_sum_is_hearsay() -> None:
    claim = "The club received £2.3 million for the midfielder."
    span = "The club sold the midfielder for a fee reported to be £2.3 million."
    assert "scope" in kinds(claim, span), notes(claim, span)


@pytest.mark.parametrize(
    ("claim", "span"),
    [
        ("Staff recalled the incident.", "Employees remembered the incident."),
        (
            "The appliance operates properly in cold rooms.",
            "The machine runs correctly in cold rooms.",
        ),
        ("The council postponed the vote.", "The council delayed the vote."),
    ],
)
def test_everyday_paraphrases_are_covered(claim: str, span: str) -> None:
    assert compare(claim, span).coverage == 1.0, notes(claim, span)


@pytest.mark.parametrize(
    ("claim", "span"),
    [
        # "would not start": it did not start (as "could not"), not a hedge
        (
            "The backup chiller failed to start because a valve was shut.",
            "The backup chiller would not start because a valve was shut.",
        ),
        # an emphatic "never" for one event is "did not": no frequency claimed
        ("About 40 servers never powered back on.", "About 40 servers did not power on again."),
        # comparisons with an expectation or a record do not hedge
        (
            "The quarter was cleaner than analysts thought and the rating stayed at hold.",
            "The quarter was cleaner than expected and the rating stayed at hold.",
        ),
        (
            "Reported fuel use was 18 percent below the purchase records.",
            "Reported fuel use was 18 percent lower than the purchase records indicated.",
        ),
        # an approximator hedges its own quantity, which the claim does not state
        (
            "Gross margin improved from 29.8 percent to 31.4 percent.",
            "Gross margin widened to 31.4 percent from 29.8 percent. The finance chief said "
            "roughly half of that improvement came from cheaper shipping.",
        ),
    ],
)
def test_refusals_emphatic_never_and_comparisons_are_not_hedges(claim: str, span: str) -> None:
    assert "scope" not in kinds(claim, span), notes(claim, span)


def test_at_least_and_or_more_are_one_bound() -> None:
    claim = "Half the patients saw migraine days fall by at least 50 percent."
    span = "A reduction in migraine days of 50 percent or more was seen in half the patients."
    assert "antonym" not in kinds(claim, span), notes(claim, span)


def test_a_plan_is_not_a_deed() -> None:
    claim = "The company has filed for approval in Europe."
    span = "The company said it plans to file for approval in Europe."
    assert "scope" in kinds(claim, span), notes(claim, span)


def test_a_number_word_in_a_compound_is_a_number() -> None:
    assert "number_unsupported" not in kinds(
        "The three players who tied for second shared the prize.",
        "A three-way tie for second place shared the prize.",
    )
    assert "number_mismatch" in kinds(
        "A three-year ban was overturned.", "A two-year ban was overturned."
    )


def test_a_head_already_in_a_group_joins_it() -> None:
    assert concept("major") == concept("large") == concept("big")
    assert concept("staff") == concept("employees")
    assert concept("remembered") == concept("recall")


def test_a_question_states_nothing() -> None:
    claim = "Polar bear numbers are increasing."
    assert "scope" in kinds(claim, '"Ask the experts: Are polar bear numbers increasing?".')
    assert "scope" not in kinds(claim, "Polar bear numbers are increasing, the survey found.")


@pytest.mark.parametrize(
    ("claim", "span"),
    [
        (
            "Confirmed cases rose to 1,146 in 2023.",
            "Laboratory-confirmed cases rose to 1,146 in 2023.",
        ),
        ("The scheme is run by the community.", "The scheme is community-run."),
    ],
)
def test_a_part_of_a_hyphenated_word_is_covered(claim: str, span: str) -> None:
    assert compare(claim, span).coverage == 1.0, notes(claim, span)


def test_fifty_percent_is_half() -> None:
    found = kinds("They then receive 50 percent of their salary.", "They then receive half pay.")
    assert "number_unsupported" not in found


def test_a_negated_word_and_its_un_prefixed_antonym_agree() -> None:
    claim = "Leave that has not been used is lost."
    assert "negation" not in kinds(claim, "Unused leave is forfeited.")
    assert "negation" in kinds(claim, "Used leave is forfeited.")
    assert "negation" not in kinds(
        "The control group rested without sleeping.", "The control group stayed awake and rested."
    )


def test_a_modal_conjunct_hedges_only_itself() -> None:
    span = "The rash appears within 30 days of the bite and may grow to 30 cm across."
    assert "scope" not in kinds("The rash appears within 30 days of the bite.", span)
    assert "scope" in kinds("The rash grows to 30 cm across.", span)


def test_inflections_never_make_short_words_synonyms() -> None:
    assert concept("us") == "us"  # not "use", through "uses"
    assert concept("year") != concept("used")
