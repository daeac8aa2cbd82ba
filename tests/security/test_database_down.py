"""The database cannot be reached: the API answers a JSON 503 ``unavailable``, the console
a plain 503 page, and ``/healthz`` says which check failed without naming the socket,
host or user it tried."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test import Client

from tests.verifier.api.conftest import key_for

UNREACHABLE_HOST = "/nonexistent/spanproof-db-down"


@pytest.fixture
def database_down(transactional_db, workspace, reviewer):
    """Real requests against a database whose socket is gone: the connection is closed
    and pointed at a socket folder that does not exist, as when the server stopped."""
    key = key_for(workspace, "read")
    saved = dict(connection.settings_dict)
    connection.close()
    connection.settings_dict["HOST"] = UNREACHABLE_HOST
    try:
        yield key
    finally:
        connection.close()
        connection.settings_dict.update(saved)


def _leaks(body: bytes) -> list[str]:
    db = connection.settings_dict
    words = [UNREACHABLE_HOST, ".s.PGSQL", "spanproof_app", "spanproof_owner", str(db["NAME"])]
    return [w for w in words if w.encode() in body]


@pytest.mark.parametrize(
    "method, path, body",
    [
        ("post", "/connect/v1/retrieve", {"query": "sediment"}),
        ("get", "/connect/v1/claims", None),
        ("get", "/connect/v1/workspace", None),
        ("post", "/worker/verify", {"claim": "Sediment settles."}),
    ],
)
def test_the_api_answers_a_json_503(database_down, method, path, body):
    client = Client(
        headers={"Authorization": f"Bearer {database_down}"}, raise_request_exception=False
    )
    if method == "post":
        response = client.post(path, body, content_type="application/json")
    else:
        response = client.get(path)
    assert response.status_code == 503, response.content[:300]
    assert response["Content-Type"].startswith("application/json")
    assert response.json()["error"]["code"] == "unavailable"
    assert set(response.json()["error"]) == {"code", "message", "details"}
    assert response["Retry-After"]
    assert _leaks(response.content) == []


def test_the_console_answers_a_plain_503_page(database_down, reviewer):
    client = Client(raise_request_exception=False)
    # a signed-in reviewer's session cookie: loading the session needs the database
    client.cookies["sessionid"] = "x" * 32
    for path in ("/", "/review/", "/audit/claims/"):
        response = client.get(path)
        assert response.status_code == 503, (path, response.content[:300])
        assert response["Content-Type"].startswith("text/html")
        assert b"Temporarily unavailable" in response.content
        assert _leaks(response.content) == []


def test_healthz_names_the_failed_check_without_connection_details(database_down):
    response = Client(raise_request_exception=False).get("/healthz")
    assert response.status_code == 503
    checks = response.json()["checks"]
    assert checks["database"] == {
        "ok": False,
        "error": "the database is unavailable (OperationalError)",
    }
    assert checks["pgvector"]["ok"] is False
    assert _leaks(response.content) == []


def test_healthz_hides_the_broker_address(db):
    from config.celery import app

    old = app.conf.broker_url
    app.conf.broker_url = "redis://secret-user:pw@127.0.0.1:1/0"
    try:
        response = Client().get("/healthz")
    finally:
        app.conf.broker_url = old
    broker = response.json()["checks"]["broker"]
    assert broker["ok"] is False
    assert "127.0.0.1" not in broker["error"] and "secret-user" not in broker["error"]
    assert broker["error"].startswith("the broker is unavailable")
