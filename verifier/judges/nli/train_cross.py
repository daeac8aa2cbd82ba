"""Train ``spanproof-nli-v2``: all-MiniLM-L6-v2 fine-tuned end to end (every layer) as a
3-way cross-encoder (entailment / neutral / contradiction) on a bundle written by
``python -m verifier.judges.nli.bundle``.

    python -m verifier.judges.nli.train_cross --bundle var/gpu-bundle --out OUT
        [--device auto|cuda|cpu] [--max-minutes 6.5] [--epochs 4] [--max-steps N]

Made for one call on an accelerator machine that has torch, transformers, tokenizers,
safetensors and numpy and nothing else of ours: it imports only those, the standard
library and pure modules of this package (``cross_encoder.encoding``,
``judges.metrics``, ``nli.int8_weights`` and their package ``__init__`` files, which
import nothing heavy).
It runs on a CPU too (the tests train two steps of a tiny model).

1. Checks every bundle file against the SHA-256 in ``bundle.json``.
2. Tokenizes the training pairs as the judge frames them (premise first, claim second;
   the first window of each, ``encoding.first_windows``, in parallel batches) and the
   development rows with all their windows (``encoding.pair_windows``).
3. Trains with AdamW, linear warm-up and decay, per-pair weights, length-grouped batches,
   bf16 autocast on CUDA. Every half epoch: ROC AUC of P(entailment) on the development
   ``fit`` rows (each row's best candidate window), the only figure that picks the
   checkpoint; the ``heldout`` rows and each dataset are reported beside it.
4. Writes the best checkpoint as fp16 safetensors cut into parts of at most
   ``PART_BYTES`` (``model.safetensors.part-00`` …), its ``config.json`` and
   ``report.json`` (SHA-256 of the whole file and of each part, the AUC history,
   timings, versions). ``python -m verifier.judges.nli.finish_v2`` takes it from there.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import lzma
import math
import platform
import random
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import numpy as np

from verifier.judges.cross_encoder.encoding import (
    MAX_TOKENS,
    Window,
    batch_arrays,
    first_windows,
    pad_id,
    pair_windows,
    prepare_tokenizer,
)
from verifier.judges.metrics import ranking_auc

CLASSES = ("entailment", "neutral", "contradiction")
PART_BYTES = 15 * 1024 * 1024
SEED = 20261127
DEFAULTS = {
    "epochs": 4,
    "batch_size": 64,
    "learning_rate": 4e-5,
    "weight_decay": 0.01,
    "warmup_share": 0.06,
    "max_tokens": MAX_TOKENS,
    "eval_per_epoch": 2,
    "max_minutes": 6.5,
}
GROUP_BATCHES = 50  # batches sorted by length together, then shuffled as units
# the dataset of the pairs written for this model (sources/written_pairs.jsonl.gz)
WRITTEN_DATASET = "written-paraphrase"
ALWAYS_SAMPLED = frozenset({WRITTEN_DATASET})  # kept whole by --sample
# The bundle's pairs, xz-compressed: their premises repeat, and xz stores the training
# pairs in under half of gzip's bytes (3.5 against 7.6 MB), room the 64 MiB that travels
# to the accelerator needs.
TRAIN_FILE = "train.jsonl.xz"
DEV_FILE = "dev.jsonl.xz"


class BundleError(RuntimeError):
    """The bundle is missing a file or a file is not the one ``bundle.json`` describes."""


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _open_text(path: Path) -> IO[str]:
    if path.suffix == ".xz":
        return lzma.open(path, "rt", encoding="utf-8")
    if path.suffix == ".gz":
        return gzip.open(path, "rt", encoding="utf-8")
    return path.open(encoding="utf-8")


def read_jsonl(path: Path) -> Iterator[dict[str, Any]]:
    """Rows of a JSON-lines file, xz- or gzip-compressed by its name's suffix."""
    with _open_text(path) as fh:
        for line in fh:
            if line.strip():
                yield json.loads(line)


def check_bundle(bundle: Path) -> dict[str, Any]:
    """``bundle.json``, after checking that every file it lists hashes as it says."""
    try:
        manifest: dict[str, Any] = json.loads((bundle / "bundle.json").read_text("utf-8"))
    except (OSError, ValueError) as exc:
        raise BundleError(f"no readable bundle.json in {bundle}: {exc}") from None
    for name in (TRAIN_FILE, DEV_FILE):
        if name not in manifest["files"]:
            raise BundleError(
                f"the bundle has no {name} (an older bundle.py wrote it): run make gpu-bundle"
            )
    for name, expected in manifest["files"].items():
        path = bundle / name
        if not path.is_file():
            raise BundleError(f"bundle file {name} is missing")
        if _sha256(path) != expected["sha256"]:
            raise BundleError(f"bundle file {name} does not hash to its recorded SHA-256")
    return manifest


