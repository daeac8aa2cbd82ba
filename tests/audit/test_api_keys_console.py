"""/audit/api-keys/: making a key is Post/Redirect/Get, its secret is shown once; a name
is refused when another live key of the workspace has it, or when it does not read as
what it is (a control or invisible formatting character)."""

from __future__ import annotations

import re
import threading
import time
from io import StringIO
from typing import Any

import pytest
from django.core.management import CommandError, call_command
from django.db import connection, transaction
from django.urls import reverse

from tests.factories import make_workspace
from verifier.models import ApiKey, Workspace
from verifier.selectors.workspaces import api_key_authenticate
from verifier.services.workspaces import ApiKeyInputError, api_key_create, api_key_revoke

NEW = reverse("audit:api-key-new")
KEYS = reverse("audit:api-keys")
SECRET = re.compile(r'<pre id="new-key"[^>]*>([^<]+)</pre>')


def _secret(page: str) -> str | None:
    found = SECRET.search(page)
    return found.group(1) if found else None


def test_making_a_key_redirects_to_the_keys_page_which_shows_the_secret_once(admin_client_ws):
    made = admin_client_ws.post(NEW, {"name": "ci", "scope": "read"})
    assert made.status_code == 302 and made["Location"] == KEYS
    assert not made.content  # the secret is in neither the address nor the answer

    shown = admin_client_ws.get(KEYS)
    assert shown.status_code == 200 and shown["Cache-Control"] == "no-store"
    raw = _secret(shown.content.decode())
    assert raw is not None
    key = api_key_authenticate(raw_key=raw)
    assert key is not None and key.name == "ci" and key.scope == "read"
    assert "Your new key: ci" in shown.content.decode()

    reloaded = admin_client_ws.get(KEYS).content.decode()
    assert _secret(reloaded) is None and raw not in reloaded
    assert ApiKey.objects.count() == 1


def test_the_secret_is_kept_only_for_the_session_that_made_it(admin_client_ws, admin_user):
    from django.test import Client

    admin_client_ws.post(NEW, {"name": "ci", "scope": "read"})
    other_tab_of_another_session = Client()
    other_tab_of_another_session.force_login(admin_user)
    assert _secret(other_tab_of_another_session.get(KEYS).content.decode()) is None
    assert _secret(admin_client_ws.get(KEYS).content.decode()) is not None


def test_sending_the_form_again_makes_no_second_key(admin_client_ws):
    admin_client_ws.post(NEW, {"name": "ci", "scope": "read"})
    again = admin_client_ws.post(NEW, {"name": "ci", "scope": "write"})
    assert again.status_code == 422
    page = again.content.decode()
    error = re.search(r'<span class="form-error" id="[^"]*">([^<]*)</span>', page)
    assert error is not None
    assert "already has a key named &quot;ci&quot;" in error.group(1)
    assert _secret(page) is None
    assert list(ApiKey.objects.values_list("name", "scope")) == [("ci", "read")]


def test_a_revoked_keys_name_can_be_given_again(admin_client_ws, workspace):
    old = api_key_create(workspace=workspace, name="ci").api_key
    api_key_revoke(workspace=workspace, key_id=old.pk)
    assert admin_client_ws.post(NEW, {"name": "ci", "scope": "read"}).status_code == 302
    assert ApiKey.objects.filter(name="ci", revoked_at__isnull=True).count() == 1


def test_another_workspaces_key_does_not_take_the_name(admin_client_ws, other_workspace):
    api_key_create(workspace=other_workspace, name="ci")
    assert admin_client_ws.post(NEW, {"name": "ci", "scope": "read"}).status_code == 302


@pytest.mark.parametrize(
    ("name", "code_point"),
    [
        ("x \u202egnp.exe", "U+202E RIGHT-TO-LEFT OVERRIDE"),
        ("ci\u200bbot", "U+200B ZERO WIDTH SPACE"),
        ("ci\tbot", "U+0009"),
        ("ci\u2066bot", "U+2066 LEFT-TO-RIGHT ISOLATE"),
    ],
)
def test_a_name_that_does_not_read_as_what_it_is_is_a_form_error(admin_client_ws, name, code_point):
    response = admin_client_ws.post(NEW, {"name": name, "scope": "read"})
    assert response.status_code == 422
    error = re.search(
        r'<span class="form-error" id="[^"]*">([^<]*)</span>', response.content.decode()
    )
    assert error is not None and code_point in error.group(1)
    assert not ApiKey.objects.exists()


def test_the_command_refuses_such_a_name_too(workspace):
    with pytest.raises(CommandError, match="U\\+202E RIGHT-TO-LEFT OVERRIDE"):
        call_command(
            "create_api_key",
            "--workspace",
            workspace.slug,
            "--name",
            "x \u202egnp.exe",
            stdout=StringIO(),
            stderr=StringIO(),
        )
    assert not ApiKey.objects.exists()


