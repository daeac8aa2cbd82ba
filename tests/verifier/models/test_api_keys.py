import hashlib
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.test import Client

from verifier.models import ApiKey
from verifier.services.workspaces import api_key_create


def test_only_the_hash_is_stored(workspace):
    created = api_key_create(workspace=workspace, name="ci")
    stored = ApiKey.objects.get(pk=created.api_key.pk)
    assert stored.key_hash == hashlib.sha256(created.raw_key.encode()).hexdigest()
    assert created.raw_key not in {stored.key_hash, stored.prefix, stored.name}
    assert created.raw_key.startswith(stored.prefix)


def test_create_api_key_command_prints_the_key_once(workspace):
    out, err = StringIO(), StringIO()
    call_command("create_api_key", "--workspace", workspace.slug, stdout=out, stderr=err)
    raw = out.getvalue().strip()
    assert (
        ApiKey.objects.get(workspace=workspace).key_hash == hashlib.sha256(raw.encode()).hexdigest()
    )
    assert "shown once" in err.getvalue()


def test_create_api_key_for_unknown_workspace_fails(db):
    with pytest.raises(CommandError, match="No workspace"):
        call_command("create_api_key", "--workspace", "nope")


def test_bearer_key_authenticates_and_a_wrong_key_does_not(workspace):
    created = api_key_create(workspace=workspace, name="ci")
    client = Client()
    assert client.get("/connect/v1/workspace").status_code == 401
    bad = client.get("/connect/v1/workspace", HTTP_AUTHORIZATION="Bearer sp_wrong")
    assert bad.status_code == 401
    assert bad.json()["error"]["code"] == "authentication_failed"
    ok = client.get("/connect/v1/workspace", HTTP_AUTHORIZATION=f"Bearer {created.raw_key}")
    assert ok.status_code == 200
    assert ok.json() == {"slug": workspace.slug, "name": workspace.name}


def test_revoked_key_is_refused(workspace):
    from django.utils import timezone

    created = api_key_create(workspace=workspace, name="ci")
    ApiKey.objects.filter(pk=created.api_key.pk).update(revoked_at=timezone.now())
    response = Client().get("/connect/v1/workspace", HTTP_AUTHORIZATION=f"Bearer {created.raw_key}")
    assert response.status_code == 401


def test_last_used_is_recorded_at_most_once_a_minute(workspace):
    from datetime import timedelta

    from verifier.services.workspaces import LAST_USED_RESOLUTION, api_key_touch

    created = api_key_create(workspace=workspace, name="touch")
    client = Client()
    headers = {"HTTP_AUTHORIZATION": f"Bearer {created.raw_key}"}
    assert client.get("/connect/v1/workspace", **headers).status_code == 200
    first = ApiKey.objects.get(pk=created.api_key.pk).last_used_at
    assert first is not None
    assert client.get("/connect/v1/workspace", **headers).status_code == 200
    assert ApiKey.objects.get(pk=created.api_key.pk).last_used_at == first

    stale = ApiKey.objects.get(pk=created.api_key.pk)
    stale.last_used_at = first - LAST_USED_RESOLUTION - timedelta(seconds=1)
    api_key_touch(api_key=stale)
    assert ApiKey.objects.get(pk=created.api_key.pk).last_used_at > first


@pytest.mark.parametrize("scope", ["read", "write", "admin"])
def test_create_api_key_command_takes_a_scope(workspace, scope):
    out, err = StringIO(), StringIO()
    call_command(
        "create_api_key", "--workspace", workspace.slug, "--scope", scope, stdout=out, stderr=err
    )
    raw = out.getvalue().strip()
    key = ApiKey.objects.get(key_hash=hashlib.sha256(raw.encode()).hexdigest())
    assert key.scope == scope and f"({scope})" in err.getvalue()


def test_new_keys_default_to_write_and_unknown_scopes_are_refused(workspace):
    assert api_key_create(workspace=workspace, name="ci").api_key.scope == "write"
    call_command("create_api_key", "--workspace", workspace.slug, stdout=StringIO())
    assert set(ApiKey.objects.values_list("scope", flat=True)) == {"write"}
    with pytest.raises(CommandError):
        call_command("create_api_key", "--workspace", workspace.slug, "--scope", "root")
    with pytest.raises(ValueError, match="unknown scope"):
        api_key_create(workspace=workspace, name="x", scope="root")


def test_the_migration_gives_existing_keys_admin_so_they_keep_working():
    """Keys made before scopes could do everything; new ones default to write."""
    import importlib

    migration = importlib.import_module("verifier.migrations.0008_api_key_scope").Migration
    add, alter = migration.operations[0], migration.operations[1]
    assert (add.name, add.field.default) == ("scope", "admin")
    assert (alter.name, alter.field.default) == ("scope", "write")


def test_a_read_key_reads_but_cannot_write(workspace):
    created = api_key_create(workspace=workspace, name="ro", scope="read")
    client = Client(headers={"Authorization": f"Bearer {created.raw_key}"})
    assert client.get("/connect/v1/workspace").status_code == 200
    response = client.post(
        "/connect/v1/sources",
        {"ref": "source:x", "text": "T."},
        content_type="application/json",
    )
    assert response.status_code == 403
    error = response.json()["error"]
    assert error["code"] == "permission_denied" and "the write scope" in error["message"]
    assert error["details"] == {"needed_scope": "write", "held_scope": "read"}


def test_the_lookup_loads_the_key_and_its_workspace_as_the_orm_does(workspace):
    from datetime import UTC

    from django.forms.models import model_to_dict
    from django.utils import timezone

    from verifier.selectors.workspaces import api_key_authenticate

    created = api_key_create(workspace=workspace, name="ci", scope="read")
    ApiKey.objects.filter(pk=created.api_key.pk).update(last_used_at=timezone.now())
    expected = ApiKey.objects.select_related("workspace").get(pk=created.api_key.pk)
    # Past psycopg's prepare threshold: the prepared statement answers the same.
    for _ in range(7):
        found = api_key_authenticate(raw_key=created.raw_key)
        assert found is not None and found.pk == expected.pk
        assert model_to_dict(found) == model_to_dict(expected)
        assert (found.created_at, found.last_used_at, found.revoked_at) == (
            expected.created_at,
            expected.last_used_at,
            None,
        )
        assert found.created_at.utcoffset() == UTC.utcoffset(None)
        assert not found._state.adding
        assert model_to_dict(found.workspace) == model_to_dict(workspace)
        assert found.workspace.created_at == workspace.created_at
    assert api_key_authenticate(raw_key=created.raw_key + "x") is None


@pytest.mark.django_db(transaction=True)
def test_the_lookup_survives_a_connection_the_database_dropped():
    """The key lookup runs first in an API call; like Django's own cursors it replaces a
    persistent connection that the server has closed (``CONN_HEALTH_CHECKS``)."""
    from django.db import connection

    from tests.factories import make_workspace
    from verifier.selectors.workspaces import api_key_authenticate

    created = api_key_create(workspace=make_workspace(), name="ci")
    assert connection.settings_dict["CONN_HEALTH_CHECKS"]
    connection.health_check_done = False  # as at the start of a request
    connection.connection.close()  # what a server restart leaves behind
    found = api_key_authenticate(raw_key=created.raw_key)
    assert found is not None and found.pk == created.api_key.pk
    assert not connection.connection.closed
