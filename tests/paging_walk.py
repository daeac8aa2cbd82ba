"""Walking a keyset-paged list page by page through its rel=next / rel=prev links."""

from __future__ import annotations

import html
import re
from collections.abc import Callable

NEXT = re.compile(r'href="\?([^"]*)" rel="next"')
PREVIOUS = re.compile(r'href="\?([^"]*)" rel="prev"')


def walk_forward(
    client, url: str, ids_of: Callable[[str], list[str]]
) -> tuple[list[str], list[int], str]:
    """Every row id from ``url`` on by rel=next: (ids in order, page sizes, last body)."""
    base, seen, sizes, body = url.split("?")[0], [], [], ""
    next_url: str | None = url
    while next_url:
        body = client.get(next_url).content.decode()
        page = ids_of(body)
        sizes.append(len(page))
        seen += page
        found = NEXT.search(body)
        next_url = f"{base}?{html.unescape(found.group(1))}" if found else None
    return seen, sizes, body


def walk_back(client, url: str, body: str, ids_of: Callable[[str], list[str]]) -> list[str]:
    """The row ids of the pages before ``body`` (a page of ``url``), by rel=prev, in
    list order."""
    base, back = url.split("?")[0], []
    while found := PREVIOUS.search(body):
        body = client.get(f"{base}?{html.unescape(found.group(1))}").content.decode()
        back = ids_of(body) + back
    return back
