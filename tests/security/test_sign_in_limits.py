"""A username longer than any user's is a form error on the sign-in page, not a 500 from
the lockout's record of the attempt (``verifier.sign_in``)."""

from __future__ import annotations

import pytest
from axes.models import AccessAttempt

from tests.factories import make_user

pytestmark = pytest.mark.django_db


def test_an_overlong_username_is_a_form_error_and_no_attempt(client):
    response = client.post("/accounts/login/", {"username": "a" * 300, "password": "x"})
    assert response.status_code == 200
    assert "at most 150 characters" in response.content.decode()
    assert not AccessAttempt.objects.exists()


def test_a_wrong_password_is_still_recorded_and_a_right_one_signs_in(client, workspace):
    user = make_user("ada", workspace=workspace, role="admin")
    refused = client.post("/accounts/login/", {"username": "ada", "password": "wrong"})
    assert refused.status_code == 200 and AccessAttempt.objects.filter(username="ada").exists()
    signed_in = client.post("/accounts/login/", {"username": "ada", "password": "pw-for-tests-123"})
    assert signed_in.status_code == 302
    assert int(client.session["_auth_user_id"]) == user.pk
