"""The trained classifier over pair features: a small MLP, shipped as safetensors.

The file holds the standardisation (``mean``, ``std``), three linear layers and, in its
metadata, the calibration temperature, the decision thresholds and the feature names it
was trained on. Its SHA-256 is recorded here and checked at load: a different file is a
start-up error, never a silent fallback. Inference is plain numpy.

No Django imports.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from verifier.judges.nli.features import FEATURE_NAMES

WEIGHTS_PATH = Path(__file__).resolve().parent / "weights" / "spanproof-nli-v1.safetensors"
WEIGHTS_SHA256 = "da9482402c355f7bdd2a1dee1054bcb6b85b1d17d70dbfbf7d0b60efe8b25c94"
CLASSES = ("entailment", "neutral", "contradiction")
LAYERS = 3


class HeadUnavailable(RuntimeError):
    """The classifier weights are missing, altered, or for other features."""


@dataclass(frozen=True)
class Head:
    mean: np.ndarray
    std: np.ndarray
    layers: tuple[tuple[np.ndarray, np.ndarray], ...]
    temperature: float
    entail_threshold: float
    contradict_threshold: float

    def logits(self, features: np.ndarray) -> np.ndarray:
        x = (np.asarray(features, dtype=np.float32) - self.mean) / self.std
        for i, (weight, bias) in enumerate(self.layers):
            x = x @ weight.T + bias
            if i < len(self.layers) - 1:
                x = np.maximum(x, 0.0)
        return np.asarray(x)

    def probabilities(self, features: np.ndarray) -> np.ndarray:
        """Calibrated class probabilities, (n, 3) in ``CLASSES`` order."""
        z = self.logits(features) / self.temperature
        z = z - z.max(axis=1, keepdims=True)
        e = np.exp(z)
        return np.asarray(e / e.sum(axis=1, keepdims=True))


def sha256_of(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def load_head(path: Path = WEIGHTS_PATH, *, expected_sha256: str | None = WEIGHTS_SHA256) -> Head:
    if not path.is_file():
        raise HeadUnavailable(f"NLI judge weights not found at {path}")
    if expected_sha256 is not None:
        actual = sha256_of(path)
        if actual != expected_sha256:
            raise HeadUnavailable(
                f"NLI judge weights {path} have SHA-256 {actual}, expected {expected_sha256}"
            )
    from safetensors import safe_open

    with safe_open(str(path), framework="numpy") as fh:
        meta = fh.metadata() or {}
        tensors = {name: fh.get_tensor(name) for name in fh.keys()}  # noqa: SIM118
    names = tuple(json.loads(meta.get("feature_names", "[]")))
    if names != FEATURE_NAMES:
        raise HeadUnavailable(f"NLI judge weights {path} were trained on other features")
    layers = tuple(
        (
            tensors[f"layer{i}.weight"].astype(np.float32),
            tensors[f"layer{i}.bias"].astype(np.float32),
        )
        for i in range(LAYERS)
    )
    return Head(
        mean=tensors["mean"].astype(np.float32),
        std=tensors["std"].astype(np.float32),
        layers=layers,
        temperature=float(meta["temperature"]),
        entail_threshold=float(meta["entail_threshold"]),
        contradict_threshold=float(meta["contradict_threshold"]),
    )


def save_head(
    path: Path,
    *,
    mean: np.ndarray,
    std: np.ndarray,
    layers: list[tuple[np.ndarray, np.ndarray]],
    temperature: float,
    entail_threshold: float,
    contradict_threshold: float,
    extra: dict[str, str] | None = None,
) -> str:
    """Write the head and return its SHA-256 (to be recorded as ``WEIGHTS_SHA256``)."""
    from safetensors.numpy import save_file

    tensors = {"mean": mean.astype(np.float32), "std": std.astype(np.float32)}
    for i, (weight, bias) in enumerate(layers):
        tensors[f"layer{i}.weight"] = weight.astype(np.float32)
        tensors[f"layer{i}.bias"] = bias.astype(np.float32)
    metadata = {
        "feature_names": json.dumps(list(FEATURE_NAMES)),
        "temperature": repr(float(temperature)),
        "entail_threshold": repr(float(entail_threshold)),
        "contradict_threshold": repr(float(contradict_threshold)),
        "classes": json.dumps(list(CLASSES)),
        **(extra or {}),
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    save_file(tensors, str(path), metadata=metadata)
    return sha256_of(path)
