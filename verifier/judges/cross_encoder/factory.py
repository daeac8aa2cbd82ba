"""The cross-encoder judges the registry builds, one per configuration per process.

* ``cross-encoder``: any local sequence-classification NLI model
  (``SPANPROOF_JUDGE_MODEL``: a folder, or a model id already in the local Hugging Face
  cache), run through transformers; its outputs read from its ``config.json`` unless
  ``SPANPROOF_JUDGE_LABELS`` says otherwise; calibrated by
  ``SPANPROOF_JUDGE_CALIBRATION`` or the ``spanproof-calibration.json`` in its folder
  (``python -m verifier.judges.cross_encoder.calibrate`` writes one).
* ``nli-v2``: ``spanproof-nli-v2``, the MiniLM cross-encoder trained here, as int8 ONNX
  (``verifier.judges.nli.v2``).

Building is cheap and checks the configuration; the weights load on the first judged
batch, once per process, whichever thread asks first. No Django imports.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from verifier.judges.cross_encoder.calibration import (
    CALIBRATION_FILE,
    Calibration,
    CalibrationError,
    load_calibration,
)
from verifier.judges.cross_encoder.judge import CrossEncoderJudge
from verifier.judges.cross_encoder.labels import LabelMappingError, parse_override
from verifier.judges.cross_encoder.runners import (
    ModelUnavailable,
    Runner,
    TorchRunner,
    load_tokenizer,
    resolve_model_folder,
)

PROMPT_VERSION = 1  # how the pair is framed: encoding.premise_text, claim second

_lock = threading.Lock()
_judges: dict[tuple[str, ...], CrossEncoderJudge] = {}


class CrossEncoderConfigError(ValueError):
    """The cross-encoder configuration names no usable model, labels or calibration."""


def _family(config: Mapping[str, Any], model: str) -> str:
    from verifier.chat_completions import family_from_model

    return str(config.get("family") or "").strip() or family_from_model(model)


def cross_encoder_judge(config: Mapping[str, Any]) -> CrossEncoderJudge:
    model = str(config.get("model") or "").strip()
    if not model:
        raise CrossEncoderConfigError(
            "the cross-encoder judge needs SPANPROOF_JUDGE_MODEL: a local model folder or "
            "a model id in the local Hugging Face cache"
        )
    labels = str(config.get("labels") or "")
    calibration_path = str(config.get("calibration") or "").strip()
    key = ("cross-encoder", model, labels, calibration_path, _family(config, model))
    with _lock:
        if key in _judges:
            return _judges[key]
        try:
            parse_override(labels)
            folder = resolve_model_folder(model)
        except (LabelMappingError, ModelUnavailable) as exc:
            raise CrossEncoderConfigError(str(exc)) from None
        calibration = _calibration(folder, calibration_path)

        def load() -> tuple[Runner, object]:
            return TorchRunner(folder), load_tokenizer(folder)

        judge = CrossEncoderJudge(
            model_id=f"cross-encoder:{model.rstrip('/').rsplit('/', 1)[-1]}",
            family=key[-1],
            prompt_version=PROMPT_VERSION,
            load=load,
            calibration=calibration,
            labels_override=labels,
            folder=str(folder),
        )
        _judges[key] = judge
        return judge


def _calibration(folder: Path, configured: str) -> Calibration:
    path = Path(configured).expanduser() if configured else folder / CALIBRATION_FILE
    if not configured and not path.is_file():
        return Calibration()
    try:
        return load_calibration(path)
    except CalibrationError as exc:
        raise CrossEncoderConfigError(str(exc)) from None


def nli_v2_judge() -> CrossEncoderJudge:
    from verifier.judges.nli import v2

    with _lock:
        key = ("nli-v2",)
        if key not in _judges:
            try:
                _judges[key] = v2.build()
            except v2.NliV2Unavailable as exc:
                raise CrossEncoderConfigError(str(exc)) from None
        return _judges[key]
