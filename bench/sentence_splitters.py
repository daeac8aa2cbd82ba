"""Where the two sentence splitters disagree, on real prose.

    .venv/bin/python bench/sentence_splitters.py [--prose ../shared/train/prose.jsonl]
                                                 [--show 10]

``verifier.text.sentences`` keeps two splitters: ``sentence_spans`` (the offsets
evidence is bound to) and ``block_sentence_spans`` (the offline extractor's, run per
paragraph). Each document of the prose file (a list of sentences) is joined with single
spaces into one paragraph and cut by both; a boundary is the offset where a trimmed
sentence ends (the end of the text not counted). Prints one JSON object: the boundaries
each splitter finds, how many only one of them finds (``differ``), and how many of the
file's own sentence joins after end punctuation each one finds (``gold_found``) and how
many it adds where the file has none (``gold_extra``). ``--show N`` also prints N
disagreements in context. No database, no model.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # this checkout's packages

from bench._common import ROOT, print_json
from verifier.text.sentences import block_sentence_spans, sentence_spans

DEFAULT_PROSE = ROOT.parent / "shared" / "train" / "prose.jsonl"
CONTEXT = 40
_TERMINATED = re.compile(r"[.!?\u2026][\"'\u201d\u2019)\]]*$")


def _ends(spans: list[tuple[int, int]], text: str) -> set[int]:
    """Trimmed sentence ends, the end of the text left out."""
    ends = set()
    for start, end in spans:
        stripped = text[start:end].rstrip()
        if stripped:
            ends.add(start + len(stripped))
    ends.discard(len(text.rstrip()))
    return ends


def _gold_ends(sentences: list[str]) -> set[int]:
    """The joins after a sentence of the file that ends in punctuation (a heading or a
    web page's label runs into the next sentence once joined: no splitter can see it)."""
    ends, offset = set(), 0
    for sentence in sentences[:-1]:
        offset += len(sentence)
        if _TERMINATED.search(sentence):
            ends.add(offset)
        offset += 1  # the joining space
    return ends


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--prose", type=Path, default=DEFAULT_PROSE)
    parser.add_argument("--show", type=int, default=0, help="print N disagreements")
    args = parser.parse_args()

    totals = {
        "spans": 0,
        "block": 0,
        "differ": 0,
        "only_spans": 0,
        "only_block": 0,
        "gold": 0,
        "spans_gold_found": 0,
        "block_gold_found": 0,
        "spans_gold_extra": 0,
        "block_gold_extra": 0,
    }
    documents = 0
    shown: list[str] = []
    for line in args.prose.read_text(encoding="utf-8").splitlines():
        sentences = [s for s in json.loads(line)["sentences"] if s.strip()]
        if not sentences:
            continue
        documents += 1
        text = " ".join(sentences)
        gold = _gold_ends(sentences)
        by_spans = _ends(sentence_spans(text), text)
        by_block = _ends(block_sentence_spans(text, 0, len(text)), text)
        totals["spans"] += len(by_spans)
        totals["block"] += len(by_block)
        totals["only_spans"] += len(by_spans - by_block)
        totals["only_block"] += len(by_block - by_spans)
        totals["differ"] += len(by_spans ^ by_block)
        totals["gold"] += len(gold)
        totals["spans_gold_found"] += len(by_spans & gold)
        totals["block_gold_found"] += len(by_block & gold)
        totals["spans_gold_extra"] += len(by_spans - gold)
        totals["block_gold_extra"] += len(by_block - gold)
        for end in sorted(by_spans ^ by_block):
            if len(shown) >= args.show:
                break
            who = "sentence_spans" if end in by_spans else "block_sentence_spans"
            around = text[max(0, end - CONTEXT) : end] + " | " + text[end : end + CONTEXT]
            shown.append(f"{who}: {' '.join(around.split())}")
    print_json({"prose": str(args.prose), "documents": documents, **totals})
    for row in shown:
        print(row)


if __name__ == "__main__":
    main()
