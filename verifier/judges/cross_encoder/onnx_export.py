"""Export a sequence-classification model folder to one int8 ONNX file for CPU judging.

TorchScript export with eager attention (as the query embedder, ``verifier.embedding_onnx``),
then one of two quantizations (``RECIPES``): onnxruntime's dynamic int8 with per-channel
weight scales (the default: the faster kernel for batches of windows), or the query
embedder's ``MatMulNBits`` recipe plus one step of its own — the embedding tables stored
as float16 and cast back after the lookup (the word table alone is 47 MB in float32 for
MiniLM; a lookup does no arithmetic, so only the float16 rounding is lost). Either file
stays under 50 MB. ``finish_v2`` reports the int8 model's agreement with fp32.

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
RECIPES = {
    "dynamic": "classifier-dynamic-int8-perchannel-v1",
    "nbits": "classifier-matmulnbits8-b64-acc4-emb16-v1",
}
DEFAULT_RECIPE = "dynamic"
INPUT_NAMES = ("input_ids", "attention_mask", "token_type_ids")
FP16_TABLE_MIN_ELEMENTS = 4096  # smaller Gather tables stay float32


def _tables_to_fp16(model: Any) -> int:
    """Every Gather whose data is a large float32 initializer reads a float16 copy and
    casts the rows it gathered back to float32. Returns how many tables were changed."""
    from onnx import TensorProto, helper, numpy_helper

    graph = model.graph
    initializers = {init.name: init for init in graph.initializer}
    changed = 0
    new_nodes = []
    for node in graph.node:
        new_nodes.append(node)
        if node.op_type != "Gather" or node.input[0] not in initializers:
            continue
        table = initializers[node.input[0]]
        if table.data_type != TensorProto.FLOAT:
            continue
        values = numpy_helper.to_array(table)
        if values.size < FP16_TABLE_MIN_ELEMENTS:
            continue
        half = numpy_helper.from_array(values.astype(np.float16), name=f"{table.name}_fp16")
        graph.initializer.remove(table)
        graph.initializer.append(half)
        initializers.pop(table.name)
        gathered = node.output[0]
        node.input[0] = half.name
        node.output[0] = f"{gathered}_fp16"
        new_nodes.append(
            helper.make_node(
                "Cast",
                [node.output[0]],
                [gathered],
                to=TensorProto.FLOAT,
                name=f"{node.name or gathered}_to_fp32",
            )
        )
        changed += 1
    del graph.node[:]
    graph.node.extend(new_nodes)
    return changed


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
        if recipe == "nbits":
            quantized = quantize_matmuls(onnx.load(str(fp32)))
            tables = _tables_to_fp16(quantized.model)
            quantized.save_model_to_file(str(destination), use_external_data_format=False)
        else:
            _quantize_dynamic(fp32, destination)
    return {
        "recipe": RECIPES[recipe],
        "num_labels": int(model.config.num_labels),
        "id2label": {str(k): str(v) for k, v in model.config.id2label.items()},
        "fp16_tables": tables,
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
