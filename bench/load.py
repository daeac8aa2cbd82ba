"""Load benchmark: concurrent clients against the console served the way ``make run`` does.

    .venv/bin/python bench/load.py                  # 8 clients, 30 s
    .venv/bin/python bench/load.py --clients 4 --duration 10

Starts the console itself on the embedded defaults: ``migrate``, ``load_demo`` and gunicorn
with the same command line ``make run`` uses (``verifier.web_server.gunicorn_command``; no
Celery worker: neither endpoint enqueues work). It then creates a ``read`` API key for the
demo workspace, signs the demo reviewer in through the login form, and runs ``--clients``
threads for ``--duration`` seconds, each alternating ``POST /connect/v1/retrieve`` (API key)
and ``GET /review/`` (reviewer session). A short warm-up (model loading in each worker) is
not measured.

The API's rate limits (600/min per key, 1200/min per address by default) would turn most of
this load into 429s, so the bench starts its server with ``SPANPROOF_API_RATE_PER_KEY`` and
``SPANPROOF_API_RATE_PER_IP`` empty (limits off) — for this server only.

Prints one JSON object: per endpoint requests, requests/s, p50/p95/max latency in ms and
errors (any status other than 200, or a failed connection), against the targets.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import requests

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # this checkout's packages

from bench._common import (
    ROOT,
    free_port,
    manage,
    percentile,
    print_json,
    sign_in,
    wait_until_healthy,
)
from verifier.web_server import gunicorn_command, web_threads, web_workers

TARGETS = {"errors": 0, "p95_ms": 250.0}
WARM_UP_ROUNDS = 3
READY_TIMEOUT_S = 120
QUERIES = (
    "Where does sediment settle in the delta?",
    "Who kept the light at Tarn Point?",
    "How long should sourdough ferment?",
    "How does HNSW trade recall for memory?",
    "What do salt marsh grasses trap?",
    "What does a levain need?",
)


class Recorder:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.latencies: dict[str, list[float]] = {"retrieve": [], "review_queue": []}
        self.errors: dict[str, dict[str, int]] = {"retrieve": {}, "review_queue": {}}

    def add(self, name: str, started: float, status: int | str) -> None:
        elapsed_ms = (time.perf_counter() - started) * 1000
        with self.lock:
            self.latencies[name].append(elapsed_ms)
            if status != 200:
                self.errors[name][str(status)] = self.errors[name].get(str(status), 0) + 1


def _client(
    index: int,
    base: str,
    api_key: str,
    cookies: dict[str, str],
    stop_at: float,
    recorder: Recorder | None,
    rounds: int | None = None,
) -> None:
    api = requests.Session()
    api.headers["Authorization"] = f"Bearer {api_key}"
    console = requests.Session()
    console.cookies.update(cookies)
    n = index
    done = 0
    while (rounds is None and time.perf_counter() < stop_at) or (
        rounds is not None and done < rounds
    ):
        for name in ("retrieve", "review_queue"):
            started = time.perf_counter()
            status: int | str
            try:
                if name == "retrieve":
                    body = {"query": QUERIES[n % len(QUERIES)], "max_claims": 10}
                    status = api.post(
                        f"{base}/connect/v1/retrieve", json=body, timeout=30
                    ).status_code
                else:
                    status = console.get(f"{base}/review/", timeout=30).status_code
            except requests.RequestException as exc:
                status = type(exc).__name__
            if recorder is not None:
                recorder.add(name, started, status)
            n += 1
        done += 1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--duration", type=float, default=30.0, help="seconds measured")
    parser.add_argument("--workers", type=int, default=web_workers())
    parser.add_argument("--threads", type=int, default=web_threads())
    args = parser.parse_args()

    env = {
        **os.environ,
        "PYTHONUNBUFFERED": "1",
        # Lift the API rate limits for this server only (see the module docstring).
        "SPANPROOF_API_RATE_PER_KEY": "",
        "SPANPROOF_API_RATE_PER_IP": "",
    }
    manage("migrate", "--verbosity", "0", env=env)
    manage("load_demo", env=env)
    api_key = manage(
        "create_api_key", "--workspace", "demo", "--name", "bench-load", "--scope", "read", env=env
    ).strip()

    base = f"http://127.0.0.1:{free_port()}"
    command = gunicorn_command(
        python=sys.executable,
        addr=base.removeprefix("http://"),
        workers=args.workers,
        threads=args.threads,
    )
    command[command.index("--access-logfile") + 1] = "/dev/null"
    server = subprocess.Popen(command, cwd=ROOT, env=env)
    try:
        wait_until_healthy(base, server, timeout=READY_TIMEOUT_S)
        password = manage(
            "shell",
            "-c",
            "from verifier.demo.loader import DEMO_PASSWORD; print(DEMO_PASSWORD)",
            env=env,
        ).splitlines()[-1]  # Django 5.2's shell prints its auto-imports first
        cookies = dict(sign_in(base, "reviewer", password).cookies)
        warm = [
            threading.Thread(
                target=_client, args=(i, base, api_key, cookies, 0.0, None, WARM_UP_ROUNDS)
            )
            for i in range(args.clients)
        ]
        for thread in warm:
            thread.start()
        for thread in warm:
            thread.join()

        recorder = Recorder()
        started = time.perf_counter()
        stop_at = started + args.duration
        threads = [
            threading.Thread(target=_client, args=(i, base, api_key, cookies, stop_at, recorder))
            for i in range(args.clients)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        elapsed = time.perf_counter() - started
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()

    endpoints = {}
    for name, latencies in recorder.latencies.items():
        errors = sum(recorder.errors[name].values())
        p95 = percentile(latencies, 0.95) if latencies else 0.0
        endpoints[name] = {
            "requests": len(latencies),
            "requests_per_s": round(len(latencies) / elapsed, 1),
            "p50_ms": round(percentile(latencies, 0.50) if latencies else 0.0, 1),
            "p95_ms": round(p95, 1),
            "max_ms": round(max(latencies, default=0.0), 1),
            "errors": errors,
            "errors_by_status": recorder.errors[name],
            "meets_target": errors <= TARGETS["errors"] and p95 <= TARGETS["p95_ms"],
        }
    print_json(
        {
            "bench": "load",
            "clients": args.clients,
            "duration_s": round(elapsed, 1),
            "server": {
                "gunicorn_workers": args.workers,
                "threads_per_worker": args.threads,
                "api_rate_limits": "off for this server",
            },
            "machine_cpus": os.cpu_count(),
            "targets": TARGETS,
            "total_requests_per_s": round(
                sum(len(v) for v in recorder.latencies.values()) / elapsed, 1
            ),
            "endpoints": endpoints,
        }
    )


if __name__ == "__main__":
    main()
