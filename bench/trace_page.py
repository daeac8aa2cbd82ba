"""The trace page at size: a 1,000-claim verification job's trace (1,000 claims considered,
1,000 spans) and a trace of 5,000 steps, their pages' HTML size and server time.

    .venv/bin/python bench/trace_page.py                  # seed once, then measure
    .venv/bin/python bench/trace_page.py --fresh          # rebuild the bench workspace
    .venv/bin/python bench/trace_page.py --label after --rounds 5

Runs on its own database (``spanproof_bench_trace_page`` in the embedded cluster unless
``DATABASE_URL`` says otherwise), migrated first. The verification trace is written by
the real path: ``CLAIMS`` claims (one sentence each of a ``CLAIMS``-sentence source,
quoted) submitted as one verification job and run with the configured judge (a few
minutes on 2 cores, once). The steps trace is ``STEP_GROUPS`` top-level steps of
``STEPS_PER_GROUP - 1`` children each (``STEPS`` in all), written by
``trace_door_record``. Requests go through Django's test client (full middleware,
session, templates) as an auditor.

Prints one JSON object. ``pages``: per page the median and largest server time (ms) over
``--rounds`` requests, the HTML size (bytes), the queries one request runs, and the rows
of each table it shows and the steps it lists
(``step-name``); the target is ``TARGET_BYTES`` each (a page of megabytes takes a browser
seconds to lay out). ``json_export``: the whole document as the page's link gives it.
"""

from __future__ import annotations

import os
import re
import statistics
import sys
import time
from pathlib import Path
from typing import Any, Final

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # this checkout's packages

from bench._common import page_bench_arguments, page_bench_database, print_json

BENCH_DB: Final = "spanproof_bench_trace_page"
WORKSPACE_SLUG: Final = "bench-trace-page"
AUDITOR: Final = "bench-trace-auditor"
SOURCE_REF: Final = "source:trace_bench"
CLAIMS: Final = 1_000
STEP_GROUPS: Final = 1_000
STEPS_PER_GROUP: Final = 5  # the group's own step and 4 children
STEPS: Final = STEP_GROUPS * STEPS_PER_GROUP
STEPS_QUERY: Final = f"bench: a trace of {STEPS:,} steps"
TARGET_BYTES: Final = 300_000
WORDS: Final = ("river", "delta", "sediment", "marsh", "tide", "channel", "levee", "silt")


def _sentence(n: int) -> str:
    words = " ".join(WORDS[(n * 7 + k) % len(WORDS)] for k in range(12))
    return f"Record {n} says the {words} settles near gauge {n * 13 % 997}."


def _seed(fresh: bool) -> dict[str, Any]:
    from django.contrib.auth import get_user_model
    from django.db import connection, transaction

    from verifier.models import Membership, Trace, Workspace
    from verifier.selectors.claim_verification import verification_job_trace_id
    from verifier.services.claim_verification import (
        ClaimSubmission,
        verification_job_create,
        verification_job_run,
    )
    from verifier.services.sources import source_upsert
    from verifier.services.traces import DoorTrace, TraceSteps, trace_door_record

    workspace = Workspace.objects.filter(slug=WORKSPACE_SLUG).first()
    if workspace is not None and not fresh:
        return {"reused": True}
    if workspace is not None:  # append-only triggers forbid DELETE: truncate
        with connection.cursor() as cursor:
            cursor.execute("TRUNCATE verifier_workspace CASCADE")
    user_model = get_user_model()
    sentences = [_sentence(n) for n in range(CLAIMS)]
    with transaction.atomic():
        workspace = Workspace.objects.create(slug=WORKSPACE_SLUG, name="Bench trace page")
        user = user_model.objects.filter(username=AUDITOR).first()
        user = user or user_model.objects.create_user(AUDITOR)
        Membership.objects.create(workspace=workspace, user=user, role="auditor")
        source_upsert(workspace=workspace, ref=SOURCE_REF, text=" ".join(sentences))
        job = verification_job_create(
            workspace=workspace,
            claims=[
                ClaimSubmission(text=f"Claim {n}: {s}", source=SOURCE_REF, quote=s)
                for n, s in enumerate(sentences)
            ],
            enqueue=False,
        )
    started = time.perf_counter()
    verification_job_run(job_id=job.pk)
    verify_s = time.perf_counter() - started
    assert Trace.objects.filter(trace_id=verification_job_trace_id(job_id=job.pk)).exists()

    steps = TraceSteps()
    for group in range(STEP_GROUPS):
        with steps.step(f"item {group + 1}", ref=f"source:item_{group}"):
            for name in ("read", "chunk", "embed", "bind"):
                with steps.step(name, chars=group * 10):
                    pass
    with transaction.atomic():
        trace_door_record(
            workspace=workspace,
            trace=DoorTrace(operation="claims_verify", query=STEPS_QUERY, caller=None),
            steps=steps,
        )
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    return {"reused": False, "verify_job_s": round(verify_s, 1)}


