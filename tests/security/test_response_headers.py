"""Every kind of answer carries the same protective headers, errors included: a page, a
partial, an export, an API body, a redirect, and each refusal (400 from the input guard,
403, 404, 405, 412 from another workspace's page, a CSRF failure, an unknown host)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.test import Client

from tests.verifier.api.conftest import client_for

pytestmark = pytest.mark.django_db

Request = Callable[[dict[str, Client]], Any]

KINDS: dict[str, tuple[str, Request, int]] = {
    "page": ("admin", lambda c: c["admin"].get("/audit/claims/"), 200),
    "htmx partial": (
        "admin",
        lambda c: c["admin"].get("/review/", headers={"HX-Request": "true"}),
        200,
    ),
    "csv export": ("admin", lambda c: c["admin"].get("/audit/claims/export.csv"), 200),
    "sign-in page": ("anonymous", lambda c: c["anonymous"].get("/accounts/login/"), 200),
    "redirect to sign-in": ("anonymous", lambda c: c["anonymous"].get("/audit/claims/"), 302),
    "console 404": ("admin", lambda c: c["admin"].get("/audit/claims/claim:nope/"), 404),
    "no such route": ("admin", lambda c: c["admin"].get("/no/such/page/"), 404),
    "console 403": ("auditor", lambda c: c["auditor"].get("/audit/api-keys/"), 403),
    "console 405": ("admin", lambda c: c["admin"].put("/audit/claims/"), 405),
    "input guard 400": ("admin", lambda c: c["admin"].get("/audit/claims/", {"q": "a\x00b"}), 400),
    "other workspace's page 412": (
        "admin",
        lambda c: c["admin"].post("/review/blind/", headers={"X-Spanproof-Workspace": "globex"}),
        412,
    ),
    "csrf failure": ("csrf", lambda c: c["csrf"].post("/review/blind/"), 403),
    "unknown host": ("admin", lambda c: c["admin"].get("/", headers={"Host": "evil.example"}), 400),
    "api 200": ("key", lambda c: c["key"].get("/connect/v1/workspace"), 200),
    "api 401": ("anonymous", lambda c: c["anonymous"].get("/connect/v1/workspace"), 401),
    "api 404": ("key", lambda c: c["key"].get("/connect/v1/claims/claim:nope"), 404),
    "api 400": (
        "key",
        lambda c: c["key"].post("/connect/v1/retrieve", "{", content_type="application/json"),
        400,
    ),
    "api input guard 400": (
        "key",
        lambda c: c["key"].get("/connect/v1/claims", {"q": "\x00"}),
        400,
    ),
    "healthz": ("anonymous", lambda c: c["anonymous"].get("/healthz"), 200),
}


@pytest.fixture
def clients(workspace, other_workspace) -> dict[str, Client]:
    from tests.factories import make_user
    from verifier.services.workspaces import membership_set

    admin = make_user("ada", workspace=workspace, role="admin")
    membership_set(workspace=other_workspace, user=admin, role="admin")
    built = {"anonymous": Client(), "key": client_for(workspace)}
    for role, user in (("admin", admin), ("auditor", None)):
        client = Client()
        client.force_login(user or make_user("aldo", workspace=workspace, role="auditor"))
        built[role] = client
    built["csrf"] = Client(enforce_csrf_checks=True)
    built["csrf"].force_login(admin)
    return built


@pytest.mark.parametrize("kind", KINDS, ids=list(KINDS))
def test_every_answer_carries_the_protective_headers(kind: str, clients) -> None:
    _, send, status = KINDS[kind]
    response = send(clients)
    assert response.status_code == status, response.content[:300]
    policy = response.get("Content-Security-Policy", "")
    assert "frame-ancestors 'none'" in policy, policy
    assert "script-src 'self'" in policy, policy
    assert response.get("X-Frame-Options") == "DENY"
    assert response.get("X-Content-Type-Options") == "nosniff"
    assert response.get("Referrer-Policy") == "same-origin"