def test_the_service_refuses_a_taken_or_unreadable_name(workspace):
    api_key_create(workspace=workspace, name="ci")
    with pytest.raises(ApiKeyInputError) as taken:
        api_key_create(workspace=workspace, name="ci")
    assert taken.value.code == "name_taken" and taken.value.details == {"field": "name"}
    with pytest.raises(ApiKeyInputError) as other_case:
        api_key_create(workspace=workspace, name="CI")
    assert other_case.value.code == "name_taken" and '"ci"' in other_case.value.message
    with pytest.raises(ApiKeyInputError) as unreadable:
        api_key_create(workspace=workspace, name="a\u202eb", unique_name=False)
    assert unreadable.value.code == "invalid_name"
    assert ApiKey.objects.count() == 1


@pytest.mark.django_db(transaction=True)
def test_two_keys_made_at_once_under_one_name_make_one():
    """The second request waits for the first one's transaction and then sees its key;
    without the lock both would find no key by that name and both would make one."""
    workspace = make_workspace("race")
    first_made = threading.Event()
    outcomes: list[str] = []
    errors: list[BaseException] = []

    def first() -> None:
        try:
            with transaction.atomic():
                api_key_create(workspace=workspace, name="ci")
                first_made.set()
                time.sleep(0.5)  # the second one is running meanwhile
            outcomes.append("made")
        except BaseException as exc:  # surfaced below
            errors.append(exc)
        finally:
            first_made.set()
            connection.close()

    def second() -> None:
        try:
            first_made.wait(timeout=10)
            api_key_create(workspace=workspace, name="ci")
            outcomes.append("made")
        except ApiKeyInputError as error:
            outcomes.append(error.code)
        except BaseException as exc:  # surfaced below
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert not errors, errors
    assert sorted(outcomes) == ["made", "name_taken"]
    assert ApiKey.objects.filter(workspace=workspace, name="ci").count() == 1


def test_revoking_a_key_another_admin_revoked_says_so(admin_client_ws, workspace):
    key = api_key_create(workspace=workspace, name="nightly").api_key
    url = f"/audit/api-keys/{key.pk}/revoke/"
    first = admin_client_ws.post(url, {"confirmed": "1"}, follow=True).content.decode()
    assert "Revoked nightly" in first
    again = admin_client_ws.post(url, {"confirmed": "1"}, follow=True).content.decode()
    assert "nightly was already revoked; nothing changed." in again
    assert "Revoked nightly" not in again


def test_a_double_click_shows_the_secret_of_the_key_the_first_click_made(admin_client_ws):
    """The browser shows the second POST's answer: it is the keys page with the secret of
    the key the first one made, not "name taken" with the secret left for a later visit."""
    first = admin_client_ws.post(NEW, {"name": "ci", "scope": "read"})
    assert first.status_code == 302  # the browser drops this answer
    second = admin_client_ws.post(NEW, {"name": "ci", "scope": "read"}, follow=True)
    assert second.status_code == 200
    page = second.content.decode()
    raw = _secret(page)
    assert raw is not None and "already has a key named" not in page
    assert "sent twice: one key was made" in page
    key = api_key_authenticate(raw_key=raw)
    assert key is not None and key.name == "ci"
    assert ApiKey.objects.count() == 1
    assert _secret(admin_client_ws.get(KEYS).content.decode()) is None  # shown once
    third = admin_client_ws.post(NEW, {"name": "ci", "scope": "read"})
    assert third.status_code == 422  # once shown, the name is simply taken


def _waiting_locks() -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_locks WHERE NOT granted")
        row = cursor.fetchone()
    return int(row[0]) if row else 0


@pytest.mark.django_db(transaction=True)
def test_a_double_click_whose_requests_overlap_shows_the_secret(admin_user, workspace):
    """Both POSTs in flight at once, as a double click on a slow answer sends them: the
    second waits for the first one's key and must then find its secret in the session."""
    from django.test import Client

    first_tab = Client()
    first_tab.force_login(admin_user)
    second_tab = Client()
    second_tab.cookies = first_tab.cookies  # one browser, one session
    answers: dict[str, Any] = {}
    errors: list[BaseException] = []

    def post(name: str, client: Client) -> None:
        try:
            answers[name] = client.post(NEW, {"name": "ci", "scope": "read"})
        except BaseException as exc:  # surfaced below
            errors.append(exc)
        finally:
            connection.close()

    def wait_for(blocked: int) -> None:
        deadline = time.monotonic() + 10
        while _waiting_locks() < blocked and time.monotonic() < deadline:
            time.sleep(0.02)

    threads = [
        threading.Thread(target=post, args=("first", first_tab)),
        threading.Thread(target=post, args=("second", second_tab)),
    ]
    with transaction.atomic():  # holds both requests on the workspace's row
        Workspace.objects.select_for_update().get(pk=workspace.pk)
        threads[0].start()
        wait_for(1)
        threads[1].start()
        wait_for(2)
    for thread in threads:
        thread.join(timeout=30)
    assert not errors, errors
    assert answers["first"].status_code == 302
    assert answers["second"].status_code == 302, answers["second"].content.decode()[-2000:]
    page = second_tab.get(KEYS).content.decode()
    raw = _secret(page)
    assert raw is not None
    assert api_key_authenticate(raw_key=raw) is not None
    assert ApiKey.objects.count() == 1
