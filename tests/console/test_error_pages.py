"""A 404 or a 405 answers what its caller reads: the API's JSON error body under the API's
paths, a page in the console's layout everywhere else (an empty 405 body is a broken page
in a browser)."""

from __future__ import annotations

import json
import re

import pytest
from django.http import HttpRequest, HttpResponse, HttpResponseNotAllowed
from django.test import Client, RequestFactory

from tests.verifier.api.conftest import client_for
from verifier.api.paths import is_api_path
from verifier.error_pages import MethodNotAllowedMiddleware


def _assert_api_error(response, status: int, code: str) -> dict:
    assert response.status_code == status, response.content[:300]
    assert response["Content-Type"].startswith("application/json"), response["Content-Type"]
    error = response.json()["error"]
    assert error["code"] == code
    assert set(error) == {"code", "message", "details"}
    return error


@pytest.fixture
def api(workspace):
    return client_for(workspace)


def test_the_api_prefixes_are_the_ones_config_urls_mounts_the_api_at():
    for path in ("/connect/v1/claims", "/connect/v1/nope", "/worker/verify", "/worker/nope"):
        assert is_api_path(path), path
    for path in ("/worker/console", "/worker/console/", "/audit/claims/", "/", "/connectx"):
        assert not is_api_path(path), path


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("get", "/connect/v1/nope"),
        ("get", "/connect/nope"),
        ("post", "/connect/v1/nope"),
        ("delete", "/connect/v1/claims/verify/extra"),
        ("get", "/worker/nope"),
    ],
)
def test_an_unknown_api_path_is_the_apis_json_404(api, method, path):
    error = _assert_api_error(getattr(api, method)(path), 404, "not_found")
    assert path in error["message"] and "/connect/v1/docs" in error["message"]


def test_an_unknown_api_path_is_json_without_a_key_too(db):
    _assert_api_error(Client().get("/connect/v1/nope"), 404, "not_found")


@pytest.mark.parametrize(
    ("method", "path", "route"),
    [
        ("get", "/connect/v1/claims/", "/connect/v1/claims"),
        ("post", "/connect/v1/claims/verify/", "/connect/v1/claims/verify"),
        ("post", "/connect/v1/retrieve/", "/connect/v1/retrieve"),
        ("post", "/worker/verify/", "/worker/verify"),
    ],
)
def test_a_known_route_with_a_trailing_slash_names_the_route(api, method, path, route):
    response = api.generic(method.upper(), path, "{}", content_type="application/json")
    error = _assert_api_error(response, 404, "not_found")
    assert f"the endpoint is {route}, without the trailing slash" in error["message"]
    assert error["details"] == {"path": route}


def test_the_apis_own_404s_keep_their_body(api):
    """A route that answers, for an object that is not there: DRF's 404, unchanged."""
    error = _assert_api_error(api.get("/connect/v1/claims/claim:nope"), 404, "not_found")
    assert "trailing slash" not in error["message"]


@pytest.mark.parametrize("path", ["/audit/nope/", "/worker/console/", "/review/item/x/y/"])
def test_a_console_404_is_still_the_console_page(reviewer_client, path):
    response = reviewer_client.get(path)
    assert response.status_code == 404
    assert response["Content-Type"].startswith("text/html")
    page = response.content.decode()
    assert "<h1>Not found</h1>" in page and path in page


POST_ONLY = [
    # (path, where its form most likely lives)
    ("/audit/api-keys/new/", "/audit/api-keys/"),
    ("/review/item/claim:abc/decide/", "/review/item/claim:abc/"),
    ("/review/start/", "/review/"),
    ("/review/bulk/", "/review/"),
    ("/audit/rules/1/activate/", "/audit/rules/1/"),
    ("/audit/pack/", "/"),
    ("/review/guidelines/edit/", "/review/guidelines/"),
    ("/workspace/switch", "/"),
    ("/accounts/logout/", "/"),
]


def _main(page: str) -> str:
    return page.split('<main id="main"', 1)[1].split("</main>", 1)[0]


