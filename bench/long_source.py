"""Long-source benchmark: the pages of one 200 KB source with 2,557 bound claims.

    .venv/bin/python bench/long_source.py            # seed once, then time the pages
    .venv/bin/python bench/long_source.py --fresh    # rebuild the bench workspace
    .venv/bin/python bench/long_source.py --label before --rounds 5

Runs on its own database (``spanproof_bench_long_source`` in the embedded cluster unless
``DATABASE_URL`` says otherwise), migrated first. Requests go through Django's test
client (full middleware, session, templates). Prints one JSON object with the median
server time (ms) and the HTML size (bytes) of the source page, the source version page
(the span permalink, focused on a claim in the middle) and a review item on that
source. Target: each page <= 300 ms and <= 300 KB.

``span_cut``: what the read-time re-check of a retrieve pays for this source's spans —
one statement cutting 40 bound spans spread evenly over the text, from the version's
chunks (``spanproof_version_span``; the serving statement runs the same cut written
inline) beside ``substring`` of the whole text (what it ran before migration 0018), median
ms over ``--rounds`` × 5.
"""

from __future__ import annotations

import os
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # this checkout's packages

from bench._common import page_bench_arguments, page_bench_database, print_json, record_sentences

BENCH_DB = "spanproof_bench_long_source"

WORKSPACE_SLUG = "bench-long-source"
SEED = 20261125
CLAIMS = 2557
TEXT_BYTES = 200_000
TARGET_MS = 300.0
TARGET_BYTES = 300_000
# (state, state_reason, verdict label, confidence, share)
STATE_MIX = [
    ("supported", "entailed", "entailed", 0.92, 0.6),
    ("unverified", "abstained", "abstained", 0.0, 0.2),
    ("unverified", "low_confidence", "entailed", 0.3, 0.05),
    ("contradicted", "contradicted", "contradicted", 0.9, 0.1),
    ("excluded", "excluded", "entailed", 0.9, 0.05),
]


def _sentences(rng: random.Random) -> list[str]:
    """CLAIMS distinct sentences, padded to about TEXT_BYTES of text in all."""
    return record_sentences(rng, CLAIMS, TEXT_BYTES // CLAIMS - 1)


def _seed(fresh: bool) -> dict:
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

    User = get_user_model()
    workspace = Workspace.objects.filter(slug=WORKSPACE_SLUG).first()
    reuse = workspace is not None and not fresh
    if reuse and Claim.objects.filter(workspace=workspace).count() == CLAIMS:
        return {"reused": True}
    with connection.cursor() as cursor:  # append-only triggers forbid DELETE: truncate
        cursor.execute(
            "TRUNCATE verifier_verdict, verifier_stateevent, verifier_evidencebinding, "
            "verifier_evidencecandidate, verifier_claimrelation, verifier_traceclaim, "
            "verifier_trace, review_reviewlease, review_reviewnote, verifier_claim, "
            "verifier_sourceversion, verifier_source, verifier_membership, "
            "verifier_workspace CASCADE"
        )
    rng = random.Random(SEED)
    sentences = _sentences(rng)
    text = " ".join(sentences)
    with transaction.atomic():
        workspace = Workspace.objects.create(slug=WORKSPACE_SLUG, name="Bench long source")
        for name, role in (("bench-rita", "reviewer"), ("bench-ada", "auditor")):
            user = User.objects.filter(username=name).first() or User.objects.create_user(name)
            Membership.objects.create(workspace=workspace, user=user, role=role)
        source = Source.objects.create(
            workspace=workspace, ref="source:long_report", title="A long report"
        )
        version = SourceVersion.objects.create(
            source=source, number=1, text=text, sha256=text_sha256(text)
        )
        weights = [row[-1] for row in STATE_MIX]
        mix = [rng.choices(STATE_MIX, weights=weights)[0] for _ in sentences]
        claims = Claim.objects.bulk_create(
            [
                Claim(
                    workspace=workspace,
                    source=source,
                    text=f"Claim {i}: {sentence}",
                    original_text=sentence,
                    state=state,
                    state_reason=reason,
                    queue_rank=queue_rank(reason),
                    exclusion_reason="bench exclusion" if state == "excluded" else "",
                    origin="extracted",
                )
                for i, (sentence, (state, reason, *_)) in enumerate(
                    zip(sentences, mix, strict=False)
                )
            ]
        )
        bindings = []
        at = 0
        for claim, sentence in zip(claims, sentences, strict=False):
            bindings.append(
                EvidenceBinding(
                    claim=claim,
                    source_version=version,
                    quote=sentence,
                    start=at,
                    end=at + len(sentence),
                    source_hash=version.sha256,
                    match="exact",
                    bound_by="quote",
                )
            )
            at += len(sentence) + 1
        bindings = EvidenceBinding.objects.bulk_create(bindings)
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
                    note="abstained: no decisive span" if label == "abstained" else "",
                )
                for claim, binding, (_, _, label, confidence, _) in zip(
                    claims, bindings, mix, strict=False
                )
            ]
        )
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE")
    return {"reused": False}


