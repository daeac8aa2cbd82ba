"""onnxruntime models built once, cached on disk beside a record of their SHA-256.

A model that is exported at first use (not shipped) is only as trustworthy as the file
that was left behind, so every such file has a record beside it (``<file>.json``): the
SHA-256 of the bytes that were written, and the facts the caller builds it from (which
recipe, which source weights). :func:`ensure_built` builds the file when it is missing
or the record names other facts, under an exclusive lock on a file beside it, so that
several processes starting at once build it once. :func:`verified_session` reads the
file's bytes once, hashes those bytes and hands the same bytes to onnxruntime, so what
runs is what was checked: a file whose hash is not the recorded one is refused
(:class:`ModelFileMismatch`), never loaded.

Shared by every model here that runs on onnxruntime (today the query embedder,
``verifier.embedding_onnx``). No Django imports.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import logging
import os
import threading
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any, Generic, TypeVar

T = TypeVar("T")
logger = logging.getLogger(__name__)

RECORD_SUFFIX = ".json"
LOCK_SUFFIX = ".lock"


class ModelFileMismatch(RuntimeError):
    """A cached model file is not the file its record describes."""


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def record_path(path: Path) -> Path:
    return path.with_name(path.name + RECORD_SUFFIX)


def read_record(path: Path) -> dict[str, Any] | None:
    """The record beside ``path``, or None when there is none or it is unreadable."""
    try:
        record = json.loads(record_path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return record if isinstance(record, dict) else None


@contextlib.contextmanager
def _exclusive(path: Path) -> Iterator[None]:
    lock = path.with_name(path.name + LOCK_SUFFIX)
    with lock.open("a") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def _replace_atomically(path: Path, write: Callable[[Path], None]) -> None:
    partial = path.with_name(f"{path.name}.partial-{os.getpid()}-{threading.get_ident()}")
    try:
        write(partial)
        os.replace(partial, path)
    finally:
        partial.unlink(missing_ok=True)


def build(path: Path, *, facts: Mapping[str, str], write: Callable[[Path], None]) -> str:
    """Write the model with ``write(partial_path)``, move it into place, then record its
    SHA-256 and ``facts`` beside it; returns the digest. The caller holds the lock."""
    path.parent.mkdir(parents=True, exist_ok=True)
    digest = ""

    def write_and_hash(partial: Path) -> None:
        nonlocal digest
        write(partial)
        digest = sha256_file(partial)

    _replace_atomically(path, write_and_hash)
    record = {**facts, "sha256": digest, "bytes": path.stat().st_size}

    def write_record(partial: Path) -> None:
        partial.write_text(json.dumps(record, indent=1), encoding="utf-8")

    _replace_atomically(record_path(path), write_record)
    return digest


def _current(path: Path, facts: Mapping[str, str]) -> dict[str, Any] | None:
    record = read_record(path)
    if record is None or not path.is_file() or not isinstance(record.get("sha256"), str):
        return None
    if any(record.get(key) != value for key, value in facts.items()):
        return None
    return record


def session_options(*, threads: int) -> Any:
    """One query per call on ``threads`` intra-op threads (0: onnxruntime's default, one
    per core), nodes run in order, every graph optimisation on."""
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.execution_mode = onnxruntime.ExecutionMode.ORT_SEQUENTIAL
    options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_ALL
    return options


def verified_session(path: Path, *, sha256: str, threads: int) -> Any:
    """An InferenceSession of the bytes at ``path``, after checking that they hash to
    ``sha256``; raises :class:`ModelFileMismatch` otherwise."""
    import onnxruntime

    data = path.read_bytes()
    actual = sha256_bytes(data)
    if actual != sha256:
        raise ModelFileMismatch(f"{path} has SHA-256 {actual}, its record says {sha256}")
    return onnxruntime.InferenceSession(
        data, sess_options=session_options(threads=threads), providers=["CPUExecutionProvider"]
    )


def ensure_session(
    path: Path, *, facts: Mapping[str, str], write: Callable[[Path], None], threads: int
) -> Any:
    """The session of the model at ``path``, built by ``write`` when it is missing or its
    record names other ``facts``. A file that fails its hash check is built once more (a
    torn or edited cache); failing again raises :class:`ModelFileMismatch`."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with _exclusive(path):
        record = _current(path, facts)
        digest = str(record["sha256"]) if record else build(path, facts=facts, write=write)
        try:
            return verified_session(path, sha256=digest, threads=threads)
        except ModelFileMismatch as exc:
            if record is None:  # just built, and already not what was written
                raise
            logger.warning("%s; building it again", exc)
        digest = build(path, facts=facts, write=write)
        return verified_session(path, sha256=digest, threads=threads)


class Lazy(Generic[T]):
    """A value made by ``load`` on first use, once per process even when several threads
    ask at once. A failed load is not kept: the next call tries again."""

    def __init__(self, load: Callable[[], T]) -> None:
        self._load = load
        self._lock = threading.Lock()
        self._box: tuple[T] | None = None

    def get(self) -> T:
        box = self._box
        if box is None:
            with self._lock:
                box = self._box
                if box is None:
                    box = self._box = (self._load(),)
        return box[0]

    @property
    def loaded(self) -> bool:
        return self._box is not None
