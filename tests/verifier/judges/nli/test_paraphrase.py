"""The paraphrase rewrites: each on sentences of its kind, and the sentences it must
leave alone (where the rewrite would change what is asserted)."""

from __future__ import annotations

import random

import pytest

from verifier.judges.nli import paraphrase as para
from verifier.judges.nli.synthetic import Document, Sentence, generate_pairs
from verifier.judges.nli.training_set import training_pairs


def run(fn, text: str, *, title: str = "", previous: str = "", seed: int = 0) -> str | None:
    sentences = tuple(s for s in (previous, text) if s)
    doc = Document("d", sentences, title=title)
    return fn(Sentence(doc, len(sentences) - 1), random.Random(seed), (doc,))


@pytest.mark.parametrize(
    ("fn", "text", "expected"),
    [
        (
            para.drop_appositive,
            "Martin Wong, an East Village artist, amassed hundreds of works on paper.",
            "Martin Wong amassed hundreds of works on paper.",
        ),
        (
            para.drop_relative_clause,
            "The tower, which was built of local granite, stood on the headland for a century.",
            "The tower stood on the headland for a century.",
        ),
        (
            para.drop_trailing_clause,
            "The bridge closed to traffic in 1990, after the flood damaged its piers.",
            "The bridge closed to traffic in 1990.",
        ),
        (
            para.move_subordinate_clause,
            "The harbour was dredged because the ships had grown too large for it.",
            "Because the ships had grown too large for it, the harbour was dredged.",
        ),
        (
            para.move_subordinate_clause,
            "When the keeper retired in 1987, the light was automated by the coast guard.",
            "The light was automated by the coast guard when the keeper retired in 1987.",
        ),
        (
            para.lookalike_number,
            "Its beam reaches forty nautical miles on a clear night.",
            "Its beam reaches fourteen nautical miles on a clear night.",
        ),
        (
            para.swap_roles,
            "Rome defeated Carthage in the third war of the series.",
            "Carthage defeated Rome in the third war of the series.",
        ),
        (
            para.drop_speculative_attribution,
            "Some historians suggested that the notes contain the first published program.",
            "The notes contain the first published program.",
        ),
    ],
)
def test_each_rewrite_on_a_sentence_of_its_kind(fn, text: str, expected: str) -> None:
    assert run(fn, text) == expected


@pytest.mark.parametrize(
    ("fn", "text"),
    [
        # the clause after the appositive has no verb of its own: not an appositive
        (
            para.drop_appositive,
            "Gish, the very opposite of a dumb blonde, with her technique, won praise.",
        ),
        # the main part opens with a subordinator: dropping the tail leaves a fragment
        (
            para.drop_trailing_clause,
            "But after losing Todd and nearly losing Michael, while surrounded by gangs.",
        ),
        # a clause attached to the second half of a coordination must not move to the front
        (
            para.move_subordinate_clause,
            "The host had been with the station for years but had been criticised since leaving.",
        ),
        # a list that is one thing ("between A, B and C")
        (para.drop_list_item, "The treaty was signed between France, Spain and Portugal in 1750."),
    ],
)
def test_rewrites_that_would_change_the_meaning_are_not_made(fn, text: str) -> None:
    assert run(fn, text) is None


def test_attribution_is_reframed_both_ways() -> None:
    out = {
        run(
            para.reframe_attribution,
            "The court held that the contract was void from the start.",
            seed=s,
        )
        for s in range(8)
    }
    assert out == {
        "According to the court, the contract was void from the start.",
        "The contract was void from the start, the court held.",
    }
    assert run(
        para.reframe_attribution, "According to Musk, the red car shot past the orbit of Mars."
    ) == ("Musk reported that the red car shot past the orbit of Mars.")
    # a pronoun is never "According to We"
    assert not any(
        (
            run(
                para.reframe_attribution,
                "We found that the vaccine reduced infections by half.",
                seed=s,
            )
            or ""
        ).startswith("According to")
        for s in range(8)
    )


