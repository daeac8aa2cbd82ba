"""Web expansion (seed 001), the pure part: the search provider interface, the search
queries and the per-query URL selection. Off by default; the network side lives in
``verifier.services.claim_worker_web``."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable
from urllib.parse import urlsplit


@dataclass(frozen=True)
class SearchHit:
    url: str
    title: str = ""


@runtime_checkable
class SearchProvider(Protocol):
    """Anything that turns a query into result URLs (a search API, an internal index)."""

    name: str

    def search(self, query: str, *, limit: int) -> list[SearchHit]: ...


def search_queries(claim: str, subclaims: Sequence[str], max_queries: int) -> list[str]:
    """The full claim first, then each subclaim, without repeats, at most ``max_queries``."""
    out: list[str] = []
    for query in (claim, *subclaims):
        query = " ".join(query.split())
        if query and query not in out:
            out.append(query)
    return out[: max(0, max_queries)]


def canonical_url(url: str) -> str:
    """The URL without its fragment, host lower-cased (what "already processed" compares)."""
    parts = urlsplit(url.strip())
    netloc = parts.netloc.lower()
    return parts._replace(netloc=netloc, fragment="").geturl()


def select_urls(hits: Iterable[SearchHit], processed: set[str], cap: int) -> list[str]:
    """http(s) URLs of ``hits`` not yet processed, in result order, at most ``cap``."""
    out: list[str] = []
    for hit in hits:
        url = canonical_url(hit.url)
        if urlsplit(url).scheme not in ("http", "https") or not urlsplit(url).hostname:
            continue
        if url in processed or url in out:
            continue
        out.append(url)
        if len(out) >= cap:
            break
    return out
