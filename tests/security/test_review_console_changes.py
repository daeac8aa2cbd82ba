"""A security review of the day's console and API changes (the Decisions page, the
workspace-changed refusal, the search rule, body charsets): what a walk found, held.

- The workspace-changed page's way back was built from the ``Referer`` / htmx's current
  URL as a bare path: ``http://host//evil.example/x`` is this site's address, but its
  path ``//evil.example/x`` standing alone is another site's (the "Open the page" link).
- A search of thousands of characters costs the database the query's length times each
  text's, per row: the claim searches refuse one over 200 characters, as typed or as
  compared (folded: "ﷺ" compares as eighteen).
- ``charset=punycode`` is a codec Python counts as a text encoding, and its decoder is
  quadratic: a JSON body of 2,000,000 letters took a minute of CPU, and a console form
  (multipart) was decoded in it before sign-in and the CSRF check. It is refused, as
  ``charset=zlib`` already was.
"""

from __future__ import annotations

import json
import re
from urllib.parse import quote

import pytest
from django.test import Client

from tests.factories import make_user, make_workspace
from tests.review.conftest import queue_claim
from tests.verifier.api.conftest import api as api
from verifier.middleware import SESSION_WORKSPACE_KEY
from verifier.models import Membership, Source
from verifier.page_workspace import PAGE_WORKSPACE_HEADER

pytestmark = pytest.mark.django_db


# --- the workspace-changed page's way back ------------------------------------------


@pytest.mark.parametrize(
    "page", ["http://testserver//evil.example/x", "http://testserver/\\evil.example/x"]
)
@pytest.mark.parametrize("header", ["Referer", "HX-Current-URL"])
def test_the_workspace_changed_page_leads_back_only_to_this_site(page, header):
    acme, globex = make_workspace("acme"), make_workspace("globex")
    rita = make_user("rita", workspace=acme, role="reviewer")
    Membership.objects.create(workspace=globex, user=rita, role="reviewer")
    client = Client()
    client.force_login(rita)
    session = client.session
    session[SESSION_WORKSPACE_KEY] = "globex"  # switched in another tab
    session.save()
    headers = {PAGE_WORKSPACE_HEADER: "acme", header: page}
    if header == "HX-Current-URL":
        headers["HX-Request"] = "true"
    response = client.get("/review/", headers=headers)
    assert response.status_code == 412
    body = response.content.decode()
    back = re.search(r'<a href="([^"]*)" id="error-back"', body)
    assert back is not None and back.group(1) == "/", back and back.group(1)
    assert 'action="/workspace/switch?next=%2F"' in body
    assert "evil.example" not in body


# --- the length of a search -----------------------------------------------------------

LONG_QUERIES = {
    "typed": "_" * 201,
    # 12 characters typed, 216 compared: U+FDFA folds (NFKD) to 18 characters
    "compared": "\ufdfa" * 12,
}


@pytest.mark.parametrize("kind", LONG_QUERIES)
def test_the_review_queue_refuses_a_search_over_200_characters(reviewer_client, source, kind):
    claim = queue_claim(source, "abstained", text="A claim with _ in it" + "_" * 300)
    body = reviewer_client.get(f"/review/?q={quote(LONG_QUERIES[kind])}").content.decode()
    assert "This filter is invalid, so no claims are listed" in body
    assert "200 characters" in body
    assert claim.public_id not in body
    # 200 is searched
    body = reviewer_client.get(f"/review/?q={'_' * 200}").content.decode()
    assert "This filter is invalid" not in body and claim.public_id in body


@pytest.mark.parametrize("kind", LONG_QUERIES)
def test_the_claim_list_refuses_a_search_over_200_characters(auditor_client, source, kind):
    claim = queue_claim(source, "abstained", text="A claim " + "_" * 300)
    body = auditor_client.get(f"/audit/claims/?q={quote(LONG_QUERIES[kind])}").content.decode()
    error = re.search(r'<span class="form-error" id="filter-q-error">(.*?)</span>', body)
    assert error is not None and "200 characters" in error.group(1)
    assert 'aria-describedby="filter-q-error"' in body
    assert claim.public_id not in body
    csv = auditor_client.get(f"/audit/claims/export.csv?q={quote(LONG_QUERIES[kind])}")
    assert csv.status_code == 400


@pytest.mark.parametrize("kind", LONG_QUERIES)
def test_an_audit_pack_refuses_a_search_over_200_characters(api, kind):
    response = api.get(f"/connect/v1/audit-pack?scope=claims&q={quote(LONG_QUERIES[kind])}")
    assert response.status_code == 400, response.content[:300]
    error = response.json()["error"]
    assert (error["code"], error["details"]["field"]) == ("invalid_scope", "q")
    assert "200 characters" in error["message"]


# --- charsets that are no character set ------------------------------------------------

SOURCES = "/connect/v1/sources"


def test_a_json_body_in_punycode_is_refused_not_decoded(api):
    # valid punycode: the body decodes to JSON (a large one in minutes of CPU)
    body = json.dumps({"ref": "source:p", "text": "Le mur fait 412 mètres."}).encode("punycode")
    response = api.generic(
        "POST", SOURCES, data=body, content_type="application/json; charset=punycode"
    )
    assert response.status_code == 400, response.content[:300]
    error = response.json()["error"]
    assert (error["code"], error["details"]["field"]) == ("malformed_request", "body")
    assert 'Unsupported charset "punycode"' in error["message"]
    assert not Source.objects.exists()


@pytest.mark.parametrize("charset", ["punycode", "unicode_escape"])
def test_a_multipart_body_in_a_text_transform_is_refused(api, charset):
    text = "Le mur fait 412 mètres.".encode(charset)
    body = (
        b'--XX\r\nContent-Disposition: form-data; name="ref"\r\n\r\nsource:m\r\n'
        b'--XX\r\nContent-Disposition: form-data; name="text"\r\n\r\n' + text + b"\r\n--XX--\r\n"
    )
    response = api.generic(
        "POST",
        SOURCES,
        data=body,
        content_type=f"multipart/form-data; boundary=XX; charset={charset}",
    )
    assert response.status_code == 400, response.content[:300]
    assert response.json()["error"]["code"] == "malformed_request"
    assert not Source.objects.exists()


def test_a_console_form_in_punycode_is_refused_before_it_is_read(db):
    """Anyone's request: the sign-in form, no session, no CSRF token yet."""
    field = "Le mur fait 412 mètres.".encode("punycode")
    body = (
        b'--XX\r\nContent-Disposition: form-data; name="username"\r\n\r\n'
        + field
        + b"\r\n--XX--\r\n"
    )
    response = Client().generic(
        "POST",
        "/accounts/login/",
        data=body,
        content_type="multipart/form-data; boundary=XX; charset=punycode",
    )
    assert response.status_code == 400
    assert "The form&#x27;s charset is “punycode”" in response.content.decode()
