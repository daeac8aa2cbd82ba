"""The development evaluation claims (``../shared/eval/claims.jsonl``) as judge items.

Used by the trainer (threshold fitting, calibration and early stopping on the ``fit``
part only) and by ``bench/judge.py`` (measurement on the ``heldout`` part). The split is
deterministic: SHA-256 of the claim group id, so a claim's variants never straddle the
two parts. Never a source of gradient steps or generated pairs.

Evidence per row is the gold rationale spans (grouped into at most three spans); rows
without rationale get the three source sentences with the most claim words, which is
what an evidence search inside the cited source would bind. The context is the source
title and the sentence before the first span, as the judging service gives it.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from verifier.judges.base import MAX_SPANS_PER_ITEM, JudgeItem, item_context
from verifier.text.words import WORD_RUN

HELDOUT_SHARE_PERCENT = 30


@dataclass(frozen=True)
class EvalRow:
    item: JudgeItem
    gold: str  # SUPPORT | NOINFO | CONTRADICT
    dataset: str
    split: str  # fit | heldout


def split_of(group: str) -> str:
    bucket = int(hashlib.sha256(group.encode("utf-8")).hexdigest()[:8], 16) % 100
    return "heldout" if bucket < HELDOUT_SHARE_PERCENT else "fit"


def _group_spans(texts: list[str]) -> tuple[str, ...]:
    if len(texts) <= MAX_SPANS_PER_ITEM:
        return tuple(texts)
    size = -(-len(texts) // MAX_SPANS_PER_ITEM)
    return tuple(" ".join(texts[i : i + size]) for i in range(0, len(texts), size))


def _overlap(claim: str, sentence: str) -> float:
    words = {w.lower() for w in WORD_RUN.findall(claim) if len(w) > 3}
    if not words:
        return 0.0
    return len(words & {w.lower() for w in WORD_RUN.findall(sentence)}) / len(words)


def _evidence(row: dict[str, Any]) -> tuple[tuple[str, ...], int]:
    """(spans, start offset of the first one)."""
    text = row["source_text"]
    if row["rationale_spans"]:
        spans = sorted(row["rationale_spans"])
        return _group_spans([text[s:e] for s, e in spans]), spans[0][0]
    sentences = [(s, e) for s, e in row["source_sentence_offsets"] if text[s:e].strip()]
    ranked = sorted(
        range(len(sentences)),
        key=lambda i: (-_overlap(row["claim"], text[slice(*sentences[i])]), i),
    )
    chosen = [sentences[i] for i in sorted(ranked[:MAX_SPANS_PER_ITEM])]
    return tuple(text[s:e] for s, e in chosen), chosen[0][0] if chosen else 0


def _context(row: dict[str, Any], start: int) -> str:
    text = row["source_text"]
    before = [(s, e) for s, e in row["source_sentence_offsets"] if e <= start]
    previous = text[slice(*before[-1])].strip() if before else ""
    return item_context(title=row.get("source_title") or "", previous=previous)


def load_eval_rows(path: Path) -> list[EvalRow]:
    rows = []
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            row = json.loads(line)
            spans, start = _evidence(row)
            item = JudgeItem(
                key=row["id"], claim=row["claim"], spans=spans, context=_context(row, start)
            )
            rows.append(EvalRow(item, row["label"], row["dataset"], split_of(row["group"])))
    return rows


def extra_dev_rows(path: Path | None) -> list[EvalRow]:
    """Judge items exported by ``bench/judge_planted.py --export-items`` (our own planted
    fixture), as development rows of the ``fit`` part: SUPPORT when the planted label is
    ``supported``, else NOINFO."""
    if path is None:
        return []
    rows = []
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            row = json.loads(line)
            if not row["spans"]:
                continue
            item = JudgeItem(row["id"], row["claim"], tuple(row["spans"]), row["context"])
            gold = "SUPPORT" if row["supported"] else "NOINFO"
            rows.append(EvalRow(item, gold, f"planted:{path.stem}", "fit"))
    return rows