@dataclass
class DevSet:
    windows: list[Window]
    owner: np.ndarray  # window → row
    gold: list[str]
    split: list[str]
    dataset: list[str]


def load_training(
    bundle: Path, tokenizer: Any, max_tokens: int, *, sample: int = 0, seed: int = SEED
) -> tuple[list[Window], Any]:
    """The bundle's training pairs, tokenized. ``sample``: every pair of an origin in
    ``ALWAYS_SAMPLED`` and that many of the others, drawn with ``seed`` (a continuation
    on the CPU, where the whole bundle is days of work)."""
    pairs: list[tuple[str, str]] = []
    labels: list[int] = []
    weights: list[float] = []
    rows = list(read_jsonl(bundle / TRAIN_FILE))
    if sample:
        rest = [r for r in rows if r.get("origin") not in ALWAYS_SAMPLED]
        random.Random(seed).shuffle(rest)
        rows = [r for r in rows if r.get("origin") in ALWAYS_SAMPLED] + rest[:sample]
    for row in rows:
        pairs.append((row["premise"], row["claim"]))
        labels.append(CLASSES.index(row["label"]))
        weights.append(float(row.get("weight", 1.0)))
    windows = first_windows(tokenizer, pairs, max_tokens=max_tokens)
    return windows, (np.asarray(labels, np.int64), np.asarray(weights, np.float32))


def load_dev(bundle: Path, tokenizer: Any, max_tokens: int) -> DevSet:
    windows: list[Window] = []
    owner: list[int] = []
    gold: list[str] = []
    split: list[str] = []
    dataset: list[str] = []
    for row in read_jsonl(bundle / DEV_FILE):
        index = len(gold)
        for premise in row["premises"]:
            for window in pair_windows(tokenizer, premise, row["claim"], max_tokens=max_tokens):
                windows.append(window)
                owner.append(index)
        gold.append(row["gold"])
        split.append(row["split"])
        dataset.append(row["dataset"])
    return DevSet(windows, np.asarray(owner, np.int64), gold, split, dataset)


def length_grouped_batches(
    lengths: list[int], batch_size: int, rng: random.Random
) -> list[list[int]]:
    """Shuffled indices cut into batches of similar length: shuffle, sort each group of
    ``GROUP_BATCHES`` batches by length, cut, shuffle the batches."""
    order = list(range(len(lengths)))
    rng.shuffle(order)
    group = batch_size * GROUP_BATCHES
    batches: list[list[int]] = []
    for start in range(0, len(order), group):
        chunk = sorted(order[start : start + group], key=lambda i: lengths[i])
        batches.extend(chunk[i : i + batch_size] for i in range(0, len(chunk), batch_size))
    rng.shuffle(batches)
    return batches


def evaluate(model: Any, dev: DevSet, pad: int, device: Any, autocast: Any) -> dict[str, Any]:
    """AUC of each row's best P(entailment) on the fit rows (the selection figure), on
    the heldout rows and per dataset."""
    import torch

    model.eval()
    probabilities = np.zeros((len(dev.windows), len(CLASSES)), np.float64)
    order = sorted(range(len(dev.windows)), key=lambda i: len(dev.windows[i].ids))
    with torch.inference_mode():
        for start in range(0, len(order), 128):
            chunk = order[start : start + 128]
            batch = batch_arrays([dev.windows[i] for i in chunk], pad)
            feed = {k: torch.from_numpy(v).to(device) for k, v in batch.items()}
            with autocast():
                logits = model(**feed).logits.float()
            probabilities[chunk] = torch.softmax(logits, dim=-1).cpu().numpy()
    model.train()
    best = np.zeros(len(dev.gold), np.float64)
    np.maximum.at(best, dev.owner, probabilities[:, 0])
    positive = np.asarray([g == "SUPPORT" for g in dev.gold])

    def auc(mask: np.ndarray) -> float | None:
        if positive[mask].all() or not positive[mask].any():
            return None
        return round(ranking_auc(best[mask], positive[mask]), 4)

    split = np.asarray(dev.split)
    dataset = np.asarray(dev.dataset)
    return {
        "fit_auc": auc(split == "fit"),
        "heldout_auc": auc(split == "heldout"),
        "by_dataset": {
            f"{s}/{d}": auc((split == s) & (dataset == d))
            for s in sorted(set(dev.split))
            for d in sorted(set(dev.dataset))
            if ((split == s) & (dataset == d)).any()
        },
    }


