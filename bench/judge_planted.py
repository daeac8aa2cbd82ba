"""A judge on the planted-ground-truth fixture, without the database.

    .venv/bin/python bench/judge_planted.py [--fixture bench/fixtures/planted-v1.json]
                                             [--show all|wrong] [--judge nli|heuristic]

A fast, DB-free replica of ``verifier/services/validator_benchmark.py`` for tuning the
judge: evidence search inside the cited source (``rank_windows``, the same window limit
and runner-up score floor as ``claim_bind`` / ``claims_judge``), the judge, and the
state rule (``supported`` = ``entailed`` at confidence >= the policy floor; an exact
evidence-search binding is always fresh). Prints the benchmark metrics as JSON. The
authoritative numbers come from ``manage.py verifier_efficacy`` (real chain, real
database); this script must agree with it and exists only to iterate quickly.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # this checkout's packages

from bench._common import ROOT, django_setup, print_json
from verifier.judges import MAX_SPANS_PER_ITEM, JudgeItem, build_judge, judge_items
from verifier.judges.base import item_context
from verifier.judges.registry import DEFAULT_BACKEND
from verifier.states import StatePolicy
from verifier.text.sentences import sentence_around, sentence_before

django_setup()  # the modules below read the models

from verifier.selectors.judge_items import (  # noqa: E402
    CONTEXT_LOOKBACK_CHARS,
    JUDGE_CANDIDATE_MIN_SCORE,
    SENTENCE_REACH_CHARS,
)
from verifier.services.binding import EVIDENCE_CANDIDATES_KEPT  # noqa: E402
from verifier.services.evidence_search import rank_windows  # noqa: E402
from verifier.services.validator_benchmark import benchmark_metrics, fixture_load  # noqa: E402

DEFAULT_FIXTURE = ROOT / "bench" / "fixtures" / "planted-v1.json"


def spans_for(text: str, claim: str, title: str = "") -> tuple[tuple[str, ...], str]:
    """(spans, context) as the judging service builds them."""
    sha = hashlib.sha256(text.encode("utf-8")).hexdigest()
    found = rank_windows(
        text=text, sha256=sha, claim_text=claim, limit=EVIDENCE_CANDIDATES_KEPT + 1
    )
    if not found:
        return (), ""
    start, end = sentence_around(
        text, found[0].start, found[0].end, reach=SENTENCE_REACH_CHARS
    )  # the bound span is read within its whole sentences
    previous = sentence_before(text, start, lookback=CONTEXT_LOOKBACK_CHARS)
    context = item_context(title=title, previous=previous)
    spans = [text[start:end]]
    for cand in found[1:]:
        if len(spans) >= MAX_SPANS_PER_ITEM:
            break
        if (
            cand.score >= JUDGE_CANDIDATE_MIN_SCORE
            and cand.quote != found[0].quote
            and cand.quote not in spans
        ):
            spans.append(cand.quote)
    return tuple(spans), context


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fixture", type=Path, default=DEFAULT_FIXTURE)
    parser.add_argument("--show", choices=["none", "wrong", "all"], default="wrong")
    parser.add_argument(
        "--judge", default=DEFAULT_BACKEND, help="judge backend (default: the default judge)"
    )
    parser.add_argument(
        "--export-items",
        type=Path,
        help="write the judge items with their gold labels as JSONL (the trainer's "
        "--extra-dev input) and stop",
    )
    args = parser.parse_args()

    fixture = fixture_load(args.fixture)
    sources = {s["id"]: s for s in fixture["sources"]}
    specs = fixture["claims"]
    items = []
    for spec in specs:
        source = sources[spec["source_id"]]
        spans, context = spans_for(source["text"], spec["text"], source.get("title") or "")
        items.append(JudgeItem(key=spec["id"], claim=spec["text"], spans=spans, context=context))
    if args.export_items:
        with args.export_items.open("w", encoding="utf-8") as fh:
            for spec, item in zip(specs, items, strict=True):
                row = {"id": item.key, "claim": item.claim, "spans": list(item.spans)}
                supported = spec["label"] == "supported" and not spec.get("beyond_window")
                row |= {"context": item.context, "supported": supported}
                fh.write(json.dumps(row) + "\n")
        return
    judged = [item for item in items if item.spans]
    judge = build_judge({"backend": args.judge})
    results = {r.key: r for r in judge_items(judge, judged)}
    floor = StatePolicy().confidence_floor
    rows = []
    for spec, item in zip(specs, items, strict=True):
        res = results.get(item.key)
        if res is None:
            state, reason = "unverified", "no_evidence"
        elif res.label == "entailed" and res.confidence >= floor:
            state, reason = "supported", "entailed"
        elif res.label == "contradicted" and res.confidence >= floor:
            state, reason = "contradicted", "contradicted"
        else:
            state, reason = "unverified", res.label
        rows.append(
            {
                "id": spec["id"],
                "label": spec["label"],
                "tier": spec.get("tier"),
                "beyond_window": bool(spec.get("beyond_window", False)),
                "state": state,
                "reason": reason,
                "bound": bool(item.spans),
                "bind_reason": None if item.spans else "no_evidence",
                "claim": spec["text"],
                "spans": item.spans,
                "verdict": res.label if res else None,
                "confidence": res.confidence if res else None,
                "note": res.note if res else "",
            }
        )
    metrics = benchmark_metrics(rows)
    summary = {
        "fixture": str(args.fixture),
        "judge": judge.model_id,
        "recall_strict": {t: v["recall_strict"] for t, v in metrics["recall"].items()},
        "missed": {t: v["missed"] for t, v in metrics["recall"].items() if v["missed"]},
        "false_flag_rate": metrics["false_flag_rate"],
        "false_flagged": metrics["false_flagged"],
        "affirm_unseen_rate": metrics["affirm_unseen_rate"],
        "affirmed_unseen": metrics["affirmed_unseen"],
        "states": metrics["states"],
    }
    print_json(summary)
    if args.show == "none":
        return
    for row in rows:
        expected = row["label"] == "supported" and not row["beyond_window"]
        wrong = expected != (row["state"] == "supported")
        if args.show == "all" or wrong:
            print(f"\n{row['id']} [{row['label']} {row['tier'] or ''}] -> {row['state']}")
            print(f"  claim: {row['claim']}")
            for i, span in enumerate(row["spans"], start=1):
                print(f"  span {i}: {span}")
            print(f"  {row['verdict']} {row['confidence']}: {row['note']}")


if __name__ == "__main__":
    main()
