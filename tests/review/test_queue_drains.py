"""The queue drains (issue 39, point 3): a reviewer's decision takes the item out of the
default queue (it is still found under its state), "next" never serves an item the
reviewer decided, and opening an item to read it leases nothing."""

from __future__ import annotations

import re

from review.models import ReviewLease
from tests.factories import make_user
from tests.review.conftest import seen

HX = {"HTTP_HX_REQUEST": "true", "HTTP_HX_TARGET": "review-item"}


def _url(claim, action=""):
    return f"/review/item/{claim.public_id}/" + (f"{action}/" if action else "")


def _listed(client, query: str = "") -> list[str]:
    html = client.get(f"/review/{query}").content.decode()
    return re.findall(r'href="/review/item/(claim:[a-z0-9]+)/', html)


def test_a_decided_item_leaves_the_queue_and_stays_findable(reviewer_client, make_queue_claim):
    contested = make_queue_claim("contradicted")
    other = make_queue_claim("abstained")
    assert _listed(reviewer_client)[:1] == [contested.public_id]  # riskiest first
    response = reviewer_client.post(
        _url(contested, "decide"), {"decision": "contradicted", "version": seen(contested)}
    )
    assert response.status_code == 302
    contested.refresh_from_db()
    assert (contested.state, contested.state_reason) == ("contradicted", "human_contradicted")
    # Out of the default queue and its "contradicted" chip …
    assert contested.public_id not in _listed(reviewer_client)
    assert other.public_id in _listed(reviewer_client)
    html = reviewer_client.get("/review/").content.decode()
    chip = re.search(r'data-reason="contradicted"[^>]*>[^<]*<span class="n"[^>]*>(\d+)<', html)
    assert chip and chip.group(1) == "0"
    # … and found under its state, in the queue and in the claim list.
    assert contested.public_id in _listed(reviewer_client, "?state=contradicted")
    assert (
        contested.public_id
        in reviewer_client.get("/audit/claims/?state=contradicted").content.decode()
    )


def test_start_reviewing_never_serves_my_just_decided_item(reviewer_client, make_queue_claim):
    contested = make_queue_claim("contradicted")
    other = make_queue_claim("abstained")
    # Opened from a link, decided; the next item is served in place.
    response = reviewer_client.post(
        _url(contested, "decide"), {"decision": "contradicted", "version": seen(contested)}, **HX
    )
    assert f'data-claim="{other.public_id}"' in response.content.decode()
    for query in ("", "?state=contradicted", "?reason=contradicted&state=contradicted"):
        response = reviewer_client.post(f"/review/start/{query}")
        assert contested.public_id not in response["Location"], query


def test_another_reviewer_is_still_served_a_decided_item_under_its_state(
    client, reviewer_client, workspace, make_queue_claim
):
    contested = make_queue_claim("contradicted")
    reviewer_client.post(
        _url(contested, "decide"), {"decision": "contradicted", "version": seen(contested)}
    )
    omar = make_user("omar", workspace=workspace, role="reviewer")
    client.force_login(omar)
    response = client.post("/review/start/?state=contradicted")
    assert response["Location"].startswith(_url(contested))


def test_opening_an_item_to_read_it_leases_nothing(
    client, reviewer_client, workspace, make_queue_claim
):
    claim = make_queue_claim("abstained")
    page = reviewer_client.get(_url(claim))
    assert page.status_code == 200 and 'id="btn-supported"' in page.content.decode()
    assert not ReviewLease.objects.exists()
    # So another reviewer working the queue is served it at once …
    omar = make_user("omar", workspace=workspace, role="reviewer")
    client.force_login(omar)
    assert client.post("/review/start/")["Location"].startswith(_url(claim))
    assert ReviewLease.objects.get().reviewer == omar
    # … and while omar holds it, the reader's decision is refused, not recorded.
    response = reviewer_client.post(
        _url(claim, "decide"), {"decision": "contradicted", "version": seen(claim)}
    )
    assert response.status_code == 409
    claim.refresh_from_db()
    assert claim.state_reason == "abstained"
