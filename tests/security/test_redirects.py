"""Every way back the console offers stays on this site: ``next=`` on the sign-in page,
the workspace switch and the blind-review toggle, a relation decision's list, and the
sign-in page that a form sent after the session ended goes back from (its ``Referer`` or
htmx's ``HX-Current-URL``). A host this site does not serve is refused, and a
forwarded host is not believed."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest
from django.test import Client

from tests.factories import make_user

pytestmark = pytest.mark.django_db

ELSEWHERE = (
    "https://evil.example/x",
    "//evil.example/x",
    "///evil.example/x",
    "/\\evil.example/x",
    "\\\\evil.example/x",
    "http:evil.example",
    "https:/evil.example",
    " //evil.example/x",
    "javascript:alert(1)",
    "http://testserver@evil.example/x",
)


def _stays_here(location: str) -> bool:
    parts = urlsplit(location)
    return (
        parts.scheme in ("", "http")
        and parts.netloc in ("", "testserver")
        and location.startswith(("/", "http://testserver/"))
        and not location.startswith(("//", "/\\"))
    )


@pytest.fixture
def member(workspace):
    return make_user("ada", workspace=workspace, role="admin")


@pytest.mark.parametrize("target", ELSEWHERE)
def test_signing_in_never_leaves_the_site(member, target):
    client = Client()
    response = client.post(
        f"/accounts/login/?next={target}",
        {"username": "ada", "password": "pw-for-tests-123", "next": target},
    )
    assert response.status_code == 302
    assert _stays_here(response["Location"]), response["Location"]
    # signed in already: the sign-in page sends straight on, here too
    again = client.get("/accounts/login/", {"next": target})
    assert again.status_code == 302
    assert _stays_here(again["Location"]), again["Location"]


@pytest.mark.parametrize("target", ELSEWHERE)
def test_the_workspace_switch_and_the_blind_toggle_never_leave_the_site(member, workspace, target):
    client = Client()
    client.force_login(member)
    switched = client.post(f"/workspace/switch?next={target}", {"workspace": workspace.slug})
    assert switched.status_code == 302 and _stays_here(switched["Location"]), switched["Location"]
    toggled = client.post("/review/blind/", {"next": target})
    assert toggled.status_code == 302 and _stays_here(toggled["Location"]), toggled["Location"]


@pytest.mark.parametrize(
    "page", [f"http://testserver{t}" for t in ("//evil.example/x", "/\\evil.example/x")]
)
@pytest.mark.parametrize("header", ["Referer", "HX-Current-URL"])
def test_a_form_sent_signed_out_comes_back_to_a_page_of_this_site(page, header):
    """The sign-in page's ``next`` is a path of this site: never one that reads as
    another site's address once it stands alone ("//evil.example/x")."""
    headers = {header: page}
    if header == "HX-Current-URL":
        headers["HX-Request"] = "true"
    response = Client().post("/review/blind/", headers=headers)
    location = response.get("HX-Redirect") or response["Location"]
    back = parse_qs(urlsplit(location).query)["next"][0]
    assert back == "/", back


def test_a_forwarded_host_is_not_believed(member):
    client = Client()
    client.force_login(member)
    response = client.post(
        "/review/blind/",
        {"next": "http://evil.example/x"},
        headers={"X-Forwarded-Host": "evil.example"},
    )
    assert _stays_here(response["Location"]), response["Location"]
    assert Client().get("/", headers={"Host": "evil.example"}).status_code == 400


@pytest.mark.parametrize(
    "page", ["http://testserver//evil.example/x", "http://testserver/\\evil.example/x"]
)
def test_an_error_pages_way_back_is_a_page_of_this_site(member, page):
    """The 405 page and the CSRF failure page link back to the referring page only when
    it is a path of this site that stays one when it stands alone: "//evil.example/x"
    in an href is another site."""
    client = Client()
    client.force_login(member)
    refused = client.get("/review/blind/", headers={"Referer": page})
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(member)
    forged = strict.post("/review/blind/", headers={"Referer": page})
    for response, status in ((refused, 405), (forged, 403)):
        assert response.status_code == status
        html = response.content.decode()
        assert "evil.example" not in html, html[html.find("evil") - 200 : html.find("evil") + 50]


def test_the_blind_toggle_never_sends_an_https_page_to_plain_http(member):
    client = Client()
    client.force_login(member)
    response = client.post("/review/blind/", {"next": "http://testserver/review/"}, secure=True)
    assert response.status_code == 302
    assert not response["Location"].startswith("http:"), response["Location"]
