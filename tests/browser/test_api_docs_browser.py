"""The API docs page as a browser shows it: one h1 and one main landmark, which Swagger UI
renders (the page's template adds neither)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_api_docs_have_one_h1_and_one_main(browser_page, live_server):
    page = browser_page
    page.goto(f"{live_server.url}/connect/v1/docs")
    expect(page.locator(".swagger-ui .info .title")).to_be_visible()
    assert page.locator("h1").count() == 1, page.locator("h1").all_inner_texts()
    assert page.locator("main, [role=main]").count() == 1
