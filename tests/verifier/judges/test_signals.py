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
    assert "1,200 metre vs 1,100 metre" in notes(
        "The bridge is 1,200 metres long.", "The bridge is 1,100 metres long."
    )


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
