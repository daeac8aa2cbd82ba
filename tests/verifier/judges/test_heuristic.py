from __future__ import annotations

import numpy as np
import pytest

from verifier.embeddings import EmbeddingUnavailable
from verifier.judges import JudgeItem, build_judge, judge_items
from verifier.judges.heuristic import (
    COVERAGE_FLOOR,
    FAMILY,
    MODEL_ID,
    HeuristicJudge,
    HeuristicThresholds,
)


def constant_embed(value: float):
    """Fake embedder: every claim/span pair has cosine ``value``; records calls."""
    calls: list[list[str]] = []

    def embed(texts: list[str]) -> np.ndarray:
        calls.append(list(texts))
        out = np.zeros((len(texts), 2), dtype=np.float32)
        for i in range(len(texts)):
            out[i] = [1.0, 0.0] if i == 0 else [value, float(np.sqrt(1 - value * value))]
        return out

    embed.calls = calls  # type: ignore[attr-defined]
    return embed


def one(judge: HeuristicJudge, claim: str, *spans: str):
    return judge_items(judge, [JudgeItem("k", claim, tuple(spans))])[0]


def test_identity_and_registry() -> None:
    judge = build_judge({"backend": "heuristic"})
    assert isinstance(judge, HeuristicJudge)
    assert (judge.model_id, judge.family, judge.prompt_version) == (MODEL_ID, FAMILY, 10)


def test_thresholds_are_within_unit_interval() -> None:
    th = HeuristicThresholds()
    assert 0 < th.coverage_floor <= 1 and 0 < th.similarity_floor <= 1
    assert 0 <= th.entail_probability_min <= 1 and 0 <= th.contradicted_confidence <= 1


BRIDGE = "The bridge is 1,200 metres long."


def test_one_encode_call_per_batch() -> None:
    embed = constant_embed(0.99)
    judge = HeuristicJudge(embed=embed)
    items = [
        JudgeItem(
            f"k{i}", "The bridge is 1,200 metres long.", ("The bridge is 1,200 metres long.",)
        )
        for i in range(5)
    ]
    judge.judge_batch(items)
    assert len(embed.calls) == 1
    assert len(embed.calls[0]) == 1  # identical texts are embedded once


def test_low_similarity_abstains_even_with_full_coverage() -> None:
    judge = HeuristicJudge(embed=constant_embed(0.1))
    text = "The bridge is 1,200 metres long."
    result = one(judge, text, text + " It carries eight lanes.")
    assert result.label == "abstained"
    assert result.note.startswith("signals_disagree")


def test_spans_joined_need_the_similarity_one_passage_would_not() -> None:
    claim = "The bridge is 1,200 metres long and carries eight lanes of traffic."
    spans = ("The bridge is 1,200 metres long.", "It carries eight lanes of traffic.")
    # the words are all there once the two passages are joined, but the claim reads
    # only loosely like them: the lexical route that one passage may take is closed
    joined = one(HeuristicJudge(embed=constant_embed(0.6)), claim, *spans)
    assert joined.label == "abstained" and joined.note.startswith("signals_disagree")
    assert joined.note.endswith("(spans 1+2)")
    # one passage that says both, at the same similarity, still supports it
    single = one(HeuristicJudge(embed=constant_embed(0.6)), claim, " ".join(spans))
    assert single.label == "entailed"
    # joined passages that read like the claim support it
    close = one(HeuristicJudge(embed=constant_embed(0.7)), claim, *spans)
    assert close.label == "entailed" and close.note.endswith("(spans 1+2)")


def test_without_embeddings_only_full_coverage_can_pass_and_confidence_is_capped() -> None:
    def broken(texts: list[str]) -> np.ndarray:
        raise EmbeddingUnavailable("no model")

    judge = HeuristicJudge(embed=broken)
    text = "The committee approved the annual budget."
    result = one(judge, text, text)
    assert result.label == "entailed" and result.confidence <= 0.6
    assert "embeddings unavailable" in result.note
    partial = one(judge, "The committee approved the annual budget quickly.", text)
    assert partial.label == "abstained"


def test_contradiction_beats_nothing_and_notes_the_signal() -> None:
    judge = HeuristicJudge(embed=constant_embed(0.95))
    result = one(judge, "The bridge is 1,100 metres long.", "The bridge is 1,200 metres long.")
    assert result.label == "contradicted"
    assert result.note.startswith("number_mismatch: 1,100 metres vs 1,200 metres")
    assert 0 <= result.confidence <= 1


def test_multiple_spans_best_supported_wins() -> None:
    judge = HeuristicJudge(embed=constant_embed(0.95))
    result = one(
        judge,
        "The bridge is 1,200 metres long.",
        "Tourists visit the city in summer.",
        "The bridge is 1,200 metres long.",
    )
    assert result.label == "entailed"
    assert "(span 2)" in result.note


def test_claim_spread_over_two_spans_is_judged_on_the_concatenation() -> None:
    judge = HeuristicJudge(embed=constant_embed(0.95))
    result = one(
        judge,
        "The museum opened in 1998 and houses 400 paintings.",
        "The museum opened in 1998.",
        "It houses 400 paintings.",
    )
    assert result.label == "entailed"
    assert "spans 1+2" in result.note


