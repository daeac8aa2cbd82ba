"""Retrieval benchmark: ``POST /connect/v1/retrieve`` over 100,000 (or 1,000,000) claims.

    .venv/bin/python bench/retrieve.py                    # 100,000 claims, 200 queries
    .venv/bin/python bench/retrieve.py --claims 1000000   # one million (see "vectors")
    .venv/bin/python bench/retrieve.py --claims 20000     # reduced size (say so when reporting)
    .venv/bin/python bench/retrieve.py --fresh            # rebuild the bench workspace

Runs on its own database (``spanproof_bench_retrieve`` in the embedded cluster unless
``DATABASE_URL`` says otherwise). Claims are varied generated sentences (subject, verb,
object, quantity, condition), each bound to its exact sentence in a hashed source version
and judged entailed, so every served claim goes through the real read-time re-check.

Vectors: the first 100,000 claims carry their real all-MiniLM-L6-v2 embeddings (cached
in ``var/bench/`` as .npy). Beyond that (``--claims 1000000``) a claim's vector is
synthetic: the real vector of an embedded claim with the same subject, verb and object,
plus Gaussian noise (sigma 0.02 per dimension, cosine to that vector ~0.93), re-normalised;
so neighbourhoods look like real ones without an hour of embedding. The HNSW index is
built after the bulk insert with ``maintenance_work_mem`` of 1 GB per 250,000 claims
(at least 1 GB) so the graph is built in memory.

Before serving, the raw HNSW top-k is compared with exact search (numpy over every
vector) for ``hnsw.ef_search`` values from 40 upward; the smallest value whose recall
is >= 0.95 is the one the server runs with (``SPANPROOF_HNSW_EF_SEARCH``).

Then gunicorn serves the API on 127.0.0.1 with the command line ``make run`` uses
(``verifier.web_server.gunicorn_command``: gthread, keep-alive, the worker hooks), on one
worker and one thread, the client holding one connection; 200 queries are timed end to end
(query embedding, vector search, re-check, envelopes, trace write), and in the same run
the raw pgvector top-k query for the same query vectors, and a framework floor: the
same server answering an authenticated call that retrieves nothing
(``GET /connect/v1/verification-rules/built-in``). Prints one JSON object.
Targets (issue 20): query embedding p50 <= 5 ms; retrieve p95 <= 40 ms;
retrieve p50 - embedding p50 <= 4 x raw top-k p50 + 6 ms.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import signal
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # this checkout's packages

from bench._common import (
    ROOT,
    django_setup,
    free_port,
    percentile,
    print_json,
    timed_request,
    wait_for_port,
)

BENCH_DB = "spanproof_bench_retrieve"

WORKSPACE_SLUG = "bench-retrieve"
SEED = 20260610
BATCH = 5_000
CLAIMS_PER_SOURCE = 100
TOP_K = 20
REAL_VECTORS = 100_000
NOISE_SIGMA = 0.02
TARGET_P95_MS = 40.0
TARGET_EMBED_P50_MS = 5.0
TARGET_RAW_FACTOR = 4.0
TARGET_RAW_SLACK_MS = 6.0
TARGET_RECALL = 0.95
EF_SEARCH_CANDIDATES = (40, 64, 100, 160, 250, 400)
RECALL_QUERIES = 100
CACHE = ROOT / "var" / "bench"

SUBJECTS = [
    "The river delta",
    "Salt marsh grass",
    "The northern glacier",
    "A coral reef",
    "The city council",
    "Migrating geese",
    "The copper mine",
    "Desert aquifers",
    "The old lighthouse",
    "Mountain pine forests",
    "The harbour authority",
    "Wheat farmers",
    "The central bank",
    "Volcanic soil",
    "A tidal estuary",
    "The railway company",
    "Kelp forests",
    "The university library",
    "Arctic foxes",
    "The wind farm",
    "Peat bogs",
    "The fishing fleet",
    "Limestone caves",
    "The regional hospital",
    "Honey bees",
    "The textile mill",
    "Monsoon rains",
    "The ferry service",
    "Alpine meadows",
    "The steel works",
    "River otters",
    "The customs office",
]
VERBS = [
    "gains",
    "loses",
    "stores",
    "releases",
    "absorbs",
    "exports",
    "imports",
    "protects",
    "damages",
    "supports",
    "reduces",
    "doubles",
    "regulates",
    "depends on",
    "produces",
    "consumes",
    "filters",
    "attracts",
    "replaces",
    "measures",
]
OBJECTS = [
    "sediment",
    "fresh water",
    "carbon",
    "nitrogen",
    "tourists",
    "migrant workers",
    "heavy metals",
    "seed stock",
    "grain shipments",
    "electricity",
    "spring floods",
    "winter ice",
    "salt",
    "timber",
    "coal",
    "pollen",
    "rare minerals",
    "public funds",
    "nesting sites",
    "shipping traffic",
    "groundwater",
    "topsoil",
    "plankton",
    "fog",
]
CONDITIONS = [
    "in wet years",
    "during drought",
    "after storms",
    "each spring",
    "at high tide",
    "when prices fall",
    "in the dry season",
    "since the dam was built",
    "under new rules",
    "at night",
    "near the coast",
    "in colder decades",
    "when the current slows",
    "after the harvest",
    "during the festival",
    "in the northern valleys",
]
QUANTITIES = [
    "by a tenth",
    "twice as fast",
    "more slowly",
    "only rarely",
    "every decade",
    "in small amounts",
    "at record levels",
    "for the first time",
    "year after year",
    "",
]


def _sentence_parts(n: int, seed: int) -> list[tuple[str, ...]]:
    rng = random.Random(seed)
    seen: set[tuple[str, ...]] = set()
    out: list[tuple[str, ...]] = []
    while len(out) < n:
        parts = (
            rng.choice(SUBJECTS),
            rng.choice(VERBS),
            rng.choice(OBJECTS),
            rng.choice(QUANTITIES),
            rng.choice(CONDITIONS),
        )
        if parts not in seen:
            seen.add(parts)
            out.append(parts)
    return out


def _sentence(parts: tuple[str, ...]) -> str:
    return " ".join(p for p in parts if p) + "."


def _sentences(n: int, seed: int) -> list[str]:
    return [_sentence(parts) for parts in _sentence_parts(n, seed)]


def _claim_vectors(parts: list[tuple[str, ...]]):
    """Real embeddings of the first ``REAL_VECTORS`` claims; for the rest, the real vector
    of an embedded claim with the same subject, verb and object (else subject and verb,
    else any) plus noise, re-normalised. Deterministic, so a reused workspace gets the
    same vectors back for the recall check."""
    import numpy as np

    real = min(len(parts), REAL_VECTORS)
    vectors, cached = _embeddings([_sentence(p) for p in parts[:real]], "claims")
    if len(parts) == real:
        return vectors, cached
    by_svo: dict[tuple[str, ...], list[int]] = {}
    by_sv: dict[tuple[str, ...], list[int]] = {}
    for i, p in enumerate(parts[:real]):
        by_svo.setdefault(p[:3], []).append(i)
        by_sv.setdefault(p[:2], []).append(i)
    rng = random.Random(SEED + 7)
    bases = []
    for p in parts[real:]:
        pool = by_svo.get(p[:3]) or by_sv.get(p[:2]) or range(real)
        bases.append(pool[rng.randrange(len(pool))])
    noise = np.random.default_rng(SEED + 11).normal(
        0.0, NOISE_SIGMA, size=(len(bases), vectors.shape[1])
    )
    synthetic = vectors[np.asarray(bases)] + noise.astype(np.float32)
    synthetic /= np.linalg.norm(synthetic, axis=1, keepdims=True)
    return np.vstack([vectors, synthetic.astype(np.float32)]), cached


def _embeddings(sentences: list[str], name: str):
    import numpy as np

    from verifier.embeddings import embed_texts

    CACHE.mkdir(parents=True, exist_ok=True)
    path = CACHE / f"{name}_{len(sentences)}_{SEED}.npy"
    if path.exists():
        return np.load(path), True
    vectors = embed_texts(sentences, batch_size=256)
    np.save(path, vectors)
    return vectors, False


def _seed(n_claims: int, fresh: bool) -> dict:
    from django.db import connection, transaction

    from verifier.models import (
        ApiKey,
        Claim,
        EvidenceBinding,
        Source,
        SourceVersion,
        Verdict,
        Workspace,
        generate_api_key,
        hash_api_key,
        text_sha256,
    )

    workspace = Workspace.objects.filter(slug=WORKSPACE_SLUG).first()
    raw_key = generate_api_key()
    if workspace is not None and not fresh:
        count = Claim.objects.filter(workspace=workspace, published=True).count()
        if count == n_claims:
            ApiKey.objects.create(
                workspace=workspace,
                name="bench",
                prefix=raw_key[:8],
                key_hash=hash_api_key(raw_key),
            )
            return {"reused": True, "claims": count, "key": raw_key, "workspace": workspace.pk}
    started = time.perf_counter()
    with connection.cursor() as cursor:  # append-only triggers forbid DELETE: truncate
        cursor.execute(
            "TRUNCATE verifier_trace, verifier_traceclaim, verifier_verdict, "
            "verifier_stateevent, verifier_evidencebinding, verifier_claim, "
            "verifier_sourceversion, verifier_source, verifier_apikey CASCADE"
        )
    workspace, _ = Workspace.objects.get_or_create(
        slug=WORKSPACE_SLUG, defaults={"name": "Retrieval benchmark"}
    )
    parts = _sentence_parts(n_claims, SEED)
    sentences = [_sentence(p) for p in parts]
    t = time.perf_counter()
    vectors, cached = _claim_vectors(parts)
    embed_s = time.perf_counter() - t
    with connection.cursor() as cursor:
        cursor.execute("DROP INDEX IF EXISTS claim_embedding_hnsw")
    t = time.perf_counter()
    for first in range(0, n_claims, CLAIMS_PER_SOURCE * 50):
        with transaction.atomic():
            chunk_sources, chunk_versions, chunk_claims = [], [], []
            last = min(n_claims, first + CLAIMS_PER_SOURCE * 50)
            for s_first in range(first, last, CLAIMS_PER_SOURCE):
                group = sentences[s_first : s_first + CLAIMS_PER_SOURCE]
                n = s_first // CLAIMS_PER_SOURCE
                chunk_sources.append(
                    Source(
                        workspace=workspace,
                        ref=f"source:bench_{n:05d}",
                        title=f"Bench document {n}",
                        citation=f"Bench Survey, vol. {n}",
                    )
                )
                chunk_versions.append(" ".join(group))
            Source.objects.bulk_create(chunk_sources)
            versions = SourceVersion.objects.bulk_create(
                [
                    SourceVersion(source=src, number=1, text=text, sha256=text_sha256(text))
                    for src, text in zip(chunk_sources, chunk_versions, strict=True)
                ]
            )
            offsets = []
            for version in versions:
                pos = 0
                n = (versions.index(version) + first // CLAIMS_PER_SOURCE) * CLAIMS_PER_SOURCE
                for i in range(CLAIMS_PER_SOURCE):
                    if n + i >= last:
                        break
                    sentence = sentences[n + i]
                    start = version.text.index(sentence, pos)
                    pos = start + len(sentence)
                    offsets.append((version, n + i, start, pos))
                    chunk_claims.append(
                        Claim(
                            workspace=workspace,
                            source_id=version.source_id,
                            text=sentence,
                            original_text=sentence,
                            origin="imported",
                            state="supported",
                            state_reason="entailed",
                            published=True,
                            embedding=vectors[n + i],
                        )
                    )
            Claim.objects.bulk_create(chunk_claims, batch_size=BATCH)
            bindings = EvidenceBinding.objects.bulk_create(
                [
                    EvidenceBinding(
                        claim=claim,
                        source_version=version,
                        quote=claim.text,
                        start=start,
                        end=end,
                        source_hash=version.sha256,
                        match="exact",
                        bound_by="quote",
                    )
                    for claim, (version, _i, start, end) in zip(chunk_claims, offsets, strict=True)
                ],
                batch_size=BATCH,
            )
            Verdict.objects.bulk_create(
                [
                    Verdict(
                        claim=b.claim,
                        binding=b,
                        judge_model="heuristic-entailment-v1",
                        judge_family="heuristic",
                        label="entailed",
                        confidence=0.9,
                    )
                    for b in bindings
                ],
                batch_size=BATCH,
            )
    insert_s = time.perf_counter() - t
    t = time.perf_counter()
    with connection.cursor() as cursor:
        work_mem_gb = max(1, -(-n_claims // 250_000))
        cursor.execute(f"SET maintenance_work_mem = '{work_mem_gb}GB'")
        cursor.execute("SET max_parallel_maintenance_workers = 4")
        cursor.execute(
            "CREATE INDEX claim_embedding_hnsw ON verifier_claim USING hnsw "
            "(embedding vector_cosine_ops) WITH (m = 16, ef_construction = 64) "
            "WHERE published"
        )
        cursor.execute("ANALYZE verifier_claim")
    index_s = time.perf_counter() - t
    ApiKey.objects.create(
        workspace=workspace, name="bench", prefix=raw_key[:8], key_hash=hash_api_key(raw_key)
    )
    return {
        "reused": False,
        "claims": n_claims,
        "key": raw_key,
        "workspace": workspace.pk,
        "embed_s": round(embed_s, 1),
        "embeddings_cached": cached,
        "insert_s": round(insert_s, 1),
        "hnsw_build_s": round(index_s, 1),
        "setup_s": round(time.perf_counter() - started, 1),
    }


def serve(checkout: Path, port: int, ef_search: int) -> subprocess.Popen[bytes]:
    """gunicorn serving ``checkout``'s code on 127.0.0.1:``port`` with the command line
    ``make run`` serves with (``verifier.web_server``: gthread, so the client keeps one
    connection alive; the hooks load the embedder and tune the garbage collector), on one
    worker and one thread."""
    from verifier.web_server import gunicorn_command

    return subprocess.Popen(
        gunicorn_command(python=sys.executable, addr=f"127.0.0.1:{port}", workers=1, threads=1),
        stdout=subprocess.DEVNULL,  # the access log
        cwd=checkout,
        env={
            **os.environ,
            "DJANGO_DEBUG": "0",
            "DEBUG": "0",
            "SPANPROOF_HNSW_EF_SEARCH": str(ef_search),
            # Three rounds of 200 retrieves and 200 floor calls in about a minute would
            # run into the per-key and per-IP limits (600/min): off, for this server only.
            "SPANPROOF_API_RATE_PER_KEY": "",
            "SPANPROOF_API_RATE_PER_IP": "",
        },
    )


def timed_retrieve(
    conn: http.client.HTTPConnection, headers: dict[str, str], query: str
) -> tuple[float, bytes]:
    """One ``POST /connect/v1/retrieve`` of ``TOP_K`` claims on ``conn``: (milliseconds
    from sending the request to reading the whole answer, the answer's body)."""
    body = json.dumps({"query": query, "max_claims": TOP_K})
    return timed_request(conn, "POST", "/connect/v1/retrieve", headers=headers, body=body)


_RAW_TOPK_SQL = (
    "SELECT id FROM verifier_claim WHERE workspace_id = %s AND published "
    "ORDER BY embedding <=> %s::vector LIMIT %s"
)
WARM_UP = 10


def _literal(vector) -> str:
    return "[" + ",".join(f"{x:.7f}" for x in vector) + "]"


def _recall_by_ef_search(workspace_pk: int, n_claims: int, query_vectors) -> dict[int, float]:
    """Mean recall@``2 * TOP_K`` (the seeds one retrieve asks for) of the HNSW scan against
    exact search, by ``hnsw.ef_search``. Exact search is numpy over every claim vector;
    claims were inserted in sentence order, so the workspace's ids in order map to rows."""
    import numpy as np
    from django.db import connection

    k = TOP_K * 2
    vectors, _cached = _claim_vectors(_sentence_parts(n_claims, SEED))
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT id FROM verifier_claim WHERE workspace_id = %s ORDER BY id", [workspace_pk]
        )
        ids = np.fromiter((row[0] for row in cursor.fetchall()), dtype=np.int64)
    queries = query_vectors[:RECALL_QUERIES]
    exact = []
    for q in queries:
        sims = vectors @ np.asarray(q, dtype=np.float32)
        exact.append(set(ids[np.argpartition(-sims, k)[:k]].tolist()))
    del vectors
    recall: dict[int, float] = {}
    for ef in EF_SEARCH_CANDIDATES:
        found = []
        with connection.cursor() as cursor:
            cursor.execute("SELECT set_config('hnsw.ef_search', %s, false)", [str(max(ef, k))])
            for q, truth in zip(queries, exact, strict=True):
                cursor.execute(_RAW_TOPK_SQL, [workspace_pk, _literal(q), k])
                found.append(len(truth & {row[0] for row in cursor.fetchall()}) / k)
            cursor.execute("RESET hnsw.ef_search")
        recall[ef] = round(statistics.mean(found), 4)
        if recall[ef] >= TARGET_RECALL:
            break
    return recall


