"""What runs a sequence-classification model over a padded batch: transformers on
torch (any local model folder or cached model id), or onnxruntime (an exported file).

Both answer ``logits(batch) -> (n, outputs)`` for the arrays of
``encoding.batch_arrays`` and are safe to call from several threads (the torch model
runs under ``torch.inference_mode`` and only reads its weights; an onnxruntime session's
``run`` is thread-safe). No Django imports.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from verifier import onnx_runtime


class ModelUnavailable(RuntimeError):
    """The model cannot be found or loaded (no such folder, not in the local cache,
    not a sequence-classification model, a file whose hash is not the recorded one)."""


class Runner(Protocol):
    @property
    def outputs(self) -> int: ...

    @property
    def id2label(self) -> Mapping[int, str]: ...

    def logits(self, batch: Mapping[str, np.ndarray]) -> np.ndarray: ...


def load_tokenizer(folder: Path) -> Any:
    """The fast tokenizer of a model folder: its ``tokenizer.json``, else whatever
    transformers' AutoTokenizer builds from the folder (its backend tokenizer)."""
    from tokenizers import Tokenizer

    file = folder / "tokenizer.json"
    if file.is_file():
        return Tokenizer.from_file(str(file))
    from transformers import AutoTokenizer

    try:
        built = AutoTokenizer.from_pretrained(str(folder), use_fast=True)
    except Exception as exc:  # transformers raises many types for a folder it cannot read
        raise ModelUnavailable(f"no tokenizer in {folder}: {exc}") from None
    backend = getattr(built, "backend_tokenizer", None)
    if backend is None:
        raise ModelUnavailable(f"the tokenizer of {folder} has no fast (Rust) form")
    return backend


def resolve_model_folder(name: str) -> Path:
    """A local folder, or a model id already in the local Hugging Face cache (nothing is
    downloaded: the hub is never asked)."""
    path = Path(name).expanduser()
    if path.is_dir():
        return path.resolve()
    try:
        from huggingface_hub import snapshot_download

        return Path(snapshot_download(repo_id=name, local_files_only=True))
    except Exception as exc:  # not a valid id, or not cached
        raise ModelUnavailable(
            f"{name!r} is neither a folder nor a model in the local Hugging Face cache "
            f"({type(exc).__name__}); download it first where there is internet"
        ) from None


class TorchRunner:
    """``AutoModelForSequenceClassification`` from a local folder, fp32, eval mode."""

    def __init__(self, folder: Path, *, threads: int | None = None) -> None:
        import torch
        from transformers import AutoModelForSequenceClassification

        try:
            model = AutoModelForSequenceClassification.from_pretrained(str(folder))
        except Exception as exc:
            raise ModelUnavailable(f"cannot load a classifier from {folder}: {exc}") from None
        # computed in float32 on the CPU, whatever dtype the checkpoint was saved in
        self.model = model.float().eval()
        self.outputs = int(model.config.num_labels)
        self.id2label = {int(k): str(v) for k, v in (model.config.id2label or {}).items()}
        self._accepts = set(inspect.signature(model.forward).parameters)
        self._torch = torch
        if threads:
            torch.set_num_threads(threads)

    def logits(self, batch: Mapping[str, np.ndarray]) -> np.ndarray:
        torch = self._torch
        feed = {k: torch.from_numpy(v) for k, v in batch.items() if k in self._accepts}
        with torch.inference_mode():
            out = self.model(**feed).logits
        return np.asarray(out.float().numpy(), dtype=np.float32)


class OnnxRunner:
    """An exported classifier (``onnx_export.export_classifier_int8``) whose bytes are
    checked against ``sha256`` before onnxruntime sees them; its ``config.json`` (beside
    it) names the outputs."""

    def __init__(
        self, model_file: Path, *, sha256: str, config_file: Path, threads: int = 0
    ) -> None:
        try:
            config = json.loads(config_file.read_text(encoding="utf-8"))
            self.session = onnx_runtime.verified_session(model_file, sha256=sha256, threads=threads)
        except OSError as exc:
            raise ModelUnavailable(f"cannot read {exc.filename}: {exc.strerror}") from None
        except onnx_runtime.ModelFileMismatch as exc:
            raise ModelUnavailable(str(exc)) from None
        self.outputs = int(config.get("num_labels") or len(config.get("id2label") or {}) or 1)
        self.id2label = {int(k): str(v) for k, v in (config.get("id2label") or {}).items()}
        self._inputs = {i.name for i in self.session.get_inputs()}

    def logits(self, batch: Mapping[str, np.ndarray]) -> np.ndarray:
        feed = {k: v for k, v in batch.items() if k in self._inputs}
        (out,) = self.session.run(None, feed)
        return np.asarray(out, dtype=np.float32)
