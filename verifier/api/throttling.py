"""API rate limits: per API key (or signed-in user) and per client address.

Rates come from settings at request time (``SPANPROOF_API_RATE_PER_KEY``,
``SPANPROOF_API_RATE_PER_IP``, e.g. ``"600/min"``; empty turns a limit off). Counters
live in the Django cache, so several web processes share them only with a shared
cache (``SPANPROOF_CACHE_URL``). The client address is ``REMOTE_ADDR`` unless DRF's
``NUM_PROXIES`` says how many proxies in ``X-Forwarded-For`` to trust. An exceeded
limit is a 429 with ``Retry-After`` and the API's JSON error body.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from rest_framework.request import Request
from rest_framework.throttling import SimpleRateThrottle


class _SettingsRateThrottle(SimpleRateThrottle):
    setting_name = ""

    def get_rate(self) -> str | None:
        return getattr(settings, self.setting_name, None) or None


class ApiKeyRateThrottle(_SettingsRateThrottle):
    scope = "api_key"
    setting_name = "SPANPROOF_API_RATE_PER_KEY"

    def get_cache_key(self, request: Request, view: Any) -> str | None:
        api_key = getattr(request.user, "api_key", None)
        if api_key is not None:
            ident = f"key-{api_key.pk}"
        elif getattr(request.user, "is_authenticated", False):
            ident = f"user-{request.user.pk}"
        else:
            return None
        return self.cache_format % {"scope": self.scope, "ident": ident}


class ClientIpRateThrottle(_SettingsRateThrottle):
    scope = "ip"
    setting_name = "SPANPROOF_API_RATE_PER_IP"

    def get_cache_key(self, request: Request, view: Any) -> str | None:
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}
