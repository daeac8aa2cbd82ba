"""A time in the words the console and its messages use everywhere: UTC, saying so.

``utc_words(at)`` → "2026-06-10 12:04 UTC"; ``precision="seconds"`` → "2026-06-10 12:04:11
UTC"; ``precision="time"`` → "12:04 UTC", for a time within the hour or so (a lease's end,
a decision a stale item names). Always converted to UTC, whatever zone is active, since the
words say UTC; "" for none. The templates read it as the ``|utc`` filter
(:mod:`verifier.templatetags.vocabulary`); selectors and services that write a time into a
message call it directly.
"""

from __future__ import annotations

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
