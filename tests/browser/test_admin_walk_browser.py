"""Chromium, walking the members page as an admin: taking yourself out asks first in
words that say you lose the workspace at once (the question used to read as if about
someone else: "Take ada out …? Their decisions and notes stay."); dismissing it changes
nothing, confirming it ends on the overview saying so."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import login_browser
from tests.factories import make_user, make_workspace
from verifier.models import Membership

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_taking_yourself_out_asks_in_words_about_you(browser_page, live_server):
    page = browser_page
    workspace = make_workspace("walk-members")
    make_user("bea", workspace=workspace, role="admin")
    ada = make_user("ada", workspace=workspace, role="admin")
    login_browser(page, live_server, ada)
    asked: list[str] = []
    answer = {"accept": False}

    def on_dialog(dialog):
        asked.append(dialog.message)
        if answer["accept"]:
            dialog.accept()
        else:
            dialog.dismiss()

    page.on("dialog", on_dialog)
    page.goto(f"{live_server.url}/audit/members/")
    take_out = page.get_by_role("button", name="Take out ada (leaves the workspace)")
    take_out.click()
    expect(page).to_have_url(f"{live_server.url}/audit/members/")
    assert asked and asked[0].startswith("Take yourself out of Workspace walk-members? "), asked
    assert "You lose access to it at once" in asked[0] and "Their decisions" not in asked[0]
    assert Membership.objects.filter(user=ada, workspace=workspace).exists()

    answer["accept"] = True
    take_out.click()
    expect(page.locator("main .messages")).to_contain_text(
        "You are no longer a member of Workspace walk-members; your decisions stay."
    )
    assert not Membership.objects.filter(user=ada, workspace=workspace).exists()
