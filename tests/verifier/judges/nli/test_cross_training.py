"""The accelerator path of ``spanproof-nli-v2`` run end to end on the CPU with a tiny
model the test builds itself: bundle → two training steps → parts → join, check, int8
ONNX, calibration → the judge over the result. And what must be refused on the way."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from verifier.judges.base import JudgeItem
from verifier.judges.cross_encoder.tiny_model import build_tiny_classifier
from verifier.judges.nli import bundle, finish_v2, train_cross, v2
from verifier.judges.nli.train_cross import (
    DEV_FILE,
    TRAIN_FILE,
    BundleError,
    check_bundle,
    read_jsonl,
)

REPO = Path(__file__).resolve().parents[4]
DOCS = [
    {
        "id": "d1",
        "title": "Tarn Point Light",
        "sentences": [
            "Tarn Point Light stands on a granite cliff above the bay.",
            "The light was automated in 1987 after a storm damaged the keeper's house.",
            "Its beam reaches forty nautical miles on a clear night, the coast guard said.",
            "Rome defeated Carthage in the third war, which ended in 146 BC.",
        ],
    },
    {
        "id": "d2",
        "title": "",
        "sentences": [
            "The Old Mill Bridge was built in 1850 by local masons from the valley.",
            "Mary Smith, a local historian, wrote that the bridge was rebuilt twice.",
            "Visitors come in spring, summer and autumn to see the river and the mill.",
        ],
    },
]
PAIRS = [
    ("check-covid", "The light was automated.", "entailment"),
    ("esnli", "The light was never automated.", "contradiction"),
    ("fever-symmetric", "The light was automated in 1990.", "contradiction"),
    ("esnli", "The light is red.", "neutral"),
]
SOURCE = (
    "Tarn Point Light stands on a cliff. The light was automated in 1987. "
    "Its beam reaches forty miles."
)
CLAIMS = [
    ("Tarn Point Light was automated in 1987.", "SUPPORT"),
    ("The beam reaches fourteen miles.", "CONTRADICT"),
    ("The light is painted red.", "NOINFO"),
    ("The light stands on a cliff.", "SUPPORT"),
]


def _write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("nli-v2")
    train = root / "train"
    train.mkdir()
    _write_jsonl(train / "prose.jsonl", DOCS)
    _write_jsonl(
        train / "nli_pairs.jsonl",
        [
            {
                "id": f"p{i}",
                "dataset": ds,
                "premise": "The light was automated in 1987.",
                "hypothesis": h,
                "label": lab,
                "license": "test",
            }
            for i, (ds, h, lab) in enumerate(PAIRS)
        ],
    )
    _write_jsonl(
        root / "extra.jsonl",
        [
            {
                "id": "x1",
                "dataset": "fm2",
                "premise": "The bay is cold.",
                "hypothesis": CLAIMS[2][0],
                "label": "neutral",
                "license": "test",
            }
        ],
    )
    _write_jsonl(
        root / "claims.jsonl",
        [
            {
                "id": f"e{i}",
                "group": f"g{i}",
                "dataset": "wice",
                "claim": claim,
                "source_title": "Tarn Point Light",
                "source_text": SOURCE,
                "source_sentence_offsets": [[0, 35], [36, 68], [69, 99]],
                "label": label,
                "rationale_spans": [[36, 68]] if i % 2 else [],
            }
            for i, (claim, label) in enumerate(CLAIMS * 3)
        ],
    )
    texts = [s for d in DOCS for s in d["sentences"]] + [p[1] for p in PAIRS] + [SOURCE]
    build_tiny_classifier(root / "base", texts=texts)
    return root


@pytest.fixture(scope="module")
def built(workdir: Path) -> dict:
    manifest = bundle.build_bundle(
        workdir / "bundle",
        train_dir=workdir / "train",
        eval_path=workdir / "claims.jsonl",
        planted=None,
        extra=[workdir / "extra.jsonl"],
        model_dir=workdir / "base",
        seed=1,
    )
    return manifest


def test_the_bundle_holds_everything_and_drops_development_claims(
    workdir: Path, built: dict
) -> None:
    folder = workdir / "bundle"
    assert set(built["files"]) == {
        "model/config.json",
        "model/model.int8.safetensors",
        "model/tokenizer.json",
        TRAIN_FILE,
        DEV_FILE,
    }
    train = list(read_jsonl(folder / TRAIN_FILE))
    origins = {row["origin"] for row in train}
    assert {"check-covid", "esnli", "fever-symmetric"} <= origins
    assert any(o.startswith("synthetic/") for o in origins)
    # the extra pair's claim is a development claim: never a training pair
    assert (
        "fm2" not in origins and built["counts"]["training"]["dropped_as_development_claims"] == 1
    )
    weights = {row["origin"]: row["weight"] for row in train}
    assert weights["check-covid"] > weights["esnli"]
    dev = list(read_jsonl(folder / DEV_FILE))
    assert len(dev) == 12 and {row["split"] for row in dev} <= {"fit", "heldout"}
    assert all(row["premises"][0].startswith("Tarn Point Light.") for row in dev)  # context first
    from safetensors import safe_open

    with safe_open(str(folder / "model" / "model.int8.safetensors"), "pt") as fh:
        dtypes = {str(fh.get_tensor(k).dtype) for k in fh.keys()}  # noqa: SIM118 (not a dict)
    assert "torch.int8" in dtypes and dtypes <= {"torch.int8", "torch.float16", "torch.int64"}


def test_int8_weights_come_back_within_half_a_step_of_each_row() -> None:
    import torch

    from verifier.judges.nli.int8_weights import dequantize_state, quantize_state

    torch.manual_seed(0)
    state = {
        "w": torch.randn(50, 16) * torch.linspace(0.01, 3, 50)[:, None],
        "b": torch.randn(16),
        "ids": torch.arange(4),
    }
    packed = quantize_state(state)
    assert packed["w"].dtype == torch.int8 and packed["b"].dtype == torch.float16
    back = dequantize_state(packed)
    assert set(back) == set(state) and back["ids"].equal(state["ids"])
    step = state["w"].abs().amax(dim=1, keepdim=True) / 127
    assert ((back["w"] - state["w"]).abs() <= step * 0.51 + 1e-3).all()
    assert torch.allclose(back["b"], state["b"], atol=1e-3)


def test_the_bundle_is_reproducible(workdir: Path, built: dict, tmp_path: Path) -> None:
    again = bundle.build_bundle(
        tmp_path / "again",
        train_dir=workdir / "train",
        eval_path=workdir / "claims.jsonl",
        planted=None,
        extra=[workdir / "extra.jsonl"],
        model_dir=workdir / "base",
        seed=1,
    )
    assert again["files"][TRAIN_FILE] == built["files"][TRAIN_FILE]
    assert again["files"][DEV_FILE] == built["files"][DEV_FILE]


def test_each_planted_fixture_joins_the_fit_rows(workdir: Path, tmp_path: Path) -> None:
    planted = []
    for name, supported in (("planted-a-items", True), ("planted-b-items", False)):
        path = tmp_path / f"{name}.jsonl"
        _write_jsonl(
            path,
            [
                {
                    "id": f"{name}-1",
                    "claim": "The light was automated in 1987.",
                    "spans": ["The light was automated in 1987."],
                    "context": "Tarn Point Light.",
                    "supported": supported,
                },
                {
                    "id": f"{name}-2",
                    "claim": "Unbound.",
                    "spans": [],
                    "context": "",
                    "supported": True,
                },
            ],
        )
        planted.append(path)
    manifest = bundle.build_bundle(
        tmp_path / "with-planted",
        train_dir=workdir / "train",
        eval_path=workdir / "claims.jsonl",
        planted=planted,
        extra=[],
        model_dir=workdir / "base",
        seed=1,
    )
    dev_rows = manifest["counts"]["dev_rows"]
    assert dev_rows["fit/planted:planted-a-items"] == 1  # the unbound item is no row
    assert dev_rows["fit/planted:planted-b-items"] == 1
    golds = {
        row["id"]: row["gold"]
        for row in read_jsonl(tmp_path / "with-planted" / DEV_FILE)
        if row["id"].startswith("planted-")
    }
    assert golds == {"planted-a-items-1": "SUPPORT", "planted-b-items-1": "NOINFO"}


def test_a_bundle_over_the_size_limit_is_refused(workdir: Path, tmp_path: Path) -> None:
    with pytest.raises(bundle.BundleTooLarge):
        bundle.build_bundle(
            tmp_path / "big",
            train_dir=workdir / "train",
            eval_path=workdir / "claims.jsonl",
            planted=None,
            extra=[],
            model_dir=workdir / "base",
            max_bytes=1000,
        )


@pytest.fixture(scope="module")
def trained(workdir: Path, built: dict) -> dict:
    original = train_cross.PART_BYTES
    train_cross.PART_BYTES = 40_000  # the tiny model is ~100 KB: several parts
    try:
        return train_cross.train(
            train_cross.parse_args(
                [
                    "--bundle",
                    str(workdir / "bundle"),
                    "--out",
                    str(workdir / "out"),
                    "--device",
                    "cpu",
                    "--max-steps",
                    "2",
                    "--batch-size",
                    "4",
                ]
            )
        )
    finally:
        train_cross.PART_BYTES = original


def test_two_training_steps_write_checked_parts_and_a_report(workdir: Path, trained: dict) -> None:
    out = workdir / "out"
    assert trained["steps"] == 2 and trained["best_step"] in {1, 2}
    assert trained["history"] and trained["history"][-1]["fit_auc"] is not None
    parts = trained["weights"]["parts"]
    assert len(parts) >= 2 and all(p["bytes"] <= 40_000 for p in parts)
    assert (out / "config.json").is_file() and (out / "report.json").is_file()
    config = json.loads((out / "config.json").read_text())
    assert config["id2label"] == {"0": "entailment", "1": "neutral", "2": "contradiction"}
    report = json.loads((out / "report.json").read_text())
    assert report["weights"]["sha256"] == trained["weights"]["sha256"]


@pytest.fixture(scope="module")
def finished(workdir: Path, trained: dict) -> dict:
    return finish_v2.finish(
        workdir / "out",
        bundle=workdir / "bundle",
        weights=workdir / "weights",
        work=workdir / "work",
        record=False,
    )


def test_finish_makes_an_int8_judge_with_its_calibration(workdir: Path, finished: dict) -> None:
    summary = finished
    weights = workdir / "weights"
    assert v2.missing_files(weights) == []
    assert summary["fp32_vs_int8"]["same_argmax_share"] >= 0.9
    assert summary["calibration"]["rows"] == 9  # the fit rows only
    judge = v2.build(weights, summary["onnx_sha256"])
    (result,) = judge.judge_batch(
        [JudgeItem("k", CLAIMS[0][0], ("The light was automated in 1987.",), "Tarn Point Light.")]
    )
    assert result.label in {"entailed", "abstained", "contradicted"}
    assert judge.model_id == "spanproof-nli-v2"


def test_an_altered_model_file_is_refused_at_load(workdir: Path, finished: dict) -> None:
    from verifier.judges.cross_encoder.runners import ModelUnavailable

    judge = v2.build(workdir / "weights", "0" * 64)
    with pytest.raises(ModelUnavailable, match=r"SHA\-256"):
        judge.judge_batch([JudgeItem("k", CLAIMS[2][0], ("The light was automated.",))])


def test_a_torn_part_is_refused(workdir: Path, trained: dict, tmp_path: Path) -> None:
    import shutil

    run = tmp_path / "run"
    shutil.copytree(workdir / "out", run)
    part = run / trained["weights"]["parts"][1]["name"]
    data = bytearray(part.read_bytes())
    data[10] ^= 0xFF
    part.write_bytes(bytes(data))
    with pytest.raises(finish_v2.RunOutputError, match="part-01"):
        finish_v2.join_parts(run, tmp_path / "joined.safetensors")


def test_an_altered_bundle_is_refused(workdir: Path, built: dict, tmp_path: Path) -> None:
    import shutil

    copy = tmp_path / "bundle"
    shutil.copytree(workdir / "bundle", copy)
    with (copy / DEV_FILE).open("ab") as fh:
        fh.write(b"x")
    with pytest.raises(BundleError, match=r"dev\.jsonl\.xz"):
        check_bundle(copy)


def test_a_bundle_from_before_xz_is_refused_with_what_to_run(
    workdir: Path, built: dict, tmp_path: Path
) -> None:
    import shutil

    copy = tmp_path / "bundle"
    shutil.copytree(workdir / "bundle", copy)
    manifest = json.loads((copy / "bundle.json").read_text("utf-8"))
    manifest["files"]["train.jsonl.gz"] = manifest["files"].pop(TRAIN_FILE)
    (copy / TRAIN_FILE).rename(copy / "train.jsonl.gz")
    (copy / "bundle.json").write_text(json.dumps(manifest), "utf-8")
    with pytest.raises(BundleError, match=r"no train\.jsonl\.xz .*make gpu-bundle"):
        check_bundle(copy)


def test_recording_the_hash_rewrites_only_its_line(tmp_path: Path) -> None:
    module = tmp_path / "v2.py"
    module.write_text("A = 1\nONNX_SHA256: str | None = None\nB = 2\n")
    finish_v2.record_sha("ab" * 32, module)
    assert module.read_text() == f'A = 1\nONNX_SHA256: str | None = "{"ab" * 32}"\nB = 2\n'


def test_the_trainer_imports_nothing_the_accelerator_lacks() -> None:
    """The accelerator machine has torch, transformers, tokenizers, safetensors and
    numpy, and none of our other dependencies."""
    forbidden = [
        "django",
        "rest_framework",
        "celery",
        "kombu",
        "psycopg",
        "pgvector",
        "sentence_transformers",
        "onnxruntime",
        "onnx",
        "requests",
        "rapidfuzz",
        "orjson",
    ]
    code = f"""
