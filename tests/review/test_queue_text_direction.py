"""A right-to-left claim in the review queue is isolated from its row, so the row's
punctuation and the claim id beside it keep their places."""

from __future__ import annotations

import re

import pytest

from tests.factories import make_source
from tests.review.conftest import queue_claim

pytestmark = pytest.mark.django_db

HEBREW = "המשקע שוקע היכן שהזרם מאט (1998)."


def test_a_right_to_left_claim_and_source_ref_are_isolated_in_the_queue_row(
    reviewer_client, workspace
):
    source = make_source(workspace, ref="source:נהר")
    claim = queue_claim(source, "no_evidence", text=HEBREW)
    body = reviewer_client.get("/review/").content.decode()
    row = body[body.index(f'<tr data-claim="{claim.public_id}"') :]
    row = row[: row.index("</tr>")]
    assert re.search(r'<a [^>]*dir="auto"[^>]*>' + re.escape(HEBREW) + "</a>", row)
    assert '<code dir="auto">source:נהר</code>' in row
