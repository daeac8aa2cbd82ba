"""A signed-in person who is a member of no workspace and opens a console page is told
one true thing, and what to do (the overview's words), not a role they do not have."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("staff", "says"),
    [
        (False, "You are not a member of any workspace yet. Ask an admin to add you."),
        (
            True,
            "You are not a member of any workspace yet. As a staff user you can make one: "
            "the overview lists the steps.",
        ),
    ],
)
def test_a_member_of_no_workspace_is_told_what_to_do(client, django_user_model, staff, says):
    user = django_user_model.objects.create_user(
        username=f"loner-{staff}", password="pw-unused-1234", is_staff=staff, is_superuser=staff
    )
    client.force_login(user)
    response = client.get("/review/")
    assert response.status_code == 403
    html = response.content.decode()
    message = html.split('id="refusal-message">')[1].split("</p>")[0]
    assert message == says
    assert "role" not in message.lower()
