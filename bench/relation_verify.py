"""SR-MKG relation scorer benchmark (seed 004) on public knowledge graphs.

    .venv/bin/python -m bench.relation_verify [--data ../shared/eval/kg] [--seed 4]

For each graph under ``--data`` (UMLS, Nations, Kinship, FB15k-237 top 500): the
topology is ``train.tsv`` (undirected, relation types ignored for neighbourhoods); the
scored rows are ``test_labeled_dev.tsv`` (each true test triple with one random and one
same-relation ("typed") corrupted triple; label 1 = in the graph's held-out triples).

* Heuristic: the seed's default weights. KG triples carry no extractor confidence, so
  ``base_confidence`` is a constant 0.5 and every relation type is named (type boost 1):
  the ranking comes from the common-neighbour Jaccard and the isolation penalty.
* Calibrated: ``verifier.relations.calibration.calibrate`` with the seed's defaults
  (L2 1.0, lr 0.1, 500 epochs) fitted on the rows of a seeded half of the positive
  groups (a true triple and its two corruptions stay together), and scored on the
  other half only. The heuristic's AUC is reported on that same held-out half (and,
  for reference, on all rows: it fits nothing).

No VoG: the graphs carry no source text, so a borderline relation would be rejected
``vog_no_evidence``; the decision counts with the default thresholds are printed.
Prints one JSON object.
"""

from __future__ import annotations

import argparse
import csv
import random
import sys
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # this checkout's packages

from bench._common import print_json
from verifier.relations import calibration, srmkg
from verifier.relations.srmkg import Calibration, VerificationSettings

BASE_CONFIDENCE = 0.5


def read_tsv(path: Path) -> list[list[str]]:
    with path.open(encoding="utf-8") as handle:
        return [row for row in csv.reader(handle, delimiter="\t") if row]


def neighbours_of(triples: list[list[str]]) -> dict[str, set[str]]:
    out: dict[str, set[str]] = defaultdict(set)
    for head, _rel, tail in (t[:3] for t in triples):
        if head != tail:
            out[head].add(tail)
            out[tail].add(head)
    return out


def evaluate(graph_dir: Path, seed: int) -> dict[str, object]:
    graph = neighbours_of(read_tsv(graph_dir / "train.tsv"))
    rows = read_tsv(graph_dir / "test_labeled_dev.tsv")
    header, body = rows[0], rows[1:]
    col = {name: i for i, name in enumerate(header)}
    settings = VerificationSettings()
    empty: set[str] = set()
    items = []
    started = time.perf_counter()
    for r in body:
        head, rel, tail = r[col["head"]], r[col["relation"]], r[col["tail"]]
        parts = srmkg.components(
            base_confidence=BASE_CONFIDENCE,
            relation_type=rel,
            neighbours_a=graph.get(head, empty) - {tail},
            neighbours_b=graph.get(tail, empty) - {head},
        )
        items.append(
            {
                "group": r[col["pos_index"]],
                "kind": r[col["kind"]],
                "label": int(r[col["label"]]),
                "parts": parts,
                "heuristic": srmkg.score(parts, settings),
            }
        )
    scoring_ms = (time.perf_counter() - started) * 1000 / max(1, len(items))

    groups = sorted({i["group"] for i in items})
    random.Random(seed).shuffle(groups)
    fit_groups = set(groups[: len(groups) // 2])
    fit = [i for i in items if i["group"] in fit_groups]
    held = [i for i in items if i["group"] not in fit_groups]
    result = calibration.calibrate(
        [i["parts"].vector() for i in fit],
        [i["label"] for i in fit],
        min_samples=2,
        test_fraction=0.0,
    )
    learned = Calibration(weights=result.weights, bias=result.bias)
    for i in items:
        i["calibrated"] = learned.score(i["parts"])

    def auc(rows: list[dict], key: str) -> float | None:
        value = calibration.roc_auc([r[key] for r in rows], [r["label"] for r in rows])
        return round(value, 4) if value is not None else None

    def by_negative(rows: list[dict], key: str) -> dict[str, float | None]:
        kinds = sorted({r["kind"] for r in rows if r["label"] == 0})
        return {k: auc([r for r in rows if r["label"] == 1 or r["kind"] == k], key) for k in kinds}

    decisions: dict[str, int] = defaultdict(int)
    for i in items:
        decisions[srmkg.decide(i["heuristic"], settings)] += 1
    return {
        "rows": len(items),
        "positives": sum(i["label"] for i in items),
        "graph_entities": len(graph),
        "isolated_rows": sum(i["parts"].isolated == 1.0 for i in items),
        "fit_rows": len(fit),
        "held_out_rows": len(held),
        "heuristic_auc_all_rows": auc(items, "heuristic"),
        "heuristic_auc_held_out": auc(held, "heuristic"),
        "calibrated_auc_held_out": auc(held, "calibrated"),
        "heuristic_auc_held_out_by_negative": by_negative(held, "heuristic"),
        "calibrated_auc_held_out_by_negative": by_negative(held, "calibrated"),
        "calibration": {"weights": result.weights, "bias": result.bias},
        "default_decisions_all_rows": dict(decisions),
        "scoring_ms_per_relation": round(scoring_ms, 4),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default="../shared/eval/kg")
    parser.add_argument("--seed", type=int, default=4)
    args = parser.parse_args(argv)
    root = Path(args.data)
    graphs = sorted(p for p in root.iterdir() if (p / "test_labeled_dev.tsv").exists())
    if not graphs:
        print(f"no graphs with test_labeled_dev.tsv under {root}", file=sys.stderr)
        return 2
    out = {
        "bench": "relation_verify",
        "seed": args.seed,
        "base_confidence": BASE_CONFIDENCE,
        "split": "seeded half of the positive groups fits the calibration; AUC on the other half",
        "calibration_params": {"l2": 1.0, "lr": 0.1, "epochs": 500},
        "graphs": {p.name: evaluate(p, args.seed) for p in graphs},
    }
    print_json(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