def base_model_dir(model_dir: Path, scratch: Path) -> Path:
    """A folder ``from_pretrained`` reads: the bundle's own when its weights are a plain
    ``model.safetensors``; else its int8 weights back in fp32 in ``scratch``."""
    packed = model_dir / "model.int8.safetensors"
    if not packed.is_file():
        return model_dir
    import shutil

    from safetensors.torch import load_file, save_file

    from verifier.judges.nli.int8_weights import dequantize_state

    for item in model_dir.iterdir():
        if item.is_file() and item != packed:
            shutil.copyfile(item, scratch / item.name)
    save_file(dequantize_state(load_file(str(packed))), str(scratch / "model.safetensors"))
    return scratch


def write_parts(state: dict[str, Any], out: Path) -> dict[str, Any]:
    """The fp16 state dict as safetensors, cut into parts of at most PART_BYTES."""
    from safetensors.torch import save_file

    whole = out / "model.safetensors"
    save_file({k: v.half().contiguous() for k, v in state.items()}, str(whole))
    data = whole.read_bytes()
    parts = []
    for number, start in enumerate(range(0, len(data), PART_BYTES)):
        part = out / f"model.safetensors.part-{number:02d}"
        part.write_bytes(data[start : start + PART_BYTES])
        parts.append({"name": part.name, "sha256": _sha256(part), "bytes": part.stat().st_size})
    whole.unlink()
    return {"sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data), "parts": parts}


def train(args: argparse.Namespace) -> dict[str, Any]:
    import torch
    import transformers
    from tokenizers import Tokenizer
    from transformers import AutoModelForSequenceClassification

    started = time.perf_counter()
    deadline = started + args.max_minutes * 60
    manifest = check_bundle(args.bundle)
    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    device = torch.device(
        ("cuda" if torch.cuda.is_available() else "cpu") if args.device == "auto" else args.device
    )
    on_cuda = device.type == "cuda"
    if on_cuda:
        torch.backends.cuda.matmul.allow_tf32 = True

    def autocast() -> Any:
        return torch.autocast("cuda", dtype=torch.bfloat16, enabled=on_cuda)

    model_dir = args.bundle / "model"
    tokenizer = prepare_tokenizer(Tokenizer.from_file(str(model_dir / "tokenizer.json")))
    pad = pad_id(tokenizer)
    train_windows, (labels, weights) = load_training(
        args.bundle, tokenizer, args.max_tokens, sample=args.sample, seed=args.seed
    )
    dev = load_dev(args.bundle, tokenizer, args.max_tokens)
    tokenized = time.perf_counter()

    with tempfile.TemporaryDirectory() as unpacked:
        model = AutoModelForSequenceClassification.from_pretrained(
            str(args.init or base_model_dir(model_dir, Path(unpacked))),
            num_labels=len(CLASSES),
            id2label=dict(enumerate(CLASSES)),
            label2id={c: i for i, c in enumerate(CLASSES)},
        )
    model = model.float().to(device)  # the bundle's weights are int8 or fp16; training is fp32
    model.train()
    decay = [
        p for n, p in model.named_parameters() if not n.endswith("bias") and "LayerNorm" not in n
    ]
    no_decay = [p for n, p in model.named_parameters() if n.endswith("bias") or "LayerNorm" in n]
    optimizer = torch.optim.AdamW(
        [
            {"params": decay, "weight_decay": args.weight_decay},
            {"params": no_decay, "weight_decay": 0.0},
        ],
        lr=args.learning_rate,
        fused=on_cuda,
    )
    rng = random.Random(args.seed)
    lengths = [len(w.ids) for w in train_windows]
    steps_per_epoch = math.ceil(len(train_windows) / args.batch_size)
    total_steps = math.ceil(steps_per_epoch * args.epochs)
    if args.max_steps:
        total_steps = min(total_steps, args.max_steps)
    warmup = max(1, int(total_steps * args.warmup_share))
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimizer,
        lambda step: (
            min(1.0, (step + 1) / warmup)
            * max(0.0, (total_steps - step) / max(1, total_steps - warmup))
        ),
    )
    eval_every = max(1, steps_per_epoch // args.eval_per_epoch)
    if args.max_steps:
        eval_every = min(eval_every, args.max_steps)
    label_t = torch.from_numpy(labels)
    weight_t = torch.from_numpy(weights)

    history: list[dict[str, Any]] = []
    best: dict[str, Any] = {"fit_auc": -1.0, "step": 0, "state": None}
    step = 0
    seen = 0
    stopped = "planned steps done"
    train_seconds = 0.0
    while step < total_steps:
        for batch_index in length_grouped_batches(lengths, args.batch_size, rng):
            if step >= total_steps:
                break
            if time.perf_counter() > deadline:
                stopped = f"time limit ({args.max_minutes} min)"
                break
            tick = time.perf_counter()
            arrays = batch_arrays([train_windows[i] for i in batch_index], pad)
            feed = {k: torch.from_numpy(v).to(device, non_blocking=True) for k, v in arrays.items()}
            index = torch.tensor(batch_index)
            y = label_t[index].to(device)
            w = weight_t[index].to(device)
            with autocast():
                logits = model(**feed).logits.float()
            loss = (torch.nn.functional.cross_entropy(logits, y, reduction="none") * w).sum()
            loss = loss / w.sum()
            optimizer.zero_grad(set_to_none=True)
            loss.backward()  # type: ignore[no-untyped-call]
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            scheduler.step()
            step += 1
            seen += len(batch_index)
            train_seconds += time.perf_counter() - tick
            if step % eval_every == 0 or step == total_steps:
                figures = evaluate(model, dev, pad, device, autocast)
                figures.update(
                    step=step,
                    epoch=round(seen / len(train_windows), 2),
                    loss=round(float(loss.item()), 4),
                    minutes=round((time.perf_counter() - started) / 60, 2),
                )
                history.append(figures)
                print(json.dumps(figures), file=sys.stderr, flush=True)
                score = figures["fit_auc"] if figures["fit_auc"] is not None else 0.0
                if score > best["fit_auc"]:
                    best = {
                        "fit_auc": score,
                        "step": step,
                        "state": {
                            k: v.detach().to("cpu", copy=True)
                            for k, v in model.state_dict().items()
                        },
                    }
        else:
            continue
        break
    if best["state"] is None:  # stopped before the first evaluation
        figures = evaluate(model, dev, pad, device, autocast)
        figures.update(step=step, epoch=round(seen / max(1, len(train_windows)), 2))
        history.append(figures)
        best = {
            "fit_auc": figures["fit_auc"] or 0.0,
            "step": step,
            "state": {k: v.detach().to("cpu", copy=True) for k, v in model.state_dict().items()},
        }

    args.out.mkdir(parents=True, exist_ok=True)
    weights_record = write_parts(best["state"], args.out)
    model.config.save_pretrained(str(args.out))
    report = {
        "model_id": "spanproof-nli-v2",
        "base": manifest.get("base_model", {}),
        "bundle_sha256": _sha256(args.bundle / "bundle.json"),
        "bundle_counts": manifest.get("counts", {}),
        "hyperparameters": {k: getattr(args, k) for k in DEFAULTS}
        | {"seed": args.seed, "sample": args.sample, "init": str(args.init or "")},
        "device": torch.cuda.get_device_name(device) if on_cuda else platform.processor() or "cpu",
        "versions": {
            "python": platform.python_version(),
            "torch": torch.__version__,
            "transformers": transformers.__version__,
        },
        "training_pairs": len(train_windows),
        "dev_rows": len(dev.gold),
        "steps": step,
        "epochs": round(seen / max(1, len(train_windows)), 2),
        "stopped": stopped,
        "train_pairs_per_s": round(seen / train_seconds, 1) if train_seconds else None,
        "seconds": {
            "tokenize": round(tokenized - started, 1),
            "train_and_eval": round(time.perf_counter() - tokenized, 1),
        },
        "best_step": best["step"],
        "best_fit_auc": best["fit_auc"],
        "history": history,
        "weights": weights_record,
    }
    (args.out / "report.json").write_text(json.dumps(report, indent=1), encoding="utf-8")
    return report


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bundle", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--device", default="auto", help="auto, cuda, cpu or a torch device")
    parser.add_argument("--max-minutes", type=float, default=DEFAULTS["max_minutes"])
    parser.add_argument("--epochs", type=float, default=DEFAULTS["epochs"])
    parser.add_argument(
        "--init",
        type=Path,
        default=None,
        help="continue from this transformers folder (e.g. unpack_onnx's) instead of the "
        "bundle's base model",
    )
    parser.add_argument(
        "--sample",
        type=int,
        default=0,
        help="train on the written pairs and this many of the bundle's other pairs",
    )
    parser.add_argument("--max-steps", type=int, default=0, help="stop after this many steps")
    parser.add_argument("--batch-size", type=int, default=DEFAULTS["batch_size"])
    parser.add_argument("--learning-rate", type=float, default=DEFAULTS["learning_rate"])
    parser.add_argument("--weight-decay", type=float, default=DEFAULTS["weight_decay"])
    parser.add_argument("--warmup-share", type=float, default=DEFAULTS["warmup_share"])
    parser.add_argument("--max-tokens", type=int, default=DEFAULTS["max_tokens"])
    parser.add_argument("--eval-per-epoch", type=int, default=DEFAULTS["eval_per_epoch"])
    parser.add_argument("--seed", type=int, default=SEED)
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    report = train(parse_args(argv))
    summary = {k: report[k] for k in ("steps", "epochs", "stopped", "best_step", "best_fit_auc")}
    print(json.dumps(summary, indent=1))


if __name__ == "__main__":
    main()
