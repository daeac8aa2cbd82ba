"""The item page says why "next" served an item in words: the reason's label and the
filter's fields by their labels, never the codes stored behind them ("abstained",
"state=queue", "mine=True") that a team walk found on every served item."""

from __future__ import annotations

import re

from django.utils.html import strip_tags

from review.services import review_bulk_assign


def _lease_line(body: str) -> str:
    match = re.search(r'<p class="muted">\s*(Leased to you.*?)</p>', body, re.S)
    assert match is not None, "the item page shows the reviewer's lease"
    return " ".join(strip_tags(match.group(1)).split())


def test_served_by_a_filter_says_it_in_words(
    reviewer_client, reviewer, workspace, make_queue_claim
):
    make_queue_claim("contradicted", text="The delta loses land.")
    mine = make_queue_claim("abstained", text="The delta gains land every year.")
    review_bulk_assign(workspace=workspace, claims=[mine], assignee_id=reviewer.pk, by=reviewer)
    served = reviewer_client.post(
        "/review/start/?mine=true&reason=Judge+undecided&q=gains", follow=True
    )
    body = served.content.decode()
    assert f'data-claim="{mine.public_id}"' in body
    line = _lease_line(body)
    assert line.endswith(
        "served: next by risk: Judge undecided; by the filter Reason: Judge undecided, "
        "Whose: Mine, Search: “gains”"
    ), line
    for code in ("abstained", "state=", "queue", "mine=", "True", "reason="):
        assert code not in line, (code, line)


def test_served_by_the_default_queue_names_the_reason_alone(reviewer_client, make_queue_claim):
    make_queue_claim("coverage_gap", text="The delta is tidal.")
    body = reviewer_client.post("/review/start/", follow=True).content.decode()
    assert _lease_line(body).endswith("served: next by risk: No answer from the judge")
