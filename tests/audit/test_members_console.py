"""The members page: an admin gives an existing user a role, changes one and takes a
member out; the workspace always keeps an admin, also when two admins demote each other
at once. Real database, real services."""

from __future__ import annotations

import threading

import pytest
from django.db import connection

from tests.factories import make_user
from verifier.models import Membership
from verifier.services.workspaces import MemberInputError, member_role_change

PAGE = "/audit/members/"


@pytest.mark.django_db
def test_an_admin_adds_changes_and_takes_out_a_member(admin_client_ws, workspace):
    make_user("rosa")
    added = admin_client_ws.post("/audit/members/new/", {"username": "rosa", "role": "reviewer"})
    assert added.status_code == 302 and added["Location"] == PAGE
    rosa = Membership.objects.get(workspace=workspace, user__username="rosa")
    assert rosa.role == "reviewer"
    admin_client_ws.post(f"/audit/members/{rosa.pk}/role/", {"role": "auditor"})
    rosa.refresh_from_db()
    assert rosa.role == "auditor"
    page = admin_client_ws.post(
        f"/audit/members/{rosa.pk}/remove/", {"confirmed": "1"}, follow=True
    )
    assert "rosa is no longer a member; their decisions stay." in page.content.decode()
    assert not Membership.objects.filter(pk=rosa.pk).exists()


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("username", "says"),
    [("nobody-here", "No user is named “nobody-here”"), ("ada", "ada is already a member")],
)
def test_adding_an_unknown_user_or_a_member_is_a_form_error(admin_client_ws, username, says):
    response = admin_client_ws.post(
        "/audit/members/new/", {"username": username, "role": "reviewer"}
    )
    assert response.status_code == 422 and says in response.content.decode()


@pytest.mark.django_db
def test_the_last_admin_keeps_the_role_and_stays(admin_client_ws, admin_user, workspace):
    own = Membership.objects.get(workspace=workspace, user=admin_user)
    for url, data in (
        (f"/audit/members/{own.pk}/role/", {"role": "reviewer", "confirmed": "1"}),
        (f"/audit/members/{own.pk}/remove/", {"confirmed": "1"}),
    ):
        page = admin_client_ws.post(url, data, follow=True).content.decode()
        assert "the workspace&#x27;s last admin" in page or "the workspace's last admin" in page
    own.refresh_from_db()
    assert own.role == "admin"


@pytest.mark.django_db
def test_another_workspaces_member_is_a_404(admin_client_ws, other_workspace):
    theirs = make_user("otto", workspace=other_workspace, role="reviewer")
    membership = theirs.memberships.get()
    assert (
        admin_client_ws.post(f"/audit/members/{membership.pk}/role/", {"role": "admin"}).status_code
        == 404
    )
    assert admin_client_ws.post(f"/audit/members/{membership.pk}/remove/").status_code == 404
    membership.refresh_from_db()
    assert membership.role == "reviewer"


@pytest.mark.django_db
def test_the_page_is_for_admins(reviewer_client, auditor_client):
    for client in (reviewer_client, auditor_client):
        assert client.get(PAGE).status_code == 403
        assert (
            client.post("/audit/members/new/", {"username": "x", "role": "admin"}).status_code
            == 403
        )


