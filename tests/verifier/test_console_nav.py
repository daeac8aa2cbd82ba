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
    home = html.split('id="entry-points"')[1].split("</dl>")[0]
    assert re.findall(r'href="([^"]+)"', home) == links
    assert "Upload sources and claims" in home


def test_current_page_is_marked_in_the_nav(auditor_client):
    html = auditor_client.get("/audit/rag/").content.decode()
    assert '<a href="/audit/rag/" aria-current="page">RAG audits</a>' in html


def test_favicon_is_linked_and_served(client):
    response = client.get("/favicon.ico")
    assert response.status_code == 301
    icon = client.get(response["Location"])
    assert icon.status_code == 200
    login = client.get("/accounts/login/").content.decode()
    assert 'rel="icon" href="/static/favicon.svg"' in login
