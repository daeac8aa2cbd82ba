"""A time in the words the console and its messages use everywhere: UTC, saying so.

``utc_words(at)`` → "2026-06-10 12:04 UTC"; ``precision="seconds"`` → "2026-06-10 12:04:11
UTC"; ``precision="time"`` → "12:04 UTC", for a time within the hour or so (a lease's end,
a decision a stale item names). Always converted to UTC, whatever zone is active, since the
words say UTC; "" for none. The templates read it as the ``|utc`` filter
(:mod:`verifier.templatetags.vocabulary`); selectors and services that write a time into a
message call it directly.

``duration_words(ms)`` says how long something took the same way everywhere: "38 ms" under
a second, "1.2 s" under a minute, "6 min 52 s" under an hour, "2 h 5 min" beyond; "" for
none. The templates read it as the ``|duration`` filter.
"""

from __future__ import annotations

import math
from datetime import UTC, datetime
from typing import Final

_SHAPES: Final = {"minutes": "%Y-%m-%d %H:%M", "seconds": "%Y-%m-%d %H:%M:%S", "time": "%H:%M"}


def utc_words(value: datetime | None, precision: str = "minutes") -> str:
    if not isinstance(value, datetime):
        return ""
    if value.tzinfo is not None:
        value = value.astimezone(UTC)
    shape = _SHAPES.get(precision, _SHAPES["minutes"])
    return f"{value.strftime(shape)} UTC"


def duration_words(ms: float | None) -> str:
    """A duration given in milliseconds, in words people read (see the module's doc)."""
    if ms is None or isinstance(ms, bool) or not isinstance(ms, int | float) or ms != ms:
        return ""
    if ms < 999.5:
        # under a second: whole milliseconds (a step under 1 ms reads "0.4 ms")
        return f"{ms:.1f} ms" if 0 < ms < 1 else f"{math.floor(ms + 0.5)} ms"
    seconds = ms / 1000
    if round(seconds, 1) < 60:
        return f"{round(seconds, 1):g} s"
    whole = round(seconds)
    minutes, secs = divmod(whole, 60)
    if minutes < 60:
        return f"{minutes} min {secs} s" if secs else f"{minutes} min"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes} min" if minutes else f"{hours} h"
