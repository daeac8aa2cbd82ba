"""Export a sequence-classification model folder to one int8 ONNX file for CPU judging.

The recipe of the query embedder (``verifier.embedding_onnx``: TorchScript export with
eager attention, every weighted MatMul as onnxruntime's ``MatMulNBits`` with 8-bit
weights and int8 activations per block of 64) plus one step of its own: the embedding
tables (word, position, token type) are stored as float16 and cast back to float32 after
the lookup. The word table alone is 30,522 × 384 floats (47 MB) for MiniLM; in float16
the whole file stays under 50 MB, and a lookup does no arithmetic, so nothing is lost
but the float16 rounding of the stored vectors (relative error ≤ 2⁻¹¹).

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

RECIPE = "classifier-matmulnbits8-b64-acc4-emb16-v1"
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


def export_classifier_int8(model_dir: Path, destination: Path) -> dict[str, Any]:
    """Write the int8 ONNX form of the classifier in ``model_dir`` to ``destination``;
    returns facts about it (recipe, outputs, tables in float16)."""
    import onnx
    import torch
    from transformers import AutoModelForSequenceClassification

    model = AutoModelForSequenceClassification.from_pretrained(
        str(model_dir), attn_implementation="eager"
    ).eval()
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
        quantized = quantize_matmuls(onnx.load(str(fp32)))
        tables = _tables_to_fp16(quantized.model)
        quantized.save_model_to_file(str(destination), use_external_data_format=False)
    return {
        "recipe": RECIPE,
        "num_labels": int(model.config.num_labels),
        "id2label": {str(k): str(v) for k, v in model.config.id2label.items()},
        "fp16_tables": tables,
    }


def write_config(model_dir: Path, destination: Path) -> None:
    """The parts of the model's ``config.json`` the ONNX runner reads (outputs and
    their names)."""
    config = json.loads((model_dir / "config.json").read_text(encoding="utf-8"))
    kept = {k: config[k] for k in ("num_labels", "id2label", "label2id") if k in config}
    if "num_labels" not in kept:
        kept["num_labels"] = len(config.get("id2label") or {}) or 1
    destination.write_text(json.dumps(kept, indent=1, sort_keys=True) + "\n", encoding="utf-8")