def _raw_topk(workspace_pk: int, query_vectors, ef_search: int) -> list[float]:
    """The bare pgvector top-k for the same vectors, on one connection (ef_search set
    up front, before psycopg auto-prepares the statement)."""
    from django.db import connection

    samples = []
    with connection.cursor() as cursor:
        cursor.execute(f"SET hnsw.ef_search = {int(ef_search)}")
        # Warm-up, as the server gets: the index pages come into cache and the statement
        # is prepared before timing (a cold first pass measured 6.6 ms p50, warm 1.7 ms).
        for vector in query_vectors[:WARM_UP]:
            cursor.execute(_RAW_TOPK_SQL, [workspace_pk, _literal(vector), TOP_K * 2])
            cursor.fetchall()
        for vector in query_vectors:
            literal = _literal(vector)
            t = time.perf_counter()
            cursor.execute(_RAW_TOPK_SQL, [workspace_pk, literal, TOP_K * 2])
            cursor.fetchall()
            samples.append((time.perf_counter() - t) * 1000)
    return samples


def _server_settings() -> dict[str, str]:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT name, current_setting(name) FROM pg_settings WHERE name = ANY(%s)",
            [["shared_buffers", "max_wal_size", "server_version"]],
        )
        return dict(cursor.fetchall())


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--claims", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--fresh", action="store_true")
    parser.add_argument("--runs", type=int, default=3, help="timed rounds (medians reported)")
    args = parser.parse_args()

    # A DATABASE_URL marks production, which needs a secret key: a bench-only one.

    django_setup(BENCH_DB)
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    setup = _seed(args.claims, args.fresh)
    key = setup.pop("key")
    workspace_pk = setup.pop("workspace")

    from verifier.embeddings import embed_text

    queries = _sentences(args.queries + args.claims, SEED + 1)[-args.queries :]

    def embed_all() -> tuple[list, list[float]]:
        vectors, samples = [], []
        for q in queries:
            t = time.perf_counter()
            vectors.append(embed_text(q))
            samples.append((time.perf_counter() - t) * 1000)
        return vectors, samples

    vectors, _ = embed_all()
    recall = _recall_by_ef_search(workspace_pk, args.claims, vectors)
    ef_search = next((ef for ef, r in recall.items() if r >= TARGET_RECALL), max(recall))

    port = free_port()
    server = serve(ROOT, port, ef_search)
    try:
        wait_for_port(port, timeout=60.0)
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        headers = {"Authorization": f"Bearer {key}", "Content-Type": "application/json"}

        def floor_call() -> float:
            # The same server, key and connection on a tiny authenticated read: what
            # gunicorn, Django, DRF and the key check cost before any retrieval work.
            path = "/connect/v1/verification-rules/built-in"
            return timed_request(conn, "GET", path, headers=headers)[0]

        def call(query: str) -> tuple[float, dict]:
            elapsed, data = timed_retrieve(conn, headers, query)
            return elapsed, json.loads(data)

        for q in queries[:WARM_UP]:  # warm-up: model load, connection, caches
            call(q)
        rounds = []
        trace_ids = []
        served = []
        for _ in range(args.runs):
            # One round: the query embeddings in this process, the raw top-k for their
            # vectors, every query through the server, the framework floor.
            vectors, embed_ms = embed_all()
            raw_ms = _raw_topk(workspace_pk, vectors, ef_search)
            # The server drops a connection idle past its keep-alive (2 s) while this
            # process embeds and searches: a new one, opened by an untimed call, as a
            # client's connection pool would hold it.
            conn.close()
            call(queries[0])
            retrieve_ms = []
            for q in queries:
                elapsed, body = call(q)
                retrieve_ms.append(elapsed)
                served.append(len(body["verified_claims"]))
                trace_ids.append(body["trace_id"])
            for _ in range(WARM_UP):
                floor_call()
            floor_ms = [floor_call() for _ in queries]
            rounds.append(
                {
                    "retrieve_p50": statistics.median(retrieve_ms),
                    "retrieve_p95": percentile(retrieve_ms, 0.95),
                    "raw_p50": statistics.median(raw_ms),
                    "raw_p95": percentile(raw_ms, 0.95),
                    "embed_p50": statistics.median(embed_ms),
                    "embed_p95": percentile(embed_ms, 0.95),
                    "floor_p50": statistics.median(floor_ms),
                    "floor_p95": percentile(floor_ms, 0.95),
                    "max": max(retrieve_ms),
                }
            )
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=30)

    # Server-side phases, as each call recorded them in its trace document (the trace
    # write itself, the commit and the HTTP/DRF layer are outside these).
    from verifier.models import Trace

    timings = [
        doc.get("timing", {})
        for doc in Trace.objects.filter(trace_id__in=trace_ids).values_list("document", flat=True)
    ]
    phases = sorted({k for t in timings for k in t})
    server_phases = {
        k: {
            "p50": round(statistics.median([t[k] for t in timings if k in t]), 2),
            "p95": round(percentile([t[k] for t in timings if k in t], 0.95), 2),
        }
        for k in phases
    }

    def med(key: str) -> float:  # the median over the rounds
        return statistics.median(r[key] for r in rounds)

    r50, r95 = med("retrieve_p50"), med("retrieve_p95")
    v50, v95 = med("raw_p50"), med("raw_p95")
    e50, f50 = med("embed_p50"), med("floor_p50")
    result = {
        "bench": "retrieve",
        "claims": args.claims,
        "queries": args.queries,
        "rounds": args.runs,
        "figures": "medians over the rounds of each round's p50 / p95",
        "top_k": TOP_K,
        "setup": setup,
        "retrieve_ms": {
            "p50": round(r50, 2),
            "p95": round(r95, 2),
            "max": round(max(r["max"] for r in rounds), 2),
            "p50_by_round": [round(r["retrieve_p50"], 2) for r in rounds],
            "p95_by_round": [round(r["retrieve_p95"], 2) for r in rounds],
        },
        "hnsw_ef_search": ef_search,
        "recall_at_40_by_ef_search": recall,
        "raw_pgvector_topk_ms": {"p50": round(v50, 3), "p95": round(v95, 3)},
        "query_embedding_ms": {"p50": round(e50, 2), "p95": round(med("embed_p95"), 2)},
        "framework_floor_ms": {"p50": round(f50, 2), "p95": round(med("floor_p95"), 2)},
        "ratio_retrieve_to_raw_p50": round(r50 / v50, 2),
        "ratio_server_overhead_excl_embedding_p50": round((r50 - e50) / v50, 2),
        # An authenticated call that does no retrieval at all, over the raw top-k: the
        # share of the ratio that the HTTP/Django/DRF stack alone accounts for.
        "ratio_framework_floor_to_raw_p50": round(f50 / v50, 2),
        "mean_claims_served": round(statistics.mean(served), 2),
        "server_phases_ms": server_phases,
        "retrieve_minus_embedding_p50_ms": round(r50 - e50, 2),
        "overhead_budget_ms": round(TARGET_RAW_FACTOR * v50 + TARGET_RAW_SLACK_MS, 2),
        "load_average_1m": round(os.getloadavg()[0], 2),
        "postgres": _server_settings(),
        "targets": {
            "embedding_p50_ms": TARGET_EMBED_P50_MS,
            "embedding_p50_ok": e50 <= TARGET_EMBED_P50_MS,
            "p95_ms": TARGET_P95_MS,
            "p95_ok": r95 <= TARGET_P95_MS,
            "overhead_rule": "retrieve p50 - embedding p50 <= 4 x raw top-k p50 + 6 ms",
            "overhead_ok": r50 - e50 <= TARGET_RAW_FACTOR * v50 + TARGET_RAW_SLACK_MS,
            "recall": TARGET_RECALL,
            "recall_ok": recall.get(ef_search, 0.0) >= TARGET_RECALL,
        },
    }
    print_json(result)


if __name__ == "__main__":
    main()