def _rows(html: str, heading_id: str) -> int:
    """The body rows of the table in the section headed ``heading_id``."""
    found = re.search(rf'aria-labelledby="{heading_id}".*?</table>', html, re.S)
    return found.group().count("<tr>") - 1 if found else 0  # less the header row


def _measure(client: Any, url: str, rounds: int) -> dict[str, Any]:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    client.get(url)  # warm-up
    times, html = [], ""
    for _ in range(rounds):
        started = time.perf_counter()
        response = client.get(url)
        times.append((time.perf_counter() - started) * 1000)
        assert response.status_code == 200, (url, response.status_code)
        html = response.content.decode()
    with CaptureQueriesContext(connection) as queries:
        client.get(url)
    size = len(html.encode())
    return {
        "url": url,
        "server_ms_p50": round(statistics.median(times), 1),
        "server_ms_max": round(max(times), 1),
        "html_bytes": size,
        "queries": len(queries),
        "span_rows": _rows(html, "spans-h"),
        "considered_rows": _rows(html, "considered-h"),
        "steps_listed": html.count('class="step-name"'),
        "inlines_whole_document": "&quot;trace_id&quot;:" in html or '"trace_id":' in html,
        "meets_target": size <= TARGET_BYTES,
    }


def main() -> None:
    args = page_bench_arguments(__doc__.splitlines()[0], rounds=5)
    data = page_bench_database(BENCH_DB, _seed, fresh=args.fresh)
    from django.contrib.auth import get_user_model
    from django.test import Client

    from verifier.models import Trace, TraceClaim

    traces = Trace.objects.filter(workspace__slug=WORKSPACE_SLUG)
    many_steps = traces.get(query=STEPS_QUERY)
    verification = traces.exclude(pk=many_steps.pk).get()
    auditor = Client()
    auditor.force_login(get_user_model().objects.get(username=AUDITOR))
    claims_url = f"/audit/traces/{verification.trace_id}/"
    steps_url = f"/audit/traces/{many_steps.trace_id}/"
    pages = {
        "verification_1000_claims": _measure(auditor, claims_url, args.rounds),
        "verification_1000_claims_last_pages": _measure(
            auditor, f"{claims_url}?claims_page=20&spans_page=20", args.rounds
        ),
        "steps_5000": _measure(auditor, steps_url, args.rounds),
        "steps_5000_last_page": _measure(auditor, f"{steps_url}?steps_page=100", args.rounds),
    }
    exports = {}
    for name, trace in (("verification_1000_claims", verification), ("steps_5000", many_steps)):
        url = f"/connect/v1/traces/{trace.trace_id}/export?format=json"
        started = time.perf_counter()
        response = auditor.get(url)
        exports[name] = {
            "url": url,
            "status": response.status_code,
            "ms": round((time.perf_counter() - started) * 1000, 1),
            "bytes": len(response.content),
        }
    print_json(
        {
            "benchmark": "trace_page",
            "label": args.label,
            "data": {
                **data,
                "considered": TraceClaim.objects.filter(trace=verification).count(),
                "spans": len(verification.document.get("spans") or []),
                "steps": STEPS,
            },
            "pages": pages,
            "json_export": exports,
            "target_bytes": TARGET_BYTES,
            "meets_target": all(page["meets_target"] for page in pages.values()),
            "load_average_1m": round(os.getloadavg()[0], 2),
            "cpus": os.cpu_count(),
        }
    )


if __name__ == "__main__":
    main()
