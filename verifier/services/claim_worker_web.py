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
from urllib.parse import urlencode

import urllib3
from django.conf import settings

from verifier.claim_worker.web import SearchHit, SearchProvider
from verifier.models import IngestJob, Source, Workspace
from verifier.models.ingest import STAGE_ORDER
from verifier.outbound_addresses import parse_networks
from verifier.outbound_http import (
    OutboundFailed,
    OutboundRefused,
    outbound_request,
    outbound_target,
)
from verifier.services.ingest import ingest_stage_run
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
    """GET ``url`` once through the outbound guard (``verifier.outbound_http``: a resolved
    address the outbound rules permit, no redirects, pinned CA file), reading at most
    ``limit`` bytes."""
    try:
        target = outbound_target(url, allowed=allowed)
    except OutboundRefused as exc:
        if exc.refusal is not None:
            raise WebFetchError(f"refused {exc.refusal.host}: {exc.refusal.reason}") from exc
        raise WebFetchError(f"not an http(s) URL: {url}") from exc
    try:
        answer = outbound_request(
            "GET",
            target,
            timeout=urllib3.Timeout(total=timeout),
            limit=limit,
            headers={"User-Agent": "spanproof-worker/1"},
        )
    except OutboundFailed as exc:
        raise WebFetchError(str(exc)) from exc
    return answer.status, answer.body


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
