# ruff: noqa: E501  (the attempts below are a table: one attempt a line)
"""Replays issue 39's input attempts against a live console: NUL bytes and lone
surrogates (API choice fields, metadata keys and values, path parameters, a cursor,
console query strings, the workspace switch, exports), JSON nested 100,000 deep (API
bodies and console forms), chunked request bodies, and a run of invalid API keys.

    .venv/bin/python bench/probe_inputs.py                 # starts its own server
    .venv/bin/python bench/probe_inputs.py --base http://127.0.0.1:8000 --api-key KEY

Without ``--base`` it starts the console as ``make run`` does (``migrate``, ``load_demo``,
gunicorn with ``verifier.web_server.gunicorn_command``; no worker: nothing here needs
one) on the embedded defaults, creates an admin API key for the demo workspace and signs
the demo admin in. With ``--base`` it probes a running console (``--api-key`` an admin
key of the demo workspace, ``--password`` the demo admin's).

Each attempt says what it expects: ``refused`` (a 4xx, JSON for the API), ``served``
(a 2xx: a chunked body read whole) or ``throttled`` (a 429 among the answers). Prints
one JSON object: every attempt with its status and whether it held, and the totals.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import requests

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # this checkout's packages

from bench._common import ROOT, free_port, manage, print_json, sign_in, wait_until_healthy
from verifier.web_server import gunicorn_command

DEEP = "[" * 100_000
NUL, SURROGATE = "\x00", "\ud800"
DEMO_PASSWORD = "spanproof-demo"


@dataclass
class Attempt:
    name: str
    expect: str  # refused | served | throttled
    send: Callable[[], list[requests.Response]]
    api: bool = True


def attempts(base: str, api_key: str, console: requests.Session) -> list[Attempt]:
    api = requests.Session()
    api.headers["Authorization"] = f"Bearer {api_key}"

    def post_json(path: str, body: Any) -> Callable[[], list[requests.Response]]:
        data = body if isinstance(body, str) else json.dumps(body)  # \\ud800 escaped
        return lambda: [
            api.post(
                base + path, data=data, headers={"Content-Type": "application/json"}, timeout=60
            )
        ]

    def get(path: str, session: requests.Session = api) -> Callable[[], list[requests.Response]]:
        return lambda: [session.get(base + path, timeout=60)]

    def form(path: str, fields: dict[str, str]) -> Callable[[], list[requests.Response]]:
        def send() -> list[requests.Response]:
            token = console.cookies.get("csrftoken", "")
            data = {**fields, "csrfmiddlewaretoken": token}
            return [
                console.post(
                    base + path,
                    data=data,
                    headers={"Referer": base + path},
                    allow_redirects=False,
                    timeout=60,
                )
            ]

        return send

    def chunked(path: str, body: dict[str, Any]) -> Callable[[], list[requests.Response]]:
        raw = json.dumps(body).encode()

        def pieces() -> Iterator[bytes]:
            yield raw[:7]
            yield raw[7:]

        return lambda: [
            api.post(
                base + path,
                data=pieces(),
                headers={"Content-Type": "application/json"},
                timeout=60,
            )
        ]

    def wrong_keys() -> list[requests.Response]:
        return [
            requests.get(
                f"{base}/connect/v1/workspace",
                headers={"Authorization": f"Bearer sp_probe_wrong_{i:03d}"},
                timeout=30,
            )
            for i in range(60)
        ]

    cursor = base64.b64encode(b"p=\x00").decode()
    out: list[Attempt] = []
    for label, bad in (("NUL", NUL), ("surrogate", SURROGATE)):
        out += [
            Attempt(f"retrieve depth {label}", "refused", post_json("/connect/v1/retrieve", {"query": "delta", "depth": bad})),
            Attempt(f"graph operation {label}", "refused", post_json("/connect/v1/graph", {"operation": bad, "query": "delta"})),
            Attempt(f"ingest-jobs format {label}", "refused", post_json("/connect/v1/ingest-jobs", {"sources": [{"ref": "source:p", "text": "T.", "format": bad}]})),
            Attempt(f"ingest-jobs legacy_verdict {label}", "refused", post_json("/connect/v1/ingest-jobs", {"claims": [{"source_ref": "source:p", "text": "T.", "legacy_verdict": bad}]})),
            Attempt(f"webhooks events {label}", "refused", post_json("/connect/v1/webhooks", {"url": "https://hooks.example/x", "secret": "s" * 16, "events": [bad]})),
            Attempt(f"claims/verify metadata key {label}", "refused", post_json("/connect/v1/claims/verify", {"claims": [{"text": "T.", "source": "source:p", "metadata": {bad: 1}}]})),
            Attempt(f"claims/verify metadata value {label}", "refused", post_json("/connect/v1/claims/verify", {"claims": [{"text": "T.", "source": "source:p", "metadata": {"k": bad}}]})),
        ]  # fmt: skip
    out += [
        Attempt("GET /connect/v1/claims/%00", "refused", get("/connect/v1/claims/%00")),
        Attempt("GET /connect/v1/sources/source:%00", "refused", get("/connect/v1/sources/source:%00")),
        Attempt("GET /connect/v1/traces/%00/export", "refused", get("/connect/v1/traces/%00/export")),
        Attempt("claims cursor decoding to NUL", "refused", get(f"/connect/v1/claims?cursor={cursor}")),
        Attempt("claims ?state=%00", "refused", get("/connect/v1/claims?state=%00")),
        Attempt("claims ?source=%00", "refused", get("/connect/v1/claims?source=%00")),
        Attempt("retrieve body '[' x 100000", "refused", post_json("/connect/v1/retrieve", DEEP)),
        Attempt("rag/audit chunks '[' x 100000", "refused", post_json("/connect/v1/rag/audit", {"answer": "The delta grows.", "chunks": DEEP})),
        Attempt("memory/verify transcript '[' x 100000", "refused", post_json("/connect/v1/memory/verify", {"agent": "a", "message": "I said so.", "transcript": DEEP})),
        Attempt("chunked POST /connect/v1/retrieve", "served", chunked("/connect/v1/retrieve", {"query": "Where does sediment settle?"})),
        Attempt("chunked POST /connect/v1/sources", "served", chunked("/connect/v1/sources", {"ref": f"source:chunked-{time.time_ns()}", "text": "Sent in chunks."})),
        Attempt("60 invalid API keys from one address", "throttled", wrong_keys),
        Attempt("console /audit/claims/?q=%00", "refused", get("/audit/claims/?q=%00", console), api=False),
        Attempt("console /audit/claims/?state=%00", "refused", get("/audit/claims/?state=%00", console), api=False),
        Attempt("console /audit/claims/?source=%00", "refused", get("/audit/claims/?source=%00", console), api=False),
        Attempt("console /review/?q=%00", "refused", get("/review/?q=%00", console), api=False),
        Attempt("console /review/item/%00/", "refused", get("/review/item/%00/", console), api=False),
        Attempt("console export.csv?q=%00", "refused", get("/audit/claims/export.csv?q=%00", console), api=False),
        Attempt("console export.jsonl?state=%00", "refused", get("/audit/claims/export.jsonl?state=%00", console), api=False),
        Attempt("console workspace switch NUL", "refused", form("/workspace/switch", {"workspace": NUL}), api=False),
        Attempt("console RAG audit chunks '[' x 100000", "refused", form("/audit/rag/", {"answer": "The delta grows.", "chunks": DEEP}), api=False),
        Attempt("console memory transcript '[' x 100000", "refused", form("/audit/memory/", {"agent": "a", "message": "I said so.", "transcript": DEEP}), api=False),
    ]  # fmt: skip
    return out


def _judge(attempt: Attempt, responses: list[requests.Response]) -> tuple[bool, Any]:
    statuses = [r.status_code for r in responses]
    if attempt.expect == "throttled":
        return 429 in statuses and all(s in (401, 429) for s in statuses), {
            str(s): statuses.count(s) for s in sorted(set(statuses))
        }
    (response,) = responses
    status = response.status_code
    if attempt.expect == "served":
        return 200 <= status < 300, status
    json_body = response.headers.get("Content-Type", "").startswith("application/json")
    held = 400 <= status < 500 and (json_body or not attempt.api)
    return held, status


def run(base: str, api_key: str, password: str) -> dict[str, Any]:
    console = sign_in(base, "admin", password)
    console.get(f"{base}/", timeout=10)  # the CSRF cookie
    results = []
    for attempt in attempts(base, api_key, console):
        try:
            held, status = _judge(attempt, attempt.send())
        except requests.RequestException as exc:
            held, status = False, type(exc).__name__
        results.append(
            {"attempt": attempt.name, "expect": attempt.expect, "status": status, "held": held}
        )
    return {
        "attempts": len(results),
        "held": sum(r["held"] for r in results),
        "failed": [r["attempt"] for r in results if not r["held"]],
        "results": results,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", help="a running console; default: start one")
    parser.add_argument("--api-key", help="an admin API key of the demo workspace")
    parser.add_argument("--password", default=DEMO_PASSWORD)
    args = parser.parse_args()
    if args.base:
        if not args.api_key:
            raise SystemExit("--base needs --api-key")
        print_json(run(args.base, args.api_key, args.password))
        return

    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    manage("migrate", "--verbosity", "0", env=env)
    manage("load_demo", env=env)
    api_key = manage(
        "create_api_key", "--workspace", "demo", "--name", "probe", "--scope", "admin", env=env
    ).strip()
    base = f"http://127.0.0.1:{free_port()}"
    command = gunicorn_command(
        python=sys.executable, addr=base.removeprefix("http://"), workers=2, threads=4
    )
    command[command.index("--access-logfile") + 1] = "/dev/null"
    server = subprocess.Popen(command, cwd=ROOT, env=env)
    try:
        wait_until_healthy(base, server, timeout=180, statuses=(200, 503))
        print_json(run(base, api_key, args.password))
    finally:
        server.terminate()
        server.wait(timeout=30)


if __name__ == "__main__":
    main()
