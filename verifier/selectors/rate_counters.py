"""Reading the API's rate-limit counters (written by ``verifier.services.rate_counters``):
Redis when ``SPANPROOF_CACHE_URL`` names one, else the database's ``RateCounter``."""

from __future__ import annotations

from django.conf import settings
from django.core.cache import caches
from django.db import connection

_GET_SQL = 'SELECT hits FROM verifier_ratecounter WHERE key = %s AND "window" = %s'


def rate_window(now: float, period: int) -> int:
    """The fixed window (``period`` seconds, aligned to the epoch) that ``now`` is in."""
    return int(now // period)


def rate_counters_in_cache() -> bool:
    """Whether the counters live in the shared cache (Redis) rather than the database."""
    return bool(getattr(settings, "SPANPROOF_CACHE_URL", ""))


def rate_cache_key(key: str, window: int) -> str:
    return f"rate:{key}:{window}"


def rate_counter_get(*, key: str, period: int, now: float) -> int:
    """How many requests ``key`` has made in the window of ``now`` (0 for none)."""
    window = rate_window(now, period)
    if rate_counters_in_cache():
        return int(caches["default"].get(rate_cache_key(key, window), 0))
    with connection.cursor() as cursor:
        cursor.execute(_GET_SQL, [key, window])
        row = cursor.fetchone()
    return int(row[0]) if row else 0
