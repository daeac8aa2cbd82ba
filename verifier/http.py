"""The console's request types: Django's ``HttpRequest`` with what the middleware adds.

For annotations only: Django still builds plain ``HttpRequest`` objects. The attributes
are set by ``verifier.middleware.WorkspaceMiddleware`` (``workspace``, ``membership``)
and ``verifier.htmx_vary.HtmxVaryMiddleware`` (``htmx``: django-htmx's details, each
header read named in the answer's ``Vary``), both in ``settings.MIDDLEWARE``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.http import HttpRequest

if TYPE_CHECKING:
    from django.contrib.auth.models import User
    from django_htmx.middleware import HtmxDetails

    from verifier.models import Membership, Workspace


class WorkspaceRequest(HttpRequest):
    """Any console request. ``membership`` and ``workspace`` are None when the user is
    signed out or a member of no workspace."""

    htmx: HtmxDetails
    membership: Membership | None
    workspace: Workspace | None


class SignedInRequest(WorkspaceRequest):
    """A request from a signed-in user (a ``login_required`` view, the admin site)."""

    user: User


class MemberRequest(SignedInRequest):
    """A request that ``verifier.permissions.role_required`` let through: the signed-in
    user is a member of the current workspace, so neither is None."""

    membership: Membership
    workspace: Workspace
