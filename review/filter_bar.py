"""The review queue's filter bar, rendered once per distinct filter and kept.

The bar's markup follows from nothing but the query string's filter values, the
workspace's domain packs (the choices of one select), the reviewer's blind review and
the active language. Its twelve fields through Django's forms cost ~3 ms of a queue page
(a tenth of it). Each process keeps the last :data:`FILTER_BAR_CACHE_SIZE` bars it
rendered, least recently used out first; nothing is shared between processes, so a
deploy with another template or form never serves an older bar.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterable
from typing import Any

from django.http import QueryDict
from django.template.loader import render_to_string
from django.utils.safestring import SafeString
from django.utils.translation import get_language

from review.filters import FILTER_KEYS, ReviewQueueFilter

TEMPLATE = "review/_filter_bar.html"
FILTER_BAR_CACHE_SIZE = 256

# The bars as the template engine rendered them (autoescaped, SafeString).
_bars: OrderedDict[tuple[Any, ...], SafeString] = OrderedDict()
_lock = threading.Lock()


def filter_bar_key(
    params: QueryDict, domain_packs: Iterable[str], *, blind: bool = False
) -> tuple[Any, ...]:
    """Everything the bar's markup depends on (``blind``: the reviewer's blind review,
    whose bar has no judge-derived fields)."""
    values = tuple((key, tuple(params.getlist(key))) for key in FILTER_KEYS)
    return (get_language(), tuple(domain_packs), values, blind)


def filter_bar_html(filterset: ReviewQueueFilter, *, key: tuple[Any, ...]) -> SafeString:
    """The bar of ``filterset`` (bound to the params ``key`` was made from)."""
    with _lock:
        html = _bars.get(key)
        if html is not None:
            _bars.move_to_end(key)
    if html is None:
        html = render_to_string(TEMPLATE, {"filter": filterset})
        with _lock:
            _bars[key] = html
            while len(_bars) > FILTER_BAR_CACHE_SIZE:
                _bars.popitem(last=False)
    return html


def filter_bar_cache_clear() -> None:
    with _lock:
        _bars.clear()
