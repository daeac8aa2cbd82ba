"""A 403 says what was refused: "this page" for a page asked for, "this action" for a
form sent (a decision, a bulk action), not "this page" for both."""

from __future__ import annotations

import re

import pytest

pytestmark = pytest.mark.django_db


def _refusal(response) -> str:
    assert response.status_code == 403
    found = re.search(r'<p id="refusal-message">(.*?)</p>', response.content.decode(), re.S)
    assert found
    return found.group(1)


def test_an_action_the_role_does_not_allow_is_called_an_action(auditor_client, source):
    from tests.review.conftest import queue_claim

    claim = queue_claim(source, "abstained")
    for url, data in (
        (f"/review/item/{claim.public_id}/decide/", {"decision": "not_stated"}),
        ("/review/bulk/", {"action": "rejudge", "claims": [claim.public_id]}),
        ("/audit/members/new/", {"username": "x", "role": "admin"}),
    ):
        said = _refusal(auditor_client.post(url, data))
        assert said.startswith("Your role in this workspace does not allow this action."), url
        assert "page" not in said.split(" Your role in ")[0], url


def test_a_page_the_role_does_not_allow_is_called_a_page(auditor_client):
    said = _refusal(auditor_client.get("/audit/members/"))
    assert said.startswith("Your role in this workspace does not allow this page.")