def test_numbers_are_written_another_way_but_years_and_scores_are_left_alone() -> None:
    rewrites = {
        run(para.reformat_number, "The town had 1,200 residents in 1990.", seed=s)
        for s in range(10)
    }
    assert rewrites == {"The town had 1200 residents in 1990."}
    assert (
        run(para.reformat_number, "Smart scored 23 points.") == "Smart scored twenty-three points."
    )
    assert {
        run(para.reformat_number, "The firm raised 3 million dollars.", seed=s) for s in range(10)
    } == {
        "The firm raised 3,000,000 dollars.",
        "The firm raised three million dollars.",
    }
    assert run(para.reformat_number, "Gonzaga won 69-68 in 2017.") is None


def test_name_from_title_pairs_teach_reading_the_context() -> None:
    docs = [
        Document(
            "a",
            (
                "The coast guard inspected it yearly.",
                "Tarn Point Light was automated in 1987 by the coast guard.",
            ),
        ),
        Document("b", ("Visitors climb Hook Head Light every summer.",)),
    ]
    pairs = list(para.description_pairs(docs, seed=3))
    entailed = [p for p in pairs if p.label == "entailment"]
    assert entailed[0].claim == "Tarn Point Light was automated in 1987 by the coast guard."
    assert entailed[0].span == "The light was automated in 1987 by the coast guard."
    assert entailed[0].context.startswith("Tarn Point Light.")
    neutral = [p for p in pairs if p.label == "neutral"]
    assert neutral and all(p.context.split(".")[0] not in p.claim for p in neutral)


def test_the_combined_table_weights_near_copies_down_and_is_deterministic() -> None:
    assert para.ALL_TRANSFORMATIONS["keep_sentence"][2] < 0.5
    docs = [
        Document(
            "a",
            (
                "Ada Lovelace, an English mathematician, wrote the first published program.",
                "She published her notes on the engine in 1843, after years of work.",
            ),
        )
    ]
    first = list(
        generate_pairs(docs, seed=5, per_sentence=2, transformations=para.ALL_TRANSFORMATIONS)
    )
    again = list(
        generate_pairs(docs, seed=5, per_sentence=2, transformations=para.ALL_TRANSFORMATIONS)
    )
    assert first == again and first


def test_training_pairs_frame_premises_as_the_judge_does(tmp_path) -> None:
    import json

    (tmp_path / "prose.jsonl").write_text(
        json.dumps(
            {
                "id": "a",
                "title": "Tarn Point Light",
                "sentences": [
                    "Tarn Point Light stands on a granite cliff above the bay.",
                    "The light was automated in 1987, after a storm damaged the house.",
                ],
            }
        )
        + "\n"
    )
    (tmp_path / "nli_pairs.jsonl").write_text(
        json.dumps(
            {
                "id": "p",
                "dataset": "check-covid",
                "premise": "P.",
                "hypothesis": "H.",
                "label": "entailment",
                "license": "MIT",
            }
        )
        + "\n"
    )
    pairs, summary = training_pairs(tmp_path, seed=1, exclude_claims=["H."])
    assert summary["dropped_as_development_claims"] == 1
    generated = [p for p in pairs if p.origin.startswith("synthetic/")]
    assert generated and all(p.premise.startswith("Tarn Point Light.") for p in generated)


def test_fetched_pairs_are_weighted_by_what_each_set_teaches(tmp_path) -> None:
    import json

    from verifier.judges.nli.training_set import EXTRA_DATASET_WEIGHTS, EXTRA_WEIGHT

    (tmp_path / "prose.jsonl").write_text("")
    (tmp_path / "nli_pairs.jsonl").write_text("")
    rows = [
        {
            "id": f"{ds}/1",
            "dataset": ds,
            "premise": f"{ds} premise.",
            "hypothesis": f"{ds} claim.",
            "label": "entailment",
            "license": "CC BY 4.0",
        }
        for ds in ("fm2", "contract-nli", "med")
    ]
    extra = tmp_path / "extra.jsonl"
    extra.write_text("".join(json.dumps(r) + "\n" for r in rows))
    pairs, _ = training_pairs(tmp_path, seed=1, extra=[extra])
    weight = {p.origin: p.weight for p in pairs}
    # real claims against their evidence count more than a set of 17 statements or two labels
    assert weight["fm2"] == EXTRA_WEIGHT > weight["contract-nli"]
    assert weight["contract-nli"] == EXTRA_DATASET_WEIGHTS["contract-nli"] == weight["med"]
