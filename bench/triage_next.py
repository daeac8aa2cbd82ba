"""Keyboard triage benchmark: keypress to the next item (``j``) on the demo data.

    .venv/bin/python bench/triage_next.py              # loads the demo workspace once
    .venv/bin/python bench/triage_next.py --rounds 60 --label after

Runs on its own database (``spanproof_bench_triage`` in the embedded cluster unless
``DATABASE_URL`` says otherwise). Each round is the htmx POST the ``j`` key sends
(skip the current item, lease and render the next one) through Django's test client
with the full middleware. Prints JSON: server time p50/p95 and the queries per
keypress. Target: p95 <= 150 ms.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # this checkout's packages

from bench._common import django_setup, percentile, print_json

BENCH_DB = "spanproof_bench_triage"
TARGET_MS = 150.0
HX = {"HTTP_HX_REQUEST": "true", "HTTP_HX_TARGET": "review-item"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--label", default="")
    args = parser.parse_args()

    django_setup(BENCH_DB)
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    from review.models import ReviewLease
    from verifier.demo.loader import DEMO_USERS, load_demo

    call_command("migrate", verbosity=0, interactive=False)
    load_demo()
    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "testserver"]
    settings.DEBUG = False
    name = next(n for n, role in DEMO_USERS if role == "reviewer")
    user = get_user_model().objects.get(username=name)
    client = Client()
    client.force_login(user)

    def start() -> str:
        location = client.post("/review/start/")["Location"]
        return location.split("/item/")[1].split("/")[0]

    public_id = start()
    times, queries = [], []
    for i in range(args.rounds + 3):
        with CaptureQueriesContext(connection) as captured:
            started = time.perf_counter()
            response = client.post(f"/review/item/{public_id}/skip/", **HX)
            elapsed = (time.perf_counter() - started) * 1000
        assert response.status_code == 200, response.status_code
        pushed = response["HX-Push-Url"]
        if "/item/" not in pushed:  # went through the whole queue: start again
            public_id = start()
            continue
        public_id = pushed.split("/item/")[1].split("/")[0]
        if i >= 3:  # warm-up
            times.append(elapsed)
            queries.append(len(captured))
    ReviewLease.objects.filter(reviewer=user).delete()
    p95 = percentile(times, 0.95)
    print_json(
        {
            "benchmark": "triage_next_item",
            "label": args.label,
            "rounds": len(times),
            "server_ms_p50": round(statistics.median(times), 1),
            "server_ms_p95": round(p95, 1),
            "queries_per_keypress": max(queries),
            "target_ms": TARGET_MS,
            "meets_target": p95 <= TARGET_MS,
            "note": "query timing adds a little (CaptureQueriesContext is on)",
            "load_average_1m": round(os.getloadavg()[0], 2),
            "cpus": os.cpu_count(),
        }
    )


if __name__ == "__main__":
    main()
