"""RAG answer audit benchmark: span-level precision and recall of ``unsupported``.

    .venv/bin/python -m bench.rag_audit
    .venv/bin/python -m bench.rag_audit --cases tests/verifier/rag/cases.json \
        --data ../shared/eval/rag_audit.jsonl

Two datasets: the hand-written cases (gold = the spans of claims expected not to be
``supported``) and the externally labelled eval file (gold = WiCE's non-supported token
spans; every answer there is partially supported). A predicted span is a claim the audit
did not mark ``supported`` (its ``[start, end)`` in the answer).

* span-level: precision = predicted spans overlapping a gold span / predicted spans;
  recall = gold spans overlapped by a predicted span / gold spans.
* char-level (stricter): overlap characters / predicted characters, and / gold characters
  (a whole flagged sentence around a one-word gold span costs precision here).
* answer-level: share of answers whose verdict matches (cases) or is not ``faithful``
  (eval, where every answer has an unsupported span).

Prints one JSON object with a report per judge (``--judges``, default the default judge
``heuristic+nli-v2``, the ``heuristic`` alone and the trained ``nli``), each with the real
MiniLM model.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # this checkout's packages

from bench._common import ROOT, print_json
from verifier.judges import build_judge
from verifier.rag import audit_answer, parse_chunks

DEFAULT_CASES = ROOT / "tests" / "verifier" / "rag" / "cases.json"
DEFAULT_DATA = ROOT.parent / "shared" / "eval" / "rag_audit.jsonl"

Span = tuple[int, int]


def _overlaps(a: Span, b: Span) -> bool:
    return a[0] < b[1] and b[0] < a[1]


def _chars(spans: list[Span]) -> set[int]:
    return {i for s, e in spans for i in range(s, e)}


class Tally:
    def __init__(self) -> None:
        self.pred = self.pred_hit = self.gold = self.gold_hit = 0
        self.pred_chars = self.gold_chars = self.both_chars = 0
        self.answers = self.answers_ok = 0
        # answer level, faithful vs not: gold faithful/unfaithful answers called right
        self.faithful = self.faithful_ok = self.unfaithful = self.unfaithful_ok = 0
        self.seconds = 0.0
        self.empty_chunks = 0

    def add(self, pred: list[Span], gold: list[Span], answer_ok: bool) -> None:
        self.pred += len(pred)
        self.pred_hit += sum(any(_overlaps(p, g) for g in gold) for p in pred)
        self.gold += len(gold)
        self.gold_hit += sum(any(_overlaps(g, p) for p in pred) for g in gold)
        pc, gc = _chars(pred), _chars(gold)
        self.pred_chars += len(pc)
        self.gold_chars += len(gc)
        self.both_chars += len(pc & gc)
        self.answers += 1
        self.answers_ok += answer_ok

    def add_answer(self, *, gold_faithful: bool, called_faithful: bool) -> None:
        if gold_faithful:
            self.faithful += 1
            self.faithful_ok += called_faithful
        else:
            self.unfaithful += 1
            self.unfaithful_ok += not called_faithful

    def report(self) -> dict[str, object]:
        def ratio(a: int, b: int) -> float | None:
            return round(a / b, 4) if b else None

        p, r = ratio(self.pred_hit, self.pred), ratio(self.gold_hit, self.gold)
        f1 = round(2 * p * r / (p + r), 4) if p and r else None
        return {
            "answers": self.answers,
            "predicted_spans": self.pred,
            "gold_spans": self.gold,
            "span_precision": p,
            "span_recall": r,
            "span_f1": f1,
            "char_precision": ratio(self.both_chars, self.pred_chars),
            "char_recall": ratio(self.both_chars, self.gold_chars),
            "answer_level_accuracy": ratio(self.answers_ok, self.answers),
            "answer_level_faithful_recall": ratio(self.faithful_ok, self.faithful),
            "answer_level_unfaithful_recall": ratio(self.unfaithful_ok, self.unfaithful),
            "answer_level_balanced_accuracy": (
                round(
                    (self.faithful_ok / self.faithful + self.unfaithful_ok / self.unfaithful) / 2, 4
                )
                if self.faithful and self.unfaithful
                else None
            ),
            "empty_chunks_skipped": self.empty_chunks,
            "seconds_per_answer": round(self.seconds / self.answers, 3) if self.answers else None,
        }


def _predicted(result) -> list[Span]:
    return [(c.claim.start, c.claim.end) for c in result.claims if c.verdict != "supported"]


def run_cases(path: Path, judge) -> dict[str, object]:
    tally = Tally()
    for case in json.loads(path.read_text(encoding="utf-8")):
        answer = case["answer"]
        gold, pos = [], 0
        for claim in case["expected"]["claims"]:
            start = answer.find(claim["span"], pos)
            pos = start + len(claim["span"])
            if claim["verdict"] != "supported":
                gold.append((start, pos))
        began = time.perf_counter()
        result = audit_answer(answer, parse_chunks(case["chunks"]), judge=judge)
        tally.seconds += time.perf_counter() - began
        tally.add(_predicted(result), gold, result.verdict == case["expected"]["verdict"])
        tally.add_answer(
            gold_faithful=case["expected"]["verdict"] == "faithful",
            called_faithful=result.verdict == "faithful",
        )
    return tally.report()


def run_eval(path: Path, judge) -> dict[str, object]:
    tally = Tally()
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        row = json.loads(line)
        gold = [
            (lab["start"], lab["end"]) for lab in row["labels"] if lab["label"] == "unsupported"
        ]
        # The API rejects empty chunks; WiCE has some (blank source lines): leave them out.
        chunks = [c for c in row["chunks"] if c["text"].strip()]
        tally.empty_chunks += len(row["chunks"]) - len(chunks)
        began = time.perf_counter()
        result = audit_answer(row["answer"], parse_chunks(chunks), judge=judge)
        tally.seconds += time.perf_counter() - began
        tally.add(_predicted(result), gold, result.verdict != "faithful")
        tally.add_answer(gold_faithful=False, called_faithful=result.verdict == "faithful")
    return tally.report()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cases", type=Path, default=DEFAULT_CASES)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--judges", nargs="+", default=["heuristic+nli-v2", "heuristic", "nli"])
    args = parser.parse_args(argv)
    reports: dict[str, object] = {}
    for backend in args.judges:
        judge = build_judge({"backend": backend})
        audit_answer("Warm-up.", parse_chunks([{"id": "w", "text": "Warm-up."}]), judge=judge)
        out: dict[str, object] = {"cases": run_cases(args.cases, judge)}
        if args.data.exists():
            out["eval"] = {"path": str(args.data), **run_eval(args.data, judge)}
        else:
            out["eval"] = {"path": str(args.data), "error": "not found"}
        reports[judge.model_id] = out
    print_json(reports)


if __name__ == "__main__":
    main()
