"""Train ``spanproof-nli-v1``: one command, fixed seed, prints a JSON report.

    .venv/bin/python -m verifier.judges.nli.train [--train-dir ../shared/train]
        [--eval ../shared/eval/claims.jsonl] [--out verifier/judges/nli/weights/...]

1. Training pairs: synthetic pairs generated from ``prose.jsonl`` (``synthetic``), the
   fact-checking pairs of ``nli_pairs.jsonl`` (Check-COVID, FEVER-symmetric, WiCE;
   weighted up) and a sample of its SNLI pairs (e-SNLI, CAD-SNLI; weighted down).
2. Features (``features``) from the fp32 MiniLM token encoder, cached under
   ``var/nli-cache``.
3. A 3-way MLP trained with AdamW; the epoch is chosen on the ``fit`` part of the
   development rows (ROC AUC of P(entailed) for SUPPORT vs the rest), never trained on:
   the ``fit`` part of the eval claims plus our own planted-v1 fixture's judge items
   (``bench/judge_planted.py --export-items var/planted-v1-items.jsonl``).
4. Temperature fitted on the same ``fit`` part; the entailment threshold is the one that
   maximises balanced accuracy there with entailed precision ≥ its floor; the
   contradiction threshold keeps contradiction precision (vs SUPPORT) ≥ its floor
   (both rules in ``verifier.judges.metrics``).
5. Weights written as safetensors; record the printed SHA-256 in ``head.WEIGHTS_SHA256``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from verifier.judges.candidates import candidate_texts
from verifier.judges.metrics import (
    choose_contradict_threshold,
    choose_entail_threshold,
    ranking_auc,
)
from verifier.judges.nli.devdata import EvalRow, extra_dev_rows, load_eval_rows
from verifier.judges.nli.encoder import TokenEncoder
from verifier.judges.nli.features import FEATURE_NAMES
from verifier.judges.nli.head import CLASSES, WEIGHTS_PATH, save_head
from verifier.judges.nli.judge import PairText, featurize
from verifier.judges.nli.synthetic import Document, generate_pairs, reference_pairs

REPO = Path(__file__).resolve().parents[3]
SEED = 20261125
SYNTHETIC_PER_SENTENCE = 2
FACT_CHECK_WEIGHT = 3.0
REFERENCE_WEIGHT = 3.0  # few pairs, and the only ones that teach reading the context
SNLI_SAMPLE = 4000
SNLI_WEIGHT = 0.5
HIDDEN = 64
EPOCHS = 25
BATCH = 256
LEARNING_RATE = 2e-3
WEIGHT_DECAY = 1e-4
FACT_CHECK = ("check-covid", "fever-symmetric", "wice-train")


def training_pairs(
    train_dir: Path, seed: int
) -> tuple[list[PairText], list[int], list[float], list[str]]:
    rng = random.Random(seed)
    pairs: list[PairText] = []
    labels: list[int] = []
    weights: list[float] = []
    origins: list[str] = []
    docs = []
    with (train_dir / "prose.jsonl").open(encoding="utf-8") as fh:
        for line in fh:
            row = json.loads(line)
            docs.append(Document(row["id"], tuple(row["sentences"]), row.get("title") or ""))
    for pair in generate_pairs(docs, seed=seed, per_sentence=SYNTHETIC_PER_SENTENCE):
        pairs.append(PairText(pair.claim, pair.span, pair.context))
        labels.append(CLASSES.index(pair.label))
        weights.append(1.0)
        origins.append(f"synthetic/{pair.kind}")
    for pair in reference_pairs(docs, seed=seed):
        pairs.append(PairText(pair.claim, pair.span, pair.context))
        labels.append(CLASSES.index(pair.label))
        weights.append(REFERENCE_WEIGHT)
        origins.append(f"synthetic/{pair.kind}")
    snli = []
    with (train_dir / "nli_pairs.jsonl").open(encoding="utf-8") as fh:
        for line in fh:
            row = json.loads(line)
            if row["dataset"] in FACT_CHECK:
                pairs.append(PairText(row["hypothesis"], row["premise"], ""))
                labels.append(CLASSES.index(row["label"]))
                weights.append(FACT_CHECK_WEIGHT)
                origins.append(row["dataset"])
            else:
                snli.append(row)
    for row in rng.sample(snli, min(SNLI_SAMPLE, len(snli))):
        pairs.append(PairText(row["hypothesis"], row["premise"], ""))
        labels.append(CLASSES.index(row["label"]))
        weights.append(SNLI_WEIGHT)
        origins.append(row["dataset"])
    return pairs, labels, weights, origins


def cached_features(pairs: list[PairText], encoder: TokenEncoder, cache: Path) -> np.ndarray:
    """Features of ``pairs``, computed in chunks, each cached under ``cache`` by content."""
    rows = []
    step = 2048
    cache.mkdir(parents=True, exist_ok=True)
    for start in range(0, len(pairs), step):
        chunk = pairs[start : start + step]
        digest = hashlib.sha256(json.dumps(FEATURE_NAMES).encode())
        for p in chunk:
            digest.update(f"{p.claim}\x00{p.span}\x00{p.context}\x01".encode())
        path = cache / f"features-{digest.hexdigest()[:16]}.npy"
        if not path.exists():
            np.save(path, featurize(chunk, encoder)[0])
        rows.append(np.load(path))
        print(f"features {min(start + step, len(pairs))}/{len(pairs)}", file=sys.stderr)
    return np.concatenate(rows) if rows else np.zeros((0, len(FEATURE_NAMES)), np.float32)


def eval_features(
    eval_path: Path, encoder: TokenEncoder, cache: Path, extra: Path | None
) -> tuple[list[EvalRow], np.ndarray, np.ndarray]:
    """Per development row: the feature rows of its candidates, its gold label, dataset."""
    rows = load_eval_rows(eval_path) + extra_dev_rows(extra)
    pairs: list[PairText] = []
    owner: list[int] = []
    for index, row in enumerate(rows):
        for _, span in candidate_texts(row.item):
            pairs.append(PairText(row.item.claim, span, row.item.context))
            owner.append(index)
    return rows, cached_features(pairs, encoder, cache), np.asarray(owner)


def row_probabilities(probabilities: np.ndarray, owner: np.ndarray, n_rows: int) -> np.ndarray:
    """Per row: max P(entail) and max P(contradiction) over its candidates."""
    out = np.zeros((n_rows, 2), dtype=np.float64)
    np.maximum.at(out[:, 0], owner, probabilities[:, 0])
    np.maximum.at(out[:, 1], owner, probabilities[:, 2])
    return out


def train(args: argparse.Namespace) -> dict[str, Any]:
    import torch

    started = time.perf_counter()
    torch.manual_seed(args.seed)
    np.random.seed(args.seed)
    torch.set_num_threads(max(1, torch.get_num_threads()))
    encoder = TokenEncoder()
    cache = args.cache
    pairs, labels, weights, origins = training_pairs(args.train_dir, args.seed)
    x = cached_features(pairs, encoder, cache)
    y = np.asarray(labels)
    w = np.asarray(weights, dtype=np.float32)
    rows, dev_x, dev_owner = eval_features(args.eval, encoder, cache, args.extra_dev)
    fit_rows = np.asarray([r.split == "fit" for r in rows])
    gold = np.asarray([r.gold for r in rows])
    positive = gold == "SUPPORT"
    featurized = time.perf_counter()

    columns = [FEATURE_NAMES.index(n) for n in args.features] if args.features else None
    if columns is not None:
        x, dev_x = x[:, columns], dev_x[:, columns]
    mean = x.mean(axis=0)
    std = x.std(axis=0) + 1e-6
    xt = torch.tensor((x - mean) / std, dtype=torch.float32)
    yt = torch.tensor(y, dtype=torch.long)
    wt = torch.tensor(w / w.mean(), dtype=torch.float32)
    dev_t = torch.tensor((dev_x - mean) / std, dtype=torch.float32)
    model = torch.nn.Sequential(
        torch.nn.Linear(x.shape[1], HIDDEN),
        torch.nn.ReLU(),
        torch.nn.Dropout(0.1),
        torch.nn.Linear(HIDDEN, HIDDEN),
        torch.nn.ReLU(),
        torch.nn.Linear(HIDDEN, len(CLASSES)),
    )
    optimizer = torch.optim.AdamW(model.parameters(), lr=LEARNING_RATE, weight_decay=WEIGHT_DECAY)
    generator = torch.Generator().manual_seed(args.seed)
    best_state, best_score, best_epoch = None, -1.0, -1
    history = []
    for epoch in range(EPOCHS):
        model.train()
        order = torch.randperm(len(xt), generator=generator)
        for start in range(0, len(order), BATCH):
            idx = order[start : start + BATCH]
            loss = torch.nn.functional.cross_entropy(model(xt[idx]), yt[idx], reduction="none")
            loss = (loss * wt[idx]).mean()
            optimizer.zero_grad()
            loss.backward()  # type: ignore[no-untyped-call]
            optimizer.step()
        model.eval()
        with torch.no_grad():
            probs = torch.softmax(model(dev_t), dim=1).numpy()
        per_row = row_probabilities(probs, dev_owner, len(rows))
        score = ranking_auc(per_row[fit_rows, 0], positive[fit_rows])
        history.append(round(score, 4))
        if score > best_score:
            best_score, best_epoch = score, epoch
            best_state = {k: v.clone() for k, v in model.state_dict().items()}
    assert best_state is not None
    model.load_state_dict(best_state)
    model.eval()

    # temperature on the fit rows' best candidates (3-way NLL)
    with torch.no_grad():
        dev_logits = model(dev_t)
    gold_class = torch.tensor(
        [{"SUPPORT": 0, "NOINFO": 1, "CONTRADICT": 2}[g] for g in gold], dtype=torch.long
    )
    lead = np.zeros(len(rows), dtype=np.int64)
    best_p = np.full(len(rows), -1.0)
    soft = torch.softmax(dev_logits, dim=1).numpy()
    for i, o in enumerate(dev_owner):
        if soft[i, 0] > best_p[o]:
            best_p[o], lead[o] = soft[i, 0], i
    fit_index = np.flatnonzero(fit_rows)
    lead_logits = dev_logits[torch.tensor(lead[fit_index])]
    log_t = torch.zeros(1, requires_grad=True)
    opt_t = torch.optim.LBFGS([log_t], max_iter=100)

    def closure() -> Any:
        opt_t.zero_grad()
        nll = torch.nn.functional.cross_entropy(
            lead_logits / log_t.exp(), gold_class[torch.tensor(fit_index)]
        )
        nll.backward()  # type: ignore[no-untyped-call]
        return nll

    opt_t.step(closure)  # type: ignore[no-untyped-call]
    temperature = float(log_t.exp().item())
    with torch.no_grad():
        calibrated = torch.softmax(dev_logits / temperature, dim=1).numpy()
    per_row = row_probabilities(calibrated, dev_owner, len(rows))
    entail_t, fit_ba, fit_precision = choose_entail_threshold(
        per_row[fit_rows, 0], positive[fit_rows]
    )
    contradict_t = choose_contradict_threshold(per_row[fit_rows, 1], gold[fit_rows] != "SUPPORT")
    trained = time.perf_counter()

    report = {
        "model_id": "spanproof-nli-v1",
        "seed": args.seed,
        "features": list(args.features or FEATURE_NAMES),
        "training_pairs": len(pairs),
        "training_mix": _mix(origins, labels),
        "epochs": EPOCHS,
        "best_epoch": best_epoch,
        "fit_auc_by_epoch": history,
        "temperature": round(temperature, 4),
        "entail_threshold": round(entail_t, 3),
        "contradict_threshold": round(contradict_t, 3),
        "fit_rows": int(fit_rows.sum()),
        "fit_balanced_accuracy": round(fit_ba, 4),
        "fit_entailed_precision": round(fit_precision, 4),
        "seconds_features": round(featurized - started, 1),
        "seconds_training": round(trained - featurized, 1),
    }
    if args.out is not None and columns is None:
        state = model.state_dict()
        layers = [(state[f"{i}.weight"].numpy(), state[f"{i}.bias"].numpy()) for i in (0, 3, 5)]
        report["sha256"] = save_head(
            args.out,
            mean=mean,
            std=std,
            layers=layers,
            temperature=temperature,
            entail_threshold=entail_t,
            contradict_threshold=contradict_t,
            extra={"seed": str(args.seed), "best_epoch": str(best_epoch)},
        )
        report["weights"] = str(args.out)
    return report


def _mix(origins: list[str], labels: list[int]) -> dict[str, dict[str, int]]:
    mix: dict[str, dict[str, int]] = {}
    for origin, label in zip(origins, labels, strict=True):
        group = origin.split("/")[0]
        mix.setdefault(group, {}).setdefault(CLASSES[label], 0)
        mix[group][CLASSES[label]] += 1
    return mix


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--train-dir", type=Path, default=REPO.parent / "shared" / "train")
    parser.add_argument(
        "--eval", type=Path, default=REPO.parent / "shared" / "eval" / "claims.jsonl"
    )
    parser.add_argument("--out", type=Path, default=WEIGHTS_PATH)
    parser.add_argument("--cache", type=Path, default=REPO / "var" / "nli-cache")
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument(
        "--extra-dev",
        type=Path,
        default=REPO / "var" / "planted-v1-items.jsonl",
        help="more development rows for calibration (bench/judge_planted.py --export-items)",
    )
    parser.add_argument(
        "--features",
        nargs="*",
        default=None,
        help="train on these features only (ablation; no weights written)",
    )
    args = parser.parse_args(argv)
    print(json.dumps(train(args), indent=2))


if __name__ == "__main__":
    main()
