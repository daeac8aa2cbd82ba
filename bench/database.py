"""What the database benches share: their own database on the embedded cluster (or the
``DATABASE_URL`` given), the percentile they report, and the timed HTTP call of those
that measure a served endpoint."""

from __future__ import annotations

import http.client
import os
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def bench_database_url(name: str, *, fresh: bool = False) -> str:
    """``DATABASE_URL`` when set; else database ``name`` on the embedded cluster under
    ``var/pgdata`` (started if needed), created if missing — dropped first when ``fresh``."""
    if os.environ.get("DATABASE_URL"):
        return os.environ["DATABASE_URL"]
    from config.embedded_postgres import ensure_embedded_postgres

    info = ensure_embedded_postgres(ROOT / "var" / "pgdata")
    import psycopg

    with psycopg.connect(
        dbname="postgres", user="postgres", host=info["HOST"], port=info["PORT"], autocommit=True
    ) as conn:
        if fresh:
            conn.execute(f"DROP DATABASE IF EXISTS {name}")
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone()
        if not exists:
            conn.execute(f"CREATE DATABASE {name}")
    return f"postgresql://postgres@/{name}?host={info['HOST']}&port={info['PORT']}"


def percentile(samples: list[float], q: float) -> float:
    """The nearest-rank ``q`` quantile of ``samples`` (non-empty)."""
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def timed_request(
    conn: http.client.HTTPConnection,
    method: str,
    path: str,
    *,
    headers: dict[str, str],
    body: str | None = None,
) -> tuple[float, bytes]:
    """One request on ``conn``: (milliseconds from sending it to reading the whole answer,
    the answer's body); anything but 200 raises."""
    t = time.perf_counter()
    conn.request(method, path, body=body, headers=headers)
    resp = conn.getresponse()
    data = resp.read()
    elapsed = (time.perf_counter() - t) * 1000
    if resp.status != 200:
        raise RuntimeError(f"HTTP {resp.status}: {data[:300]!r}")
    return elapsed, data
