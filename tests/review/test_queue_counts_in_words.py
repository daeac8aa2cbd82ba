"""A reviewer's week at volume: past the exact count's cap, the progress line says how
many are left in words ("about 2,670", "more than 1,000"), not a chip's short form
behind "about" (a team walk read "about ~2,670 left in this filter")."""

from __future__ import annotations

import re

import pytest

from tests.review.conftest import queue_claim
from verifier.selectors import counts

pytestmark = pytest.mark.django_db


def _progress(body: str) -> str:
    progress = re.search(r'id="my-progress"[^>]*>(.*?)</p>', body, re.S).group(1)
    return " ".join(re.sub(r"<[^>]+>", " ", progress).split())


def test_the_left_count_past_the_cap_is_said_in_words(reviewer_client, source, monkeypatch):
    for i in range(4):
        queue_claim(source, "abstained", text=f"Claim {i} about the delta.")
    monkeypatch.setattr(counts, "COUNT_CAP", 2)
    text = _progress(reviewer_client.get("/review/").content.decode())
    assert re.search(r"· (about|more than) [\d,]+ left in this filter$", text), text
    assert "~" not in text
    assert "+" not in text


def test_the_results_heading_says_how_many_claims_the_filter_holds(reviewer_client, source):
    """A chip leaves the keyboard on the results heading (review.js): it says how many
    claims the chip's filter holds, as the chip does."""
    for i in range(3):
        queue_claim(source, "stale_source", text=f"Stale {i}.")
    queue_claim(source, "abstained", text="Another reason.")
    body = reviewer_client.get("/review/?reason=stale_source").content.decode()
    heading = re.search(r'<h2 id="queue-results-title"[^>]*>(.*?)</h2>', body, re.S).group(1)
    assert heading == "Claims in this filter: 3"
    body = reviewer_client.get("/review/?confidence_min=abc").content.decode()
    heading = re.search(r'<h2 id="queue-results-title"[^>]*>(.*?)</h2>', body, re.S).group(1)
    assert heading == "Claims in this filter"