@pytest.mark.parametrize(
    ("path", "back"),
    [
        ("/audit/api-keys/new/", "/"),
        ("/audit/rules/1/activate/", "/"),
        ("/ingest/jobs/1/cancel/", "/ingest/jobs/1/"),
    ],
)
def test_an_auditors_way_back_is_a_page_it_may_open(auditor_client, path, back):
    link = re.search(
        r'<a href="([^"]*)" id="error-back">', auditor_client.get(path).content.decode()
    )
    assert link is not None and link.group(1) == back


@pytest.mark.parametrize(("path", "back"), POST_ONLY)
def test_opening_a_post_only_address_is_a_page_that_says_why(admin_client_ws, path, back):
    response = admin_client_ws.get(path)
    assert response.status_code == 405
    assert response["Allow"] in ("POST", "POST, OPTIONS")  # LogoutView adds OPTIONS
    assert response["Content-Type"].startswith("text/html")
    page = response.content.decode()
    assert '<nav aria-label="Main">' in page  # the console's layout, signed in
    main = _main(page)
    assert "<h1>Not a page to open</h1>" in main
    assert f"<code>{path}</code> is where a form sends what you fill in" in main
    assert "Nothing was changed." in main
    link = re.search(r'<a href="([^"]*)" id="error-back">([^<]*)</a>', main)
    assert link is not None and link.group(1) == back
    assert "/" not in link.group(2), "the way back is said in words, not as a path"


def test_the_way_back_is_the_page_the_user_came_from(admin_client_ws):
    response = admin_client_ws.get(
        "/review/start/", headers={"Referer": "http://testserver/review/?state=unverified"}
    )
    link = re.search(r'<a href="([^"]*)" id="error-back">([^<]*)</a>', response.content.decode())
    assert link is not None
    assert link.groups() == ("/review/?state=unverified", "Back to the page you came from")


def test_a_referer_on_another_site_is_not_followed(admin_client_ws):
    response = admin_client_ws.get(
        "/review/start/", headers={"Referer": "https://evil.example.com/review/"}
    )
    link = re.search(r'<a href="([^"]*)" id="error-back">', response.content.decode())
    assert link is not None and link.group(1) == "/review/"


def test_a_signed_out_visitor_gets_the_page_too(db):
    response = Client().get("/accounts/logout/")
    assert response.status_code == 405 and response["Allow"] == "POST, OPTIONS"
    page = response.content.decode()
    assert "<h1>Not a page to open</h1>" in page and 'href="/"' in page


def test_another_method_the_view_does_not_serve_names_what_it_does(reviewer_client):
    response = reviewer_client.put("/glossary/")
    assert response.status_code == 405 and response["Allow"] == "GET"
    main = _main(response.content.decode())
    assert "<h1>Method not allowed</h1>" in main
    assert "does not answer a PUT request; it answers GET." in main


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("get", "/connect/v1/claims/verify"),
        ("get", "/worker/verify"),
        ("post", "/connect/v1/schema"),  # rendered as YAML by its own view
        ("put", "/connect/v1/docs"),  # an HTML page's view
    ],
)
def test_the_api_answers_a_wrong_method_with_its_json_body(api, method, path):
    response = getattr(api, method)(path)
    _assert_api_error(response, 405, "method_not_allowed")
    assert response["Allow"]


def _respond_405(request: HttpRequest) -> HttpResponse:
    return HttpResponseNotAllowed(["POST"])


def test_an_empty_405_under_the_api_gets_the_json_body():
    request = RequestFactory().get("/connect/v1/somewhere")
    response = MethodNotAllowedMiddleware(_respond_405)(request)
    assert response.status_code == 405 and response["Allow"] == "POST"
    assert response["Content-Type"] == "application/json"
    error = json.loads(response.content)["error"]
    assert error == {
        "code": "method_not_allowed",
        "message": 'Method "GET" not allowed.',
        "details": {},
    }


def test_a_405_with_a_body_is_left_alone():
    def respond(request: HttpRequest) -> HttpResponse:
        return HttpResponseNotAllowed(["POST"], content=b"mine")

    response = MethodNotAllowedMiddleware(respond)(RequestFactory().get("/review/start/"))
    assert response.content == b"mine"
