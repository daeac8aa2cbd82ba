"""A page whose form adds work (an upload, a check) shows that form only to a role that
may post it; an auditor reads the page's results and is told, in words, why there is no
form, instead of filling one in to meet a 403 that loses what was typed."""

from __future__ import annotations

import re

import pytest

PAGES = [
    ("/ingest/", "the ingest jobs but not start one"),
    ("/verify/", "verification results but not submit claims"),
    ("/audit/rag/", "the audits but not run one"),
    ("/audit/memory/", "the memory checks but not run one"),
    ("/worker/console", "verified claims but not verify one"),
]


def _post_forms(html: str) -> list[str]:
    return re.findall(r'<form method="post"[^>]*>', html)


@pytest.mark.django_db
@pytest.mark.parametrize(("url", "says"), PAGES)
def test_an_auditor_is_told_instead_of_shown_a_form(auditor_client, url, says):
    page = auditor_client.get(url)
    assert page.status_code == 200
    html = page.content.decode()
    assert f"Your role here (auditor) can read {says}" in html
    # the only post forms left are the page chrome's (workspace switch, sign out)
    assert all("workspace" in f or "logout" in f for f in _post_forms(html)), _post_forms(html)


@pytest.mark.django_db
@pytest.mark.parametrize(("url", "says"), PAGES)
def test_a_reviewer_gets_the_form(reviewer_client, url, says):
    html = reviewer_client.get(url).content.decode()
    assert "Your role here" not in html
    assert any("workspace" not in f and "logout" not in f for f in _post_forms(html))
