"""The API's rate settings, ``"<n>/<period>"`` as DRF spells rates: read once when the
settings load (a value that does not parse stops start-up naming its variable) and by
the throttles (``verifier.api.throttling``). Plain Python, so the settings can use it."""

from __future__ import annotations

import re
from typing import Final

# period words -> seconds (DRF's spellings: s/sec/second, m/min/minute, h/hour, d/day)
PERIODS: Final[dict[str, int]] = {
    **dict.fromkeys(("s", "sec", "secs", "second", "seconds"), 1),
    **dict.fromkeys(("m", "min", "mins", "minute", "minutes"), 60),
    **dict.fromkeys(("h", "hr", "hour", "hours"), 3600),
    **dict.fromkeys(("d", "day", "days"), 86400),
}
RATE_FORM: Final = "<n>/<sec|min|hour|day> (e.g. 600/min), or empty for no limit"
_RATE = re.compile(r"\s*(\d+)\s*/\s*([A-Za-z]+)\s*")


class RateError(ValueError):
    """A rate that does not read as ``<n>/<period>``."""


def parse_rate(value: str | None) -> tuple[int, int] | None:
    """``(requests, period seconds)`` of a rate, None when it is empty (the limit is
    off); ``RateError`` when it is not ``<n>/<period>`` with n at least 1."""
    if value is None or not str(value).strip():
        return None
    match = _RATE.fullmatch(str(value))
    period = PERIODS.get(match.group(2).lower()) if match else None
    if match is None or period is None or int(match.group(1)) < 1:
        raise RateError(f"not a rate: expected {RATE_FORM}")
    return int(match.group(1)), period
