"""``k`` (the Previous link) from an item "next" serves goes back to the item just left,
also where the served item was opened before (sent back to the judge, served again)."""

from __future__ import annotations

import pytest

from tests.review.conftest import seen

pytestmark = pytest.mark.django_db

HX = {"HTTP_HX_REQUEST": "true", "HTTP_HX_TARGET": "review-item"}


def _url(claim, action: str = "") -> str:
    return f"/review/item/{claim.public_id}/" + (f"{action}/" if action else "")


def test_previous_of_an_item_served_again_is_the_item_just_left(reviewer_client, make_queue_claim):
    first = make_queue_claim("abstained", text="The first claim.")
    second = make_queue_claim("abstained", text="The second claim.")
    started = reviewer_client.post("/review/start/", **HX)
    assert started["HX-Push-Url"] == _url(first)
    # Sent back to the judge: still undecided, so "next" may serve it again later.
    sent = reviewer_client.post(_url(first, "rejudge"), {"version": seen(first)}, **HX)
    assert sent["HX-Push-Url"] == _url(second)
    again = reviewer_client.post(_url(second, "skip"), **HX)
    assert again["HX-Push-Url"] == _url(first)
    assert f'id="link-previous" href="{_url(second)}"' in again.content.decode()
