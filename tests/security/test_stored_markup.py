"""Text a hostile member or key stores is shown as text on every console page.

A workspace is filled, through the same doors an attacker has (the API with a write
key, the services behind the console's forms), with markup in everything a person can
name: a source's ref, title, citation and text, a claim's text and external id, a
reviewer's note, an exclusion reason, the review guidelines (markdown), a username, an
API key's name, a rule set's name, a webhook's URL, an agent's name, a RAG chunk's id
and text, a retrieval query. Then every console page reachable from the home page by its
links (and each again as htmx asks for it) is read, and so are the pages that echo what
was asked or name what a form acts on: no payload arrives as markup, and no link or
source is a ``javascript:`` URL.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections import deque
from typing import Any
from urllib.parse import urljoin, urlsplit

import pytest
from django.test import Client

from audit.services import rule_set_create
from review.services import review_exclude, review_guidelines_set, review_note
from tests.factories import make_binding, make_claim, make_source, make_user
from tests.review.conftest import seen
from verifier.models import ApiKey, Claim, Membership, Source, Webhook
from verifier.scoring.rulesets import CORE_V1
from verifier.services.webhooks import webhook_create
from verifier.services.workspaces import api_key_create

pytestmark = pytest.mark.django_db

SCRIPT = "<script>alert(1)</script>"
IMG = '"><img src=x onerror=alert(2)>'
JS_URL = "javascript:alert(3)"
PAYLOAD = f"{SCRIPT}{IMG}"
# What must never appear in a page: the payloads as markup.
AS_MARKUP = re.compile(
    r"<script>alert|<img src=x onerror|(?:href|src|action|formaction|hx-get|hx-post)"
    r"\s*=\s*[\"']?\s*javascript:",
    re.IGNORECASE,
)
SKIP_PATHS = ("/accounts/logout/", "/admin/", "/static/", "/connect/v1/docs")
MAX_PAGES = 400
QUERY_VARIANTS = 3  # a list's filters and pages: a few of each path are enough

SOURCE_TEXT = (
    f"The delta gains land in wet years. {PAYLOAD} Sediment settles where the current "
    f"slows. See {JS_URL} for the map."
)


@pytest.fixture
def filled(workspace, settings) -> dict[str, Any]:
    settings.SPANPROOF_API_RATE_PER_KEY = ""
    settings.SPANPROOF_API_RATE_PER_IP = ""
    settings.SPANPROOF_WEBHOOK_ALLOW_HTTP = True
    settings.SPANPROOF_WEBHOOK_ALLOWED_NETWORKS = ["127.0.0.1/32"]
    admin = make_user("ada", workspace=workspace, role="admin")
    hostile = make_user(f"eve{IMG}", workspace=workspace, role="reviewer")
    raw = api_key_create(workspace=workspace, name=f"key {PAYLOAD}", scope="admin").raw_key
    api = Client(headers={"Authorization": f"Bearer {raw}"})

    def post(url: str, body: dict[str, Any]) -> dict[str, Any]:
        response = api.post(url, body, content_type="application/json")
        assert response.status_code < 300, (url, response.content)
        return dict(response.json())

    post(
        "/connect/v1/sources",
        {
            "ref": f"source:x{IMG}",
            "title": SCRIPT,
            "citation": JS_URL,
            "text": SOURCE_TEXT,
        },
    )
    source = make_source(workspace, ref="source:plain", text=SOURCE_TEXT)
    quote = "Sediment settles where the current slows."
    claim = make_claim(source, f"{quote} {PAYLOAD}", external_id=f"ext{IMG}")
    make_binding(claim, quote)
    review_note(claim=claim, reviewer=hostile, text=f"{PAYLOAD} {JS_URL}")
    excluded = make_claim(source, f"Excluded {PAYLOAD}")
    review_exclude(
        claim=excluded, reviewer=hostile, reason=PAYLOAD, expected_version=seen(excluded)
    )
    post(
        "/connect/v1/claims/verify",
        {"claims": [{"text": f"{quote} {SCRIPT}", "source": "source:plain"}]},
    )
    post("/connect/v1/retrieve", {"query": f"sediment {PAYLOAD}"})
    post(
        "/connect/v1/rag/audit",
        {
            "answer": f"HNSW builds a graph. {PAYLOAD}",
            "chunks": json.dumps({"id": f"c{IMG}", "text": f"HNSW {SCRIPT} graph."}) + "\n",
        },
    )
    post(
        "/connect/v1/memory/verify",
        {
            "agent": f"agent{IMG}",
            "message": f'I said "I\'ll send the draft {SCRIPT} this week."',
            "transcript": [
                {"speaker": "user", "text": f"Get me the report {PAYLOAD}"},
                {"speaker": "agent", "text": f"I'll send the draft {SCRIPT} this week."},
            ],
        },
    )
    post(
        "/connect/v1/ingest-jobs",
        {"sources": [{"ref": f"source:job{IMG}", "text": SOURCE_TEXT, "title": SCRIPT}]},
    )
    webhook_create(
        workspace=workspace,
        url=f"http://127.0.0.1:9/{IMG}",
        secret="s" * 16,
        events=["job.completed"],
    )
    rule_set_create(
        workspace=workspace,
        definition=dataclasses.replace(CORE_V1, name=f"rules {PAYLOAD}"),
        note=PAYLOAD,
    )
    # a second version of the source: its diff page names the payloads too
    make_source(workspace, ref="source:plain", text=f"{SOURCE_TEXT} Later {PAYLOAD}.")
    review_guidelines_set(
        workspace=workspace,
        text=f'# Rules {SCRIPT}\n\n[map]({JS_URL}) <a href="{JS_URL}">x</a> {IMG}\n',
        by=admin,
    )
    client = Client()
    client.force_login(admin)
    return {
        "client": client,
        "claims": list(Claim.objects.filter(workspace=workspace)),
        "sources": list(Source.objects.filter(workspace=workspace).values_list("pk", flat=True)),
        "webhook": Webhook.objects.get(workspace=workspace),
        "key": ApiKey.objects.get(workspace=workspace),
        "hostile": Membership.objects.get(workspace=workspace, user=hostile),
    }


def _links(base: str, html: str) -> list[str]:
    found = []
    for match in re.finditer(r'(?:href|hx-get)="([^"]+)"', html):
        url = urljoin(base, match.group(1).replace("&amp;", "&"))
        parts = urlsplit(url)
        if parts.netloc or not parts.path.startswith("/"):
            continue
        if parts.path.startswith(SKIP_PATHS) or parts.path.endswith((".csv", ".jsonl")):
            continue
        found.append(f"{parts.path}?{parts.query}" if parts.query else parts.path)
    return found


def _csrf_client(signed_in: Client) -> Client:
    """The same session, with the CSRF check a browser's request meets."""
    strict = Client(enforce_csrf_checks=True)
    strict.cookies = signed_in.cookies
    return strict


