"""The members, API keys and webhooks forms with odd and hostile input: a role that is
already the member's says so and changes (and logs) nothing, a user name holding an
invisible character is named for what it holds, never echoed back reversed, and every
admin POST without its CSRF token is refused with nothing stored. Real database, real
services."""

from __future__ import annotations

import pytest
from django.test import Client

from tests.factories import make_user
from verifier.models import ApiKey, Membership, Webhook, WorkspaceEvent
from verifier.services.workspaces import api_key_create

pytestmark = pytest.mark.django_db
PAGE = "/audit/members/"


def test_choosing_the_role_a_member_has_says_so_and_changes_nothing(
    admin_client_ws, admin_user, workspace
):
    rosa = make_user("rosa", workspace=workspace, role="auditor").memberships.get()
    page = admin_client_ws.post(f"{PAGE}{rosa.pk}/role/", {"role": "auditor"}, follow=True)
    text = page.content.decode()
    assert "rosa is already Auditor; nothing changed." in text
    assert "role is now" not in text
    # The own row, with the role it has: nothing to confirm, nothing changed.
    mine = Membership.objects.get(workspace=workspace, user=admin_user)
    own = admin_client_ws.post(f"{PAGE}{mine.pk}/role/", {"role": "admin"})
    assert own.status_code == 302 and own["Location"] == PAGE
    own_page = admin_client_ws.get(PAGE).content.decode()
    assert "ada is already Admin; nothing changed." in own_page
    assert not WorkspaceEvent.objects.filter(workspace=workspace).exists()


@pytest.mark.parametrize(
    ("username", "says"),
    [
        ("ro\u202esa", "U+202E RIGHT-TO-LEFT OVERRIDE at position 2"),
        ("rosa\u200b", "U+200B ZERO WIDTH SPACE at position 4"),
    ],
)
def test_a_user_name_with_an_invisible_character_is_named_not_echoed(
    admin_client_ws, workspace, username, says
):
    make_user("rosa")
    response = admin_client_ws.post(f"{PAGE}new/", {"username": username, "role": "reviewer"})
    assert response.status_code == 422
    text = response.content.decode()
    assert f"The user name contains the invisible character {says}" in text
    assert f"“{username}”" not in text  # not said back, where it would read reversed
    assert f'value="{username}"' in text  # what was typed stays in the field
    assert not Membership.objects.filter(workspace=workspace, user__username="rosa").exists()


def test_every_admin_form_refuses_a_post_without_its_csrf_token(admin_user, workspace):
    rosa = make_user("rosa", workspace=workspace, role="reviewer").memberships.get()
    key = api_key_create(workspace=workspace, name="ci").api_key
    hook = Webhook.objects.create(
        workspace=workspace,
        url="https://hooks.example/x",
        secret="s" * 16,
        events=["job.completed"],
    )
    client = Client(enforce_csrf_checks=True)
    client.force_login(admin_user)
    posts = [
        (f"{PAGE}new/", {"username": "ada", "role": "reviewer"}),
        (f"{PAGE}{rosa.pk}/role/", {"role": "admin", "confirmed": "1"}),
        (f"{PAGE}{rosa.pk}/remove/", {"confirmed": "1"}),
        ("/audit/api-keys/new/", {"name": "another", "scope": "admin"}),
        (f"/audit/api-keys/{key.pk}/revoke/", {"confirmed": "1"}),
        (
            "/audit/webhooks/new/",
            {
                "url": "https://hooks.example/y",
                "events": ["job.completed"],
                "threshold": "90",
                "secret": "s" * 16,
            },
        ),
        (f"/audit/webhooks/{hook.pk}/off/", {"confirmed": "1"}),
    ]
    events_before = WorkspaceEvent.objects.filter(workspace=workspace).count()
    for url, data in posts:
        assert client.post(url, data).status_code == 403, url
    rosa.refresh_from_db()
    hook.refresh_from_db()
    assert rosa.role == "reviewer" and hook.is_active
    assert list(ApiKey.objects.filter(workspace=workspace).values_list("name", "revoked_at")) == [
        ("ci", None)
    ]
    assert Webhook.objects.filter(workspace=workspace).count() == 1
    assert WorkspaceEvent.objects.filter(workspace=workspace).count() == events_before


@pytest.mark.parametrize(
    ("post", "data", "page"),
    [
        ("/audit/members/new/", {"username": "nobody-here", "role": "reviewer"}, PAGE),
        ("/audit/api-keys/new/", {"name": "k0", "scope": "read"}, "/audit/api-keys/"),
        (
            "/audit/webhooks/new/",
            {"url": "https://10.0.0.1/x", "events": ["job.completed"], "threshold": "90"},
            "/audit/webhooks/",
        ),
        ("/audit/api-keys/999999/revoke/", {"confirmed": "1"}, "/audit/api-keys/"),
    ],
)
def test_a_refused_forms_page_links_to_the_lists_next_page(
    admin_client_ws, workspace, post, data, page
):
    """A refused form is shown at its POST address: its list's "Next" link leads to the
    list's page 2, not to ?page=2 of that address (a GET there answers 405)."""
    for i in range(55):
        make_user(f"m{i:02d}", workspace=workspace, role="reviewer")
    ApiKey.objects.bulk_create(
        ApiKey(workspace=workspace, name=f"k{i}", prefix=f"p{i:05d}", key_hash=f"h{i}")
        for i in range(55)
    )
    Webhook.objects.bulk_create(
        Webhook(
            workspace=workspace,
            url=f"https://hooks.example.org/{i}",
            events=["job.completed"],
            threshold=90,
            secret="s" * 16,
        )
        for i in range(55)
    )
    refused = admin_client_ws.post(post, {**data, "secret": "s" * 16})
    assert refused.status_code in (404, 422)
    text = refused.content.decode()
    assert f'<a href="{page}?page=2" rel="next">' in text
    assert 'href="?page=2"' not in text
    assert "Page 2 of 2" in admin_client_ws.get(page, {"page": "2"}).content.decode()


def test_a_refused_events_choice_is_described_by_its_error(admin_client_ws):
    """The events' checkboxes are a fieldset, which Django does not describe by the error
    itself: the fieldset says which error is its own."""
    response = admin_client_ws.post(
        "/audit/webhooks/new/",
        {"url": "https://hooks.example/x", "threshold": "90", "secret": "s" * 16},
    )
    assert response.status_code == 422
    text = response.content.decode()
    assert '<fieldset aria-describedby="id_events_error"><legend>Events</legend>' in text
    assert '<span class="form-error" id="id_events_error">This field is required.</span>' in text
    assert not Webhook.objects.exists()
