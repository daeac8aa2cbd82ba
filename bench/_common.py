"""What the benches share: the checkout they run from, a bench database on the embedded
cluster (or the ``DATABASE_URL`` given) and Django set up on it, a free port and a
server to wait for, ``manage.py`` and the console's sign-in for those that serve the
console, the percentile they report, one timed HTTP call, and their JSON output.

A bench puts this checkout first on ``sys.path`` (its packages, not an installed copy)
and imports from here::

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

    from bench._common import ROOT, django_setup, print_json
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import re
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Collection
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import requests

ROOT = Path(__file__).resolve().parent.parent
BENCH_SECRET_KEY = "bench-only-" + "x" * 50


def bench_database_url(name: str, *, fresh: bool = False) -> str:
    """``DATABASE_URL`` when set; else database ``name`` on the embedded cluster under
    ``var/pgdata`` (``$SPANPROOF_DATA/pgdata`` when set, as for the console; started if
    needed), created if missing — dropped first when ``fresh``."""
    if os.environ.get("DATABASE_URL"):
        return os.environ["DATABASE_URL"]
    from config.embedded_postgres import data_root, ensure_embedded_postgres

    info = ensure_embedded_postgres(data_root(ROOT) / "pgdata")
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


def django_setup(database: str | None = None, *, fresh: bool = False) -> None:
    """Django on this checkout's settings. With ``database``, on that bench database
    (:func:`bench_database_url`; a ``DATABASE_URL`` marks production, which needs a
    secret key: a bench-only one unless ``DJANGO_SECRET_KEY`` is set); without, on the
    embedded defaults."""
    if database is not None:
        os.environ["DATABASE_URL"] = bench_database_url(database, fresh=fresh)
        os.environ.setdefault("DJANGO_SECRET_KEY", BENCH_SECRET_KEY)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()


# Words the console benches fill their sources with (``record_sentences``).
FILLER_WORDS = [
    "river",
    "delta",
    "sediment",
    "marsh",
    "tide",
    "current",
    "basin",
    "levee",
    "channel",
    "estuary",
    "silt",
    "flood",
    "gauge",
    "station",
    "upstream",
    "survey",
    "dredging",
    "wetland",
    "salinity",
    "erosion",
    "shoreline",
    "plume",
]


def record_sentences(rng: random.Random, count: int, chars: int) -> list[str]:
    """``count`` distinct sentences of ``chars - 1`` characters or fewer and a full stop
    ("Record 7: silt tide levee ..."), for a bench's long source."""
    out = []
    for i in range(count):
        words = [f"Record {i}:"]
        while sum(len(w) + 1 for w in words) < chars:
            words.append(rng.choice(FILLER_WORDS))
        out.append(" ".join(words)[: chars - 1] + ".")
    return out


def page_bench_arguments(description: str, *, rounds: int) -> argparse.Namespace:
    """The command line of a bench that times console pages on data it builds once:
    ``--rounds``, ``--fresh`` (build the data again), ``--label`` (before / after)."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--rounds", type=int, default=rounds)
    parser.add_argument("--fresh", action="store_true", help="rebuild the bench data")
    parser.add_argument("--label", default="", help="a label for this run (before / after)")
    return parser.parse_args()


def page_bench_database(
    database: str, seed: Callable[[bool], dict[str, Any]], *, fresh: bool
) -> dict[str, Any]:
    """Django on the bench ``database``, migrated, with its data built by ``seed``
    (``fresh``: again; its answer gains ``seed_s``), and the test client let in
    (``testserver``, ``DEBUG`` off as in production)."""
    django_setup(database)
    from django.conf import settings
    from django.core.management import call_command

    call_command("migrate", verbosity=0, interactive=False)
    started = time.perf_counter()
    data = seed(fresh)
    data["seed_s"] = round(time.perf_counter() - started, 1)
    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "testserver"]
    settings.DEBUG = False
    return data


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


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_for_port(port: int, *, timeout: float) -> None:
    """Until something accepts connections on 127.0.0.1:``port``; RuntimeError after
    ``timeout`` seconds."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.2)
    raise RuntimeError("server did not start")


def wait_until_healthy(
    base: str,
    server: subprocess.Popen[bytes],
    *,
    timeout: float,
    statuses: Collection[int] = (200,),
    interval: float = 0.3,
    failure: str = "the console did not start",
) -> None:
    """Until ``GET {base}/healthz`` answers one of ``statuses`` (the first loads the
    embedding model: each try may take up to a minute); SystemExit with ``failure``
    when ``server`` exits first or ``timeout`` seconds pass."""
    import requests

    deadline = time.monotonic() + timeout
    while True:
        try:
            if requests.get(f"{base}/healthz", timeout=60).status_code in statuses:
                return
        except requests.RequestException:
            pass
        if time.monotonic() > deadline or server.poll() is not None:
            raise SystemExit(failure)
        time.sleep(interval)


def manage(*args: str, env: dict[str, str]) -> str:
    """``manage.py *args`` of this checkout in a child process; its standard output."""
    done = subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    return done.stdout


def sign_in(base: str, username: str, password: str) -> requests.Session:
    """A session signed in to the console at ``base`` through its login form."""
    import requests

    session = requests.Session()
    page = session.get(f"{base}/accounts/login/", timeout=10)
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text)
    if token is None:
        raise SystemExit("no CSRF token on the login page")
    response = session.post(
        f"{base}/accounts/login/",
        data={"username": username, "password": password, "csrfmiddlewaretoken": token[1]},
        headers={"Referer": f"{base}/accounts/login/"},
        allow_redirects=False,
        timeout=10,
    )
    if response.status_code != 302:
        raise SystemExit(f"sign-in of {username} failed: {response.status_code}")
    return session


def print_json(
    report: Any, *, indent: int = 2, default: Callable[[Any], Any] | None = None
) -> None:
    """The bench's result on standard output, one JSON document."""
    print(json.dumps(report, indent=indent, default=default))
