"""The cross-encoder's training pairs and development rows, labels known.

Training pairs (premise, claim, label, weight, origin):

* every pair of ``nli_pairs.jsonl`` (``../shared/train``): the fact-checking parts
  (Check-COVID, FEVER-symmetric, WiCE-train) weighted up, the SNLI parts (e-SNLI,
  CAD-SNLI, whose entailment pairs are real paraphrases) at weight 1;
* any further files of the same format (``--extra``: openly licensed pairs from public
  repositories, each source recorded in the model card);
* pairs generated from the real prose of ``prose.jsonl``: the first generator's
  transformations (``synthetic``) with near-copies weighted down, the paraphrase
  rewrites (``paraphrase``), the pronoun and name-from-title pairs that need the context.

A pair whose claim is one of the development claims is dropped (the evaluation data is
for thresholds and measurement only). Premises are framed as the judge frames them
(``cross_encoder.encoding.premise_text``: context, then span).

Development rows: the eval claims (``devdata``; the ``fit`` part picks the checkpoint,
``heldout`` is reported only) plus the items of our own planted fixture, each with the
premise of every candidate the judge would read.

Pure Python, deterministic per seed, no Django imports.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from verifier.judges.candidates import candidate_texts, fold
from verifier.judges.cross_encoder.encoding import premise_text
from verifier.judges.nli.devdata import EvalRow
from verifier.judges.nli.paraphrase import (
    ALL_TRANSFORMATIONS,
    SINGLE_SENTENCE_KINDS,
    description_pairs,
)
from verifier.judges.nli.synthetic import Document, Pair, generate_pairs, reference_pairs
from verifier.judges.nli.train_cross import WRITTEN_DATASET, read_jsonl

LABELS = ("entailment", "neutral", "contradiction")
DATASET_WEIGHTS = {
    "check-covid": 3.0,
    "fever-symmetric": 2.0,
    "wice-train": 3.0,
    "esnli": 1.0,
    "cad-snli": 1.0,
}
EXTRA_WEIGHT = 1.5  # openly licensed pairs fetched for this model (real claims and evidence)
# fetched sets that teach less per pair: ContractNLI has 17 statements only; MED and
# SciTail have two labels (their "neutral" holds every non-entailment). Pairs written for
# this model (sources/SOURCES.md) are weighted up: the only entailed pairs that are real
# paraphrases of real prose, the judge's weak point.
EXTRA_DATASET_WEIGHTS = {
    "contract-nli": 1.0,
    "med": 1.0,
    "scitail": 1.0,
    WRITTEN_DATASET: 3.0,
}
SYNTHETIC_PER_SENTENCE = 2
SYNTHETIC_WEIGHT = 1.0
CONTEXT_PAIR_WEIGHT = 2.0  # few pairs, and the only ones that teach reading the context
MAX_PREMISE_CHARS = 4000


@dataclass(frozen=True)
class TrainingPair:
    premise: str
    claim: str
    label: str
    weight: float
    origin: str

    def as_json(self) -> dict[str, Any]:
        return {
            "premise": self.premise,
            "claim": self.claim,
            "label": self.label,
            "weight": self.weight,
            "origin": self.origin,
        }


def read_documents(path: Path) -> list[Document]:
    return [
        Document(row["id"], tuple(row["sentences"]), row.get("title") or "")
        for row in read_jsonl(path)
    ]


def _from_rows(
    rows: Iterable[dict[str, Any]], weights: dict[str, float], default: float
) -> Iterator[TrainingPair]:
    for row in rows:
        label = row["label"]
        if label not in LABELS or len(row["premise"]) > MAX_PREMISE_CHARS:
            continue
        dataset = row["dataset"]
        yield TrainingPair(
            row["premise"], row["hypothesis"], label, weights.get(dataset, default), dataset
        )


def _from_generated(pairs: Iterable[Pair], weight: float) -> Iterator[TrainingPair]:
    for pair in pairs:
        yield TrainingPair(
            premise_text(pair.span, pair.context),
            pair.claim,
            pair.label,
            weight,
            f"synthetic/{pair.kind}",
        )


def training_pairs(
    train_dir: Path,
    *,
    seed: int,
    extra: Iterable[Path] = (),
    exclude_claims: Iterable[str] = (),
) -> tuple[list[TrainingPair], dict[str, Any]]:
    """All training pairs, and a summary (counts by origin and label, pairs dropped)."""
    documents = read_documents(train_dir / "prose.jsonl")
    sources: list[Iterable[TrainingPair]] = [
        _from_rows(read_jsonl(train_dir / "nli_pairs.jsonl"), DATASET_WEIGHTS, 1.0)
    ]
    for path in extra:
        sources.append(_from_rows(read_jsonl(path), EXTRA_DATASET_WEIGHTS, EXTRA_WEIGHT))
    sources.append(
        _from_generated(
            generate_pairs(
                documents,
                seed=seed,
                per_sentence=SYNTHETIC_PER_SENTENCE,
                transformations=ALL_TRANSFORMATIONS,
                single_sentence_kinds=SINGLE_SENTENCE_KINDS,
            ),
            SYNTHETIC_WEIGHT,
        )
    )
    sources.append(_from_generated(reference_pairs(documents, seed=seed), CONTEXT_PAIR_WEIGHT))
    sources.append(_from_generated(description_pairs(documents, seed=seed), CONTEXT_PAIR_WEIGHT))
    excluded = {fold(c) for c in exclude_claims}
    pairs: list[TrainingPair] = []
    dropped = 0
    for source in sources:
        for pair in source:
            if fold(pair.claim) in excluded:
                dropped += 1
                continue
            pairs.append(pair)
    return pairs, summarize(pairs) | {"dropped_as_development_claims": dropped}


def summarize(pairs: Iterable[TrainingPair]) -> dict[str, Any]:
    by_origin: dict[str, Counter[str]] = {}
    total = 0
    for pair in pairs:
        group = (
            pair.origin.split("/")[0] if not pair.origin.startswith("synthetic/") else pair.origin
        )
        by_origin.setdefault(group, Counter())[pair.label] += 1
        total += 1
    return {
        "pairs": total,
        "by_origin": {k: dict(sorted(v.items())) for k, v in sorted(by_origin.items())},
    }


def dev_row(row: EvalRow) -> dict[str, Any]:
    """A development row as the trainer reads it: the premise of every candidate."""
    return {
        "id": row.item.key,
        "dataset": row.dataset,
        "split": row.split,
        "gold": row.gold,
        "claim": row.item.claim,
        "premises": [premise_text(span, row.item.context) for _, span in candidate_texts(row.item)],
    }