@pytest.mark.django_db(transaction=True)
def test_two_admins_demoting_each_other_at_once_leave_one_admin(workspace):
    one = make_user("one", workspace=workspace, role="admin").memberships.get()
    two = make_user("two", workspace=workspace, role="admin").memberships.get()
    outcomes: list[str] = []

    def demote(membership: Membership) -> None:
        try:
            member_role_change(
                membership=Membership.objects.select_related("user", "workspace").get(
                    pk=membership.pk
                ),
                role="reviewer",
            )
            outcomes.append("demoted")
        except MemberInputError as error:
            outcomes.append(error.code)
        finally:
            connection.close()

    threads = [threading.Thread(target=demote, args=(m,)) for m in (one, two)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(outcomes) == ["demoted", "last_admin"]
    assert Membership.objects.filter(workspace=workspace, role="admin").count() == 1


@pytest.mark.django_db
def test_role_messages_read_as_english(admin_client_ws, workspace):
    """Not "rosa is now a Admin" (reviewer walk 12)."""
    make_user("rosa")
    added = admin_client_ws.post(
        "/audit/members/new/", {"username": "rosa", "role": "admin"}, follow=True
    ).content.decode()
    assert "Added rosa to" in added and "as Admin." in added and "a Admin" not in added
    rosa = Membership.objects.get(workspace=workspace, user__username="rosa")
    changed = admin_client_ws.post(
        f"/audit/members/{rosa.pk}/role/", {"role": "auditor"}, follow=True
    ).content.decode()
    assert "rosa’s role is now Auditor." in changed


@pytest.mark.django_db
def test_changing_your_own_role_asks_first_and_lands_where_you_may_be(
    admin_client_ws, admin_user, workspace
):
    """The own row's role form carries a confirmation; after stepping down the admin lands
    on a page they may open, told the truth (reviewer walk 7)."""
    make_user("second-admin", workspace=workspace, role="admin")
    mine = Membership.objects.get(workspace=workspace, user=admin_user)
    html = admin_client_ws.get(PAGE).content.decode()
    own_form = html.split(f'action="/audit/members/{mine.pk}/role/"')[1].split(">")[0]
    assert "data-confirm=" in own_form and "Change your own role?" in own_form
    other = Membership.objects.get(workspace=workspace, user__username="second-admin")
    other_form = html.split(f'action="/audit/members/{other.pk}/role/"')[1].split(">")[0]
    assert "data-confirm" not in other_form
    asked = admin_client_ws.post(f"/audit/members/{mine.pk}/role/", {"role": "reviewer"})
    assert asked.status_code == 200 and "Change your own role?" in asked.content.decode()
    mine.refresh_from_db()
    assert mine.role == "admin"  # asked, not changed (without script)
    response = admin_client_ws.post(
        f"/audit/members/{mine.pk}/role/", {"role": "reviewer", "confirmed": "1"}
    )
    assert response.status_code == 302 and response["Location"] == "/"
    landed = admin_client_ws.get("/")
    assert landed.status_code == 200
    text = landed.content.decode()
    assert "Your role is now Reviewer" in text and "no longer open to you" in text


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("page", "make"),
    [
        ("/audit/members/", "members"),
        ("/audit/api-keys/", "keys"),
        ("/audit/webhooks/", "webhooks"),
    ],
)
def test_admin_lists_page_by_fifty(admin_client_ws, workspace, page, make):
    """Members, API keys and webhooks page like every console list (reviewer walk 10)."""
    from verifier.models import ApiKey, Webhook

    if make == "members":
        for i in range(55):
            make_user(f"m{i:02d}", workspace=workspace, role="reviewer")
    elif make == "keys":
        ApiKey.objects.bulk_create(
            ApiKey(workspace=workspace, name=f"k{i}", prefix=f"p{i:05d}", key_hash=f"h{i}")
            for i in range(55)
        )
    else:
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
    first = admin_client_ws.get(page).content.decode()
    assert "Page 1 of 2" in first and 'rel="next"' in first
    second = admin_client_ws.get(page, {"page": "2"}).content.decode()
    assert "Page 2 of 2" in second


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("action", "data"),
    [("remove", {"confirmed": "1"}), ("role", {"role": "auditor"})],
)
def test_a_member_taken_out_since_the_page_was_drawn_is_said_on_the_members_page(
    admin_client_ws, workspace, action, data
):
    """A second tab, another admin, or "Take out" sent twice: the member is gone. The
    answer is the members page saying so and that nothing changed, not a "not found"
    page that blames a mistyped link."""
    rosa = make_user("rosa", workspace=workspace, role="reviewer")
    membership = rosa.memberships.get()
    first = admin_client_ws.post(f"/audit/members/{membership.pk}/remove/", {"confirmed": "1"})
    assert first.status_code == 302
    again = admin_client_ws.post(f"/audit/members/{membership.pk}/{action}/", data)
    assert again.status_code == 404
    page = again.content.decode()
    assert "No such member in this workspace" in page and "Nothing changed" in page
    assert 'id="members"' in page or "Add a member" in page
    assert "may be mistyped" not in page
