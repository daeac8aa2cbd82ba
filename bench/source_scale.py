"""Source scale: the auditor's pages of the largest source the API takes (5,000,000
characters) with 20,000 bound spans, 2,000 more stacked on one sentence, three later
versions to diff, and the workspace's claims exported.

    .venv/bin/python bench/source_scale.py            # seed once, then measure
    .venv/bin/python bench/source_scale.py --fresh    # rebuild the bench workspace
    .venv/bin/python bench/source_scale.py --label after --rounds 3

Runs on its own database (``spanproof_bench_source_scale`` in the embedded cluster unless
``DATABASE_URL`` says otherwise), migrated first. Requests go through Django's test client
(full middleware, session, templates) as an auditor. The versions: v1 is one line of
sentences (no line break), v2 is v1 with one word added in the middle of that line, v3
is v2 with a line break after every sentence, v4 is v3 with one line added.

Prints one JSON object. ``pages``: per page the median and largest server time (ms) over
``--rounds`` requests and the HTML size (bytes); the target is ``TARGET_MS`` and
``TARGET_BYTES`` each (a page of several megabytes takes a browser seconds to lay out:
the v1→v2 diff was 10 MB and 26 s in Chromium before diffs were cut to their changes and
paged). ``exports``: the claims CSV and JSONL of the whole workspace, read as a client
reads a stream: the time to the first chunk and to the end, the bytes, and how far the
bench process's resident memory rose meanwhile (``rss_rise_mb``, sampled every 10 ms;
a streamed export stays near its chunk's worth, a built one grows with the export).
"""

from __future__ import annotations

import os
import random
import statistics
import sys
import threading
import time
from pathlib import Path
from typing import Any, Final

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # this checkout's packages

from bench._common import page_bench_arguments, page_bench_database, print_json, record_sentences

BENCH_DB: Final = "spanproof_bench_source_scale"
WORKSPACE_SLUG: Final = "bench-source-scale"
SEED: Final = 20261129
SENTENCES: Final = 20_000
SENTENCE_CHARS: Final = 249  # with its space: 5,000,000 characters in all
STACKED: Final = 2_000
TARGET_MS: Final = 2_000.0
TARGET_BYTES: Final = 300_000
STATE_MIX: Final = (
    ("supported", "entailed", "entailed", 0.92, 0.6),
    ("unverified", "abstained", "abstained", 0.0, 0.2),
    ("contradicted", "contradicted", "contradicted", 0.9, 0.15),
    ("excluded", "excluded", "entailed", 0.9, 0.05),
)


def _sentences(rng: random.Random) -> list[str]:
    return record_sentences(rng, SENTENCES, SENTENCE_CHARS)


