"""The webhooks page: an admin sees where events go and how the latest delivery went,
adds a webhook (the form holds it to the API's rules) and turns one off, which keeps its
record. Real database, real services."""

from __future__ import annotations

import pytest

from verifier.models import Webhook, WebhookDelivery
from verifier.services.webhooks import webhook_create

pytestmark = pytest.mark.django_db
PAGE = "/audit/webhooks/"
FORM = {
    "url": "http://127.0.0.1:9/hook",
    "events": ["job.completed", "verification.completed"],
    "threshold": "80",
    "secret": "s3cret-for-the-console",
}


@pytest.fixture(autouse=True)
def local_receivers(settings):
    """The test's receiver address: plain http to this machine, which an operator may allow."""
    settings.SPANPROOF_WEBHOOK_ALLOW_HTTP = True
    settings.SPANPROOF_WEBHOOK_ALLOWED_NETWORKS = ["127.0.0.1/32"]


def test_an_admin_adds_a_webhook_and_sees_it_listed(admin_client_ws, workspace):
    response = admin_client_ws.post("/audit/webhooks/new/", FORM)
    assert response.status_code == 302 and response["Location"] == PAGE
    hook = Webhook.objects.get(workspace=workspace)
    assert hook.events == ["job.completed", "verification.completed"] and hook.threshold == 80
    page = admin_client_ws.get(PAGE).content.decode()
    assert "Webhook to http://127.0.0.1:9/hook added." in page
    assert "<code>http://127.0.0.1:9/hook</code>" in page and "none yet" in page
    assert FORM["secret"] not in page, "the secret is never shown back"


@pytest.mark.parametrize(
    ("change", "says"),
    [
        ({"url": "ftp://127.0.0.1/x"}, "Webhook URLs must use https."),
        ({"secret": "short"}, "at least 16 characters"),
        ({"events": []}, "This field is required."),
        ({"threshold": "101"}, "less than or equal to 100"),
    ],
)
def test_a_bad_webhook_is_a_form_error_and_nothing_stored(admin_client_ws, change, says):
    response = admin_client_ws.post("/audit/webhooks/new/", {**FORM, **change})
    assert response.status_code == 422
    assert says in response.content.decode()
    assert not Webhook.objects.exists()


def test_turning_off_keeps_the_webhook_and_its_deliveries(admin_client_ws, workspace):
    hook = webhook_create(
        workspace=workspace, url=FORM["url"], secret=FORM["secret"], events=["job.completed"]
    )
    WebhookDelivery.objects.create(
        webhook=hook, event="job.completed", payload={}, status="delivered"
    )
    response = admin_client_ws.post(
        f"/audit/webhooks/{hook.pk}/off/", {"confirmed": "1"}, follow=True
    )
    page = response.content.decode()
    assert "turned off" in page and "Delivered" in page
    hook.refresh_from_db()
    assert not hook.is_active and hook.deliveries.count() == 1
    again = admin_client_ws.post(f"/audit/webhooks/{hook.pk}/off/", {"confirmed": "1"}, follow=True)
    assert "was already off" in again.content.decode()


def test_another_workspaces_webhook_cannot_be_turned_off(admin_client_ws, other_workspace):
    theirs = webhook_create(
        workspace=other_workspace, url=FORM["url"], secret=FORM["secret"], events=["job.completed"]
    )
    response = admin_client_ws.post(
        f"/audit/webhooks/{theirs.pk}/off/", {"confirmed": "1"}, follow=True
    )
    assert response.redirect_chain == [("/audit/webhooks/", 302)]
    assert "No such webhook" in response.content.decode()
    assert Webhook.objects.get(pk=theirs.pk).is_active


def test_the_page_is_for_admins(reviewer_client, auditor_client):
    for client in (reviewer_client, auditor_client):
        assert client.get(PAGE).status_code == 403
        assert client.post("/audit/webhooks/new/", FORM).status_code == 403
    assert not Webhook.objects.exists()


@pytest.mark.parametrize("secret", ["  s3cret-for-the-console", "s3cret-for-the-console\t"])
def test_a_secret_with_outer_blanks_is_refused_not_trimmed(admin_client_ws, secret):
    """Trimmed, the stored secret would sign every delivery with other bytes than the copy
    the admin gave the receiver: every signature would fail there, and nothing said why."""
    response = admin_client_ws.post("/audit/webhooks/new/", {**FORM, "secret": secret})
    assert response.status_code == 422
    assert "The secret begins or ends with a blank" in response.content.decode()
    assert not Webhook.objects.exists()


def test_a_secret_is_stored_exactly_as_typed(admin_client_ws, workspace):
    secret = "inner spaces stay: a b c"
    response = admin_client_ws.post("/audit/webhooks/new/", {**FORM, "secret": secret})
    assert response.status_code == 302
    assert Webhook.objects.get(workspace=workspace).secret == secret


def test_a_blank_secret_is_required(admin_client_ws):
    response = admin_client_ws.post("/audit/webhooks/new/", {**FORM, "secret": " " * 20})
    assert response.status_code == 422
    assert "This field is required." in response.content.decode()
    assert not Webhook.objects.exists()
