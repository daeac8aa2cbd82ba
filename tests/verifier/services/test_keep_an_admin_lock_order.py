"""A change that could leave a workspace without an admin (a role lowered, a member
taken out) locks the workspace's membership rows first (``_keep_an_admin``), in id
order: two changes at once in one workspace then queue on the first row instead of each
holding a row the other waits for (a deadlock)."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.factories import make_user
from verifier.models import Membership
from verifier.services.workspaces import member_remove, member_role_change

pytestmark = pytest.mark.django_db


def _member_locks(queries) -> list[str]:
    table = Membership._meta.db_table
    return [q["sql"] for q in queries if "FOR UPDATE" in q["sql"] and f'FROM "{table}"' in q["sql"]]


def _ordered_by_id(sql: str) -> bool:
    table = Membership._meta.db_table
    return f'ORDER BY "{table}"."id" ASC' in sql


@pytest.mark.parametrize("change", ["role", "remove"])
def test_the_members_rows_are_locked_in_id_order(workspace, admin_user, change):
    make_user("abe", workspace=workspace, role="admin")
    rita = make_user("rita", workspace=workspace, role="reviewer")
    membership = Membership.objects.get(workspace=workspace, user=admin_user)
    with CaptureQueriesContext(connection) as captured:
        if change == "role":
            member_role_change(membership=membership, role="reviewer")
        else:
            member_remove(membership=Membership.objects.get(workspace=workspace, user=rita))
    locks = _member_locks(captured.captured_queries)
    assert locks, "no membership rows were locked"
    assert all(_ordered_by_id(sql) for sql in locks), locks
