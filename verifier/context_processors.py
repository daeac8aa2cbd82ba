from __future__ import annotations

from typing import Any

from django.http import HttpRequest

from verifier.console_nav import entry_points_for, nav_groups_for
from verifier.models import Role


def workspace(request: HttpRequest) -> dict[str, Any]:
    membership = getattr(request, "membership", None)
    role = membership.role if membership else None
    return {
        "current_workspace": getattr(request, "workspace", None),
        "current_membership": membership,
        "current_role": role,
        "can_decide": role in (Role.REVIEWER, Role.ADMIN),
        "is_workspace_admin": role == Role.ADMIN,
        "entry_points": entry_points_for(role, request.path),
        "nav_groups": nav_groups_for(role, request.path),
    }
