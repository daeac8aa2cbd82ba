"""Turn an accelerator run's output into the shipped ``spanproof-nli-v2`` (on the CPU).

    .venv/bin/python -m verifier.judges.nli.finish_v2 --run DIR [--bundle var/gpu-bundle]
        [--weights verifier/judges/nli/weights/spanproof-nli-v2] [--no-record]
        [--recipe dynamic|nbits]

1. Joins ``model.safetensors.part-NN`` in order, checking each part's and the whole
   file's SHA-256 against ``report.json`` (a torn or altered download stops here).
2. Puts the joined weights, the run's ``config.json`` and the bundle's tokenizer files in
   a transformers folder (``var/nli-v2/hf``).
3. Exports one int8 ONNX file (``cross_encoder.onnx_export``) into the weights folder,
   with ``config.json`` (output names) and ``tokenizer.json``.
4. Fits the calibration (temperature, then the entail and contradiction thresholds,
   ``cross_encoder.calibration``) on the development ``fit`` rows of the bundle, read by
   the int8 model exactly as the judge reads them, and writes
   ``spanproof-calibration.json``.
5. Records the ONNX file's SHA-256 in ``v2.ONNX_SHA256`` (unless ``--no-record``), so
   the judge refuses any other file.

Prints a JSON summary: the parts checked, the file sizes, the fp32-vs-int8 agreement on
the development rows, the calibration and its figures. No Django imports.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import shutil
import time
from pathlib import Path
from typing import Any

import numpy as np

from verifier import onnx_runtime
from verifier.judges.cross_encoder.calibration import (
    CALIBRATION_FILE,
    Calibration,
    fit_calibration,
    role_probabilities,
    save_calibration,
)
from verifier.judges.cross_encoder.judge import CrossEncoderJudge, ItemScore, Reading
from verifier.judges.cross_encoder.onnx_export import (
    DEFAULT_RECIPE,
    RECIPES,
    export_classifier_int8,
    write_config,
)
from verifier.judges.cross_encoder.runners import OnnxRunner, Runner, TorchRunner, load_tokenizer
from verifier.judges.metrics import ranking_auc
from verifier.judges.nli import v2
from verifier.judges.nli.train_cross import DEV_FILE, check_bundle, read_jsonl

REPO = Path(__file__).resolve().parents[3]
TOKENIZER_FILES = (
    "tokenizer.json",
    "tokenizer_config.json",
    "special_tokens_map.json",
    "vocab.txt",
)
_SHA_LINE = re.compile(r"^ONNX_SHA256: str \| None = .*$", re.MULTILINE)


class RunOutputError(RuntimeError):
    """The run's output is incomplete or does not hash as its report says."""


def join_parts(run: Path, destination: Path) -> dict[str, Any]:
    try:
        report: dict[str, Any] = json.loads((run / "report.json").read_text(encoding="utf-8"))
        record = report["weights"]
    except (OSError, ValueError, KeyError) as exc:
        raise RunOutputError(f"no usable report.json in {run}: {exc}") from None
    whole = hashlib.sha256()
    with destination.open("wb") as out:
        for part in record["parts"]:
            path = run / part["name"]
            if not path.is_file():
                raise RunOutputError(f"part {part['name']} is missing")
            data = path.read_bytes()
            if hashlib.sha256(data).hexdigest() != part["sha256"]:
                raise RunOutputError(f"part {part['name']} does not hash to its recorded SHA-256")
            whole.update(data)
            out.write(data)
    if whole.hexdigest() != record["sha256"]:
        destination.unlink()
        raise RunOutputError("the joined weights do not hash to the recorded SHA-256")
    return report


def dev_readings(bundle: Path) -> tuple[list[Reading], list[dict[str, Any]]]:
    rows = list(read_jsonl(bundle / DEV_FILE))
    readings = [
        Reading(
            row["claim"],
            tuple((f"span {i}", premise) for i, premise in enumerate(row["premises"], 1)),
        )
        for row in rows
    ]
    return readings, rows


def _judge(runner_load: Any, calibration: Calibration) -> CrossEncoderJudge:
    return CrossEncoderJudge(
        model_id=v2.MODEL_ID,
        family=v2.FAMILY,
        prompt_version=v2.PROMPT_VERSION,
        load=runner_load,
        calibration=calibration,
    )


def _figures(
    scores: list[ItemScore | None], rows: list[dict[str, Any]], split: str
) -> dict[str, Any]:
    chosen = [
        (s, r) for s, r in zip(scores, rows, strict=True) if s is not None and r["split"] == split
    ]
    if not chosen:
        return {}
    p = np.asarray([s.p_entailed for s, _ in chosen])
    positive = np.asarray([r["gold"] == "SUPPORT" for _, r in chosen])
    return {"rows": len(chosen), "roc_auc_entailed": round(ranking_auc(p, positive), 4)}