def test_conflicting_spans_abstain() -> None:
    judge = HeuristicJudge(embed=constant_embed(0.95))
    result = one(
        judge,
        "The bridge is 1,200 metres long.",
        "The bridge is 1,200 metres long.",
        "The bridge is 1,100 metres long.",
    )
    assert result.label == "abstained"
    assert result.note.startswith("spans_conflict")


def test_low_coverage_abstains_with_missing_words() -> None:
    judge = HeuristicJudge(embed=constant_embed(0.95))
    result = one(judge, "Volcanoes emit more carbon than factories.", "Factories are large.")
    assert result.label == "abstained"
    assert result.note.startswith("low_coverage")
    assert COVERAGE_FLOOR > 0


# --- the real MiniLM model: paraphrases pass, distortions do not ----------------------

SPANS = [
    "Regular exercise may reduce the risk of heart disease in older adults.",
    "The bridge, completed in 1932, is 1,200 metres long and carries eight lanes of traffic.",
    "In his experience, patients who walk daily tend to recover faster after surgery.",
    "Some studies suggest that moderate coffee consumption is associated with a lower risk "
    "of type 2 diabetes.",
    "The committee approved the budget on 14 March 2021 after a long debate.",
    "Many economists believe that tariffs can raise consumer prices.",
]
PARAPHRASES = [
    "Older adults who exercise regularly may have a lower risk of heart disease.",
    "The bridge is 1,200 metres long.",
    "In his experience, patients who walk every day tend to recover more quickly after surgery.",
    "Some research suggests moderate coffee drinking is associated with a reduced risk of "
    "type 2 diabetes.",
    "The committee approved the budget on 14 March 2021.",
    "Many economists think tariffs can increase consumer prices.",
]
OVERSTATED = [
    "Regular exercise reduces the risk of heart disease in older adults.",
    "The bridge, completed in 1932, is the longest bridge and carries eight lanes of traffic.",
    "Patients who walk daily always recover faster after surgery.",
    "Studies have demonstrated that moderate coffee consumption prevents type 2 diabetes.",
    "The committee unanimously approved the budget on 14 March 2021.",
    "Economists agree that tariffs raise consumer prices.",
]
CONTRADICTED = [
    "Regular exercise does not reduce the risk of heart disease in older adults.",
    "The bridge is 1,100 metres long.",
    "In his experience, patients who walk daily tend to recover slower after surgery.",
    "Some studies suggest that moderate coffee consumption is associated with a higher risk "
    "of type 2 diabetes.",
    "The committee rejected the budget on 14 March 2021.",
    "Many economists believe that tariffs cannot raise consumer prices.",
]


@pytest.fixture(scope="module")
def real_judge() -> HeuristicJudge:
    from verifier.embeddings import is_available

    if not is_available():
        pytest.skip("embedding model not installed")
    return HeuristicJudge()


def _labels(judge: HeuristicJudge, claims: list[str]) -> list[str]:
    items = [
        JudgeItem(f"k{i}", c, (s,)) for i, (c, s) in enumerate(zip(claims, SPANS, strict=True))
    ]
    return [r.label for r in judge_items(judge, items)]


def test_faithful_paraphrases_are_entailed(real_judge: HeuristicJudge) -> None:
    assert _labels(real_judge, PARAPHRASES) == ["entailed"] * len(SPANS)


def test_overstated_claims_are_never_entailed(real_judge: HeuristicJudge) -> None:
    assert "entailed" not in _labels(real_judge, OVERSTATED)


def test_contradicted_claims_are_never_entailed(real_judge: HeuristicJudge) -> None:
    labels = _labels(real_judge, CONTRADICTED)
    assert "entailed" not in labels
    assert labels.count("contradicted") >= 4


def test_confidence_in_unit_interval(real_judge: HeuristicJudge) -> None:
    pairs = enumerate(zip(PARAPHRASES, SPANS, strict=True))
    items = [JudgeItem(f"k{i}", c, (s,)) for i, (c, s) in pairs]
    for result in judge_items(real_judge, items):
        assert 0.0 <= result.confidence <= 1.0


def test_a_name_written_with_or_without_its_diacritics_is_one_name() -> None:
    judge = build_judge({"backend": "heuristic"})
    assert isinstance(judge, HeuristicJudge)
    same = one(
        judge, "Zoe Laurent opened the cafe in 2004.", "Zoë Laurent opened the café in 2004."
    )
    assert same.label == "entailed", same.note
    other = one(
        judge, "Zoë Laurent opened the café in 2005.", "Zoë Laurent opened the café in 2004."
    )
    assert other.label == "contradicted"
    # a name is read whole: "Grímsvötn" was the words "gr", "msv" and "tn"
    missing = one(judge, "Grímsvötn erupted in 1783.", "Laki erupted in 1783.")
    assert missing.label == "abstained"
    assert "missing: Grímsvötn" in missing.note


def test_a_name_of_letters_without_a_plain_form_is_read_whole() -> None:
    # "ø" has no decomposition to a Latin letter: "Hønneland" is still one name
    judge = build_judge({"backend": "heuristic"})
    assert isinstance(judge, HeuristicJudge)
    missing = one(
        judge,
        "The Arctic report was written by Hønneland in 2004.",
        "The Arctic report was written in 2004 by a panel of experts.",
    )
    assert missing.label == "abstained"
    assert "'hønneland' not in span" in missing.note  # it was "'h' not in span"
