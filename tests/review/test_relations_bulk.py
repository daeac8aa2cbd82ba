"""Relations at volume (issue 40.7): filters, and bulk accept/reject of a selection or of
the whole filter, with a count and a confirmation, through the single action's service."""

from __future__ import annotations

import pytest

from tests.factories import make_claim, make_source
from verifier.models import ClaimRelation, RelationDecision
from verifier.services.relation_verify import relations_verify

pytestmark = pytest.mark.django_db


@pytest.fixture
def flagged(workspace):
    """Six relations waiting for review: four "supports", two "contradicts"."""
    src = make_source(workspace)
    rows = []
    for i in range(6):
        a = make_claim(src, text=f"Sediment settles in basin {i}.")
        b = make_claim(src, text=f"Silt collects in basin {i}.")
        kind = "supports" if i < 4 else "contradicts"
        rows.append(
            ClaimRelation.objects.create(
                workspace=workspace, from_claim=a, to_claim=b, kind=kind, confidence=0.6
            )
        )
    relations_verify(workspace=workspace, relations=rows, judge=None)  # isolated → reject
    for r in rows:
        r.refresh_from_db()
    assert all(r.needs_review for r in rows)
    return rows


def test_filters_narrow_the_list(reviewer_client, flagged):
    page = reviewer_client.get("/review/relations/", {"kind": "contradicts"}).content.decode()
    assert page.count('id="relation-') == 2
    one = flagged[0].from_claim
    page = reviewer_client.get("/review/relations/", {"q": one.public_id}).content.decode()
    assert page.count('id="relation-') == 1


def test_bulk_reject_of_a_selection_asks_first_then_decides_each(
    reviewer_client, reviewer, flagged
):
    chosen = [flagged[0].pk, flagged[1].pk, flagged[2].pk]
    confirm = reviewer_client.post(
        "/review/relations/bulk/", {"decision": "reject", "relations": chosen}
    )
    assert confirm.status_code == 200
    body = confirm.content.decode()
    assert "Reject 3 relations?" in body and 'id="bulk-confirm"' in body
    assert not ClaimRelation.objects.filter(pk__in=chosen, needs_review=False).exists()

    done = reviewer_client.post(
        "/review/relations/bulk/", {"decision": "reject", "relations": chosen, "confirm": "1"}
    )
    assert done.status_code == 302
    for relation in ClaimRelation.objects.filter(pk__in=chosen):
        assert (relation.verification, relation.needs_review) == ("rejected", False)
        assert relation.reviewed_by == reviewer
        last = RelationDecision.objects.filter(relation=relation).order_by("-pk").first()
        assert (last.level, last.label, last.reviewer) == ("reviewer", "reject", reviewer)
    assert ClaimRelation.objects.filter(needs_review=True).count() == 3
    page = reviewer_client.get(done["Location"]).content.decode()
    assert "Rejected 3 relations." in page


def test_bulk_accept_of_the_whole_filter(reviewer_client, flagged):
    confirm = reviewer_client.post(
        "/review/relations/bulk/", {"decision": "accept", "scope": "filter", "kind": "supports"}
    )
    assert "Accept 4 relations?" in confirm.content.decode()
    ids = [r.pk for r in flagged[:4]]
    reviewer_client.post(
        "/review/relations/bulk/",
        {"decision": "accept", "relations": ids, "confirm": "1", "kind": "supports"},
    )
    assert set(
        ClaimRelation.objects.filter(verification="accepted").values_list("pk", flat=True)
    ) == set(ids)


def test_bulk_refuses_nothing_selected_a_bad_decision_and_auditors(
    reviewer_client, auditor_client, flagged
):
    empty = reviewer_client.post("/review/relations/bulk/", {"decision": "reject"})
    assert empty.status_code == 422
    bad = reviewer_client.post(
        "/review/relations/bulk/", {"decision": "maybe", "relations": [flagged[0].pk]}
    )
    assert bad.status_code == 422
    denied = auditor_client.post(
        "/review/relations/bulk/",
        {"decision": "reject", "relations": [flagged[0].pk], "confirm": "1"},
    )
    assert denied.status_code == 403
    assert ClaimRelation.objects.filter(needs_review=True).count() == 6


def test_a_relation_decided_meanwhile_is_skipped_not_decided_twice(
    reviewer_client, reviewer, flagged
):
    from verifier.services.relation_verify import relation_review_decide

    relation_review_decide(relation=flagged[0], reviewer=reviewer, accept=True)
    reviewer_client.post(
        "/review/relations/bulk/",
        {"decision": "reject", "relations": [flagged[0].pk, flagged[1].pk], "confirm": "1"},
    )
    flagged[0].refresh_from_db()
    flagged[1].refresh_from_db()
    assert (flagged[0].verification, flagged[1].verification) == ("accepted", "rejected")
    assert (flagged[1].needs_review, flagged[1].reviewed_by) == (False, reviewer)  # decided now
    assert RelationDecision.objects.filter(relation=flagged[0], level="reviewer").count() == 1
