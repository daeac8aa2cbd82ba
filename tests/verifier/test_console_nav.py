"""Every console page is reachable from the interface; the favicon exists."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from tests.factories import make_user

pytestmark = pytest.mark.django_db


def _nav(html: str) -> list[str]:
    nav = html.split('<nav aria-label="Main">')[1].split("</nav>")[0]
    return re.findall(r'href="([^"]+)"', nav)


def _groups(html: str) -> dict[str, list[str]]:
    nav = html.split('<nav aria-label="Main">')[1].split("</nav>")[0]
    groups = re.findall(
        r'<span class="nav-group-label"[^>]*>([^<]+)</span>\s*<ul[^>]*>(.*?)</ul>', nav, re.S
    )
    return {label: re.findall(r">([^<]+)</a>", links) for label, links in groups}


@pytest.mark.parametrize(
    ("role", "expected"),
    [
        ("reviewer", False),
        ("auditor", False),
        ("admin", True),
    ],
)
def test_nav_and_home_list_each_roles_entry_points(workspace, role, expected):
    user = make_user(f"u-{role}", workspace=workspace, role=role)
    client = Client()
    client.force_login(user)
    html = client.get("/").content.decode()
    links = _nav(html)
    for path in ("/review/", "/ingest/", "/audit/rag/", "/audit/memory/", "/audit/quality/"):
        assert path in links
        assert client.get(path).status_code == 200
    assert ("/audit/rules/" in links) is expected
    assert ("/audit/api-keys/" in links) is expected
    # Calibrators are reachable from the navigation, not only from Quality (walk 15).
    assert ("/audit/calibrators/" in links) is expected
    home = html.split('id="entry-points"')[1].split("</main>")[0]
    assert re.findall(r'<a href="([^"]+)"', home)[: len(links)] == links
    # an auditor cannot ingest: the entry offers it the job list it can read
    assert ("Upload sources to extract and check their claims" in home) is (role != "auditor")


@pytest.mark.parametrize("role", ["reviewer", "auditor", "admin"])
def test_nav_is_grouped_by_what_a_person_came_to_do(workspace, role):
    """Issue 40.2: four groups instead of twelve loose links."""
    user = make_user(f"g-{role}", workspace=workspace, role=role)
    client = Client()
    client.force_login(user)
    groups = _groups(client.get("/").content.decode())
    assert list(groups) == ["Review", "Audit", "Check", "Admin"]
    assert groups["Review"] == ["Queue", "Decisions", "Relations"]
    assert groups["Audit"] == ["Claims", "Sources", "Traces", "Quality", "Activity"]
    # an auditor only reads there: the entries name what it reads, as the pages do
    check = ["Verifications", "RAG answers", "Memory", "Claim worker"]
    assert groups["Check"] == (
        check if role == "auditor" else ["Verify claims", "RAG answers", "Memory", "Worker"]
    )
    admin = ["Ingest", "Rule sets", "Calibrators", "API keys", "Members", "Webhooks", "API docs"]
    ingest = "Ingest jobs" if role == "auditor" else "Ingest"
    assert groups["Admin"] == (admin if role == "admin" else [ingest, "API docs"])


@pytest.mark.parametrize(
    ("role", "entry", "title", "heading"),
    [
        ("auditor", "Ingest jobs", "Ingest jobs", "Ingest jobs"),
        ("reviewer", "Ingest", "Ingest", "Ingest sources"),
        ("admin", "Ingest", "Ingest", "Ingest sources"),
    ],
)
def test_the_ingest_entry_and_page_are_named_for_what_the_role_can_do_there(
    workspace, role, entry, title, heading
):
    """An auditor cannot ingest (the page's form needs write): the menu, the home page and
    the page itself name it the job list the auditor can read, not an upload."""
    client = Client()
    client.force_login(make_user(f"i-{role}", workspace=workspace, role=role))
    page = client.get("/ingest/").content.decode()
    nav = page.split('<nav aria-label="Main">')[1].split("</nav>")[0]
    assert f'<a href="/ingest/" aria-current="page">{entry}</a>' in nav
    assert f"<title>{title} · Spanproof</title>" in page
    assert f"<h1>{heading}</h1>" in page
    assert ('id="ingest-form"' in page) is (role != "auditor")
    home = client.get("/").content.decode().split('id="entry-points"')[1]
    assert f'<a href="/ingest/">{entry}</a>' in home
    if role == "auditor":
        assert "ingest job&#x27;s stages and errors." in home


def test_home_shows_each_roles_next_action_with_counts(workspace, source):
    from tests.review.conftest import queue_claim

    for reason in ("abstained", "abstained", "contradicted"):
        queue_claim(source, reason)
    pages = {}
    for role in ("reviewer", "auditor", "admin"):
        client = Client()
        client.force_login(make_user(f"h-{role}", workspace=workspace, role=role))
        pages[role] = client.get("/").content.decode()
    actions = {
        role: dict(
            re.findall(r'<li id="next-(\w+)"><a href="[^"]+"><span class="n">([^<]*)</span>', page)
        )
        for role, page in pages.items()
    }
    assert actions["reviewer"]["queue"] == "3" and actions["reviewer"]["contradicted"] == "1"
    assert "queue" not in actions["auditor"] and actions["auditor"]["contradicted"] == "1"
    assert "jobs" in actions["admin"] and "jobs" not in actions["reviewer"]


def test_current_page_is_marked_in_the_nav(auditor_client):
    html = auditor_client.get("/audit/rag/").content.decode()
    assert '<a href="/audit/rag/" aria-current="page">RAG answers</a>' in html


def test_favicon_is_linked_and_served(client):
    response = client.get("/favicon.ico")
    assert response.status_code == 301
    icon = client.get(response["Location"])
    assert icon.status_code == 200
    login = client.get("/accounts/login/").content.decode()
    assert 'rel="icon" href="/static/favicon.svg"' in login
