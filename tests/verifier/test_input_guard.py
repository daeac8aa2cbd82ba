"""The input guard's refusals (``verifier.input_guard``): the API names the field by a
machine name, and the console's 400 page names it in words and leads back to the form,
where the browser still holds what was typed."""

from __future__ import annotations

import re

import pytest

from tests.verifier.api.conftest import client_for
from verifier.input_guard import where_in_words
from verifier.models import MemoryCheck

FORM = {"agent": "agent\x00", "message": "I said so.", "transcript": "[]"}


def _back_link(page: str) -> re.Match[str]:
    link = re.search(r'<a href="([^"]*)" id="error-back"( data-history-back)?>([^<]*)</a>', page)
    assert link is not None, page
    return link


def test_an_api_path_with_a_nul_names_the_field_path(workspace):
    api = client_for(workspace)
    api.raise_request_exception = False
    error = api.get("/connect/v1/claims/%00").json()["error"]
    assert error["code"] == "invalid_text"
    assert error["details"]["field"] == "path"
    assert error["message"].startswith("The path contains a NUL character")


def test_the_path_reads_as_the_address():
    assert where_in_words("path") == "The address"
    assert where_in_words("form.agent[0]") == "The form field “agent”"


def test_a_refused_form_leads_back_to_the_form_with_the_input_kept(admin_client_ws, db):
    response = admin_client_ws.post(
        "/audit/memory/", FORM, HTTP_REFERER="http://testserver/audit/memory/"
    )
    assert response.status_code == 400
    page = response.content.decode()
    assert "The form field “agent”" in page and "at position 5" in page
    assert "What you typed is still in the form on the page before this one" in page
    link = _back_link(page)
    # a form sent to its own page goes back there: history first (the typed text), the
    # address when there is no history to step back through
    assert link.group(1) == "/audit/memory/"
    assert link.group(2) and link.group(3) == "Go back to the form"
    assert "js/error_back.js" in page and "css/console.css" in page
    assert not MemoryCheck.objects.exists()


def test_a_refused_search_leads_back_to_the_page_it_was_typed_on(admin_client_ws, db):
    response = admin_client_ws.get(
        "/audit/claims/", {"q": "silt\x00"}, HTTP_REFERER="http://testserver/audit/claims/?page=2"
    )
    assert response.status_code == 400
    link = _back_link(response.content.decode())
    assert link.group(1) == "/audit/claims/?page=2" and link.group(2)


@pytest.mark.parametrize(
    "referer",
    [
        "",
        "https://elsewhere.example/audit/memory/",
        "http://testserver//elsewhere.example/x",
        "javascript:alert(1)",
    ],
)
def test_no_link_leads_off_the_site(admin_client_ws, db, referer):
    extra = {"HTTP_REFERER": referer} if referer else {}
    response = admin_client_ws.post("/audit/memory/", FORM, **extra)
    assert response.status_code == 400
    link = _back_link(response.content.decode())
    assert link.group(1) == "/"
    assert link.group(3) == "Go back"


def test_a_refused_address_leads_to_the_page_before_or_the_overview(admin_client_ws, db):
    page = admin_client_ws.get("/audit/claims/%00/").content.decode()
    assert "The address contains a NUL character" in page
    assert "What you typed" not in page
    assert _back_link(page).groups() == ("/", None, "Back to the overview")
    page = admin_client_ws.get(
        "/audit/claims/%00/", HTTP_REFERER="http://testserver/audit/claims/"
    ).content.decode()
    assert _back_link(page).groups() == ("/audit/claims/", None, "Back to the page you came from")
    # the refused address itself is no way back
    page = admin_client_ws.get(
        "/audit/claims/%00/", HTTP_REFERER="http://testserver/audit/claims/%00/"
    ).content.decode()
    assert _back_link(page).group(1) == "/"
