"""Export a sequence-classification model folder to one int8 ONNX file for CPU judging.

TorchScript export with eager attention (as the query embedder, ``verifier.embedding_onnx``),
then one of three quantizations (``RECIPES``): onnxruntime's dynamic int8 with per-channel
weight scales (the faster kernel for batches of windows), or the query embedder's
``MatMulNBits`` recipe plus one step of its own for the embedding tables (the word table
alone is 47 MB in float32 for MiniLM; a lookup does no arithmetic): stored as float16 and
cast back after the lookup (``nbits``), or as int8 with one float32 scale per row,
multiplied back after the lookup (``nbits-e8``, the default: as small as ``dynamic`` and
as faithful as ``nbits``). Every file stays under 50 MB. ``finish_v2`` reports the int8
model's agreement with fp32.

Needs torch, transformers, onnx, onnx-ir and onnxruntime (the CPU side, never the
accelerator). No Django imports.
"""

from __future__ import annotations

import json
import tempfile
import warnings
from pathlib import Path
from typing import Any

import numpy as np

from verifier.embedding_onnx import ONNX_OPSET, quantize_matmuls

# ``dynamic`` (default): onnxruntime's dynamic int8 quantization, one scale per output
# channel (MatMulInteger, the embedding tables int8 too: ~23 MB for MiniLM). For batches
# of windows it is the faster kernel: 4,350 against 3,330 tokens/s for 32 windows of 130
# word pieces on 2 shared cores (2026-11-27; fp32 2,455). ``nbits``: the query embedder's
# recipe (MatMulNBits blocks, float16 tables: ~36 MB), the faster one for one short text.
# ``nbits-e8``: the same with int8 tables, one scale per row (~23 MB). The dynamic recipe's
# activations are quantized too, and its tables share one scale: against the float32
# spanproof-nli-v2 on the 1,416 development rows, P(entailed) moved by up to 0.50 (argmax
# agreement 94.5 %); with MatMulNBits weights, by up to 0.11 (99.3 % with int8 tables,
# 99.1 % with float16 ones), 2026-11-28.
RECIPES = {
    "dynamic": "classifier-dynamic-int8-perchannel-v1",
    "nbits": "classifier-matmulnbits8-b64-acc4-emb16-v1",
    "nbits-e8": "classifier-matmulnbits8-b64-acc4-emb8row-v1",
}
DEFAULT_RECIPE = "nbits-e8"
INPUT_NAMES = ("input_ids", "attention_mask", "token_type_ids")
FP16_TABLE_MIN_ELEMENTS = 4096  # smaller Gather tables stay float32


def _large_float_tables(model: Any) -> list[tuple[Any, Any, np.ndarray]]:
    """(Gather node, table initializer, values) for every Gather that looks rows up
    (axis 0) in a float32 initializer of at least ``FP16_TABLE_MIN_ELEMENTS`` elements
    that no other node reads."""
    from collections import Counter

    from onnx import TensorProto, numpy_helper

    initializers = {init.name: init for init in model.graph.initializer}
    readers = Counter(name for node in model.graph.node for name in node.input)
    found = []
    for node in model.graph.node:
        if node.op_type != "Gather" or node.input[0] not in initializers:
            continue
        table = initializers[node.input[0]]
        axis = next((a.i for a in node.attribute if a.name == "axis"), 0)
        if table.data_type != TensorProto.FLOAT or readers[table.name] > 1 or axis != 0:
            continue
        values = numpy_helper.to_array(table)
        if values.size >= FP16_TABLE_MIN_ELEMENTS:
            found.append((node, table, values))
    return found


def _rewrite_tables(model: Any, store: Any) -> int:
    """Every large float32 Gather table (``_large_float_tables``) replaced by what
    ``store(name, values)`` makes of it: (initializers, the one the Gather reads, a
    function of the gathered rows' name and the float32 output's name giving the nodes
    that turn those rows back into float32). Returns how many tables were changed."""
    graph = model.graph
    tables = _large_float_tables(model)
    after: dict[int, list[Any]] = {}
    for node, table, values in tables:
        initializers, read, restore = store(table.name, values)
        graph.initializer.remove(table)
        graph.initializer.extend(initializers)
        gathered = node.output[0]
        node.input[0] = read
        node.output[0] = f"{gathered}_stored"
        after[id(node)] = restore(node, gathered)
    nodes = [n for node in graph.node for n in (node, *after.get(id(node), []))]
    del graph.node[:]
    graph.node.extend(nodes)
    return len(tables)


def _tables_to_fp16(model: Any) -> int:
    """Large float32 Gather tables stored as float16; the rows gathered are cast back to
    float32."""
    from onnx import TensorProto, helper, numpy_helper

    def store(name: str, values: np.ndarray) -> tuple[list[Any], str, Any]:
        half = numpy_helper.from_array(values.astype(np.float16), name=f"{name}_fp16")

        def restore(node: Any, gathered: str) -> list[Any]:
            return [
                helper.make_node(
                    "Cast",
                    [node.output[0]],
                    [gathered],
                    to=TensorProto.FLOAT,
                    name=f"{node.name or gathered}_to_fp32",
                )
            ]

        return [half], half.name, restore

    return _rewrite_tables(model, store)


