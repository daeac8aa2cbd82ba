"""Two ~200 KB documents uploaded through the console at once, under ``run_console``:
how long each ingest job takes, and whether any supervised process died meanwhile.

    .venv/bin/python bench/console_uploads.py
    .venv/bin/python bench/console_uploads.py --kb 200 --timeout 1800

Starts ``manage.py run_console`` (gunicorn, a Celery worker and beat, supervised) on the
embedded defaults, signs the demo admin in, builds two documents of ``--kb`` KB each
from real prose (``../shared/train/prose.jsonl``, different documents for each), and
posts both to ``/ingest/`` from two threads at the same moment. It then follows both jobs
(``GET /connect/v1/ingest-jobs/<id>`` with an API key) until they end. Stops the console
(and with it the embedded PostgreSQL) at the end: run it when no tests use the cluster.

Prints one JSON object: per job its status, seconds from upload to the end, claims and
errors; the supervisor's log lines about a child that stopped or restarted (none when
nothing died); and whether ``/healthz`` answered every poll.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import requests

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # this checkout's packages

from bench._common import ROOT, free_port, manage, print_json, sign_in, wait_until_healthy

PROSE = ROOT.parent / "shared" / "train" / "prose.jsonl"
DEMO_PASSWORD = "spanproof-demo"


def _documents(kb: int) -> list[str]:
    """Two documents of about ``kb`` KB, each from different real documents."""
    docs: list[list[str]] = [[], []]
    sizes = [0, 0]
    with PROSE.open() as lines:
        for n, line in enumerate(lines):
            target = n % 2
            if sizes[target] >= kb * 1000:
                if all(size >= kb * 1000 for size in sizes):
                    break
                continue
            text = " ".join(json.loads(line)["sentences"])
            docs[target].append(text)
            sizes[target] += len(text.encode())
    return ["\n\n".join(doc) for doc in docs]


def _upload(base: str, session: requests.Session, name: str, text: str, out: dict) -> None:
    page = session.get(f"{base}/ingest/", timeout=30)
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text)
    assert token is not None
    out["started"] = time.monotonic()
    response = session.post(
        f"{base}/ingest/",
        data={"csrfmiddlewaretoken": token[1], "format": "text", "label": name},
        files={"files": (f"{name}.txt", text.encode(), "text/plain")},
        headers={"Referer": f"{base}/ingest/"},
        allow_redirects=False,
        timeout=300,
    )
    found = re.search(r"/ingest/jobs/(\d+)/", response.headers.get("Location", ""))
    out["status_code"] = response.status_code
    out["job"] = int(found[1]) if found else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kb", type=int, default=200)
    parser.add_argument("--timeout", type=float, default=1800.0)
    args = parser.parse_args()

    port = free_port()
    base = f"http://127.0.0.1:{port}"
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    log_path = ROOT / "var" / "bench-console-uploads.log"
    log = log_path.open("wb")
    console = subprocess.Popen(
        [sys.executable, "manage.py", "run_console", "--addr", f"127.0.0.1:{port}"],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    health: list[Any] = []
    stop = threading.Event()
    try:
        wait_until_healthy(
            base,
            console,
            timeout=600,
            interval=0.5,
            failure=f"the console did not start: see {log_path}",
        )
        create_key = ["create_api_key", "--workspace", "demo", "--name", "bench-uploads"]
        key = manage(*create_key, "--scope", "read", env=env).strip()

        def poll_health() -> None:
            while not stop.is_set():
                try:
                    health.append(requests.get(f"{base}/healthz", timeout=30).status_code)
                except requests.RequestException as exc:
                    health.append(type(exc).__name__)
                time.sleep(1.0)

        threading.Thread(target=poll_health, daemon=True).start()
        documents = _documents(args.kb)
        uploads = [{"bytes": len(doc.encode())} for doc in documents]
        threads = [
            threading.Thread(
                target=_upload,
                args=(base, sign_in(base, "admin", DEMO_PASSWORD), f"bench-{i}", doc, uploads[i]),
            )
            for i, doc in enumerate(documents)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        api = requests.Session()
        api.headers["Authorization"] = f"Bearer {key}"
        pending = {u["job"]: u for u in uploads if u.get("job")}
        end = time.monotonic() + args.timeout
        while pending and time.monotonic() < end:
            for job_id, upload in list(pending.items()):
                body = api.get(f"{base}/connect/v1/ingest-jobs/{job_id}", timeout=30).json()
                if body.get("status") not in ("queued", "running"):
                    upload["seconds"] = round(time.monotonic() - upload["started"], 1)
                    upload["status"] = body.get("status")
                    upload["errors"] = len(body.get("errors") or [])
                    upload["progress"] = body.get("progress")
                    del pending[job_id]
            time.sleep(1.0)
    finally:
        stop.set()
        if console.poll() is None:
            os.killpg(console.pid, signal.SIGTERM)
            console.wait(timeout=120)
        log.close()
    text = log_path.read_text(errors="replace")
    print_json(
        {
            "uploads": [{k: v for k, v in u.items() if k != "started"} for u in uploads],
            "supervisor_stopped_lines": re.findall(r".*stopped: .*", text),
            "healthz_polls": len(health),
            "healthz_not_200": [h for h in health if h != 200],
        }
    )


if __name__ == "__main__":
    main()
