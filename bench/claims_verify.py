"""Claim verification API benchmark: ``POST /connect/v1/claims/verify``.

    .venv/bin/python bench/claims_verify.py               # 1,000 claims / 20 sources, 30 calls
    .venv/bin/python bench/claims_verify.py --claims 300 --calls 10

Two figures, through Django's test client with an API key (full middleware, the real
database, binding, evidence search and the configured judge):

* ``batches``: a call with 1,000 claims citing 20 sources, claims WITHOUT quotes (so
  evidence search runs in the cited source). It becomes a background job; Celery runs
  eagerly here, so the call returns when the job has bound, judged and stored every
  claim: claims/s = claims / wall time of the call. Target >= 50 claims/s. Measured
  twice: ``cold`` (each source's sentence windows are embedded during the call, as on
  a source's first use in a process) and ``warm`` (1,000 new claims, same sources).
* ``inline``: ``--calls`` calls of 10 fresh claims each, answered inline; p50/p95 in ms.
  Target p95 <= 300 ms.

Sources are 20 real documents of ``../shared/train/prose.jsonl`` (the longest ones under
12k characters); claims are their sentences (the second half of the claims cut to their
first clause), so the figures do not depend on any fixture of ours. Runs on its own
database (``spanproof_bench_verify``), re-created each run. Prints one JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # this checkout's packages

from bench._common import ROOT, django_setup, percentile, print_json

BENCH_DB = "spanproof_bench_verify"

PROSE = ROOT.parent / "shared" / "train" / "prose.jsonl"
SEED = 20261125
SOURCES = 20
MAX_SOURCE_CHARS = 12_000
TARGET_CLAIMS_PER_S = 50.0
TARGET_INLINE_P95_MS = 300.0


def _documents() -> list[dict]:
    docs = [json.loads(line) for line in PROSE.read_text(encoding="utf-8").splitlines()]
    usable = [
        d
        for d in docs
        if len(" ".join(d["sentences"])) <= MAX_SOURCE_CHARS
        and sum(1 for s in d["sentences"] if len(s) > 40) >= 10
    ]
    usable.sort(key=lambda d: (-len(" ".join(d["sentences"])), d["id"]))
    return usable[:SOURCES]


def _claim_texts(doc: dict, rng: random.Random, n: int) -> list[str]:
    sentences = [s for s in doc["sentences"] if 40 < len(s) <= 400]
    out = []
    for _ in range(n):
        text = rng.choice(sentences)
        if rng.random() < 0.5 and ", " in text[20:]:
            text = text[: 20 + text[20:].index(", ")] + "."
        out.append(text)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--claims", type=int, default=1000)
    parser.add_argument("--calls", type=int, default=30)
    args = parser.parse_args()

    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    django_setup(BENCH_DB, fresh=True)
    from django.core.management import call_command
    from django.test import Client

    from config.celery import app
    from verifier.engine import get_judge
    from verifier.models import ApiKey, generate_api_key, hash_api_key
    from verifier.services.workspaces import workspace_create

    app.conf.task_always_eager = True
    app.conf.task_eager_propagates = True
    call_command("migrate", verbosity=0)
    workspace = workspace_create(slug="bench-verify", name="Claim verification benchmark")
    raw = generate_api_key()
    ApiKey.objects.create(
        workspace=workspace, name="bench", prefix=raw[:8], key_hash=hash_api_key(raw)
    )
    client = Client(headers={"Authorization": f"Bearer {raw}"})

    def post(payload: dict) -> tuple[int, dict, float]:
        began = time.perf_counter()
        response = client.post(
            "/connect/v1/claims/verify", data=json.dumps(payload), content_type="application/json"
        )
        return response.status_code, response.json(), time.perf_counter() - began

    rng = random.Random(SEED)
    docs = _documents()
    sources = [
        {
            "ref": f"source:{d['id'].replace('/', '-')}",
            "title": d.get("title") or d["id"],
            "text": " ".join(d["sentences"]),
        }
        for d in docs
    ]
    status, _, _ = post(
        {"sources": sources, "claims": [{"text": "warm-up", "source": sources[0]["ref"]}]}
    )
    assert status == 200, status

    per_source = max(1, args.claims // len(docs))

    def batch_run(label: str) -> dict:
        claims = [
            {"text": text, "source": source["ref"]}
            for doc, source in zip(docs, sources, strict=True)
            for text in _claim_texts(doc, rng, per_source)
        ][: args.claims]
        status, body, seconds = post({"claims": claims})
        job = body.get("job") or {}
        final = client.get(job["url"]).json() if job else body
        return {
            "windows": label,
            "claims": len(claims),
            "sources": len(sources),
            "http_status": status,
            "job_status": final["job"]["status"] if final.get("job") else None,
            "seconds": round(seconds, 2),
            "claims_per_s": round(len(claims) / seconds, 1),
            "target_claims_per_s": TARGET_CLAIMS_PER_S,
            "states": final["summary"]["states"],
        }

    # Cold: the sources' sentence windows are embedded during the call (first use of
    # each source in this process). Warm: a second batch of new claims, same sources.
    batches = [batch_run("cold"), batch_run("warm")]

    timings = []
    for call in range(args.calls):
        ten = [
            {"text": text, "source": sources[(call + i) % len(sources)]["ref"]}
            for i, text in enumerate(
                _claim_texts(docs[(call + i) % len(docs)], rng, 1)[0] for i in range(10)
            )
        ]
        status, body, seconds = post({"claims": ten})
        assert status == 200 and body["job"] is None, (status, body.get("error"))
        timings.append(seconds * 1000)
    judge = get_judge()
    print_json(
        {
            "bench": "claims_verify",
            "judge": judge.model_id,
            "batches": batches,
            "inline_10": {
                "calls": len(timings),
                "p50_ms": round(statistics.median(timings), 1),
                "p95_ms": round(percentile(timings, 0.95), 1),
                "max_ms": round(max(timings), 1),
                "target_p95_ms": TARGET_INLINE_P95_MS,
            },
        }
    )


if __name__ == "__main__":
    main()
