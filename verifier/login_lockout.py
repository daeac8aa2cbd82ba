"""The page shown when django-axes locks a sign-in out after too many failures."""

from __future__ import annotations

import math
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render


def login_locked_out(
    request: HttpRequest, credentials: Any = None, *args: Any, **kw: Any
) -> HttpResponse:
    """429 with a clear message and ``Retry-After`` (the cool-off period)."""
    cool_off = settings.AXES_COOLOFF_TIME
    seconds = math.ceil(cool_off.total_seconds()) if cool_off else None
    context = {
        "failure_limit": settings.AXES_FAILURE_LIMIT,
        "minutes": math.ceil(seconds / 60) if seconds else None,
    }
    response = render(request, "registration/locked_out.html", context, status=429)
    if seconds:
        response["Retry-After"] = str(seconds)
    return response


def client_address(request: HttpRequest) -> str | None:
    """The client address the lockout counts by — the same rule as the API throttles:
    ``REMOTE_ADDR``, or with ``SPANPROOF_NUM_PROXIES`` proxies in front, the address the
    outermost trusted proxy saw (``X-Forwarded-For`` entries a client adds are ignored)."""
    proxies = int(settings.REST_FRAMEWORK.get("NUM_PROXIES") or 0)
    forwarded: str = request.META.get("HTTP_X_FORWARDED_FOR", "")
    if proxies > 0 and forwarded:
        addresses = [a.strip() for a in forwarded.split(",") if a.strip()]
        if addresses:
            return addresses[-min(proxies, len(addresses))]
    return request.META.get("REMOTE_ADDR")
