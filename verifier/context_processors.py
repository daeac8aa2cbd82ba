from __future__ import annotations

from typing import Any

from django.http import HttpRequest

from verifier.console_nav import entry_points_for, nav_groups_for
from verifier.models import ApiScope, Role
from verifier.permissions import role_scope, scope_allows


def workspace(request: HttpRequest) -> dict[str, Any]:
    membership = getattr(request, "membership", None)
    role = membership.role if membership else None
    return {
        "current_workspace": getattr(request, "workspace", None),
        "current_membership": membership,
        "current_role": role,
        "can_decide": role in (Role.REVIEWER, Role.ADMIN),
        # the forms that add work (uploads, checks) post with the write scope
        "can_write": scope_allows(role_scope(role), ApiScope.WRITE),
        "is_workspace_admin": role == Role.ADMIN,
        "entry_points": entry_points_for(role, request.path),
        "nav_groups": nav_groups_for(role, request.path),
    }