def test_no_stored_payload_arrives_as_markup(filled) -> None:
    client: Client = filled["client"]
    queue = deque(["/", "/audit/claims/", "/audit/sources/", "/audit/traces/", "/audit/rules/"])
    queue.extend(f"/audit/claims/{c.public_id}/" for c in filled["claims"])
    queue.extend(f"/review/item/{c.public_id}/" for c in filled["claims"])
    queue.extend(f"/audit/sources/{pk}/diff/" for pk in filled["sources"])
    seen: set[str] = set()
    variants: dict[str, int] = {}  # per path: how many of its queries were read
    wrong: list[str] = []
    shown = 0
    while queue and len(seen) < MAX_PAGES:
        url = queue.popleft()
        path = url.split("?", 1)[0]
        if url in seen or variants.get(path, 0) >= QUERY_VARIANTS:
            continue
        seen.add(url)
        variants[path] = variants.get(path, 0) + 1
        for headers in ({}, {"HX-Request": "true"}):
            response = client.get(url, headers=headers)
            if response.status_code >= 500:
                wrong.append(f"{url} {headers}: {response.status_code}")
            if "html" not in response.get("Content-Type", ""):
                continue
            html = response.content.decode()
            if "&lt;script&gt;alert(1)" in html:
                shown += 1
            for hit in AS_MARKUP.finditer(html):
                start = max(hit.start() - 80, 0)
                wrong.append(f"{url} {headers}: …{html[start : hit.end() + 20]}…")
            if not headers:
                queue.extend(link for link in _links(url, html) if link not in seen)
    # Pages that answer a form or echo what was asked: the confirmations that name a
    # stored thing, a search, an unknown rule-set version, a missing page, the refusal
    # of a page of another workspace, a CSRF failure sent from a hostile page.
    echoed = [
        client.post(f"/audit/webhooks/{filled['webhook'].pk}/off/", {"x": PAYLOAD}),
        client.post(f"/audit/api-keys/{filled['key'].pk}/revoke/", {"x": PAYLOAD}),
        client.post(f"/audit/members/{filled['hostile'].pk}/remove/"),
        client.get("/audit/claims/", {"q": PAYLOAD}),
        client.get("/audit/sources/", {"q": PAYLOAD}),
        client.get("/review/", {"q": PAYLOAD, "source": PAYLOAD, "domain_pack": PAYLOAD}),
        client.get("/review/relations/", {"q": PAYLOAD, "kind": PAYLOAD}),
        client.get("/audit/rules/diff/", {"a": PAYLOAD, "b": JS_URL}),
        client.get("/audit/activity/", {"action": PAYLOAD}),
        client.get(f"/audit/claims/{PAYLOAD}/"),
        client.get(f"/no/{PAYLOAD}"),
        Client().get("/accounts/login/", {"next": JS_URL, "session_ended": "1"}),
        Client().get("/accounts/login/", {"next": f"/{PAYLOAD}", "session_ended": "1"}),
        client.post(
            "/review/blind/",
            headers={"X-Spanproof-Workspace": PAYLOAD, "Referer": f"http://testserver/{IMG}"},
        ),
        _csrf_client(client).post(
            "/review/blind/", headers={"Referer": f"http://testserver/{IMG}"}
        ),
    ]
    for response in echoed:
        assert response.status_code < 500, response.status_code
        html = response.content.decode()
        for hit in AS_MARKUP.finditer(html):
            start = max(hit.start() - 80, 0)
            wrong.append(f"{response.status_code}: …{html[start : hit.end() + 20]}…")
    assert not wrong, "\n".join(wrong[:30])
    # the crawl really saw the payloads (escaped) on many pages
    assert shown > 10, (shown, len(seen))
