"""The trained judge on small inputs, with the real shipped weights and encoder."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from verifier.judges import JudgeItem, build_judge, judge_items
from verifier.judges.nli import head as head_module
from verifier.judges.nli.encoder import EncoderUnavailable, TokenEncoder
from verifier.judges.nli.features import FEATURE_COUNT
from verifier.judges.nli.head import HeadUnavailable, load_head
from verifier.judges.nli.judge import MODEL_ID, NliJudge

SPAN = (
    "Norway closed several reef areas to trawling in 1999, and later surveys found intact "
    "coral in protected zones."
)


@pytest.fixture(scope="module")
def judge() -> NliJudge:
    return NliJudge()


def decide(judge: NliJudge, claim: str, *spans: str, context: str = "") -> str:
    (result,) = judge_items(judge, [JudgeItem("k", claim, spans, context=context)])
    return result.label


def test_nli_backend_builds_the_trained_judge() -> None:
    judge = build_judge({"backend": "nli"})
    assert isinstance(judge, NliJudge)
    assert (judge.model_id, judge.family) == (MODEL_ID, "spanproof-nli")


def test_shipped_weights_load_and_match_their_recorded_hash() -> None:
    loaded = load_head()
    assert loaded.mean.shape == (FEATURE_COUNT,)
    assert 0.5 <= loaded.entail_threshold < 1.0
    assert loaded.temperature > 0
    probabilities = loaded.probabilities(np.zeros((2, FEATURE_COUNT), dtype=np.float32))
    assert np.allclose(probabilities.sum(axis=1), 1.0)


def test_altered_weights_are_a_clear_error(tmp_path: Path) -> None:
    copy = tmp_path / "w.safetensors"
    data = bytearray(head_module.WEIGHTS_PATH.read_bytes())
    data[-1] ^= 0xFF
    copy.write_bytes(bytes(data))
    with pytest.raises(HeadUnavailable, match="SHA-256"):
        load_head(copy)
    with pytest.raises(HeadUnavailable, match="not found"):
        load_head(tmp_path / "missing.safetensors")


def test_other_encoder_weights_are_a_clear_error(tmp_path: Path) -> None:
    from verifier.embeddings import model_path

    fake = tmp_path / "model"
    shutil.copytree(model_path(), fake)
    (fake / "model.safetensors").write_bytes(b"not the trained-on weights")
    with pytest.raises(EncoderUnavailable, match="SHA-256"):
        TokenEncoder(str(fake)).encode(["anything"])


def test_verbatim_claim_is_entailed_without_the_model() -> None:
    class NoEncoder(TokenEncoder):
        def encode(self, texts):  # pragma: no cover - must not be called
            raise AssertionError("the model was asked")

    judge = NliJudge(encoder=NoEncoder())
    (result,) = judge.judge_batch([JudgeItem("k", "  " + SPAN.upper(), (SPAN,))])
    assert result.label == "entailed" and result.note.startswith("verbatim")


KNOWN_GAP = "spanproof-nli-v1 known gap (judge issue open; docs/spanproof-nli.md, Limits)"


@pytest.mark.xfail(strict=True, reason=KNOWN_GAP + ": precision-first threshold is too strict")
def test_faithful_paraphrase_is_entailed(judge: NliJudge) -> None:
    assert decide(judge, "In 1999 Norway banned trawling in several reef areas.", SPAN) == (
        "entailed"
    )


@pytest.mark.parametrize(
    "claim",
    [
        "Norway closed several reef areas to trawling in 2009.",  # another year
        "Norway did not close any reef areas to trawling.",  # negation
        pytest.param(
            "Sweden closed several reef areas to trawling in 1999.",  # another name
            marks=pytest.mark.xfail(
                strict=True, reason=KNOWN_GAP + ": a sentence-initial name is not a name"
            ),
        ),
        "Norway closed several reef areas to trawling in 1999 after a court ruling by the EU.",
    ],
)
def test_distortions_are_not_entailed(judge: NliJudge, claim: str) -> None:
    assert decide(judge, claim, SPAN) != "entailed"


def test_unrelated_span_is_not_entailed(judge: NliJudge) -> None:
    assert decide(judge, "Giant kelp can grow 50 centimetres a day.", SPAN) != "entailed"


def test_every_item_gets_one_answer_with_a_calibrated_confidence(judge: NliJudge) -> None:
    items = [
        JudgeItem("a", "Norway banned trawling on some reefs in 1999.", (SPAN,)),
        JudgeItem("b", "Corals need sunlight.", ("Corals live in dark water.", SPAN)),
        JudgeItem("c", "Nothing bound.", ()),
    ]
    results = {r.key: r for r in judge_items(judge, items)}
    assert set(results) == {"a", "b", "c"}
    assert results["c"].note == "no_bound_evidence"
    for key in ("a", "b"):
        assert 0.0 <= results[key].confidence <= 1.0
        assert results[key].label in {"entailed", "contradicted", "abstained"}


def test_long_span_is_read_in_windows(judge: NliJudge) -> None:
    filler = " ".join(f"Survey {i} counted fish along the shelf edge." for i in range(80))
    long_span = f"{filler} {SPAN}"
    (encoded,) = judge._encoder.encode([long_span])
    assert len(encoded.tokens) > 512  # more than two windows' worth of pieces
    # the span's last words, past the first window, are among the aligned pieces
    assert encoded.tokens[-3:] == ("protected", "zones", ".")
    (short,) = judge._encoder.encode([SPAN])
    tail = encoded.vectors[-len(short.tokens) :]
    same = float((tail * short.vectors).sum(axis=1).mean())
    shifted = float((tail * np.roll(short.vectors, 5, axis=0)).sum(axis=1).mean())
    assert same > 0.6 and same > shifted + 0.2
