"""An admin frees an item a reviewer left mid-way: a team walk found that an item whose
reviewer walked away stayed locked to everyone ("read-only for you") until the lease ran
out, with no one able to end it."""

from __future__ import annotations

import pytest
from django.test import Client

from review.models import ReviewLease
from review.services import review_lease_claim
from tests.factories import make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def left_by_lena(workspace, make_queue_claim):
    lena = make_user("lena", workspace=workspace, role="reviewer")
    claim = make_queue_claim("abstained", text="Rye starters date from the ninth century.")
    assert review_lease_claim(claim=claim, reviewer=lena, served_reason="next")
    return claim


def test_an_admin_releases_the_hold_and_anyone_may_review_the_item(
    admin_client_ws, reviewer_client, left_by_lena
):
    url = f"/review/item/{left_by_lena.public_id}/"
    held = admin_client_ws.get(url + "?mine=true").content.decode()
    assert "lena</strong> is reviewing this claim" in held
    assert 'id="btn-release-hold"' in held and "Release lena's hold" in held
    assert 'id="decide-form"' not in held
    response = admin_client_ws.post(url + "release-hold/?mine=true", follow=True)
    assert response.redirect_chain == [(url + "?mine=true", 302)]
    page = response.content.decode()
    assert (
        f"Released lena&#x27;s hold on {left_by_lena.public_id}: anyone may review it now." in page
    )
    assert not ReviewLease.objects.exists()
    assert 'id="decide-form"' in page and 'id="btn-release-hold"' not in page
    # another reviewer is served it now
    served = reviewer_client.post("/review/start/", follow=True).content.decode()
    assert f'data-claim="{left_by_lena.public_id}"' in served


def test_a_reviewer_cannot_end_a_colleagues_hold(reviewer_client, left_by_lena):
    url = f"/review/item/{left_by_lena.public_id}/"
    assert 'id="btn-release-hold"' not in reviewer_client.get(url).content.decode()
    assert reviewer_client.post(url + "release-hold/").status_code == 403
    assert ReviewLease.objects.filter(claim=left_by_lena).exists()


def test_releasing_a_hold_that_already_ended_says_so(admin_user, left_by_lena):
    ReviewLease.objects.all().delete()
    client = Client()
    client.force_login(admin_user)
    url = f"/review/item/{left_by_lena.public_id}/"
    page = client.post(url + "release-hold/", follow=True).content.decode()
    assert f"Nobody holds {left_by_lena.public_id} any more" in page
