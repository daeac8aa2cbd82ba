"""API rate limits: per API key (or signed-in user), per client address, and failed
authentications per client address.

Rates come from settings at request time (``SPANPROOF_API_RATE_PER_KEY``,
``SPANPROOF_API_RATE_PER_IP``, ``SPANPROOF_API_AUTH_FAILURES_PER_IP``, e.g.
``"600/min"``; empty turns a limit off). Counters are fixed windows in a store every web
process shares (``verifier.services.rate_counters``: the database by default, Redis with
``SPANPROOF_CACHE_URL``), so two gunicorn workers allow the limit once, not twice. The
client address is ``REMOTE_ADDR`` unless DRF's ``NUM_PROXIES`` says how many proxies in
``X-Forwarded-For`` to trust. An exceeded limit is a 429 with ``Retry-After`` and the
API's JSON error body whose message and ``details`` (``limit``, ``rate``) name the limit
that was hit: ``api_key``, ``client_address`` or ``auth_failures``.

Failed authentications (an unknown, revoked or malformed key) are counted per address
by ``ApiKeyAuthentication``; once an address is over its limit, its requests with a key
are refused with 429 before the key is looked up, until the window ends.
"""

from __future__ import annotations

import time
from typing import Any

from django.conf import settings
from rest_framework.exceptions import Throttled
from rest_framework.request import Request
from rest_framework.throttling import BaseThrottle

from verifier.api.rates import parse_rate
from verifier.selectors.rate_counters import rate_counter_get
from verifier.services.rate_counters import rate_counter_hit


class RateLimited(Throttled):
    """A 429 naming its limit: ``limit_details`` go into the error body's ``details``."""

    def __init__(self, *, wait: float, limit: str, rate: str, what: str) -> None:
        super().__init__(wait=wait, detail=f"Over the limit of {rate} {what}.")
        self.limit_details = {"limit": limit, "rate": rate}


def _rate_text(setting_name: str) -> str:
    return str(getattr(settings, setting_name, "") or "")


def _rate(setting_name: str) -> tuple[int, int] | None:
    """``(requests, period seconds)`` of a rate setting (``"<n>/<sec|min|hour|day>"``, as
    DRF spells rates; checked when the settings load), None when it is off."""
    return parse_rate(getattr(settings, setting_name, None))


def _wait(now: float, period: int) -> float:
    return period - (now % period)


def client_address(request: Request) -> str:
    return str(BaseThrottle().get_ident(request))


class _WindowThrottle(BaseThrottle):
    scope = ""
    setting_name = ""
    limit = ""  # the limit's name in the 429's details
    what = ""  # whom the limit counts, in the 429's message

    def __init__(self) -> None:
        self._wait: float | None = None

    def ident(self, request: Request) -> str | None:
        raise NotImplementedError

    def allow_request(self, request: Request, view: Any) -> bool:
        rate = _rate(self.setting_name)
        ident = self.ident(request) if rate is not None else None
        if rate is None or ident is None:
            return True
        limit, period = rate
        now = time.time()
        hits = rate_counter_hit(key=f"{self.scope}:{ident}", period=period, now=now)
        self._wait = _wait(now, period)
        if hits > limit:
            # raised here, not left to DRF: its 429 would not say which limit it was
            raise RateLimited(
                wait=self._wait,
                limit=self.limit,
                rate=_rate_text(self.setting_name),
                what=self.what,
            )
        return True

    def wait(self) -> float | None:
        return self._wait


class ApiKeyRateThrottle(_WindowThrottle):
    scope = "api_key"
    setting_name = "SPANPROOF_API_RATE_PER_KEY"
    limit = "api_key"
    what = "requests per API key (or signed-in user)"

    def ident(self, request: Request) -> str | None:
        api_key = getattr(request.user, "api_key", None)
        if api_key is not None:
            return f"key-{api_key.pk}"
        if getattr(request.user, "is_authenticated", False):
            return f"user-{request.user.pk}"
        return None


class ClientIpRateThrottle(_WindowThrottle):
    scope = "ip"
    setting_name = "SPANPROOF_API_RATE_PER_IP"
    limit = "client_address"
    what = "requests per client address"

    def ident(self, request: Request) -> str | None:
        return client_address(request)


AUTH_FAILURES_SETTING = "SPANPROOF_API_AUTH_FAILURES_PER_IP"


def _auth_failures_key(request: Request) -> str:
    return f"auth_failures:{client_address(request)}"


def auth_failures_check(request: Request) -> None:
    """Throttled (429) when the request's address is over its failed-authentication
    limit in the current window."""
    rate = _rate(AUTH_FAILURES_SETTING)
    if rate is None:
        return
    limit, period = rate
    now = time.time()
    if rate_counter_get(key=_auth_failures_key(request), period=period, now=now) >= limit:
        raise RateLimited(
            wait=_wait(now, period),
            limit="auth_failures",
            rate=_rate_text(AUTH_FAILURES_SETTING),
            what="failed authentications per client address",
        )


def auth_failure_count(request: Request) -> None:
    """Count one failed authentication for the request's address."""
    rate = _rate(AUTH_FAILURES_SETTING)
    if rate is not None:
        rate_counter_hit(key=_auth_failures_key(request), period=rate[1], now=time.time())