def _tables_to_int8(model: Any) -> int:
    """Large float32 Gather tables stored as int8 with one float32 scale per row (its
    largest magnitude / 127); the rows gathered are cast back to float32 and multiplied
    by their gathered scales."""
    from onnx import TensorProto, helper, numpy_helper

    def store(name: str, values: np.ndarray) -> tuple[list[Any], str, Any]:
        rows = values.reshape(values.shape[0], -1)
        scale = np.abs(rows).max(axis=1) / 127.0
        scale[scale == 0] = 1.0
        quantized = np.clip(np.rint(rows / scale[:, None]), -127, 127).astype(np.int8)
        q_init = numpy_helper.from_array(quantized.reshape(values.shape), name=f"{name}_i8")
        scale_shape = (values.shape[0],) + (1,) * (values.ndim - 1)
        s_init = numpy_helper.from_array(
            scale.astype(np.float32).reshape(scale_shape), name=f"{name}_row_scale"
        )

        def restore(node: Any, gathered: str) -> list[Any]:
            label = node.name or gathered
            return [
                helper.make_node(
                    "Gather",
                    [s_init.name, node.input[1]],
                    [f"{gathered}_scale"],
                    name=f"{label}_scale",
                ),
                helper.make_node(
                    "Cast",
                    [node.output[0]],
                    [f"{gathered}_f"],
                    to=TensorProto.FLOAT,
                    name=f"{label}_f",
                ),
                helper.make_node(
                    "Mul",
                    [f"{gathered}_f", f"{gathered}_scale"],
                    [gathered],
                    name=f"{label}_scaled",
                ),
            ]

        return [q_init, s_init], q_init.name, restore

    return _rewrite_tables(model, store)


def export_classifier_int8(
    model_dir: Path, destination: Path, *, recipe: str = DEFAULT_RECIPE
) -> dict[str, Any]:
    """Write the int8 ONNX form of the classifier in ``model_dir`` to ``destination`` by
    ``recipe`` (a key of ``RECIPES``); returns facts about it."""
    if recipe not in RECIPES:
        raise ValueError(f"unknown recipe {recipe!r} (one of {', '.join(RECIPES)})")
    import onnx
    import torch
    from transformers import AutoModelForSequenceClassification

    # float32 whatever the checkpoint was saved in (a trained run's weights come back as
    # float16): the quantizer reads float32 weights, and int8 scales must be float32
    model = (
        AutoModelForSequenceClassification.from_pretrained(
            str(model_dir), attn_implementation="eager"
        )
        .float()
        .eval()
    )
    accepts_types = int(getattr(model.config, "type_vocab_size", 0) or 0) > 1

    class Logits(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.inner = model

        def forward(self, input_ids: Any, attention_mask: Any, token_type_ids: Any) -> Any:
            extra = {"token_type_ids": token_type_ids} if accepts_types else {}
            return self.inner(input_ids=input_ids, attention_mask=attention_mask, **extra).logits

    # any ids inside the vocabulary: the shapes are what the tracer keeps
    sample = torch.tensor([[1, 2, 3, 2, 3]], dtype=torch.int64)
    names = list(INPUT_NAMES)
    dynamic = {name: {0: "batch", 1: "tokens"} for name in names}
    dynamic["logits"] = {0: "batch"}
    destination.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=destination.parent) as work:
        fp32 = Path(work) / "fp32.onnx"
        with warnings.catch_warnings(), torch.no_grad():
            warnings.simplefilter("ignore")  # TorchScript exporter deprecation, tracer notes
            torch.onnx.export(
                Logits(),
                (sample, torch.ones_like(sample), torch.zeros_like(sample)),
                str(fp32),
                input_names=names,
                output_names=["logits"],
                dynamic_axes=dynamic,
                opset_version=ONNX_OPSET,
                dynamo=False,
            )
        tables = 0
        if recipe in {"nbits", "nbits-e8"}:
            quantized = quantize_matmuls(onnx.load(str(fp32)))
            convert = _tables_to_fp16 if recipe == "nbits" else _tables_to_int8
            tables = convert(quantized.model)
            quantized.save_model_to_file(str(destination), use_external_data_format=False)
        else:
            _quantize_dynamic(fp32, destination)
    return {
        "recipe": RECIPES[recipe],
        "num_labels": int(model.config.num_labels),
        "id2label": {str(k): str(v) for k, v in model.config.id2label.items()},
        "converted_tables": tables,
    }


def _quantize_dynamic(source: Path, destination: Path) -> None:
    from onnxruntime.quantization import QuantType, quantize_dynamic

    from verifier.embedding_onnx import _quiet_logger

    with _quiet_logger("root"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        quantize_dynamic(
            str(source), str(destination), weight_type=QuantType.QInt8, per_channel=True
        )


def write_config(model_dir: Path, destination: Path) -> None:
    """The parts of the model's ``config.json`` the ONNX runner reads (outputs and
    their names)."""
    config = json.loads((model_dir / "config.json").read_text(encoding="utf-8"))
    kept = {k: config[k] for k in ("num_labels", "id2label", "label2id") if k in config}
    if "num_labels" not in kept:
        kept["num_labels"] = len(config.get("id2label") or {}) or 1
    destination.write_text(json.dumps(kept, indent=1, sort_keys=True) + "\n", encoding="utf-8")
