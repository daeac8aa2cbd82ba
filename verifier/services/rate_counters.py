"""Fixed-window request counters for the API's rate limits, in a store every web process
shares: Redis when ``SPANPROOF_CACHE_URL`` names one (Django's cache: ``add``, then the
atomic ``INCR``), else the database (``RateCounter``: one upsert, atomic too). A
per-process cache would let each gunicorn worker allow the whole limit again.

A window is ``period`` seconds long, aligned to the epoch; a key's count restarts with
each window (``verifier.selectors.rate_counters`` reads them).
"""

from __future__ import annotations

from django.core.cache import caches
from django.db import connection

from verifier.selectors.rate_counters import rate_cache_key, rate_counters_in_cache, rate_window

_HIT_SQL = """
INSERT INTO verifier_ratecounter (key, "window", hits) VALUES (%s, %s, 1)
ON CONFLICT (key) DO UPDATE SET
    hits = CASE WHEN verifier_ratecounter."window" = EXCLUDED."window"
                THEN verifier_ratecounter.hits + 1 ELSE 1 END,
    "window" = EXCLUDED."window"
RETURNING hits
"""


def rate_counter_hit(*, key: str, period: int, now: float) -> int:
    """Count one request for ``key`` in the window of ``now``; how many it has made in
    that window, this one included."""
    window = rate_window(now, period)
    if rate_counters_in_cache():
        cache = caches["default"]
        cache_key = rate_cache_key(key, window)
        cache.add(cache_key, 0, timeout=period + 1)
        return int(cache.incr(cache_key))
    with connection.cursor() as cursor:
        cursor.execute(_HIT_SQL, [key, window])
        (hits,) = cursor.fetchone()
    return int(hits)
