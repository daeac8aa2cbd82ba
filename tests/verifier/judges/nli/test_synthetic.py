"""The synthetic pair generator: each transformation on examples, labels, determinism."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verifier.judges.nli import synthetic as syn
from verifier.judges.nli.synthetic import Document, Sentence, generate_pairs, usable_sentence

DOC = Document(
    "d1",
    (
        "Ada Lovelace corresponded with Charles Babbage for many years.",
        "She published her notes on the Analytical Engine in 1843.",
        "In 1852, the notes were reprinted (with a new preface) by a London publisher.",
        "Some historians suggest that the notes may contain the first published program.",
        "The engine was never completed, and Babbage died in 1871.",
        "Lovelace is not remembered for her poetry, which she rarely shared.",
        "The manuscripts are kept in the British Library today.",
    ),
    title="Ada Lovelace",
)
OTHER = Document(
    "d2",
    (
        "Giant kelp can grow up to 50 centimetres a day under good conditions.",
        "Sea otters keep urchin populations in check along the coast.",
    ),
)
CORPUS = (DOC, OTHER)


def run(fn, index: int, seed: int = 0) -> str | None:
    return fn(Sentence(DOC, index), random.Random(seed), CORPUS)


def test_first_clause_keeps_the_main_clause() -> None:
    assert run(syn.first_clause, 4) == "The engine was never completed."


def test_parenthesis_and_leading_adverbial_can_go_or_move() -> None:
    assert run(syn.drop_parenthesis, 2) == (
        "In 1852, the notes were reprinted by a London publisher."
    )
    assert run(syn.drop_leading_adverbial, 2) == (
        "The notes were reprinted (with a new preface) by a London publisher."
    )
    assert run(syn.move_adverbial, 2) == (
        "The notes were reprinted (with a new preface) by a London publisher in 1852."
    )


def test_pronoun_is_replaced_by_the_name_in_the_sentence_before() -> None:
    assert run(syn.name_for_pronoun, 1) == (
        "Ada Lovelace published her notes on the Analytical Engine in 1843."
    )
    assert run(syn.name_for_pronoun, 0) is None  # nothing before it


def test_negation_is_removed_or_added() -> None:
    assert run(syn.flip_negation, 5) == (
        "Lovelace is remembered for her poetry, which she rarely shared."
    )
    assert run(syn.flip_negation, 4) == "The engine was always completed, and Babbage died in 1871."
    added = run(syn.flip_negation, 6)
    assert added is not None and " not " in added


def test_number_change_changes_exactly_one_number() -> None:
    for seed in range(10):
        changed = run(syn.change_number, 1, seed)
        assert changed is not None and "1843" not in changed
        assert changed.replace(changed.split()[-1], "") == DOC.sentences[1].replace("1843.", "")


def test_entity_swap_takes_a_name_from_the_same_document() -> None:
    swapped = run(syn.swap_entity, 4)
    assert swapped is not None and "Babbage" not in swapped
    assert swapped != DOC.sentences[4]


def test_strengthening_removes_the_hedge() -> None:
    outputs = {run(syn.strengthen, 3, seed) for seed in range(20)}
    outputs.discard(None)
    assert outputs
    for out in outputs:
        assert out != DOC.sentences[3]
        hedges = ("Some ", "suggest ", "may ")
        assert sum(h in out for h in hedges) < sum(h in DOC.sentences[3] for h in hedges)


def test_added_detail_comes_from_another_document() -> None:
    for seed in range(20):
        out = run(syn.add_detail, 1, seed)
        if out is not None:
            assert out.startswith("She published her notes on the Analytical Engine in 1843")
            assert any(word in out for word in ("kelp", "otters", "Giant", "Sea"))
            return
    pytest.fail("no detail was ever added")


def test_other_sentence_is_outside_the_premise() -> None:
    out = run(syn.other_sentence, 0)
    assert out in DOC.sentences[3:]


def test_usable_sentence_rejects_fragments_and_headings() -> None:
    assert usable_sentence(DOC.sentences[0])
    assert not usable_sentence("## Australia's leading TV blog")
    assert not usable_sentence("the 19th century to the present time.")
    assert not usable_sentence("Short one.")


def test_generation_is_deterministic_and_labelled() -> None:
    first = list(generate_pairs(CORPUS, seed=7, per_sentence=2))
    second = list(generate_pairs(CORPUS, seed=7, per_sentence=2))
    assert first == second and first
    assert {p.label for p in first} <= {syn.ENTAILMENT, syn.NEUTRAL, syn.CONTRADICTION}
    for pair in first:
        assert pair.label == syn.TRANSFORMATIONS[pair.kind][0]
        if pair.label != syn.ENTAILMENT:
            assert pair.claim.strip() != pair.span.strip()


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(min_value=0, max_value=10_000))
def test_every_pair_names_a_real_sentence_of_its_document(seed: int) -> None:
    for pair in generate_pairs(CORPUS, seed=seed):
        doc = next(d for d in CORPUS if d.id == pair.doc_id)
        assert any(s in pair.span for s in doc.sentences)
