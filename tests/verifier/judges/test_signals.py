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
