"""A reviewer walk at scale: a reason chip with 0 claims was a link like the others, as
if there were something to choose. The queue keeps its reasons in place with their
counts (a drained chip reads 0 and the chips add up to the filter's count), so such a
chip stays, muted and not a link; the chosen one stays pressed."""

from __future__ import annotations

import re

import pytest

from tests.review.conftest import queue_claim

pytestmark = pytest.mark.django_db


def _chips(body: str) -> str:
    found = re.search(r'<ul class="chips" aria-label="Reasons">(.*?)</ul>', body, re.S)
    assert found is not None, "the queue shows its reason chips"
    return found.group(1)


def _linked(chips: str) -> set[str]:
    return set(re.findall(r'<a [^>]*data-reason="([a-z_]+)"', chips, re.S))


def _muted(chips: str) -> dict[str, str]:
    return dict(
        re.findall(
            r'<li class="chip chip-none"><span class="chip-none-label" data-reason="([a-z_]+)">'
            r'[^<]*<span class="n">(\d+)</span>',
            chips,
        )
    )


def test_a_reason_with_no_claim_is_shown_muted_with_its_0_and_not_a_link(reviewer_client, source):
    queue_claim(source, "abstained")
    queue_claim(source, "abstained")
    chips = _chips(reviewer_client.get("/review/").content.decode())
    assert _linked(chips) == {"abstained"}
    muted = _muted(chips)
    assert "contradicted" in muted and set(muted.values()) == {"0"}
    assert "abstained" not in muted
    assert "(none in this filter)" in chips  # said to a screen reader, not only greyed


def test_the_chosen_reason_stays_pressed_when_it_has_no_claim(reviewer_client, source):
    queue_claim(source, "abstained")
    chips = _chips(reviewer_client.get("/review/?reason=contradicted").content.decode())
    assert re.search(
        r'<a [^>]*data-reason="contradicted" aria-current="true">[^<]*<span class="n">0<', chips
    )
    assert "contradicted" not in _muted(chips)
    # the way out: All reasons, and the reason that has claims
    assert _linked(chips) == {"contradicted", "abstained"}
    assert ">All reasons</a>" in chips
