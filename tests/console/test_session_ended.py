"""A console request whose session is gone: a page asked for comes back after signing in;
a form sent, or a part of a page htmx asked for, sends the person to the sign-in page
(htmx: the whole page, ``HX-Redirect``), which says the session ended and brings them
back to the page they were on — an address of this site only."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db

ITEM = "/review/item/claim:abc/"
DECIDE = "/review/item/claim:abc/decide/"


def _login_target(url: str) -> tuple[str, dict[str, list[str]]]:
    parts = urlsplit(url)
    return parts.path, parse_qs(parts.query)


def test_a_page_asked_for_comes_back_after_signing_in() -> None:
    response = Client().get("/review/?reason=contradicted")
    assert response.status_code == 302
    path, query = _login_target(response["Location"])
    assert path == "/accounts/login/" and query["next"] == ["/review/?reason=contradicted"]
    assert "session_ended" not in query


def test_an_htmx_decision_sends_the_whole_page_to_sign_in_and_back_to_the_item() -> None:
    response = Client().post(
        DECIDE,
        {"decision": "supported"},
        headers={"HX-Request": "true", "HX-Current-URL": f"http://testserver{ITEM}?q=x"},
    )
    assert response.status_code == 200 and not response.content
    path, query = _login_target(response["HX-Redirect"])
    assert path == "/accounts/login/"
    assert query == {"next": [f"{ITEM}?q=x"], "session_ended": ["1"]}


@pytest.mark.parametrize(
    "current",
    ["https://evil.example/review/", "javascript:alert(1)", "//evil.example/x", ""],
)
def test_only_an_address_of_this_site_is_come_back_to(current: str) -> None:
    response = Client().post(DECIDE, {}, headers={"HX-Request": "true", "HX-Current-URL": current})
    _, query = _login_target(response["HX-Redirect"])
    assert query["next"] == ["/"]


def test_a_form_sent_without_script_comes_back_to_the_page_it_was_sent_from() -> None:
    response = Client().post(DECIDE, {}, headers={"Referer": f"http://testserver{ITEM}"})
    assert response.status_code == 302
    _, query = _login_target(response["Location"])
    assert query == {"next": [ITEM], "session_ended": ["1"]}  # not the decide URL, a POST


def test_the_sign_in_page_says_the_session_ended_and_posts_to_itself() -> None:
    html = Client().get("/accounts/login/", {"next": ITEM, "session_ended": "1"}).content.decode()
    assert 'id="session-ended"' in html and "Your session ended" in html
    assert 'action="/accounts/login/"' in html and f'value="{ITEM}"' in html
    plain = Client().get("/accounts/login/").content.decode()
    assert 'id="session-ended"' not in plain


def test_the_workspace_switch_sent_signed_out_comes_back_to_the_page_not_the_switch() -> None:
    """The switch only takes a POST: coming back to it after signing in was a 405."""
    response = Client().post(
        "/workspace/switch", {"workspace": "w"}, headers={"Referer": "http://testserver/audit/"}
    )
    assert response.status_code == 302
    path, query = _login_target(response["Location"])
    assert path == "/accounts/login/"
    assert query == {"next": ["/audit/"], "session_ended": ["1"]}
    # the home page and the glossary, asked for signed out, still come back to themselves
    for page in ("/", "/glossary/"):
        _, query = _login_target(Client().get(page)["Location"])
        assert query == {"next": [page]}
