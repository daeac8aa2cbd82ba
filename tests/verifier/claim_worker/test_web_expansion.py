"""Web expansion against a local fake search provider and web pages on loopback (the
network is otherwise blocked in tests)."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

import pytest

from tests.verifier.api.conftest import client_for
from verifier.claim_worker.web import SearchHit, canonical_url, search_queries, select_urls
from verifier.models import Source

PAGES = {
    "/halden": (
        "<html><head><title>Halden Point</title></head><body><h1>Halden Point</h1>"
        "<p>The Halden Point lighthouse was built in 1871.</p>"
        "<p>Its lamp was electrified in 1923.</p></body></html>"
    ),
    "/otters": "<html><body><p>River otters eat crayfish in the Marrow estuary.</p></body></html>",
    "/gulls": "<html><body><p>Herring gulls nest on the cliffs above the bay.</p></body></html>",
    "/missing": None,
}


class FakeWeb(BaseHTTPRequestHandler):
    log: list[str] = []
    results: list[str] = []

    def do_GET(self):
        parts = urlsplit(self.path)
        FakeWeb.log.append(self.path)
        base = f"http://127.0.0.1:{self.server.server_address[1]}"
        if parts.path == "/search":
            query = parse_qs(parts.query)
            limit = int(query["limit"][0])
            body = json.dumps(
                {"results": [{"url": base + p, "title": p[1:]} for p in FakeWeb.results][:limit]}
            ).encode()
            self._send(200, body, "application/json")
        elif PAGES.get(parts.path):
            self._send(200, PAGES[parts.path].encode(), "text/html")
        else:
            self._send(404, b"not found", "text/plain")

    def _send(self, status, body, kind):
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture
def fake_web(settings):
    server = ThreadingHTTPServer(("127.0.0.1", 0), FakeWeb)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    FakeWeb.log = []
    port = server.server_address[1]
    settings.SPANPROOF_WORKER_WEB = {
        "provider": "json",
        "base_url": f"http://127.0.0.1:{port}/search",
        "timeout": 5,
        "max_queries": 3,
        "urls_per_query": 2,
        "allowed_networks": ["127.0.0.0/8"],
    }
    yield f"http://127.0.0.1:{port}"
    server.shutdown()


def test_search_queries_and_url_selection():
    assert search_queries("A b.", ["A b.", "c d"], 5) == ["A b.", "c d"]
    assert search_queries("A b.", ["c d", "e f"], 2) == ["A b.", "c d"]
    hits = [
        SearchHit("https://Example.org/a#top"),
        SearchHit("ftp://example.org/b"),
        SearchHit("https://example.org/a"),
        SearchHit("https://example.org/c"),
        SearchHit("https://example.org/d"),
        SearchHit("https://example.org/e"),
    ]
    assert canonical_url("https://Example.org/a#top") == "https://example.org/a"
    # fragment folded, non-http dropped, repeats dropped, processed filtered, capped
    assert select_urls(hits, {"https://example.org/c"}, 2) == [
        "https://example.org/a",
        "https://example.org/d",
    ]


def test_expansion_ingests_pages_and_stops_once_trust_is_sufficient(workspace, fake_web):
    FakeWeb.results = ["/missing", "/halden", "/otters", "/gulls"]
    api = client_for(workspace)
    resp = api.post(
        "/worker/verify",
        {"job_id": "w1", "claim": "The Halden Point lighthouse was built in 1871."},
        content_type="application/json",
    )
    assert resp.status_code == 200, resp.content
    body = resp.json()
    web = body["web_expansion"]
    assert body["used_web_search"] is True and web["enabled"] is True
    # per-query cap of 2: /missing (404, an error) and /halden; /otters and /gulls never fetched
    assert web["ingested"] == [f"{fake_web}/halden"]
    assert web["errors"][0]["url"] == f"{fake_web}/missing"
    assert not any(p in ("/otters", "/gulls") for p in FakeWeb.log)
    # trust became sufficient after the first query: no second search
    assert len([p for p in FakeWeb.log if p.startswith("/search")]) == 1
    assert web["stopped"] == "trust_sufficient"
    assert body["verdict"] == "TRUE"
    assert body["evidence"][0]["source_ref"] == f"{fake_web}/halden"
    assert Source.objects.filter(workspace=workspace, ref=f"{fake_web}/halden").exists()


def test_already_processed_urls_are_not_fetched_again(workspace, fake_web):
    FakeWeb.results = ["/otters", "/gulls"]
    api = client_for(workspace)
    claim = {"job_id": "w2", "claim": "Kestrels hover above the Marrow dunes."}
    first = api.post("/worker/verify", claim, content_type="application/json").json()
    assert sorted(first["web_expansion"]["ingested"]) == [f"{fake_web}/gulls", f"{fake_web}/otters"]
    page_fetches = [p for p in FakeWeb.log if not p.startswith("/search")]
    assert sorted(page_fetches) == ["/gulls", "/otters"]  # once each, over all queries
    FakeWeb.log = []
    second = api.post("/worker/verify", claim, content_type="application/json").json()
    assert second["web_expansion"]["ingested"] == []
    assert [p for p in FakeWeb.log if not p.startswith("/search")] == []
    assert second["used_web_search"] is False


def test_off_by_default_and_internal_addresses_refused(workspace, settings):
    api = client_for(workspace)
    body = api.post(
        "/worker/verify",
        {"job_id": "w3", "claim": "Anything at all."},
        content_type="application/json",
    ).json()
    assert body["web_expansion"]["enabled"] is False and body["used_web_search"] is False
    settings.SPANPROOF_WORKER_WEB = {"provider": "json", "base_url": "http://127.0.0.1:9/search"}
    body = api.post(
        "/worker/verify",
        {"job_id": "w4", "claim": "Anything at all."},
        content_type="application/json",
    ).json()
    assert body["web_expansion"]["enabled"] is True
    assert "loopback" in body["web_expansion"]["errors"][0]["error"]
    assert body["used_web_search"] is False
