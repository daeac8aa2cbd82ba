"""The base model's weights as int8 for the accelerator bundle, and back.

The working tree travels with the bundle and both must stay under 64 MiB; since the
tree holds `spanproof-nli-v2`'s int8 ONNX (23 MB), MiniLM's fp16 weights (44 MiB) no
longer fit beside it. Every floating matrix is stored as int8 with one fp16 scale per
row (symmetric: row / max|row| * 127), vectors (biases, LayerNorm) stay fp16; the
trainer turns them back into fp32 before fine-tuning, where a starting point off by at
most half a step of 1/127 of each row's largest weight is washed out by the first
updates.

Imports torch only (the accelerator machine has it; ``train_cross`` reads this).
"""

from __future__ import annotations

from typing import Any

SCALE_SUFFIX = ".int8_scale"
INT8_MAX = 127.0


def quantize_state(state: dict[str, Any]) -> dict[str, Any]:
    """fp matrices → int8 + per-row fp16 scale; fp vectors → fp16; the rest unchanged."""
    import torch

    out: dict[str, Any] = {}
    for name, tensor in state.items():
        if not tensor.is_floating_point():
            out[name] = tensor.contiguous()
        elif tensor.dim() == 2:
            rows = tensor.float()
            scale = rows.abs().amax(dim=1).clamp(min=1e-12) / INT8_MAX
            out[name] = torch.round(rows / scale[:, None]).to(torch.int8).contiguous()
            out[name + SCALE_SUFFIX] = scale.half().contiguous()
        else:
            out[name] = tensor.half().contiguous()
    return out


def dequantize_state(state: dict[str, Any]) -> dict[str, Any]:
    """The inverse of ``quantize_state``, in fp32."""
    out: dict[str, Any] = {}
    for name, tensor in state.items():
        if name.endswith(SCALE_SUFFIX):
            continue
        scale = state.get(name + SCALE_SUFFIX)
        if scale is not None:
            out[name] = tensor.float() * scale.float()[:, None]
        elif tensor.is_floating_point():
            out[name] = tensor.float()
        else:
            out[name] = tensor
    return out