def record_sha(sha256: str, module: Path) -> None:
    source = module.read_text(encoding="utf-8")
    updated, count = _SHA_LINE.subn(f'ONNX_SHA256: str | None = "{sha256}"', source)
    if count != 1:
        raise RunOutputError(f"cannot find the ONNX_SHA256 line in {module}")
    module.write_text(updated, encoding="utf-8")


def finish(
    run: Path,
    *,
    bundle: Path,
    weights: Path,
    work: Path,
    record: bool,
    recipe: str = DEFAULT_RECIPE,
) -> dict[str, Any]:
    started = time.perf_counter()
    check_bundle(bundle)
    hf = work / "hf"
    if hf.exists():
        shutil.rmtree(hf)
    hf.mkdir(parents=True)
    report = join_parts(run, hf / "model.safetensors")
    shutil.copyfile(run / "config.json", hf / "config.json")
    for name in TOKENIZER_FILES:
        if (bundle / "model" / name).is_file():
            shutil.copyfile(bundle / "model" / name, hf / name)

    weights.mkdir(parents=True, exist_ok=True)
    model_file = weights / v2.MODEL_FILE
    partial = weights / f"{v2.MODEL_FILE}.partial"
    facts = export_classifier_int8(hf, partial, recipe=recipe)
    partial.replace(model_file)
    write_config(hf, weights / v2.CONFIG_FILE)
    shutil.copyfile(hf / "tokenizer.json", weights / v2.TOKENIZER_FILE)
    sha256 = onnx_runtime.sha256_file(model_file)

    readings, rows = dev_readings(bundle)

    def onnx_load() -> tuple[Runner, object]:
        runner = OnnxRunner(model_file, sha256=sha256, config_file=weights / v2.CONFIG_FILE)
        return runner, load_tokenizer(weights)

    def torch_load() -> tuple[Runner, object]:
        return TorchRunner(hf), load_tokenizer(hf)

    int8 = _judge(onnx_load, Calibration()).score_readings(readings)
    fp32 = _judge(torch_load, Calibration()).score_readings(readings)
    paired = [(a, b) for a, b in zip(int8, fp32, strict=True) if a is not None and b is not None]
    agreement = {
        "rows": len(paired),
        "max_abs_p_entailed": round(max(abs(a.p_entailed - b.p_entailed) for a, b in paired), 4)
        if paired
        else None,
        "same_argmax_share": round(
            float(
                np.mean([np.argmax(a.lead_logits) == np.argmax(b.lead_logits) for a, b in paired])
            ),
            4,
        )
        if paired
        else None,
    }

    fit = [(s, r) for s, r in zip(int8, rows, strict=True) if s is not None and r["split"] == "fit"]
    labels = _judge(onnx_load, Calibration()).loaded().labels
    calibration = fit_calibration(
        np.stack([s.lead_logits for s, _ in fit]),
        [r["gold"] for _, r in fit],
        labels,
        details={
            "model_sha256": sha256,
            "fitted_on": "development fit rows (eval claims fit part + planted fit fixtures)",
            "best_step": report.get("best_step"),
            "best_fit_auc_in_training": report.get("best_fit_auc"),
        },
    )
    save_calibration(weights / CALIBRATION_FILE, calibration)
    calibrated = _judge(onnx_load, calibration).score_readings(readings)
    if record:
        record_sha(sha256, Path(v2.__file__))
    probabilities = role_probabilities(
        np.stack([s.lead_logits for s, _ in fit]), labels, calibration.temperature
    )
    return {
        "weights": str(weights),
        "onnx_sha256": sha256,
        "onnx_bytes": model_file.stat().st_size,
        "export": facts,
        "parts": len(report["weights"]["parts"]),
        "fp32_vs_int8": agreement,
        "calibration": {
            "temperature": calibration.temperature,
            "entail_threshold": calibration.entail_threshold,
            "contradict_threshold": calibration.contradict_threshold,
            **calibration.details,
        },
        "fit_mean_p_entailed": round(float(probabilities[:, 0].mean()), 4),
        "heldout": _figures(calibrated, rows, "heldout"),
        "recorded": record,
        "seconds": round(time.perf_counter() - started, 1),
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--run", type=Path, required=True, help="the run's $OUT folder")
    parser.add_argument("--bundle", type=Path, default=REPO / "var" / "gpu-bundle")
    parser.add_argument("--weights", type=Path, default=v2.WEIGHTS_DIR)
    parser.add_argument("--work", type=Path, default=REPO / "var" / "nli-v2")
    parser.add_argument("--no-record", action="store_true", help="leave v2.ONNX_SHA256 as it is")
    parser.add_argument(
        "--recipe", choices=sorted(RECIPES), default=DEFAULT_RECIPE, help="int8 quantization"
    )
    args = parser.parse_args(argv)
    summary = finish(
        args.run,
        bundle=args.bundle,
        weights=args.weights,
        work=args.work,
        record=not args.no_record,
        recipe=args.recipe,
    )
    print(json.dumps(summary, indent=1))


if __name__ == "__main__":
    main()
