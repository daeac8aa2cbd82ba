"""Chromium: a form whose answer takes a while (a RAG audit, a memory check, a
verification) says so once sent, in its status line, and is marked busy; a page brought
back by Back is not left busy."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import login_browser
from tests.factories import make_user, make_workspace

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.mark.parametrize(
    ("path", "fill", "words"),
    [
        (
            "/audit/rag/",
            {
                "#id_answer": "The tower is 300 metres tall [c1].",
                "#id_chunks": '{"id": "c1", "text": "The tower is 300 metres tall."}',
            },
            "Auditing the answer",
        ),
        (
            "/audit/memory/",
            {"#id_agent": "assistant", "#id_message": "I said the tower is 300 metres tall."},
            "Checking the message against the transcript",
        ),
    ],
)
def test_a_slow_form_says_it_is_working_once_sent(browser_page, live_server, path, fill, words):
    page = browser_page
    workspace = make_workspace("busy")
    login_browser(page, live_server, make_user("rita", workspace=workspace, role="reviewer"))
    page.goto(f"{live_server.url}{path}")
    form = page.locator("form[data-busy]")
    status = form.locator("[data-busy-status]")
    expect(status).to_have_text("")
    for selector, value in fill.items():
        page.fill(selector, value)

    # the form is not sent in the end: a listener added after the console's own (which
    # mark the form) cancels the submission, so the page stays to be read
    page.evaluate("() => window.addEventListener('submit', (event) => event.preventDefault())")
    form.locator("button[type=submit]").click()
    expect(status).to_contain_text(words)
    expect(form).to_have_attribute("aria-busy", "true")
    expect(form.locator("button[type=submit]")).to_have_attribute("aria-disabled", "true")

    # brought back by Back (the back-forward cache shows the page as it was left)
    page.evaluate(
        "() => window.dispatchEvent(new PageTransitionEvent('pageshow', {persisted: true}))"
    )
    expect(status).to_have_text("")
    expect(form).not_to_have_attribute("aria-busy", "true")
    expect(form.locator("button[type=submit]")).not_to_have_attribute("aria-disabled", "true")
