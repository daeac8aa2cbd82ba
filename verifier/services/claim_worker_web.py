"""Web expansion for ``POST /worker/verify``: a configured search provider, page fetches
under the same outbound-address rules as webhooks, and ingestion of each fetched page
through the ingest pipeline (extract, bind, judge, relate, publish) so its sentences
become vector and graph evidence.

Off unless ``SPANPROOF_WORKER_WEB["provider"]`` is set (``json``: GET
``base_url?q=<query>&limit=<n>`` answering ``{"results": [{"url", "title"}]}``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode, urlsplit

import urllib3
from django.conf import settings

from verifier.claim_worker.web import SearchHit, SearchProvider
from verifier.models import IngestJob, Source, Workspace
from verifier.outbound_addresses import AddressRefused, parse_networks, resolve_permitted
from verifier.services.ingest import STAGE_ORDER, ingest_stage_run
from verifier.services.ingest_create import SourceUpload, ingest_job_create
from verifier.untrusted_input import loads_bounded

MAX_PAGE_BYTES = 2_000_000
MAX_SEARCH_BYTES = 500_000
DEFAULTS: dict[str, Any] = {
    "provider": "",
    "base_url": "",
    "timeout": 10.0,
    "max_queries": 3,
    "urls_per_query": 3,
    "allowed_networks": [],
}


class WebFetchError(Exception):
    pass


@dataclass(frozen=True)
class WebConfig:
    provider: str
    base_url: str
    timeout: float
    max_queries: int
    urls_per_query: int
    allowed_networks: tuple[Any, ...]


def web_config() -> WebConfig:
    raw = {**DEFAULTS, **dict(getattr(settings, "SPANPROOF_WORKER_WEB", {}) or {})}
    return WebConfig(
        provider=str(raw["provider"] or "").strip().lower(),
        base_url=str(raw["base_url"] or ""),
        timeout=float(raw["timeout"]),
        max_queries=int(raw["max_queries"]),
        urls_per_query=int(raw["urls_per_query"]),
        allowed_networks=parse_networks([str(n) for n in raw["allowed_networks"] if n]),
    )


def _get(url: str, *, timeout: float, allowed: tuple[Any, ...], limit: int) -> tuple[int, bytes]:
    """GET ``url`` once, connecting to a resolved address the outbound rules permit,
    without redirects, reading at most ``limit`` bytes."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise WebFetchError(f"not an http(s) URL: {url}")
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        address = resolve_permitted(parts.hostname, port, allowed=allowed)
    except AddressRefused as exc:
        raise WebFetchError(f"refused {exc.host}: {exc.reason}") from exc
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    pool_cls = (
        urllib3.HTTPSConnectionPool if parts.scheme == "https" else urllib3.HTTPConnectionPool
    )
    kwargs: dict[str, Any] = {}
    if parts.scheme == "https":
        kwargs = {"server_hostname": parts.hostname, "assert_hostname": parts.hostname}
    pool = pool_cls(
        str(address),
        port,
        timeout=urllib3.Timeout(total=timeout),
        retries=False,
        maxsize=1,
        **kwargs,
    )
    try:
        response = pool.urlopen(
            "GET",
            path,
            headers={"Host": parts.netloc, "User-Agent": "spanproof-worker/1"},
            redirect=False,
            retries=False,
            preload_content=False,
        )
        try:
            body = response.read(limit)
        finally:
            response.release_conn()
        return response.status, body
    except urllib3.exceptions.HTTPError as exc:
        raise WebFetchError(f"{type(exc).__name__}: {exc}") from exc
    finally:
        pool.close()


class JsonSearchProvider:
    name = "json"

    def __init__(self, config: WebConfig) -> None:
        self.config = config

    def search(self, query: str, *, limit: int) -> list[SearchHit]:
        url = f"{self.config.base_url}?{urlencode({'q': query, 'limit': limit})}"
        status, body = _get(
            url,
            timeout=self.config.timeout,
            allowed=self.config.allowed_networks,
            limit=MAX_SEARCH_BYTES,
        )
        if status != 200:
            raise WebFetchError(f"search answered HTTP {status}")
        try:
            results = loads_bounded(body)["results"]
            return [SearchHit(str(r["url"]), str(r.get("title") or "")) for r in results][:limit]
        except (ValueError, KeyError, TypeError) as exc:
            raise WebFetchError("search answer is not {results: [{url, title}]}") from exc


def web_provider(config: WebConfig) -> SearchProvider | None:
    if config.provider == "json" and config.base_url:
        return JsonSearchProvider(config)
    return None


def web_page_ingest(*, workspace: Workspace, url: str, title: str, config: WebConfig) -> IngestJob:
    """Fetch ``url`` and ingest it as a source (ref = the URL) through every stage."""
    status, body = _get(
        url, timeout=config.timeout, allowed=config.allowed_networks, limit=MAX_PAGE_BYTES
    )
    if status != 200:
        raise WebFetchError(f"page answered HTTP {status}")
    html = body.decode("utf-8", errors="replace")
    job = ingest_job_create(
        workspace=workspace,
        sources=[SourceUpload(ref=url, title=title or url, citation=url, text=html, format="html")],
        label=f"worker web expansion: {url}"[:200],
        start=False,
    )
    for stage in STAGE_ORDER:
        ingest_stage_run(job_id=job.pk, stage=stage)
    return job


def processed_urls(*, workspace: Workspace, urls: list[str]) -> set[str]:
    """Those of ``urls`` already stored as source refs of ``workspace``."""
    return set(
        Source.objects.filter(workspace=workspace, ref__in=urls).values_list("ref", flat=True)
    )
