"""Paired before/after timing of ``POST /connect/v1/retrieve``: two checkouts, one database.

    .venv/bin/python bench/retrieve_ab.py --before /tmp/base                  # 1,000,000 claims
    .venv/bin/python bench/retrieve_ab.py --before /tmp/base --claims 100000 --rounds 2

``bench/retrieve.py`` measures one checkout; on a machine whose speed drifts by tens of
percent from one minute to the next (this one's did by up to 40 %), two of its runs made
minutes apart differ more than most changes do. This bench serves the same bench
workspace (built by ``bench/retrieve.py``, reused as it is) from two gunicorn servers at
once, each started from its own checkout with ``make run``'s command line on one worker
and one thread: ``--before`` (a ``git worktree`` of the earlier commit, say) and
``--after`` (this checkout unless given). Every query goes to both, one right after the
other, the order alternating from query to query, so both halves of a pair meet the
machine in the same state; it prints both servers' p50/p95/p99 and the median and mean of
the per-query differences (after − before, ms; negative is faster) as one JSON object.

Each checkout's own code serves its half: the server runs with the checkout as its
working directory, which Python puts ahead of the installed (editable) project. Both
use this checkout's virtual environment and the database of ``bench/retrieve.py``
(``DATABASE_URL``, else ``spanproof_bench_retrieve`` in the embedded cluster) — migrate
it to what both checkouts expect first. The rate limits are off for both servers, as in
``bench/retrieve.py``.
"""

from __future__ import annotations

import argparse
import http.client
import os
import signal
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # this checkout's packages

from bench._common import ROOT, django_setup, free_port, percentile, print_json, wait_for_port

WARM_UP = 20


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--before", type=Path, required=True, help="checkout serving 'before'")
    parser.add_argument("--after", type=Path, default=ROOT, help="checkout serving 'after'")
    parser.add_argument("--claims", type=int, default=1_000_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--ef-search", type=int, default=40)
    args = parser.parse_args()
    for checkout in (args.before, args.after):
        if not (checkout / "config" / "wsgi.py").is_file():
            parser.error(f"{checkout} is not a Spanproof checkout")

    from bench import retrieve as bench

    django_setup(bench.BENCH_DB)
    key = bench._seed(args.claims, False)["key"]
    queries = bench._sentences(args.queries + args.claims, bench.SEED + 1)[-args.queries :]

    ports = [free_port(), free_port()]
    servers = [
        bench.serve(checkout.resolve(), port, args.ef_search)
        for checkout, port in zip((args.before, args.after), ports, strict=True)
    ]
    try:
        for port in ports:
            wait_for_port(port, timeout=60.0)
        conns = [http.client.HTTPConnection("127.0.0.1", port, timeout=60) for port in ports]
        headers = {"Authorization": f"Bearer {key}", "Content-Type": "application/json"}

        def call(conn: http.client.HTTPConnection, query: str) -> float:
            return bench.timed_retrieve(conn, headers, query)[0]

        for query in queries[:WARM_UP]:
            for conn in conns:
                call(conn, query)
        before: list[float] = []
        after: list[float] = []
        for _ in range(args.rounds):
            for i, query in enumerate(queries):
                order = (0, 1) if i % 2 == 0 else (1, 0)
                pair = {k: call(conns[k], query) for k in order}
                before.append(pair[0])
                after.append(pair[1])
    finally:
        for server in servers:
            server.send_signal(signal.SIGTERM)
        for server in servers:
            server.wait(timeout=30)

    diffs = [b - a for a, b in zip(before, after, strict=True)]

    def figures(samples: list[float]) -> dict[str, float]:
        return {
            "p50": round(statistics.median(samples), 2),
            "p95": round(percentile(samples, 0.95), 2),
            "p99": round(percentile(samples, 0.99), 2),
        }

    print_json(
        {
            "bench": "retrieve_ab",
            "claims": args.claims,
            "pairs": len(diffs),
            "before": {"checkout": str(args.before), **figures(before)},
            "after": {"checkout": str(args.after), **figures(after)},
            "paired_difference_ms": {
                "median": round(statistics.median(diffs), 3),
                "mean": round(statistics.mean(diffs), 3),
                "after_faster_share": round(sum(d < 0 for d in diffs) / len(diffs), 3),
            },
            "load_average_1m": round(os.getloadavg()[0], 2),
        }
    )


if __name__ == "__main__":
    main()
