"""The workspace's activity log: each change to members, API keys, webhooks, rule sets
and calibrators leaves one line, written in the change's own transaction, with who made
it; the Activity page lists them newest first, filtered by kind, paged; a line is never
changed. Real database, real services, the console's own forms."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, connection, transaction
from django.test import Client

from tests.factories import make_user
from tests.verifier.api.conftest import key_for
from verifier.models import ApiKey, Membership, Webhook, Workspace, WorkspaceEvent
from verifier.services.workspaces import (
    MemberInputError,
    api_key_create,
    api_key_revoke,
    member_remove,
)
from verifier.trace_caller import Caller, caller_set

pytestmark = pytest.mark.django_db
PAGE = "/audit/activity/"
ADA = {"kind": "member", "name": "ada"}


@pytest.fixture(autouse=True)
def local_receivers(settings):
    settings.SPANPROOF_WEBHOOK_ALLOW_HTTP = True
    settings.SPANPROOF_WEBHOOK_ALLOWED_NETWORKS = ["127.0.0.1/32"]


def _lines(workspace) -> list[tuple[str, str, dict, dict | None]]:
    return [
        (e.action, e.target, e.details, e.actor)
        for e in WorkspaceEvent.objects.filter(workspace=workspace).order_by("created_at", "id")
    ]


def test_each_admin_change_in_the_console_leaves_one_line_naming_who(admin_client_ws, workspace):
    make_user("rosa")
    admin_client_ws.post("/audit/members/new/", {"username": "rosa", "role": "reviewer"})
    rosa = Membership.objects.get(workspace=workspace, user__username="rosa")
    admin_client_ws.post(f"/audit/members/{rosa.pk}/role/", {"role": "auditor"})
    admin_client_ws.post(f"/audit/members/{rosa.pk}/role/", {"role": "auditor"})  # no change
    admin_client_ws.post(f"/audit/members/{rosa.pk}/remove/", {"confirmed": "1"})
    admin_client_ws.post("/audit/api-keys/new/", {"name": "support-bot", "scope": "read"})
    key = ApiKey.objects.get(workspace=workspace, name="support-bot")
    admin_client_ws.post(f"/audit/api-keys/{key.pk}/revoke/", {"confirmed": "1"})
    admin_client_ws.post(f"/audit/api-keys/{key.pk}/revoke/", {"confirmed": "1"})  # again
    admin_client_ws.post(
        "/audit/webhooks/new/",
        {
            "url": "http://127.0.0.1:9/hook?token=secret-in-the-query",
            "events": ["job.completed"],
            "threshold": "80",
            "secret": "s3cret-for-the-console",
        },
    )
    hook = Webhook.objects.get(workspace=workspace)
    admin_client_ws.post(f"/audit/webhooks/{hook.pk}/off/", {"confirmed": "1"})
    admin_client_ws.post(f"/audit/webhooks/{hook.pk}/off/", {"confirmed": "1"})  # again

    assert _lines(workspace) == [
        ("member_added", "rosa", {"role": "reviewer"}, ADA),
        ("member_role_changed", "rosa", {"from": "reviewer", "to": "auditor"}, ADA),
        ("member_removed", "rosa", {"role": "auditor"}, ADA),
        ("api_key_created", "support-bot", {"key_prefix": key.prefix, "scope": "read"}, ADA),
        ("api_key_revoked", "support-bot", {"key_prefix": key.prefix, "scope": "read"}, ADA),
        (
            "webhook_created",
            "http://127.0.0.1:9/hook",  # the query, which may carry a token, is not kept
            {"webhook_id": hook.pk, "events": ["job.completed"], "threshold": 80},
            ADA,
        ),
        (
            "webhook_turned_off",
            "http://127.0.0.1:9/hook",
            {"webhook_id": hook.pk, "deliveries_cancelled": 0},
            ADA,
        ),
    ]


def test_a_refused_change_leaves_no_line_and_a_command_leaves_no_actor(workspace, admin_user):
    only_admin = Membership.objects.get(workspace=workspace, user=admin_user)
    with pytest.raises(MemberInputError):
        member_remove(membership=only_admin)  # the workspace keeps its last admin
    assert _lines(workspace) == []

    api_key_create(workspace=workspace, name="from-a-command")
    ((action, target, _, actor),) = _lines(workspace)
    assert (action, target, actor) == ("api_key_created", "from-a-command", None)


def test_a_line_is_never_changed(workspace):
    api_key_create(workspace=workspace, name="ci")
    event = WorkspaceEvent.objects.get(workspace=workspace)
    with pytest.raises(IntegrityError, match="append-only"), transaction.atomic():
        WorkspaceEvent.objects.filter(pk=event.pk).update(target="someone else")
    with connection.cursor() as cursor:
        cursor.execute("SELECT target FROM verifier_workspaceevent WHERE id = %s", [event.pk])
        assert cursor.fetchone() == ("ci",)


def test_rule_sets_saved_and_put_in_force_are_lines_too(admin_client_ws, workspace):
    from dataclasses import replace

    from audit.services import rule_set_activate, rule_set_create
    from verifier.scoring.rulesets import CORE_V1

    saved = rule_set_create(
        workspace=workspace, definition=replace(CORE_V1, name="Delta rules"), note="stricter"
    )
    rule_set_activate(
        workspace=workspace,
        rule_set=saved,
        domain_pack="",
        policy=CORE_V1.policies[0].name,
        actor=None,
    )
    assert [(a, t, d) for a, t, d, _ in _lines(workspace)] == [
        ("rule_set_saved", "Delta rules v1", {"rule_set_id": saved.pk, "note": "stricter"}),
        (
            "rule_set_activated",
            "Delta rules v1",
            {"rule_set_id": saved.pk, "domain_pack": "", "policy": CORE_V1.policies[0].name},
        ),
    ]


def test_the_page_lists_lines_newest_first_filters_and_pages(
    admin_client_ws, auditor_client, reviewer_client, workspace, other_workspace, monkeypatch
):
    for n in range(3):
        api_key_create(workspace=workspace, name=f"key-{n}")
    api_key_create(workspace=other_workspace, name="not-ours")
    make_user("nina")
    admin_client_ws.post("/audit/members/new/", {"username": "nina", "role": "auditor"})

    html = auditor_client.get(PAGE).content.decode()
    table = html[html.index('id="activity"') :]
    assert table.index("key-2") < table.index("key-1") < table.index("key-0")
    assert "not-ours" not in html
    assert "a command or task" in table and "member <strong>ada</strong>" in table
    assert reviewer_client.get(PAGE).status_code == 200

    filtered = auditor_client.get(PAGE, {"action": "api_key_created"}).content.decode()
    assert "key-0" in filtered and "Member added" not in filtered[filtered.index('id="activity"') :]
    nothing = auditor_client.get(PAGE, {"action": "webhook_created"}).content.decode()
    assert "No change of this kind yet." in nothing
    assert auditor_client.get(PAGE, {"action": "no-such-kind"}).status_code == 200

    monkeypatch.setattr("verifier.selectors.activity.ACTIVITY_PAGE_SIZE", 2)
    first = auditor_client.get(PAGE).content.decode()
    assert 'rel="next"' in first and "key-0" not in first
    next_href = first[first.index('rel="next"') - 300 : first.index('rel="next"')]
    query = next_href[next_href.rindex('href="?') + 7 : next_href.rindex('"')]
    second = auditor_client.get(f"{PAGE}?{query.replace('&amp;', '&')}").content.decode()
    assert "key-0" in second and "key-2" not in second


def test_a_workspace_goes_with_its_lines(workspace):
    api_key_create(workspace=workspace, name="ci")
    Workspace.objects.filter(pk=workspace.pk).delete()
    assert not WorkspaceEvent.objects.exists()


def test_the_api_lists_the_workspaces_lines_newest_first(workspace, other_workspace):
    api = Client(headers={"Authorization": f"Bearer {key_for(workspace, 'read')}"})
    made = api_key_create(workspace=workspace, name="ci")  # from a command: no actor
    api_key_create(workspace=other_workspace, name="not-ours")
    # a change made in a call authenticated by an API key names that key
    caller_set(Caller(kind="api_key", name="admin-tool", key_prefix="sp_x"))
    try:
        api_key_revoke(workspace=workspace, key_id=made.api_key.pk)
    finally:
        caller_set(None)

    rows = api.get("/connect/v1/activity").json()["results"]
    assert [(r["action"], r["target"]) for r in rows] == [
        ("api_key_revoked", "ci"),
        ("api_key_created", "ci"),
    ]
    assert rows[0]["actor"] == {"kind": "api_key", "name": "admin-tool", "key_prefix": "sp_x"}
    assert rows[1]["actor"] is None and rows[0]["action_label"] == "API key revoked"
    only = api.get("/connect/v1/activity", {"action": "api_key_created"}).json()["results"]
    assert [r["action"] for r in only] == ["api_key_created"]
    refused = api.get("/connect/v1/activity", {"action": "nothing"})
    assert refused.status_code == 400 and refused.json()["error"]
    assert api.get("/connect/v1/activity", {"who": "x"}).status_code == 400


def test_a_kind_of_change_the_log_does_not_have_is_said_not_hidden(auditor_client):
    page = auditor_client.get("/audit/activity/?action=nope").content.decode()
    assert "No kind of change is called <q>nope</q>: every kind is shown." in page
    assert "No kind of change is called" not in (
        auditor_client.get("/audit/activity/").content.decode()
    )
