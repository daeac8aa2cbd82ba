"""The console's "Make key" (``audit/api_key_views.py``) stores the key, its activity row
and the session copy of its secret in one transaction: a failure at any of them leaves no
key whose secret nobody was shown, and no activity row for a key that does not exist.

Each failure is the database's own: a trigger that refuses the write, as a constraint or
a lost session row would."""

from __future__ import annotations

import pytest
from django.contrib.sessions.backends.base import UpdateError
from django.db import DatabaseError, connection
from django.urls import reverse

from verifier.models import ApiKey, WorkspaceEvent

NEW = reverse("audit:api-key-new")


def _refuse(table: str, operation: str) -> None:
    with connection.cursor() as cursor:
        cursor.execute(
            "CREATE FUNCTION test_refuse_write() RETURNS trigger LANGUAGE plpgsql AS "
            "$$ BEGIN RAISE EXCEPTION 'refused by the test'; END $$"
        )
        cursor.execute(
            f"CREATE TRIGGER test_refuse_write BEFORE {operation} ON {table} "
            "FOR EACH ROW EXECUTE FUNCTION test_refuse_write()"
        )


@pytest.mark.parametrize(
    ("table", "operation"),
    [
        (WorkspaceEvent._meta.db_table, "INSERT"),  # the activity row
        ("django_session", "UPDATE"),  # the session copy of the secret
    ],
)
def test_a_key_whose_side_rows_fail_is_not_made(admin_client_ws, table, operation):
    admin_client_ws.get(reverse("audit:api-keys"))  # the session row exists
    events_before = WorkspaceEvent.objects.count()
    _refuse(table, operation)
    with pytest.raises((DatabaseError, UpdateError)):
        admin_client_ws.post(NEW, {"name": "ci", "scope": "read"})
    assert not ApiKey.objects.exists()
    assert WorkspaceEvent.objects.count() == events_before
