from __future__ import annotations

import threading
from datetime import UTC, timedelta

import pytest
from django.db import connection
from django.utils import timezone

from review.models import ReviewLease
from review.selectors.queue import review_queue_filtered
from review.services import review_lease_next, review_lease_release
from tests.factories import make_source, make_user, make_workspace
from tests.review.conftest import queue_claim
from verifier.models import Claim


def lease_next(*, workspace, reviewer, filters=None, skip=()):
    """The next lease by ``filters``, with the queryset prepared as the console does."""
    selection = review_queue_filtered(workspace=workspace, reviewer=reviewer, filters=filters or {})
    return review_lease_next(
        workspace=workspace,
        reviewer=reviewer,
        queryset=selection.claims,
        filters=selection.filters,
        skip=skip,
    )


def test_next_serves_the_riskiest_and_records_why(workspace, reviewer, make_queue_claim):
    make_queue_claim("abstained")
    gap = make_queue_claim("coverage_gap")
    lease = lease_next(workspace=workspace, reviewer=reviewer, filters={})
    assert lease.claim == gap
    assert lease.served_reason.startswith("next by risk: No answer from the judge")
    assert lease.expires_at > timezone.now()


def test_next_follows_the_filter_and_says_so(workspace, reviewer, make_queue_claim):
    abstained = make_queue_claim("abstained")
    make_queue_claim("coverage_gap")
    lease = lease_next(workspace=workspace, reviewer=reviewer, filters={"reason": "abstained"})
    assert lease.claim == abstained
    assert "by the filter Reason: Judge undecided" in lease.served_reason


def test_next_serves_only_from_the_prepared_queryset(workspace, reviewer, make_queue_claim):
    make_queue_claim("contradicted")
    abstained = make_queue_claim("abstained")
    lease = review_lease_next(
        workspace=workspace, reviewer=reviewer, queryset=Claim.objects.filter(pk=abstained.pk)
    )
    assert lease.claim == abstained
    assert lease.served_reason == "next by risk: Judge undecided"


def test_an_invalid_filter_serves_nothing_and_frees_the_held_item(
    workspace, reviewer, make_queue_claim
):
    make_queue_claim("abstained")
    assert lease_next(workspace=workspace, reviewer=reviewer) is not None
    invalid = {"confidence_min": "lots"}
    assert lease_next(workspace=workspace, reviewer=reviewer, filters=invalid) is None
    assert not ReviewLease.objects.exists()


def test_two_reviewers_never_hold_the_same_claim(workspace, reviewer, make_queue_claim):
    first, second = make_queue_claim("contradicted"), make_queue_claim("abstained")
    other = make_user("otto", workspace=workspace, role="reviewer")
    assert lease_next(workspace=workspace, reviewer=reviewer).claim == first
    assert lease_next(workspace=workspace, reviewer=other).claim == second
    assert (
        lease_next(workspace=workspace, reviewer=make_user(workspace=workspace, role="reviewer"))
        is None
    )


def test_expired_lease_frees_the_claim(workspace, reviewer, make_queue_claim, settings):
    claim = make_queue_claim("contradicted")
    lease = lease_next(workspace=workspace, reviewer=reviewer)
    ReviewLease.objects.filter(pk=lease.pk).update(expires_at=timezone.now() - timedelta(seconds=1))
    other = make_user("otto", workspace=workspace, role="reviewer")
    taken = lease_next(workspace=workspace, reviewer=other)
    assert taken.claim == claim and taken.reviewer == other
    assert ReviewLease.objects.filter(claim=claim).count() == 1


def test_release_and_one_lease_per_reviewer(workspace, reviewer, make_queue_claim):
    a, b = make_queue_claim("contradicted"), make_queue_claim("abstained")
    lease = lease_next(workspace=workspace, reviewer=reviewer)
    assert lease.claim == a
    # asking again while skipping a releases a and serves b
    assert lease_next(workspace=workspace, reviewer=reviewer, skip=[a.pk]).claim == b
    assert list(ReviewLease.objects.values_list("claim_id", flat=True)) == [b.pk]
    review_lease_release(claim=b, reviewer=reviewer)
    assert not ReviewLease.objects.exists()


def test_lease_ttl_comes_from_settings(workspace, reviewer, make_queue_claim, settings):
    settings.SPANPROOF_REVIEW_LEASE_SECONDS = 60
    make_queue_claim("abstained")
    lease = lease_next(workspace=workspace, reviewer=reviewer)
    assert timedelta(seconds=50) < lease.expires_at - timezone.now() <= timedelta(seconds=60)


@pytest.mark.django_db(transaction=True)
def test_concurrent_next_never_serves_the_same_claim_twice():
    workspace = make_workspace("concurrent")
    source = make_source(workspace)
    claims = [queue_claim(source, "abstained", text=f"Claim {i}") for i in range(12)]
    threads_n = 8
    reviewers = [
        make_user(f"rev{i}", workspace=workspace, role="reviewer") for i in range(threads_n)
    ]
    for _round in range(2):
        barrier = threading.Barrier(threads_n)
        served: list[int | None] = []
        errors: list[BaseException] = []
        lock = threading.Lock()

        def ask(user, barrier=barrier, served=served, errors=errors):
            try:
                barrier.wait(timeout=10)
                lease = lease_next(workspace=workspace, reviewer=user)
                with lock:  # noqa: B023 (one lock for all rounds)
                    served.append(lease.claim_id if lease else None)
            except BaseException as exc:  # surfaced below
                errors.append(exc)
            finally:
                connection.close()

        threads = [threading.Thread(target=ask, args=(user,)) for user in reviewers]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=60)
        assert not errors, errors
        got = [claim_id for claim_id in served if claim_id is not None]
        assert len(served) == threads_n
        assert len(got) == len(set(got)), f"a claim was served twice: {sorted(got)}"
        held = list(ReviewLease.objects.values_list("claim_id", "reviewer_id"))
        assert len({c for c, _ in held}) == len(held)
        assert len({r for _, r in held}) == len(held)  # one item per reviewer
    # 12 claims, 8 reviewers: every reviewer holds one, 4 free
    assert ReviewLease.objects.count() == threads_n
    assert {c.pk for c in claims} >= set(ReviewLease.objects.values_list("claim_id", flat=True))


def test_an_item_another_reviewer_holds_says_until_when_and_what_to_do(
    workspace, reviewer, make_queue_claim, client
):
    """A second reviewer who opens an item another holds reads why the keys do nothing,
    until when, and what to do (the page does not change when the holder is done)."""
    import html
    import re

    claim = make_queue_claim("contradicted")
    lease = lease_next(workspace=workspace, reviewer=reviewer)
    assert lease is not None and lease.claim_id == claim.pk
    other = make_user("otto", workspace=workspace, role="reviewer")
    client.force_login(other)
    page = client.get(f"/review/item/{claim.public_id}/").content.decode()
    blocked = html.unescape(re.search(r'data-blocked="([^"]*)"', page).group(1))
    until = lease.expires_at.astimezone(UTC).strftime("%H:%M")
    assert blocked == (
        f"rita is reviewing this claim (until {until} UTC): it is read-only for you. "
        "Reload the page once they are done, or press j for the next item."
    )
