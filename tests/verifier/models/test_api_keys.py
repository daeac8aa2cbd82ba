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
