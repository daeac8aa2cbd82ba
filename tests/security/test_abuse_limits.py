"""Sign-in lockout after repeated failures; API rate limits per key and per address."""

from __future__ import annotations

import pytest

from tests.factories import make_user
from tests.verifier.api.conftest import client_for, key_for

LOGIN = "/accounts/login/"
PASSWORD = "correct horse battery staple"


@pytest.fixture
def user(workspace):
    user = make_user("lena", workspace=workspace, role="reviewer")
    user.set_password(PASSWORD)
    user.save()
    return user


def _login(client, password):
    return client.post(LOGIN, {"username": "lena", "password": password})


def _signed_in(client) -> bool:
    return "_auth_user_id" in client.session


def test_thirty_wrong_passwords_lock_the_account_out(client, user, settings):
    statuses = [_login(client, f"wrong-{i}").status_code for i in range(30)]
    limit = settings.AXES_FAILURE_LIMIT
    assert statuses[: limit - 1] == [200] * (limit - 1)  # the form with its error
    assert set(statuses[limit:]) == {429}
    response = _login(client, PASSWORD)
    assert response.status_code == 429
    assert not _signed_in(client)
    body = response.content.decode()
    assert "Too many failed sign-in attempts" in body and "Try again in 15 minutes" in body
    assert int(response["Retry-After"]) == 15 * 60


def test_a_few_mistakes_then_the_right_password_signs_in(client, user, settings):
    for i in range(settings.AXES_FAILURE_LIMIT - 1):
        assert _login(client, f"wrong-{i}").status_code == 200
    response = _login(client, PASSWORD)
    assert response.status_code == 302 and _signed_in(client)


def test_the_lockout_is_per_username_and_address(client, user, workspace, settings):
    make_user("mara", workspace=workspace, role="reviewer")
    for i in range(settings.AXES_FAILURE_LIMIT):
        _login(client, f"wrong-{i}")
    assert _login(client, PASSWORD).status_code == 429
    other_address = client.post(
        LOGIN, {"username": "lena", "password": PASSWORD}, REMOTE_ADDR="203.0.113.9"
    )
    assert other_address.status_code == 302


def test_the_api_throttles_per_key_with_retry_after(workspace, settings):
    settings.SPANPROOF_API_RATE_PER_KEY = "3/min"
    api = client_for(workspace)
    statuses = [api.get("/connect/v1/workspace").status_code for _ in range(4)]
    assert statuses == [200, 200, 200, 429]
    response = api.get("/connect/v1/workspace")
    assert response.status_code == 429
    error = response.json()["error"]
    assert error["code"] == "throttled"
    retry_after = int(response["Retry-After"])
    assert 0 < retry_after <= 60 and error["details"]["retry_after"] == retry_after
    # the 429 names the limit it hit, in words and in details
    assert error["details"]["limit"] == "api_key" and error["details"]["rate"] == "3/min"
    assert error["message"].startswith("Over the limit of 3/min requests per API key")
    # another key from the same address has its own budget
    other = client_for(workspace)
    assert other.get("/connect/v1/workspace").status_code == 200


def test_the_api_throttles_per_address(workspace, settings):
    settings.SPANPROOF_API_RATE_PER_IP = "4/min"
    statuses = [client_for(workspace).get("/connect/v1/workspace").status_code for _ in range(5)]
    assert statuses == [200, 200, 200, 200, 429]
    error = client_for(workspace).get("/connect/v1/workspace").json()["error"]
    assert (error["details"]["limit"], error["details"]["rate"]) == ("client_address", "4/min")
    assert "per client address" in error["message"]
    elsewhere = client_for(workspace).get("/connect/v1/workspace", REMOTE_ADDR="203.0.113.7")
    assert elsewhere.status_code == 200


def test_a_spoofed_forwarded_for_does_not_reset_the_address_budget(workspace, settings):
    settings.SPANPROOF_API_RATE_PER_IP = "2/min"
    key = key_for(workspace)
    from django.test import Client

    statuses = [
        Client(headers={"Authorization": f"Bearer {key}", "X-Forwarded-For": f"198.51.100.{i}"})
        .get("/connect/v1/workspace")
        .status_code
        for i in range(3)
    ]
    assert statuses == [200, 200, 429]


def test_limits_can_be_turned_off(workspace, settings):
    settings.SPANPROOF_API_RATE_PER_KEY = ""
    settings.SPANPROOF_API_RATE_PER_IP = ""
    api = client_for(workspace)
    assert {api.get("/connect/v1/workspace").status_code for _ in range(5)} == {200}


def test_a_spoofed_forwarded_for_does_not_dodge_the_lockout(client, user, settings):
    for i in range(settings.AXES_FAILURE_LIMIT):
        client.post(
            LOGIN,
            {"username": "lena", "password": f"wrong-{i}"},
            HTTP_X_FORWARDED_FOR=f"198.51.100.{i}",
        )
    response = client.post(
        LOGIN, {"username": "lena", "password": PASSWORD}, HTTP_X_FORWARDED_FOR="198.51.100.99"
    )
    assert response.status_code == 429 and not _signed_in(client)


def test_behind_a_trusted_proxy_the_forwarded_address_counts(client, user, settings):
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": 1}
    for i in range(settings.AXES_FAILURE_LIMIT):
        client.post(
            LOGIN, {"username": "lena", "password": f"w{i}"}, HTTP_X_FORWARDED_FOR="198.51.100.1"
        )
    locked = client.post(
        LOGIN, {"username": "lena", "password": PASSWORD}, HTTP_X_FORWARDED_FOR="198.51.100.1"
    )
    assert locked.status_code == 429
    other = client.post(
        LOGIN, {"username": "lena", "password": PASSWORD}, HTTP_X_FORWARDED_FOR="198.51.100.2"
    )
    assert other.status_code == 302
