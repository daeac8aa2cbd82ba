"""``spanproof-nli-v2``: all-MiniLM-L6-v2 fine-tuned here as a 3-way cross-encoder
(``train_cross``), shipped as one int8 ONNX file and judged by the cross-encoder judge
(``SPANPROOF_JUDGE_BACKEND=nli-v2``; docs/spanproof-nli-v2.md).

The files live in ``weights/spanproof-nli-v2/``: ``model.onnx`` (its SHA-256 is
:data:`ONNX_SHA256`, checked before onnxruntime reads a byte), ``config.json`` (the
outputs' names), ``tokenizer.json`` and ``spanproof-calibration.json`` (temperature and
thresholds fitted on the development rows). ``python -m verifier.judges.nli.finish_v2``
writes all four from an accelerator run's output and records the hash here. Until then
the backend is refused with the reason. No Django imports.
"""

from __future__ import annotations

import sys
from pathlib import Path

from verifier.judges.cross_encoder.calibration import CALIBRATION_FILE, load_calibration
from verifier.judges.cross_encoder.judge import CrossEncoderJudge
from verifier.judges.cross_encoder.runners import OnnxRunner, Runner, load_tokenizer
from verifier.model_config import NLI_FAMILY

MODEL_ID = "spanproof-nli-v2"
FAMILY = NLI_FAMILY
PROMPT_VERSION = 3
WEIGHTS_DIR = Path(__file__).resolve().parent / "weights" / MODEL_ID
MODEL_FILE = "model.onnx"
CONFIG_FILE = "config.json"
TOKENIZER_FILE = "tokenizer.json"
# Recorded by finish_v2 when trained weights land; None: not trained yet.
ONNX_SHA256: str | None = "745bd7f7f0948f2831d2a5f4383348a82775caf63280b86e5eeab89886e6c71a"


class NliV2Unavailable(RuntimeError):
    """spanproof-nli-v2 has no weights in this checkout, or they are incomplete."""


def _threads() -> int:
    """The worker's per-task thread count where torch is already loaded (it is sized by
    ``verifier.worker_threads``), else onnxruntime's own (one per core). torch is never
    imported for it: a process that judges with ONNX alone stays small."""
    torch = sys.modules.get("torch")
    return int(torch.get_num_threads()) if torch is not None else 0


def missing_files(folder: Path = WEIGHTS_DIR) -> list[str]:
    names = (MODEL_FILE, CONFIG_FILE, TOKENIZER_FILE, CALIBRATION_FILE)
    return [name for name in names if not (folder / name).is_file()]


def build(folder: Path = WEIGHTS_DIR, sha256: str | None = None) -> CrossEncoderJudge:
    """The judge over the files in ``folder`` (whose model must hash to ``sha256``,
    by default the recorded :data:`ONNX_SHA256`)."""
    expected = sha256 or ONNX_SHA256
    if expected is None:
        raise NliV2Unavailable(
            "spanproof-nli-v2 has not been trained yet: its weights need one accelerator "
            "run (docs/spanproof-nli-v2.md, 'Training'); use SPANPROOF_JUDGE_BACKEND=heuristic"
        )
    if missing := missing_files(folder):
        raise NliV2Unavailable(f"spanproof-nli-v2 is incomplete in {folder}: no {missing}")

    def load() -> tuple[Runner, object]:
        runner = OnnxRunner(
            folder / MODEL_FILE,
            sha256=expected,
            config_file=folder / CONFIG_FILE,
            threads=_threads(),
        )
        return runner, load_tokenizer(folder)

    return CrossEncoderJudge(
        model_id=MODEL_ID,
        family=FAMILY,
        prompt_version=PROMPT_VERSION,
        load=load,
        calibration=load_calibration(folder / CALIBRATION_FILE),
    )
