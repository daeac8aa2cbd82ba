"""A request body sent with ``Transfer-Encoding: chunked`` (no Content-Length) is read,
not taken for an empty one (config/chunked_bodies.py); a server that cannot say where
such a body ends gets a 411 with the API's JSON error body."""

from __future__ import annotations

import http.client
import io
import json
import os
import subprocess
import sys
import time
from urllib.parse import quote

import pytest
from django.conf import settings
from django.core.signals import request_started
from django.db import close_old_connections, connection
from django.test import RequestFactory

from config.wsgi import application
from tests.factories import make_source
from tests.verifier.api.conftest import DELTA_TEXT, key_for
from tests.verifier.commands.test_run_console_server import _free_port
from verifier.web_server import gunicorn_command

QUERY = {"query": "Where does sediment settle?", "max_claims": 5}


def _chunked_environ(body: bytes, *, key: str, terminated: bool = True) -> dict:
    """What a WSGI server hands the app for a chunked POST: no CONTENT_LENGTH, the
    Transfer-Encoding header, the decoded body on ``wsgi.input``."""
    environ = dict(
        RequestFactory().post("/connect/v1/retrieve", b"", content_type="application/json").environ
    )
    environ.pop("CONTENT_LENGTH", None)
    environ["CONTENT_TYPE"] = "application/json"
    environ["HTTP_TRANSFER_ENCODING"] = "chunked"
    environ["HTTP_AUTHORIZATION"] = f"Bearer {key}"
    environ["wsgi.input"] = io.BytesIO(body)
    if terminated:
        environ["wsgi.input_terminated"] = True
    return environ


def _call(environ: dict) -> tuple[str, dict]:
    """The deployed WSGI application, called as a server would; like Django's test client
    it keeps the test's database connection open across the request."""
    answer: dict = {}

    def start_response(status, headers, exc_info=None):
        answer["status"], answer["headers"] = status, dict(headers)

    request_started.disconnect(close_old_connections)
    try:
        body = b"".join(application(environ, start_response))
    finally:
        request_started.connect(close_old_connections)
    return answer["status"], json.loads(body)


def test_a_chunked_body_is_read(workspace):
    make_source(workspace, ref="source:marrow_river", text=DELTA_TEXT)
    environ = _chunked_environ(json.dumps(QUERY).encode(), key=key_for(workspace, "read"))
    status, body = _call(environ)
    assert status.startswith("200"), body
    assert body["trace_id"]


def test_a_chunked_body_over_the_cap_is_payload_too_large(workspace, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 100
    body = json.dumps({**QUERY, "query": "x" * 500}).encode()
    status, answer = _call(_chunked_environ(body, key=key_for(workspace, "read")))
    assert status.startswith("400")
    assert answer["error"]["code"] == "payload_too_large"


def test_a_server_that_cannot_frame_a_chunked_body_gets_a_411(workspace):
    environ = _chunked_environ(b"{}", key=key_for(workspace, "read"), terminated=False)
    status, body = _call(environ)
    assert status.startswith("411")
    assert body["error"]["code"] == "length_required"


@pytest.mark.django_db(transaction=True)
def test_gunicorn_reads_a_chunked_retrieve(workspace):
    """End to end: gunicorn de-chunks, the app reads the whole body; a long path reaches
    the app (``verifier.gunicorn_hooks.limit_request_line``)."""
    make_source(workspace, ref="source:marrow_river", text=DELTA_TEXT)
    key = key_for(workspace, "read")
    db = connection.settings_dict
    env = {
        **os.environ,
        "DATABASE_URL": (
            f"postgresql://{db['USER']}:{db['PASSWORD'] or ''}@{quote(db['HOST'], safe='')}"
            f":{db['PORT'] or 5432}/{db['NAME']}"
        ),
        "DJANGO_SECRET_KEY": "test-only-" + "x" * 40,
    }
    port = _free_port()
    server = subprocess.Popen(
        gunicorn_command(python=sys.executable, addr=f"127.0.0.1:{port}", workers=1, threads=2),
        cwd=settings.BASE_DIR,
        env=env,
    )
    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
                body = json.dumps(QUERY).encode()
                conn.request(
                    "POST",
                    "/connect/v1/retrieve",
                    body=iter([body[:10], body[10:]]),
                    headers={"Authorization": f"Bearer {key}", "Content-Type": "application/json"},
                    encode_chunked=True,
                )
                response = conn.getresponse()
                break
            except OSError:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise
                time.sleep(0.3)
        answer = json.loads(response.read())
        assert response.status == 200, answer
        assert answer["trace_id"]
        # A path of 5,000 characters reaches the app (gunicorn's own limit would answer
        # 414 in plain text), which answers with its JSON error body.
        conn.request(
            "GET", "/connect/v1/claims/" + "c" * 5000, headers={"Authorization": f"Bearer {key}"}
        )
        long_path = conn.getresponse()
        assert long_path.status == 404
        assert json.loads(long_path.read())["error"]["code"]
    finally:
        server.terminate()
        server.wait(timeout=20)
