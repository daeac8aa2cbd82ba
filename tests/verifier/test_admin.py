"""The Django admin reads claims but changes their state only through the services."""

from __future__ import annotations

import pytest
from django.test import Client

from tests.factories import make_claim, make_source
from verifier.models import Claim, StateEvent

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_site_client(django_user_model):
    user = django_user_model.objects.create_superuser("root", "root@example.com", "pw-123456!")
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def claim(workspace):
    return make_claim(make_source(workspace))


def test_state_inputs_are_read_only(admin_site_client, claim):
    url = f"/admin/verifier/claim/{claim.pk}/change/"
    page = admin_site_client.get(url)
    assert page.status_code == 200
    html = page.content.decode()
    for field in ("text", "exclusion_reason", "legacy_affirmed", "published"):
        assert f'name="{field}"' not in html
    admin_site_client.post(url, {"text": "Rewritten.", "exclusion_reason": "x", "published": "on"})
    claim.refresh_from_db()
    assert claim.text != "Rewritten." and claim.exclusion_reason == "" and not claim.published


@pytest.mark.parametrize(
    "path",
    ["verifier/claim/{claim}", "verifier/workspace/{workspace}", "verifier/source/{source}"],
)
def test_history_cannot_be_deleted(admin_site_client, claim, path):
    url = "/admin/" + path.format(
        claim=claim.pk, workspace=claim.workspace_id, source=claim.source_id
    )
    assert admin_site_client.post(url + "/delete/", {"post": "yes"}).status_code == 403
    assert Claim.objects.filter(pk=claim.pk).exists()


def test_exclude_and_restore_actions_append_state_events(admin_site_client, claim):
    before = StateEvent.objects.filter(claim=claim).count()
    changelist = "/admin/verifier/claim/"
    admin_site_client.post(changelist, {"action": "exclude_claims", "_selected_action": [claim.pk]})
    claim.refresh_from_db()
    assert claim.state == "excluded" and claim.exclusion_reason.startswith("Excluded in the admin")
    admin_site_client.post(changelist, {"action": "restore_claims", "_selected_action": [claim.pk]})
    claim.refresh_from_db()
    assert claim.state != "excluded" and claim.exclusion_reason == ""
    events = StateEvent.objects.filter(claim=claim).order_by("pk")
    assert events.count() == before + 2
    assert [e.to_state for e in events][-2] == "excluded"


def test_no_bulk_delete_action(admin_site_client, claim):
    page = admin_site_client.get("/admin/verifier/claim/")
    assert "delete_selected" not in page.content.decode()
