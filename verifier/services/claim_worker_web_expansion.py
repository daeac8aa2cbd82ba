"""Web expansion for the claim worker (off unless a search provider is configured): while
adaptive trust is insufficient, search the claim and its subclaims, ingest the new pages
(``claim_worker_web``), then search, judge and weigh the evidence again, stopping early
once trust is sufficient."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Final

from verifier.claim_worker.web import SearchHit, SearchProvider, canonical_url, select_urls
from verifier.claim_worker.web import search_queries as web_search_queries
from verifier.models import Workspace
from verifier.services import claim_worker_web
from verifier.services.claim_worker_trust import Judged

# ``web_expansion.stopped``: why web expansion ended
WEB_STOPPED_TRUST_SUFFICIENT: Final = "trust_sufficient"
WEB_STOPPED_QUERIES_EXHAUSTED: Final = "queries_exhausted"


def _query_ingest(
    workspace: Workspace,
    query: str,
    provider: SearchProvider,
    config: claim_worker_web.WebConfig,
    processed: set[str],
    web: dict[str, Any],
) -> list[str]:
    """Search ``query``, ingest the pages not processed before; the URLs ingested (the
    step, its errors and the ingested URLs are noted in ``web``)."""
    step: dict[str, Any] = {"query": query, "urls": []}
    web["queries"].append(step)
    try:
        hits: Sequence[SearchHit] = provider.search(query, limit=config.urls_per_query * 2)
    except claim_worker_web.WebFetchError as exc:
        web["errors"].append({"query": query, "error": str(exc)})
        return []
    urls = select_urls(hits, processed, config.urls_per_query)
    processed.update(urls)
    done = claim_worker_web.processed_urls(workspace=workspace, urls=urls)
    titles = {canonical_url(h.url): h.title for h in hits}
    for url in urls:
        if url in done:
            continue  # already ingested by an earlier verification
        try:
            claim_worker_web.web_page_ingest(
                workspace=workspace, url=url, title=titles.get(url, ""), config=config
            )
        except (claim_worker_web.WebFetchError, ValueError) as exc:
            web["errors"].append({"url": url, "error": str(exc)})
            continue
        step["urls"].append(url)
        web["ingested"].append(url)
    return list(step["urls"])


def web_expansion_provider() -> tuple[claim_worker_web.WebConfig, SearchProvider | None]:
    """The web settings and their search provider (None: web expansion is off)."""
    config = claim_worker_web.web_config()
    return config, claim_worker_web.web_provider(config)


def web_expand(
    *,
    workspace: Workspace,
    text: str,
    subclaims: Sequence[str],
    judged: Judged,
    config: claim_worker_web.WebConfig,
    provider: SearchProvider,
    rejudge: Callable[[], Judged],
) -> tuple[Judged, dict[str, Any]]:
    """Expand while trust is insufficient: after each query that ingested a page,
    ``rejudge()`` (search, rank, judge, trust again). Returns the last judgement and the
    response's ``web_expansion``, whose ``stopped`` says why it stopped:
    ``trust_sufficient``, or ``queries_exhausted`` (every query ran, trust still
    insufficient)."""
    web: dict[str, Any] = {"enabled": True, "queries": [], "ingested": [], "errors": []}
    processed: set[str] = set()
    for query in web_search_queries(text, subclaims, config.max_queries):
        if not _query_ingest(workspace, query, provider, config, processed, web):
            continue
        judged = rejudge()
        if judged.adaptive.sufficient:
            web["stopped"] = WEB_STOPPED_TRUST_SUFFICIENT
            break
    else:
        web["stopped"] = WEB_STOPPED_QUERIES_EXHAUSTED
    return judged, web