import importlib.abc, sys
class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name.split(".")[0] in {forbidden!r}:
            raise ImportError("forbidden on the accelerator: " + name)
sys.meta_path.insert(0, Block())
import verifier.judges.nli.train_cross as t
t.parse_args(["--bundle", "b", "--out", "o"])
print("ok")
"""
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=REPO
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"


@pytest.mark.parametrize("recipe", ["nbits-e8", "dynamic"])
def test_the_int8_file_unpacks_to_the_weights_it_was_made_from(
    workdir: Path, finished: dict, tmp_path: Path, recipe: str
) -> None:
    import numpy as np
    from safetensors.numpy import load_file

    from verifier.judges.cross_encoder.onnx_export import export_classifier_int8, write_config
    from verifier.judges.nli import unpack_onnx

    hf = workdir / "work" / "hf"  # the float model finish_v2 joined; its int8 file: nbits-e8
    onnx_file = workdir / "weights" / "model.onnx"
    if recipe != "nbits-e8":
        onnx_file = tmp_path / "weights" / "model.onnx"
        export_classifier_int8(hf, onnx_file, recipe=recipe)
        write_config(hf, tmp_path / "weights" / "config.json")
    unpack_onnx.unpack(onnx_file, tmp_path / "unpacked", config_from=hf)
    original = load_file(str(hf / "model.safetensors"))
    back = load_file(str(tmp_path / "unpacked" / "model.safetensors"))
    assert set(original) - set(back) <= {"bert.embeddings.position_ids"}
    for name, values in original.items():
        if name in back:
            step = np.abs(values.astype(np.float32)).max() / 100
            assert np.abs(back[name] - values.astype(np.float32)).max() <= step, name


def test_a_continuation_starts_from_a_folder_and_samples_the_bundle(
    workdir: Path, trained: dict, tmp_path: Path
) -> None:
    report = train_cross.train(
        train_cross.parse_args(
            [
                "--bundle",
                str(workdir / "bundle"),
                "--out",
                str(tmp_path / "out"),
                "--device",
                "cpu",
                "--init",
                str(workdir / "base"),
                "--sample",
                "3",
                "--max-steps",
                "1",
                "--batch-size",
                "3",
            ]
        )
    )
    assert report["training_pairs"] == 3  # the tiny bundle has no written pairs
    assert report["hyperparameters"]["sample"] == 3
    assert report["hyperparameters"]["init"] == str(workdir / "base")
