"""Any local NLI model as the judge (``SPANPROOF_JUDGE_BACKEND=cross-encoder``), loaded
from a tiny classifier each test builds and saves itself: labels read from its config,
windows over long premises, context in the premise, calibration, the registry's errors."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from verifier.judges import JudgeConfigError, JudgeItem, build_judge, judge_items
from verifier.judges.cross_encoder import factory
from verifier.judges.cross_encoder.calibration import (
    CALIBRATION_FILE,
    Calibration,
    CalibrationError,
    fit_calibration,
    load_calibration,
    role_probabilities,
    save_calibration,
)
from verifier.judges.cross_encoder.encoding import pair_windows, premise_text, prepare_tokenizer
from verifier.judges.cross_encoder.labels import LabelMappingError, label_map, parse_override
from verifier.judges.cross_encoder.runners import load_tokenizer
from verifier.judges.cross_encoder.tiny_model import build_tiny_classifier
from verifier.judges.nli.devdata import split_of
from verifier.judges.registry import judge_config_from_env

TEXTS = (
    "Tarn Point Light was automated in 1987.",
    "The light was automated in 1987 after a storm.",
    "Its beam reaches forty nautical miles.",
)


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_classifier(tmp_path_factory.mktemp("tiny-nli"), texts=TEXTS)


@pytest.fixture(autouse=True)
def _fresh_judges() -> None:
    factory._judges.clear()


# --- labels ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("id2label", "expected"),
    [
        (
            {0: "entailment", 1: "neutral", 2: "contradiction"},
            ("entailed", "neutral", "contradicted"),
        ),
        (
            {0: "CONTRADICTION", 1: "ENTAILMENT", 2: "NEUTRAL"},
            ("contradicted", "entailed", "neutral"),
        ),
        ({0: "entailment", 1: "not_entailment"}, ("entailed", "neutral")),
        (
            {"0": "REFUTES", "1": "SUPPORTS", "2": "NOT ENOUGH INFO"},
            ("contradicted", "entailed", "neutral"),
        ),
    ],
)
def test_roles_come_from_the_models_label_names(id2label: dict, expected: tuple) -> None:
    assert label_map(id2label, len(id2label)).roles == expected


def test_unnamed_outputs_need_the_override_and_get_it() -> None:
    with pytest.raises(LabelMappingError, match="SPANPROOF_JUDGE_LABELS"):
        label_map({0: "LABEL_0", 1: "LABEL_1"}, 2)
    mapped = label_map({0: "LABEL_0", 1: "LABEL_1"}, 2, "0=neutral,1=entailed")
    assert mapped.roles == ("neutral", "entailed")
    assert label_map({}, 2, '{"0": "unsupported", "1": "supported"}').roles == (
        "neutral",
        "entailed",
    )


def test_a_single_output_is_read_as_p_entailed() -> None:
    mapped = label_map({0: "LABEL_0"}, 1)
    p = role_probabilities(np.array([[0.0], [4.0]]), mapped, 1.0)
    assert p[0] == pytest.approx([0.5, 0.5, 0.0])
    assert p[1, 0] == pytest.approx(1 / (1 + np.exp(-4.0)))


@pytest.mark.parametrize(
    "override",
    ["0=maybe", "zero=entailed", "0entailed", "[1]", '{"0": "entailed", "1": "entailed"}'],
)
def test_bad_overrides_are_refused_with_the_reason(override: str) -> None:
    with pytest.raises(LabelMappingError):
        label_map({}, 2, override) if override.startswith("{") else parse_override(override)


# --- encoding -------------------------------------------------------------------------------


def test_premise_is_context_then_span() -> None:
    assert premise_text("The light was automated.", "Tarn Point Light.") == (
        "Tarn Point Light. The light was automated."
    )
    assert premise_text("Span only.", "") == "Span only."


def test_a_long_premise_is_read_in_overlapping_windows_each_with_the_whole_claim(
    tiny: Path,
) -> None:
    tokenizer = prepare_tokenizer(load_tokenizer(tiny))
    premise = " ".join(TEXTS * 12)
    windows = pair_windows(tokenizer, premise, TEXTS[0], max_tokens=48, stride=8)
    claim_ids = tokenizer.encode(TEXTS[0], add_special_tokens=False).ids
    assert len(windows) > 3
    for window in windows:
        assert len(window.ids) <= 48
        tail = list(window.ids[-len(claim_ids) - 1 : -1])
        assert tail == claim_ids  # [CLS] premise-window [SEP] claim [SEP]
        assert set(window.type_ids[-len(claim_ids) - 1 :]) == {1}
    first, second = windows[0].ids, windows[1].ids
    assert first[-len(claim_ids) - 10 : -len(claim_ids) - 2] == second[1:9]  # the stride overlaps


def test_a_claim_longer_than_the_window_is_cut_not_refused(tiny: Path) -> None:
    tokenizer = prepare_tokenizer(load_tokenizer(tiny))
    windows = pair_windows(tokenizer, TEXTS[1], " ".join(TEXTS * 20), max_tokens=64)
    assert windows and all(len(w.ids) <= 64 for w in windows)


# --- the judge through the registry ---------------------------------------------------------


def test_the_registry_builds_it_from_the_environment_and_it_judges(tiny: Path) -> None:
    config = judge_config_from_env(
        {"SPANPROOF_JUDGE_BACKEND": "cross-encoder", "SPANPROOF_JUDGE_MODEL": str(tiny)}
    )
    judge = build_judge(config)
    assert judge is build_judge(config)  # one per configuration per process
    assert judge.model_id == f"cross-encoder:{tiny.name}"
    items = [
        JudgeItem("same", TEXTS[0], (TEXTS[0],)),
        JudgeItem("para", TEXTS[0], (TEXTS[1], TEXTS[2]), context="Tarn Point Light."),
        JudgeItem("none", TEXTS[0], ("",)),
    ]
    results = {r.key: r for r in judge_items(judge, items)}
    assert results["same"].label == "entailed" and results["same"].note.startswith("verbatim")
    assert results["para"].label in {"entailed", "contradicted", "abstained"}
    assert 0.0 <= results["para"].confidence <= 1.0
    assert results["none"].label == "abstained"


def test_the_judge_reads_the_context(tiny: Path) -> None:
    judge = factory.cross_encoder_judge({"model": str(tiny)})
    bare = JudgeItem("k", TEXTS[0], (TEXTS[1],))
    with_context = JudgeItem("k", TEXTS[0], (TEXTS[1],), context="Tarn Point Light.")
    (a,), (b,) = judge.score([bare]), judge.score([with_context])
    assert a is not None and b is not None
    assert not np.allclose(a.lead_logits, b.lead_logits)


def test_uncalibrated_decisions_follow_the_probabilities(tiny: Path) -> None:
    judge = factory.cross_encoder_judge({"model": str(tiny)})
    (scored,) = judge.score([JudgeItem("k", TEXTS[0], (TEXTS[1],))])
    assert scored is not None
    result = judge.decide("k", scored)
    if scored.p_entailed >= 0.5:
        assert result.label == "entailed"
    elif scored.p_contradicted >= 0.5:
        assert result.label == "contradicted"
    else:
        assert result.label == "abstained"
        assert result.confidence == pytest.approx(1 - scored.p_entailed, abs=1e-4)


def test_calibration_beside_the_model_is_used_and_changes_decisions(tmp_path: Path) -> None:
    folder = build_tiny_classifier(tmp_path / "m", texts=TEXTS)
    item = JudgeItem("k", TEXTS[0], (TEXTS[1],))
    plain = factory.cross_encoder_judge({"model": str(folder)})
    (scored,) = plain.score([item])
    assert scored is not None
    # a threshold just below its probability makes the same reading entailed
    save_calibration(
        folder / CALIBRATION_FILE,
        Calibration(
            temperature=1.0,
            entail_threshold=max(0.01, round(scored.p_entailed - 0.005, 4)),
            contradict_threshold=0.99,
        ),
    )
    factory._judges.clear()
    calibrated = factory.cross_encoder_judge({"model": str(folder)})
    assert calibrated.calibration.fitted
    (result,) = calibrated.judge_batch([item])
    assert result.label == "entailed"


def test_calibration_fits_a_temperature_and_thresholds() -> None:
    rng = np.random.default_rng(0)
    gold = ["SUPPORT"] * 60 + ["NOINFO"] * 60
    logits = np.zeros((120, 3))
    logits[:60, 0] = rng.normal(6, 1, 60)  # overconfident, well separated
    logits[60:, 1] = rng.normal(6, 1, 60)
    fitted = fit_calibration(
        logits, gold, label_map({0: "entailment", 1: "neutral", 2: "contradiction"}, 3), details={}
    )
    assert fitted.fitted and fitted.details["roc_auc_entailed"] == 1.0
    assert fitted.entail_threshold >= 0.5
    assert fitted.details["entailed_precision"] >= 0.88


def test_bad_configuration_is_a_judge_config_error(tmp_path: Path, tiny: Path) -> None:
    with pytest.raises(JudgeConfigError, match="SPANPROOF_JUDGE_MODEL"):
        build_judge({"backend": "cross-encoder"})
    with pytest.raises(JudgeConfigError, match="local Hugging Face cache"):
        build_judge({"backend": "cross-encoder", "model": "nobody/no-such-model"})
    with pytest.raises(JudgeConfigError, match="not one of"):
        build_judge({"backend": "cross-encoder", "model": str(tiny), "labels": "0=perhaps"})
    broken = tmp_path / "calibration.json"
    broken.write_text(
        json.dumps({"temperature": -1, "entail_threshold": 0.5, "contradict_threshold": 0.5})
    )
    with pytest.raises(JudgeConfigError, match="temperature"):
        build_judge({"backend": "cross-encoder", "model": str(tiny), "calibration": str(broken)})


def test_calibration_files_are_checked() -> None:
    with pytest.raises(CalibrationError):
        Calibration(entail_threshold=1.5)
    with pytest.raises(CalibrationError):
        load_calibration(Path("/nonexistent/calibration.json"))


def test_nli_v2_without_recorded_weights_is_refused_with_the_reason(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from verifier.judges.nli import v2

    monkeypatch.setattr(v2, "ONNX_SHA256", None)
    with pytest.raises(JudgeConfigError, match="not been trained yet"):
        build_judge({"backend": "nli-v2"})


def test_nli_v2_loads_the_weights_it_recorded_and_judges() -> None:
    from verifier import onnx_runtime
    from verifier.judges.nli import v2

    assert v2.ONNX_SHA256 is not None
    assert onnx_runtime.sha256_file(v2.WEIGHTS_DIR / v2.MODEL_FILE) == v2.ONNX_SHA256
    judge = build_judge({"backend": "nli-v2"})
    assert judge.model_id == "spanproof-nli-v2"
    items = [
        JudgeItem("same", TEXTS[0], (TEXTS[0],)),
        JudgeItem("para", TEXTS[0], (TEXTS[1], TEXTS[2]), context="Tarn Point Light."),
    ]
    results = {r.key: r for r in judge_items(judge, items)}
    assert results["same"].label == "entailed"
    assert results["para"].label in {"entailed", "contradicted", "abstained"}
    assert 0.0 <= results["para"].confidence <= 1.0


def test_a_float16_checkpoint_exports_and_runs_in_float32(tmp_path: Path) -> None:
    """A trained run's weights come back as float16 (``train_cross``): the export and the
    torch runner compute in float32 whatever dtype the checkpoint was saved in."""
    import torch
    from transformers import AutoModelForSequenceClassification

    from verifier import onnx_runtime
    from verifier.judges.cross_encoder.onnx_export import export_classifier_int8, write_config
    from verifier.judges.cross_encoder.runners import OnnxRunner, TorchRunner

    folder = build_tiny_classifier(tmp_path / "half", texts=TEXTS)
    half = AutoModelForSequenceClassification.from_pretrained(str(folder)).half()
    half.save_pretrained(str(folder))
    assert AutoModelForSequenceClassification.from_pretrained(str(folder)).dtype == torch.float16
    destination = tmp_path / "model.onnx"
    export_classifier_int8(folder, destination)
    write_config(folder, tmp_path / "config.json")
    runner = OnnxRunner(
        destination,
        sha256=onnx_runtime.sha256_file(destination),
        config_file=tmp_path / "config.json",
    )
    assert runner.session is not None
    assert next(TorchRunner(folder).model.parameters()).dtype == torch.float32


def test_the_calibrate_command_writes_a_file_the_backend_then_uses(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from verifier.judges.cross_encoder import calibrate

    folder = build_tiny_classifier(tmp_path / "m", texts=TEXTS)
    source = " ".join(TEXTS)
    rows = [
        {
            "id": f"e{i}",
            "group": f"group-{i}",
            "dataset": "wice",
            "claim": claim,
            "source_title": "Tarn Point Light",
            "source_text": source,
            "source_sentence_offsets": [[0, 39], [40, 86], [87, 124]],
            "label": label,
            "rationale_spans": [[40, 86]],
        }
        for i, (claim, label) in enumerate(
            [
                (TEXTS[0], "SUPPORT"),
                ("The beam reaches fourteen miles.", "CONTRADICT"),
                ("The light is red.", "NOINFO"),
            ]
            * 10
        )
    ]
    data = tmp_path / "claims.jsonl"
    data.write_text("\n".join(json.dumps(r) for r in rows))
    calibrate.main(
        ["--model", str(folder), "--data", str(data), "--planted", str(tmp_path / "none")]
    )
    printed = json.loads(capsys.readouterr().out)
    written = load_calibration(folder / CALIBRATION_FILE)
    assert printed["written"] == str(folder / CALIBRATION_FILE)
    fit_rows = sum(split_of(f"group-{i}") == "fit" for i in range(30))
    assert written.fitted and written.details["rows"] == fit_rows
    factory._judges.clear()
    assert factory.cross_encoder_judge({"model": str(folder)}).calibration == written


def test_training_reads_the_same_first_window_the_judge_reads(tiny: Path) -> None:
    from verifier.judges.cross_encoder.encoding import first_windows

    tokenizer = prepare_tokenizer(load_tokenizer(tiny))
    long_premise = " ".join(TEXTS * 12)
    pairs = [
        (TEXTS[1], TEXTS[0]),
        (long_premise, TEXTS[2]),
        (premise_text(TEXTS[2], "Tarn."), TEXTS[0]),
    ]
    batched = first_windows(tokenizer, pairs, max_tokens=48)
    one_by_one = [pair_windows(tokenizer, p, c, max_tokens=48)[0] for p, c in pairs]
    assert batched == one_by_one
    # the tokenizer is left as the judge needs it: no truncation of its own
    assert len(tokenizer.encode(long_premise).ids) > 48
