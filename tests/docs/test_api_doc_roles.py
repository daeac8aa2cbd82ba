"""docs/api.md's "Who may do what" table says which console pages each role opens: the
pages its `admin` row names refuse an auditor and a reviewer (403) and open for an
admin, and `read` opens "every page but the admin pages below" (an auditor opens the
pages the README's "Who does what" names for everyone but admins)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Final

import pytest
from django.test import Client

ROOT: Final = Path(__file__).resolve().parent.parent.parent
API_DOC: Final = ROOT / "docs" / "api.md"
README: Final = ROOT / "README.md"


def console_cell(scope: str) -> str:
    row = next(
        line for line in API_DOC.read_text().splitlines() if line.startswith(f"| `{scope}` |")
    )
    return row.split(" | ")[-1]


def pages_in(text: str) -> list[str]:
    return sorted(set(re.findall(r"`(/(?:audit|review|ingest|verify|worker)/[\w/-]*)`", text)))


ADMIN_PAGES: Final = pages_in(console_cell("admin"))


def console_pages() -> list[str]:
    """Every console address without a parameter (`/audit/members/`, not
    `/audit/claims/<id>/`)."""
    from django.urls import URLPattern, URLResolver, get_resolver

    found: list[str] = []

    def walk(patterns: list[Any], prefix: str) -> None:
        for pattern in patterns:
            route = str(pattern.pattern)
            if "<" in route or "(?P" in route:
                continue
            if isinstance(pattern, URLResolver):
                walk(pattern.url_patterns, prefix + route)
            elif isinstance(pattern, URLPattern):
                found.append("/" + prefix + route)

    walk(get_resolver().url_patterns, "")
    return sorted(p for p in found if re.match(r"/(audit|review|ingest|verify|worker)/", p))


@pytest.mark.django_db
def test_the_admin_row_names_every_page_only_an_admin_opens(
    auditor_client: Client, reviewer_client: Client
) -> None:
    refused = [
        page
        for page in console_pages()
        if auditor_client.get(page).status_code == 403
        and reviewer_client.get(page).status_code == 403
        and not any(page.startswith(admin_page) for admin_page in ADMIN_PAGES)
    ]
    assert not refused, f"admin-only, not in docs/api.md's admin row: {refused}"


@pytest.mark.django_db
@pytest.mark.parametrize("page", ADMIN_PAGES)
def test_an_admin_page_of_the_table_is_admin_only(
    page: str, auditor_client: Client, reviewer_client: Client, admin_client_ws: Client
) -> None:
    assert auditor_client.get(page).status_code == 403
    assert reviewer_client.get(page).status_code == 403
    assert admin_client_ws.get(page).status_code in (200, 405)  # 405: it takes a form's POST


@pytest.mark.django_db
def test_every_other_page_the_readme_names_opens_for_an_auditor(auditor_client: Client) -> None:
    readme = README.read_text()
    section = readme[readme.index("## Who does what") : readme.index("## The API")]
    admins = section[section.index("- **Admins**") :]
    pages = [p for p in pages_in(section) if p not in ADMIN_PAGES and p not in pages_in(admins)]
    assert "/audit/claims/" in pages and "/review/" in pages, pages
    for page in pages:
        assert auditor_client.get(page).status_code == 200, page
