"""The embedded broker: kombu's filesystem transport as shipped, the atomic one Spanproof
uses (``config/filesystem_broker.py``), and kombu's SQLAlchemy transport on the embedded
PostgreSQL — measured on the same three loads.

    .venv/bin/python bench/broker.py
    .venv/bin/python bench/broker.py --small 1000 --large-mb 5 --producers 2

1. ``small``: one process publishes ``--small`` messages of 100 bytes, then one process
   drains them: seconds for each, messages per second.
2. ``large``: one message of ``--large-mb`` MB, put then got: seconds for each.
3. ``concurrent``: ``--producers`` processes each publish ``--mixed-small`` small and
   ``--mixed-large`` messages of ``--mixed-large-mb`` MB, interleaved, while one consumer
   process drains: wall seconds, and what the consumer saw — messages received once,
   missing, received twice, and errors raised by ``get`` (kombu issue #1551's half-read
   files show up there as ``JSONDecodeError``).

The SQLAlchemy leg runs in a database of its own (``spanproof_broker_bench``, created as
the owner role in the embedded cluster and dropped afterwards) and needs ``sqlalchemy``
installed; without it that leg reports why it was skipped. Prints one JSON object.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import shutil
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # this checkout's packages

from bench._common import django_setup, print_json

BENCH_DATABASE = "spanproof_broker_bench"
GET_TIMEOUT_S = 0.05


def _filesystem_spec(transport: str, root: Path) -> dict[str, Any]:
    folders = {name: root / name for name in ("in", "processed", "control")}
    for folder in folders.values():
        folder.mkdir(parents=True, exist_ok=True)
    return {
        "url": "filesystem://",
        "transport": transport,
        "options": {
            "data_folder_in": str(folders["in"]),
            "data_folder_out": str(folders["in"]),
            "processed_folder": str(folders["processed"]),
            "store_processed": False,
            "control_folder": str(folders["control"]),
            "polling_interval": 0.05,
        },
    }


def _connection(spec: dict[str, Any]) -> Any:
    from kombu import Connection

    return Connection(
        spec["url"], transport=spec.get("transport"), transport_options=spec["options"]
    )


def _payload(tag: str, size: int) -> dict[str, Any]:
    return {"id": tag, "pad": "x" * size}


def produce(spec: dict[str, Any], queue: str, plan: list[tuple[str, int]], out: Any) -> None:
    started = time.perf_counter()
    with _connection(spec) as conn:
        simple = conn.SimpleQueue(queue)
        for tag, size in plan:
            simple.put(_payload(tag, size))
        simple.close()
    out.put({"produced": len(plan), "seconds": time.perf_counter() - started})


def consume(spec: dict[str, Any], queue: str, expected: int, timeout: float, out: Any) -> None:
    seen: dict[str, int] = {}
    errors: dict[str, int] = {}
    started = time.perf_counter()
    deadline = time.monotonic() + timeout
    with _connection(spec) as conn:
        simple = conn.SimpleQueue(queue)
        while len(seen) < expected and time.monotonic() < deadline:
            try:
                message = simple.get(block=True, timeout=GET_TIMEOUT_S)
            except simple.Empty:
                continue
            except Exception as exc:  # what a worker would die of
                name = type(exc).__name__
                errors[name] = errors.get(name, 0) + 1
                continue
            tag = message.payload["id"]
            seen[tag] = seen.get(tag, 0) + 1
            message.ack()
        # anything still arriving (a duplicate) within a short grace period
        grace = time.monotonic() + 1.0
        while time.monotonic() < grace:
            try:
                message = simple.get(block=True, timeout=GET_TIMEOUT_S)
            except simple.Empty:
                continue
            except Exception as exc:
                errors[type(exc).__name__] = errors.get(type(exc).__name__, 0) + 1
                continue
            tag = message.payload["id"]
            seen[tag] = seen.get(tag, 0) + 1
            message.ack()
        simple.close()
    out.put(
        {
            "seconds": time.perf_counter() - started,
            "seen": seen,
            "errors": errors,
        }
    )


def _run(target: Any, *args: Any) -> tuple[mp.Process, Any]:
    out: Any = mp.get_context("spawn").Queue()
    process = mp.get_context("spawn").Process(target=target, args=(*args, out))
    process.start()
    return process, out


def _result(process: mp.Process, out: Any, timeout: float) -> dict[str, Any]:
    try:
        result = out.get(timeout=timeout)
    except Exception:
        result = {"error": "no result (the process died or timed out)"}
    process.join(timeout=10)
    if process.is_alive():
        process.kill()
    return dict(result)


def leg_small(spec: dict[str, Any], n: int) -> dict[str, Any]:
    queue = f"bench-small-{uuid.uuid4().hex[:8]}"
    producer = _run(produce, spec, queue, [(f"s{i}", 100) for i in range(n)])
    put = _result(*producer, timeout=600)
    consumer = _run(consume, spec, queue, n, 600.0)
    got = _result(*consumer, timeout=660)
    received = len(got.get("seen", {}))
    return {
        "messages": n,
        "put_seconds": round(put.get("seconds", 0.0), 3),
        "get_seconds": round(got.get("seconds", 0.0), 3),
        "put_per_second": round(n / put["seconds"]) if put.get("seconds") else None,
        "get_per_second": round(received / got["seconds"]) if got.get("seconds") else None,
        "received": received,
        "errors": got.get("errors"),
    }


def leg_large(spec: dict[str, Any], megabytes: float) -> dict[str, Any]:
    queue = f"bench-large-{uuid.uuid4().hex[:8]}"
    size = int(megabytes * 1_000_000)
    producer = _run(produce, spec, queue, [("big", size)])
    put = _result(*producer, timeout=600)
    consumer = _run(consume, spec, queue, 1, 300.0)
    got = _result(*consumer, timeout=360)
    return {
        "bytes": size,
        "put_seconds": round(put.get("seconds", 0.0), 3),
        "get_seconds": round(got.get("seconds", 0.0), 3),
        "received": len(got.get("seen", {})),
        "errors": got.get("errors"),
    }


def leg_concurrent(
    spec: dict[str, Any], producers: int, small: int, large: int, large_mb: float
) -> dict[str, Any]:
    queue = f"bench-mixed-{uuid.uuid4().hex[:8]}"
    size = int(large_mb * 1_000_000)
    plans = []
    for p in range(producers):
        plan = [(f"p{p}-s{i}", 100) for i in range(small)]
        for j in range(large):  # spread the large ones among the small ones
            plan.insert((j + 1) * len(plan) // (large + 1), (f"p{p}-l{j}", size))
        plans.append(plan)
    expected = {tag for plan in plans for tag, _ in plan}
    started = time.perf_counter()
    consumer = _run(consume, spec, queue, len(expected), 120.0)
    time.sleep(0.5)  # the consumer is polling before the first message arrives
    running = [_run(produce, spec, queue, plan) for plan in plans]
    for process, out in running:
        _result(process, out, timeout=600)
    got = _result(*consumer, timeout=660)
    seen: dict[str, int] = got.get("seen", {})
    return {
        "producers": producers,
        "messages": len(expected),
        "wall_seconds": round(time.perf_counter() - started, 3),
        "received_once": sum(1 for tag in expected if seen.get(tag) == 1),
        "missing": sum(1 for tag in expected if tag not in seen),
        "received_twice_or_more": sum(1 for n in seen.values() if n > 1),
        "errors": got.get("errors"),
        "consumer_alive_to_the_end": "error" not in got,
    }


def _sqlalchemy_spec() -> tuple[dict[str, Any] | None, str]:
    try:
        import sqlalchemy  # noqa: F401
    except ImportError:
        return None, "sqlalchemy is not installed (pip install sqlalchemy)"
    django_setup()
    import psycopg
    from django.conf import settings

    if not settings.EMBEDDED_POSTGRES:
        return None, "runs on the embedded PostgreSQL only"
    db = settings.DATABASES["default"]
    owner = settings.DATABASE_OWNER["USER"]
    with psycopg.connect(
        host=db["HOST"], port=db["PORT"] or 5432, user=owner, dbname=db["NAME"], autocommit=True
    ) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {BENCH_DATABASE}")
        conn.execute(f"CREATE DATABASE {BENCH_DATABASE}")
    url = (
        f"sqla+postgresql+psycopg://{owner}@/{BENCH_DATABASE}"
        f"?host={db['HOST']}&port={db['PORT'] or 5432}"
    )
    return {"url": url, "transport": None, "options": {}}, ""


def _drop_sqlalchemy_database() -> None:
    import psycopg
    from django.conf import settings

    db = settings.DATABASES["default"]
    with psycopg.connect(
        host=db["HOST"],
        port=db["PORT"] or 5432,
        user=settings.DATABASE_OWNER["USER"],
        dbname=db["NAME"],
        autocommit=True,
    ) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {BENCH_DATABASE} WITH (FORCE)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", type=int, default=1000)
    parser.add_argument("--large-mb", type=float, default=5.0)
    parser.add_argument("--producers", type=int, default=2)
    parser.add_argument("--mixed-small", type=int, default=300)
    parser.add_argument("--mixed-large", type=int, default=10)
    parser.add_argument("--mixed-large-mb", type=float, default=1.0)
    parser.add_argument("--only", choices=["kombu", "atomic", "sqlalchemy"], action="append")
    args = parser.parse_args()

    root = Path(tempfile.mkdtemp(prefix="spanproof-broker-bench-"))
    legs: dict[str, dict[str, Any] | None] = {
        "kombu": _filesystem_spec("kombu.transport.filesystem:Transport", root / "kombu"),
        "atomic": _filesystem_spec("config.filesystem_broker:Transport", root / "atomic"),
    }
    skipped: dict[str, str] = {}
    if not args.only or "sqlalchemy" in args.only:
        spec, why = _sqlalchemy_spec()
        legs["sqlalchemy"] = spec
        if spec is None:
            skipped["sqlalchemy"] = why
    names = {
        "kombu": "filesystem (kombu as shipped)",
        "atomic": "filesystem (atomic: config/filesystem_broker.py)",
        "sqlalchemy": "sqlalchemy (embedded PostgreSQL)",
    }
    report: dict[str, Any] = {"skipped": skipped}
    try:
        for leg, spec in legs.items():
            if spec is None or (args.only and leg not in args.only):
                continue
            report[names[leg]] = {
                "small": leg_small(spec, args.small),
                "large": leg_large(spec, args.large_mb),
                "concurrent": leg_concurrent(
                    spec, args.producers, args.mixed_small, args.mixed_large, args.mixed_large_mb
                ),
            }
    finally:
        shutil.rmtree(root, ignore_errors=True)
        if legs.get("sqlalchemy") is not None:
            _drop_sqlalchemy_database()
    print_json(report)


if __name__ == "__main__":
    main()
