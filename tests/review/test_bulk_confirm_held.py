"""The bulk confirmation page says, before confirming, which selected claims another
reviewer is working on (the action skips them), rather than only after."""

from __future__ import annotations

import html
import re

import pytest

from review.services import review_lease_claim
from tests.factories import make_user
from tests.review.conftest import bulk_seen

pytestmark = pytest.mark.django_db


def _text(page: str) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page)).split())


def test_the_confirmation_names_a_claim_another_reviewer_holds(
    reviewer_client, reviewer, workspace, make_queue_claim
):
    free, held, mine = (make_queue_claim("abstained", text=f"Claim {i}.") for i in range(3))
    otto = make_user("otto", workspace=workspace, role="reviewer")
    assert review_lease_claim(claim=held, reviewer=otto, served_reason="test")
    assert review_lease_claim(claim=mine, reviewer=reviewer, served_reason="test")
    data = {
        "action": "exclude",
        "reason": "noise",
        "claims": [free.public_id, held.public_id, mine.public_id],
    }
    page = reviewer_client.post("/review/bulk/", data).content.decode()
    notice = _text(re.search(r'id="bulk-held"[^>]*>(.*?)</p>', page, re.S).group(1))
    assert notice.startswith("1 of these claims is being reviewed by someone else")
    items = {
        claim_id: _text(body)
        for claim_id, body in re.findall(
            r"<li><code>(claim:[a-z0-9]+)</code>(.*?)</li>", page, re.S
        )
    }
    assert items[held.public_id].endswith("skipped: otto is reviewing it")
    assert "skipped" not in items[free.public_id] and "skipped" not in items[mine.public_id]

    # Confirmed, it does as it said: the held one is skipped.
    seen = bulk_seen(free, held, mine)
    done = reviewer_client.post("/review/bulk/", {**data, **seen, "confirm": "on"}, follow=True)
    assert "Excluded 2 claims." in _text(done.content.decode())
    held.refresh_from_db()
    assert held.state == "unverified"


def test_no_notice_when_nobody_else_holds_one(reviewer_client, make_queue_claim):
    claim = make_queue_claim("abstained")
    data = {"action": "rejudge", "claims": [claim.public_id]}
    page = reviewer_client.post("/review/bulk/", data).content.decode()
    assert 'id="bulk-held"' not in page and "skipped" not in page
