"""Deciding one relation from the list: a decision from a stale page says who decided it
and when and goes back to the list (a reload sends nothing again), a decision keeps the
list's filter, the Level filter offers only the levels relations wait at, and each row's
buttons name the relation they decide."""

from __future__ import annotations

import re
from datetime import UTC

import pytest
from django.test import Client

from tests.factories import make_claim, make_source, make_user
from verifier.models import ClaimRelation
from verifier.services.relation_verify import relation_review_decide, relations_verify

pytestmark = pytest.mark.django_db


@pytest.fixture
def waiting(workspace):
    """Three relations waiting for review (isolated claims: the graph check rejects)."""
    src = make_source(workspace)
    rows = []
    for i, kind in enumerate(("supports", "supports", "contradicts")):
        a = make_claim(src, text=f"Sediment settles in basin {i}.")
        b = make_claim(src, text=f"Silt collects in basin {i}.")
        rows.append(
            ClaimRelation.objects.create(
                workspace=workspace, from_claim=a, to_claim=b, kind=kind, confidence=0.6
            )
        )
    relations_verify(workspace=workspace, relations=rows, judge=None)
    for r in rows:
        r.refresh_from_db()
    assert all(r.needs_review and r.verification_level == "srmkg_reject" for r in rows)
    return rows


def _decide(client, relation, decision, **more):
    return client.post(f"/review/relations/{relation.pk}/decide/", {"decision": decision, **more})


def test_a_decision_from_a_stale_page_names_who_decided_and_goes_back_to_the_list(
    reviewer_client, workspace, waiting
):
    omar = make_user("omar", workspace=workspace, role="reviewer")
    relation = waiting[0]
    relation_review_decide(relation=relation, reviewer=omar, accept=True)  # meanwhile
    relation.refresh_from_db()
    listed = "/review/relations/?kind=supports"
    response = _decide(reviewer_client, relation, "reject", next=listed)
    assert response.status_code == 302 and response["Location"] == listed
    page = reviewer_client.get(listed).content.decode()
    at = relation.reviewed_at.astimezone(UTC).strftime("%H:%M")
    assert (
        f"Relation {relation.pk} was already accepted by omar at {at} UTC: it is no longer "
        "waiting for review." in page
    )
    relation.refresh_from_db()
    assert (relation.verification, relation.reviewed_by) == ("accepted", omar)


def test_a_decision_keeps_the_lists_filter_and_only_a_path_of_the_list(reviewer_client, waiting):
    listed = "/review/relations/?kind=supports&page=1"
    response = _decide(reviewer_client, waiting[0], "accept", next=listed)
    assert response["Location"] == listed
    page = reviewer_client.get(listed).content.decode()
    assert f"Relation {waiting[0].pk} accepted." in page
    for elsewhere in (
        "https://evil.example/review/relations/",
        "//evil.example/",
        "/audit/claims/",
        "/review/relations/../../audit/",
        "/review/relations/?q=a\r\nSet-Cookie: x=1",
    ):
        response = _decide(reviewer_client, waiting[1], "reject", next=elsewhere)
        assert response.status_code == 302 and response["Location"] == "/review/relations/"
        ClaimRelation.objects.filter(pk=waiting[1].pk).update(needs_review=True)  # again


def test_the_page_gives_each_decision_its_return_address(reviewer_client, waiting):
    html = reviewer_client.get("/review/relations/?kind=contradicts").content.decode()
    assert '<input type="hidden" name="next" value="/review/relations/?kind=contradicts">' in html


def test_the_level_filter_offers_only_levels_relations_wait_at(reviewer_client, reviewer, waiting):
    relation_review_decide(relation=waiting[0], reviewer=reviewer, accept=True)
    html = reviewer_client.get("/review/relations/").content.decode()
    select = re.search(r'<select id="level" name="level">(.*?)</select>', html, re.S).group(1)
    options = re.findall(r'<option value="([^"]*)"[^>]*>([^<]*)</option>', select)
    assert options == [("", "any"), ("srmkg_reject", "Rejected by the graph check (2)")]
    assert "Decided by a reviewer" not in select


def test_each_rows_buttons_name_the_relation(reviewer_client, waiting):
    html = reviewer_client.get("/review/relations/").content.decode()
    r = waiting[2]
    name = f"relation {r.pk}: {r.from_claim.public_id} contradicts {r.to_claim.public_id}"
    assert f'value="accept" aria-label="Accept {name}">Accept</button>' in html
    assert f'value="reject" aria-label="Reject {name}">Reject</button>' in html
    assert f'aria-label="Select {name}"' in html
    # an auditor reads the list without the buttons
    auditor = make_user("aldo2", workspace=r.workspace, role="auditor")
    client = Client()
    client.force_login(auditor)
    assert "Accept relation" not in client.get("/review/relations/").content.decode()
