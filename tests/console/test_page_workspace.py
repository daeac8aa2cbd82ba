"""A request sent from a page of one workspace while the session is in another (switched in
another tab, or taken out of it by an admin) does nothing and says so (412), instead of
listing the other workspace under this one's name or answering "no longer there"; the
page offers to switch back and return. htmx says the page's workspace in a header, a form
sent without htmx in a field that console.js adds and no view sees."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from tests.factories import make_source, make_user, make_workspace
from tests.review.conftest import queue_claim
from verifier.middleware import SESSION_WORKSPACE_KEY
from verifier.models import AuditPackJob, Membership, Verdict
from verifier.page_workspace import PAGE_WORKSPACE_FIELD, PAGE_WORKSPACE_HEADER

pytestmark = pytest.mark.django_db

ITEM_PAGE = "http://testserver/review/item/{}/?state=queue"


@pytest.fixture
def two_workspaces():
    acme = make_workspace("acme")
    globex = make_workspace("globex")
    rita = make_user("rita", workspace=acme, role="reviewer")
    Membership.objects.create(workspace=globex, user=rita, role="reviewer")
    claim = queue_claim(make_source(acme, ref="source:acme"), "abstained")
    return rita, claim


def _client_in(user, slug: str) -> Client:
    client = Client()
    client.force_login(user)
    session = client.session
    session[SESSION_WORKSPACE_KEY] = slug
    session.save()
    return client


def _htmx(page_slug: str, current_url: str) -> dict[str, str]:
    return {"HX-Request": "true", PAGE_WORKSPACE_HEADER: page_slug, "HX-Current-URL": current_url}


def _refusal(response) -> str:
    found = re.search(r'<p id="refusal-message">(.*?)</p>', response.content.decode(), re.S)
    assert found, response.content.decode()[:500]
    return found.group(1)


def test_a_chip_on_a_page_of_the_workspace_left_in_another_tab_lists_nothing_of_the_other(
    two_workspaces,
):
    rita, claim = two_workspaces
    client = _client_in(rita, "globex")  # switched in another tab
    response = client.get(
        "/review/?reason=abstained",
        headers={
            **_htmx("acme", "http://testserver/review/"),
            "HX-Target": "queue-results",
        },
    )
    assert response.status_code == 412
    said = _refusal(response)
    assert "“Workspace acme”" in said and "“Workspace globex”" in said
    assert "nothing was done" in said
    # no queue swapped in under acme's name
    assert 'id="queue-filter"' not in response.content.decode()
    assert claim.public_id not in response.content.decode()
    # the way back: switch to acme, then the page it was sent from
    form = re.search(r'<form [^>]*id="refusal-actions".*?</form>', response.content.decode(), re.S)
    assert form and 'action="/workspace/switch?next=%2Freview%2F"' in form.group(0)
    assert 'name="workspace" value="acme"' in form.group(0)


def test_the_same_workspace_is_answered_as_before(two_workspaces):
    rita, claim = two_workspaces
    client = _client_in(rita, "acme")
    response = client.get(
        "/review/",
        headers={**_htmx("acme", "http://testserver/review/"), "HX-Target": "queue-results"},
    )
    assert response.status_code == 200 and claim.public_id in response.content.decode()


def test_a_decision_from_the_left_workspace_is_not_taken(two_workspaces):
    rita, claim = two_workspaces
    client = _client_in(rita, "globex")
    response = client.post(
        f"/review/item/{claim.public_id}/decide/",
        {"decision": "not_stated", "note": "checked"},
        headers=_htmx("acme", ITEM_PAGE.format(claim.public_id)),
    )
    assert response.status_code == 412  # was a 404: "no longer there"
    assert not Verdict.objects.filter(claim=claim, judge_family="human").exists()
    # switching back returns to the item, in acme
    back = client.post(
        f"/workspace/switch?next=%2Freview%2Fitem%2F{claim.public_id}%2F%3Fstate%3Dqueue",
        {"workspace": "acme"},
    )
    assert back.status_code == 302
    assert back["Location"] == f"/review/item/{claim.public_id}/?state=queue"
    assert client.get(back["Location"]).status_code == 200


def test_a_member_taken_out_of_the_pages_workspace_is_told_so(two_workspaces):
    rita, claim = two_workspaces
    client = _client_in(rita, "acme")
    Membership.objects.filter(user=rita, workspace__slug="acme").delete()
    response = client.post(
        f"/review/item/{claim.public_id}/decide/",
        {"decision": "not_stated"},
        headers=_htmx("acme", ITEM_PAGE.format(claim.public_id)),
    )
    assert response.status_code == 412
    said = _refusal(response)
    assert "no longer a member" in said and "“Workspace globex”" in said
    assert "Workspace acme" not in response.content.decode()  # a forged slug names nothing
    assert 'id="refusal-actions"' not in response.content.decode()
    assert not Verdict.objects.filter(claim=claim, judge_family="human").exists()


def test_a_form_sent_without_htmx_says_its_workspace_in_a_field_no_view_sees(two_workspaces):
    rita, _ = two_workspaces
    client = _client_in(rita, "globex")
    refused = client.post(
        "/audit/pack/",
        {"scope": "claims", "state": "supported", PAGE_WORKSPACE_FIELD: "acme"},
        headers={"Referer": "http://testserver/audit/claims/"},
    )
    assert refused.status_code == 412 and "Your workspace changed" in refused.content.decode()
    assert 'action="/workspace/switch?next=%2Faudit%2Fclaims%2F"' in refused.content.decode()
    assert not AuditPackJob.objects.exists()
    # the page's workspace is the current one: the field is taken out before the view,
    # which refuses a field it does not know by name (so the pack was refused before)
    client.post(
        "/audit/pack/", {"scope": "claims", "state": "supported", PAGE_WORKSPACE_FIELD: "globex"}
    )
    job = AuditPackJob.objects.get()
    assert job.workspace.slug == "globex"


def test_signing_out_and_switching_are_never_refused(two_workspaces):
    rita, _ = two_workspaces
    client = _client_in(rita, "globex")
    switched = client.post("/workspace/switch", {"workspace": "acme", PAGE_WORKSPACE_FIELD: "acme"})
    assert switched.status_code == 302 and switched["Location"] == "/"
    assert client.session[SESSION_WORKSPACE_KEY] == "acme"
    signed_out = client.post("/accounts/logout/", {PAGE_WORKSPACE_FIELD: "globex"})
    assert signed_out.status_code == 302 and "_auth_user_id" not in client.session


@pytest.mark.parametrize("next_url", ["https://evil.example/x", "//evil.example/x", "review/"])
def test_switching_back_returns_only_to_a_page_of_this_site(two_workspaces, next_url):
    rita, _ = two_workspaces
    client = _client_in(rita, "globex")
    response = client.post(f"/workspace/switch?next={next_url}", {"workspace": "acme"})
    assert response.status_code == 302 and response["Location"] == "/"


def test_a_role_lowered_while_the_page_was_open_is_named_in_the_refusal(two_workspaces):
    rita, claim = two_workspaces
    client = _client_in(rita, "acme")
    Membership.objects.filter(user=rita, workspace__slug="acme").update(role="auditor")
    response = client.post(
        f"/review/item/{claim.public_id}/decide/",
        {"decision": "not_stated"},
        headers=_htmx("acme", ITEM_PAGE.format(claim.public_id)),
    )
    assert response.status_code == 403
    assert "Your role in Workspace acme is Auditor." in _refusal(response)