def _seed(fresh: bool) -> dict[str, Any]:
    from django.contrib.auth import get_user_model
    from django.db import connection, transaction

    from verifier.models import (
        Claim,
        EvidenceBinding,
        Membership,
        Source,
        SourceVersion,
        Verdict,
        Workspace,
        text_sha256,
    )
    from verifier.state_policy import queue_rank

    workspace = Workspace.objects.filter(slug=WORKSPACE_SLUG).first()
    if workspace is not None and not fresh:
        return {"reused": True}
    with connection.cursor() as cursor:  # append-only triggers forbid DELETE: truncate
        cursor.execute(
            "TRUNCATE verifier_verdict, verifier_stateevent, verifier_evidencebinding, "
            "verifier_claim, verifier_sourceversion, verifier_source, verifier_membership, "
            "verifier_workspace CASCADE"
        )
    rng = random.Random(SEED)
    sentences = _sentences(rng)
    text = " ".join(sentences)
    middle = len(text) // 2
    middle = text.index(" ", middle) + 1  # the start of a word
    v2 = text[:middle] + "added " + text[middle:]
    v3 = v2.replace(". Record ", ".\nRecord ")
    line_end = v3.index("\n", len(v3) * 3 // 4) + 1
    v4 = v3[:line_end] + "A new line.\n" + v3[line_end:]
    user_model = get_user_model()
    with transaction.atomic():
        workspace = Workspace.objects.create(slug=WORKSPACE_SLUG, name="Bench source scale")
        user = user_model.objects.filter(username="bench-ada").first()
        user = user or user_model.objects.create_user("bench-ada")
        Membership.objects.create(workspace=workspace, user=user, role="auditor")
        source = Source.objects.create(
            workspace=workspace, ref="source:five_million", title="Five million characters"
        )
        version = SourceVersion.objects.create(
            source=source, number=1, text=text, sha256=text_sha256(text)
        )
        starts, at = [], 0
        for sentence in sentences:
            starts.append(at)
            at += len(sentence) + 1
        pairs = [(i, i) for i in range(SENTENCES)] + [
            (SENTENCES + j, SENTENCES // 2) for j in range(STACKED)
        ]
        weights = [row[-1] for row in STATE_MIX]
        mix = [rng.choices(STATE_MIX, weights=weights)[0] for _ in pairs]
        claims = Claim.objects.bulk_create(
            [
                Claim(
                    workspace=workspace,
                    source=source,
                    text=f"Claim {n}: {sentences[k]}",
                    original_text=sentences[k],
                    state=state,
                    state_reason=reason,
                    queue_rank=queue_rank(reason),
                    exclusion_reason="bench exclusion" if state == "excluded" else "",
                    origin="extracted",
                )
                for (n, k), (state, reason, *_rest) in zip(pairs, mix, strict=True)
            ],
            batch_size=2_000,
        )
        bindings = EvidenceBinding.objects.bulk_create(
            [
                EvidenceBinding(
                    claim=claim,
                    source_version=version,
                    quote=sentences[k],
                    start=starts[k],
                    end=starts[k] + len(sentences[k]),
                    source_hash=version.sha256,
                    match="exact",
                    bound_by="quote",
                )
                for claim, (_n, k) in zip(claims, pairs, strict=True)
            ],
            batch_size=2_000,
        )
        Verdict.objects.bulk_create(
            [
                Verdict(
                    claim=claim,
                    binding=binding,
                    label=label,
                    confidence=confidence,
                    judge_model="bench-judge",
                    judge_family="heuristic",
                    prompt_version=1,
                )
                for claim, binding, (_s, _r, label, confidence, _w) in zip(
                    claims, bindings, mix, strict=True
                )
            ],
            batch_size=2_000,
        )
        for number, later in ((2, v2), (3, v3), (4, v4)):
            SourceVersion.objects.create(
                source=source, number=number, text=later, sha256=text_sha256(later)
            )
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    return {"reused": False}


def _rss_mb() -> float:
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def _measure(client: Any, url: str, rounds: int) -> dict[str, Any]:
    client.get(url)  # warm-up
    times, size = [], 0
    for _ in range(rounds):
        started = time.perf_counter()
        response = client.get(url)
        times.append((time.perf_counter() - started) * 1000)
        assert response.status_code == 200, (url, response.status_code)
        size = len(response.content)
    p50 = statistics.median(times)
    return {
        "url": url,
        "server_ms_p50": round(p50, 1),
        "server_ms_max": round(max(times), 1),
        "html_bytes": size,
        "meets_target": p50 <= TARGET_MS and size <= TARGET_BYTES,
    }


def _stream(client: Any, url: str) -> dict[str, Any]:
    before = _rss_mb()
    peak = [before]
    done = threading.Event()

    def sample() -> None:
        while not done.is_set():
            peak[0] = max(peak[0], _rss_mb())
            time.sleep(0.01)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    started = time.perf_counter()
    response = client.get(url)
    first, size = None, 0
    for chunk in response.streaming_content:
        if first is None:
            first = time.perf_counter() - started
        size += len(chunk)
    total = time.perf_counter() - started
    done.set()
    sampler.join()
    return {
        "url": url,
        "status": response.status_code,
        "first_chunk_ms": round((first or total) * 1000, 1),
        "total_ms": round(total * 1000, 1),
        "bytes": size,
        "rss_rise_mb": round(peak[0] - before, 1),
    }


def main() -> None:
    args = page_bench_arguments(__doc__.splitlines()[0], rounds=3)
    data = page_bench_database(BENCH_DB, _seed, fresh=args.fresh)
    from django.contrib.auth import get_user_model
    from django.test import Client

    from verifier.models import Claim, EvidenceBinding, Source

    source = Source.objects.get(workspace__slug=WORKSPACE_SLUG)
    stacked = (
        EvidenceBinding.objects.filter(source_version__source=source).order_by("-claim_id").first()
    )
    assert stacked is not None
    auditor = Client()
    auditor.force_login(get_user_model().objects.get(username="bench-ada"))
    base = f"/audit/sources/{source.pk}"
    pages = {
        "source_page_v1": _measure(auditor, f"{base}/?v=1", args.rounds),
        "source_page_stacked_span": _measure(
            auditor, f"{base}/?v=1&span={stacked.start}-{stacked.end}", args.rounds
        ),
        "source_page_later_text": _measure(auditor, f"{base}/?v=1&at=4000000", args.rounds),
        "diff_one_word_in_one_line_v1_v2": _measure(
            auditor, f"{base}/diff/?from=1&to=2", args.rounds
        ),
        "diff_every_line_end_v2_v3": _measure(auditor, f"{base}/diff/?from=2&to=3", args.rounds),
        "diff_one_line_added_v3_v4": _measure(auditor, f"{base}/diff/?from=3&to=4", args.rounds),
    }
    exports = {
        "claims_csv": _stream(auditor, "/audit/claims/export.csv"),
        "claims_jsonl": _stream(auditor, "/audit/claims/export.jsonl"),
    }
    version = source.versions.get(number=1)
    print_json(
        {
            "benchmark": "source_scale",
            "label": args.label,
            "data": {
                **data,
                "claims": Claim.objects.filter(workspace__slug=WORKSPACE_SLUG).count(),
                "text_chars": len(version.text),
                "stacked_on_one_span": STACKED + 1,
            },
            "pages": pages,
            "exports": exports,
            "target_ms": TARGET_MS,
            "target_bytes": TARGET_BYTES,
            "meets_target": all(page["meets_target"] for page in pages.values()),
            "load_average_1m": round(os.getloadavg()[0], 2),
            "cpus": os.cpu_count(),
        }
    )


if __name__ == "__main__":
    main()