def _measure(client, url: str, rounds: int) -> dict:
    client.get(url)  # warm-up
    times, size = [], 0
    for _ in range(rounds):
        started = time.perf_counter()
        response = client.get(url)
        times.append((time.perf_counter() - started) * 1000)
        assert response.status_code == 200, (url, response.status_code)
        size = len(response.content)
    return {
        "url": url,
        "server_ms_p50": round(statistics.median(times), 1),
        "server_ms_max": round(max(times), 1),
        "html_bytes": size,
        "meets_target": statistics.median(times) <= TARGET_MS and size <= TARGET_BYTES,
    }


_SPAN_CUTS = {
    "chunks": "SELECT spanproof_version_span(b.source_version_id, b.start, b.end) "
    "FROM verifier_evidencebinding b WHERE b.id = ANY(%s)",
    "substring": "SELECT substring(v.text FROM b.start + 1 FOR b.end - b.start) "
    "FROM verifier_evidencebinding b "
    "JOIN verifier_sourceversion v ON v.id = b.source_version_id WHERE b.id = ANY(%s)",
}


def _span_cut(binding_pks: list[int], rounds: int) -> dict:
    from django.db import connection

    out = {}
    with connection.cursor() as cursor:
        for name, sql in _SPAN_CUTS.items():
            cursor.execute(sql, [binding_pks])  # warm-up
            times = []
            for _ in range(rounds * 5):
                started = time.perf_counter()
                cursor.execute(sql, [binding_pks])
                cursor.fetchall()
                times.append((time.perf_counter() - started) * 1000)
            out[f"{name}_ms_p50"] = round(statistics.median(times), 2)
    return {"spans": len(binding_pks), **out}


def main() -> None:
    args = page_bench_arguments(__doc__.splitlines()[0], rounds=5)
    data = page_bench_database(BENCH_DB, _seed, fresh=args.fresh)
    from django.contrib.auth import get_user_model
    from django.test import Client

    from review.models import ReviewLease
    from verifier.models import Claim, EvidenceBinding, SourceVersion

    version = SourceVersion.objects.get(source__workspace__slug=WORKSPACE_SLUG)
    claims = Claim.objects.filter(workspace__slug=WORKSPACE_SLUG)
    unverified = claims.filter(state="unverified").order_by("id")
    middle = unverified[unverified.count() // 2]
    binding = EvidenceBinding.objects.get(claim=middle)
    # The span permalink (the server focuses ?span=; older code ignores it).
    page = f"/audit/sources/{version.source_id}/v/{version.sha256}"
    permalink = f"{page}?span={binding.start}-{binding.end}#seg-{binding.start}"

    auditor, reviewer = Client(), Client()
    auditor.force_login(get_user_model().objects.get(username="bench-ada"))
    reviewer.force_login(get_user_model().objects.get(username="bench-rita"))
    pages = {
        "source_page": _measure(auditor, f"/audit/sources/{version.source_id}/", args.rounds),
        "source_version_page": _measure(auditor, permalink.split("#")[0], args.rounds),
        "review_item": _measure(reviewer, f"/review/item/{middle.public_id}/", args.rounds),
    }
    ReviewLease.objects.filter(claim__workspace__slug=WORKSPACE_SLUG).delete()
    spread = list(
        EvidenceBinding.objects.filter(source_version=version)
        .order_by("start")
        .values_list("pk", flat=True)
    )
    span_cut = _span_cut(spread[:: max(1, len(spread) // 40)][:40], args.rounds)
    print_json(
        {
            "benchmark": "long_source",
            "label": args.label,
            "data": {
                **data,
                "claims": claims.count(),
                "text_chars": len(version.text),
                "text_bytes": len(version.text.encode("utf-8")),
            },
            "permalink": permalink,
            "pages": pages,
            "span_cut": span_cut,
            "target_ms": TARGET_MS,
            "target_bytes": TARGET_BYTES,
            "meets_target": all(page["meets_target"] for page in pages.values()),
            "load_average_1m": round(os.getloadavg()[0], 2),
            "cpus": os.cpu_count(),
        }
    )


if __name__ == "__main__":
    main()
