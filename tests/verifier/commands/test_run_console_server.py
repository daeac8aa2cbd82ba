"""``make run`` serves through gunicorn (static files by WhiteNoise), not runserver."""

from __future__ import annotations

import http.client
import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from urllib.parse import quote

import pytest
from django.conf import settings
from django.db import connection
from gunicorn.workers.gthread import ThreadWorker

from verifier import gunicorn_hooks
from verifier.web_server import gunicorn_command


def test_run_console_starts_gunicorn_with_threads() -> None:
    argv = gunicorn_command(python="/py", addr="127.0.0.1:8123", workers=3, threads=5)
    assert argv[:4] == ["/py", "-m", "gunicorn", "config.wsgi:application"]
    assert argv[argv.index("--bind") + 1] == "127.0.0.1:8123"
    assert argv[argv.index("--workers") + 1] == "3"
    assert argv[argv.index("--threads") + 1] == "5"
    # the worker class is the config module's (one place, which a gunicorn of one's own
    # reads with --config too): gthread, answering a too-large request with JSON
    assert "--worker-class" not in argv
    assert gunicorn_hooks.worker_class == "verifier.gunicorn_hooks.ThreadWorker"
    assert issubclass(gunicorn_hooks.ThreadWorker, ThreadWorker)  # gthread
    assert "runserver" not in argv


def test_run_console_source_no_longer_uses_runserver() -> None:
    source = (settings.BASE_DIR / "verifier/management/commands/run_console.py").read_text()
    assert "runserver" not in source
    assert "gunicorn_command(" in source


def test_gunicorn_command_rejects_zero_workers() -> None:
    with pytest.raises(ValueError):
        gunicorn_command(python="/py", addr="127.0.0.1:1", workers=0, threads=1)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _get(url: str) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


@pytest.mark.django_db(transaction=True)
def test_gunicorn_serves_healthz_and_static_files() -> None:
    db = connection.settings_dict
    env = {
        **os.environ,
        # The child serves this test's database.
        "DATABASE_URL": (
            f"postgresql://{db['USER']}:{db['PASSWORD'] or ''}@{quote(db['HOST'], safe='')}"
            f":{db['PORT'] or 5432}"
            f"/{db['NAME']}"
        ),
        "DJANGO_SECRET_KEY": "test-only-" + "x" * 40,
    }
    addr = f"127.0.0.1:{_free_port()}"
    server = subprocess.Popen(
        gunicorn_command(python=sys.executable, addr=addr, workers=1, threads=2),
        cwd=settings.BASE_DIR,
        env=env,
    )
    try:
        deadline = time.monotonic() + 60
        status = None
        while time.monotonic() < deadline and server.poll() is None:
            try:
                status, body = _get(f"http://{addr}/healthz")
                break
            except OSError:
                time.sleep(0.2)
        assert status == 200, body
        status, css = _get(f"http://{addr}/static/css/console.css")
        assert status == 200
        assert css == (settings.BASE_DIR / "static/css/console.css").read_bytes()
        _assert_too_large_requests_get_the_json_error_body(addr)
    finally:
        server.terminate()
        server.wait(timeout=20)


def _ask(addr: str, path: str, headers: dict[str, str]) -> tuple[int, str, dict]:
    host, port = addr.split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=10)
    try:
        conn.request("GET", path, headers=headers)
        response = conn.getresponse()
        assert response.getheader("X-Request-ID")
        return response.status, response.getheader("Content-Type", ""), json.loads(response.read())
    finally:
        conn.close()


def _assert_too_large_requests_get_the_json_error_body(addr: str) -> None:
    """What gunicorn refuses before the app sees it — a request line over its limit, a
    header over its limit — is answered with the API's JSON error body, not gunicorn's
    HTML page (``verifier.gunicorn_hooks.ThreadWorker``)."""
    over = gunicorn_hooks.limit_request_line + 10
    for path in ("/connect/v1/claims/" + "c" * over, "/review/?q=" + "x" * over):
        status, kind, body = _ask(addr, path, {"Authorization": "Bearer nothing"})
        assert (status, kind) == (414, "application/json"), body
        assert body["error"]["code"] == "uri_too_long"
        assert body["error"]["details"]["field"] == "path"
    big = {"X-Big": "y" * (gunicorn_hooks.limit_request_field_size + 10)}
    status, kind, body = _ask(addr, "/worker/verify", big)
    assert (status, kind) == (431, "application/json"), body
    assert set(body["error"]) == {"code", "message", "details"}
    assert body["error"]["code"] == "request_header_fields_too_large"


def test_workers_load_the_hooks_module() -> None:
    argv = gunicorn_command(python="/py", addr="127.0.0.1:1", workers=1, threads=1)
    assert argv[argv.index("--config") + 1] == "python:verifier.gunicorn_hooks"


def test_post_worker_init_warms_the_embedder_and_freezes_the_heap(monkeypatch) -> None:
    """After the hook, the objects alive then are out of the collector's reach (a full
    collection no longer walks them), and the query embedder has been asked once."""
    import gc

    from verifier import embeddings, gunicorn_hooks

    asked: list[str] = []
    monkeypatch.setattr(embeddings, "embed_text", lambda text: asked.append(text))
    assert gc.get_freeze_count() == 0
    threshold = gc.get_threshold()
    try:
        gunicorn_hooks.post_worker_init(worker=None)
        assert asked == [gunicorn_hooks.WARM_UP_TEXT]
        assert gc.get_freeze_count() > 10_000
        # The first generation is collected less often; the older ones as before.
        assert gc.get_threshold() == (gunicorn_hooks.GC_GEN0_THRESHOLD, *threshold[1:])
        assert threshold[0] < gunicorn_hooks.GC_GEN0_THRESHOLD
    finally:
        gc.unfreeze()
        gc.set_threshold(*threshold)


def test_a_worker_starts_without_its_embedder(monkeypatch, caplog) -> None:
    import gc

    from verifier import embeddings, gunicorn_hooks

    def unavailable(text: str) -> None:
        raise embeddings.EmbeddingUnavailable("no model here")

    monkeypatch.setattr(embeddings, "embed_text", unavailable)
    threshold = gc.get_threshold()
    try:
        gunicorn_hooks.post_worker_init(worker=None)
    finally:
        gc.unfreeze()
        gc.set_threshold(*threshold)
    assert "no model here" in caplog.text
