"""verifier.onnx_runtime: cached model files are built once, recorded by hash, and never
loaded when their bytes differ from the record."""

from __future__ import annotations

import json
import logging
import threading
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from verifier import onnx_runtime
from verifier.onnx_runtime import Lazy, ModelFileMismatch


def write_add_model(offset: float):
    """A writer of a one-node model, y = x + offset, with ``offset`` as a weight."""

    def write(path: Path) -> None:
        graph = helper.make_graph(
            [helper.make_node("Add", ["x", "offset"], ["y"])],
            "add",
            [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])],
            [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])],
            [helper.make_tensor("offset", TensorProto.FLOAT, [1], [offset])],
        )
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
        model.ir_version = 8
        onnx.save(model, str(path))

    return write


class CountingWriter:
    def __init__(self, offset: float) -> None:
        self.calls = 0
        self._write = write_add_model(offset)

    def __call__(self, path: Path) -> None:
        self.calls += 1
        self._write(path)


def run(session, x: float) -> float:
    (y,) = session.run(None, {"x": np.asarray([x], dtype=np.float32)})
    return float(y[0])


def flip_a_byte(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[-1] ^= 0xFF
    path.write_bytes(bytes(data))


def test_built_once_and_recorded_by_hash(tmp_path):
    path = tmp_path / "add.onnx"
    writer = CountingWriter(2.0)
    facts = {"recipe": "add-v1"}
    first = onnx_runtime.ensure_session(path, facts=facts, write=writer, threads=1)
    second = onnx_runtime.ensure_session(path, facts=facts, write=writer, threads=1)
    assert writer.calls == 1
    assert run(first, 1.0) == run(second, 1.0) == 3.0
    record = json.loads(onnx_runtime.record_path(path).read_text())
    assert record["recipe"] == "add-v1"
    assert record["sha256"] == onnx_runtime.sha256_file(path)
    assert record["bytes"] == path.stat().st_size
    assert not list(tmp_path.glob("*.partial-*"))


def test_other_facts_rebuild(tmp_path):
    path = tmp_path / "add.onnx"
    onnx_runtime.ensure_session(path, facts={"recipe": "v1"}, write=write_add_model(2), threads=1)
    writer = CountingWriter(5.0)
    session = onnx_runtime.ensure_session(path, facts={"recipe": "v2"}, write=writer, threads=1)
    assert writer.calls == 1
    assert run(session, 1.0) == 6.0
    assert onnx_runtime.read_record(path)["recipe"] == "v2"


def test_a_tampered_file_is_refused(tmp_path):
    path = tmp_path / "add.onnx"
    onnx_runtime.ensure_session(path, facts={}, write=write_add_model(2), threads=1)
    recorded = onnx_runtime.read_record(path)["sha256"]
    flip_a_byte(path)
    with pytest.raises(ModelFileMismatch, match="SHA-256"):
        onnx_runtime.verified_session(path, sha256=recorded, threads=1)


def test_a_tampered_cache_is_built_again(tmp_path, caplog):
    path = tmp_path / "add.onnx"
    onnx_runtime.ensure_session(path, facts={}, write=write_add_model(2), threads=1)
    flip_a_byte(path)
    writer = CountingWriter(2.0)
    with caplog.at_level(logging.WARNING, logger="verifier.onnx_runtime"):
        session = onnx_runtime.ensure_session(path, facts={}, write=writer, threads=1)
    assert writer.calls == 1
    assert "building it again" in caplog.text
    assert run(session, 1.0) == 3.0
    assert onnx_runtime.read_record(path)["sha256"] == onnx_runtime.sha256_file(path)


def test_a_file_that_never_matches_its_record_is_an_error(tmp_path, monkeypatch):
    path = tmp_path / "add.onnx"
    onnx_runtime.ensure_session(path, facts={}, write=write_add_model(2), threads=1)
    flip_a_byte(path)
    built = []
    build = onnx_runtime.build

    def build_then_edit(target, *, facts, write):
        # something rewrites the file after its digest was recorded, every time
        built.append(target)
        digest = build(target, facts=facts, write=write)
        flip_a_byte(target)
        return digest

    monkeypatch.setattr(onnx_runtime, "build", build_then_edit)
    with pytest.raises(ModelFileMismatch):
        onnx_runtime.ensure_session(path, facts={}, write=write_add_model(2), threads=1)
    assert built == [path]  # built again once, then refused


def test_lazy_loads_once_across_threads():
    calls = []
    started = threading.Barrier(8)

    def load() -> object:
        calls.append(threading.get_ident())
        return object()

    lazy = Lazy(load)
    seen = []

    def worker() -> None:
        started.wait()
        seen.append(lazy.get())

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(calls) == 1
    assert len(seen) == 8 and all(value is seen[0] for value in seen)
    assert lazy.loaded


def test_lazy_keeps_no_failure():
    attempts = []

    def load() -> str:
        attempts.append(1)
        if len(attempts) == 1:
            raise OSError("disk full")
        return "loaded"

    lazy = Lazy(load)
    with pytest.raises(OSError):
        lazy.get()
    assert not lazy.loaded
    assert lazy.get() == "loaded"
