import re

import pytest

from tests.factories import make_claim, make_source, make_user
from verifier.models import ClaimRelation, RelationDecision
from verifier.services.relation_verify import chunks_verify, relations_verify


@pytest.fixture
def flagged(workspace):
    src = make_source(workspace)
    a = make_claim(src, text="Sediment settles where the current slows.")
    b = make_claim(src, text="Salt marsh grasses trap silt at high tide.")
    r = ClaimRelation.objects.create(
        workspace=workspace, from_claim=a, to_claim=b, kind="supports", confidence=0.6
    )
    relations_verify(workspace=workspace, relations=[r], judge=None)  # isolated → reject
    r.refresh_from_db()
    return r


def test_page_shows_stats_and_flagged_relations(reviewer_client, flagged, workspace):
    chunks_verify(workspace=workspace, chunks=[], query="q", judge=None)
    page = reviewer_client.get("/review/relations/")
    assert page.status_code == 200
    html = page.content.decode()
    assert "Rejected (vector prefilter)" in html and "Hallucinations blocked" in html
    # the seed's label carries the seed's figure (SUM chunks_rejected_vog); ours has its own
    assert "<dt>Rejected by VoG</dt><dd>0 " in html
    assert "<dt>Relations rejected by the judge</dt>" in html
    assert f'id="relation-{flagged.pk}"' in html and "srmkg_reject" in html
    assert (
        reviewer_client.get("/review/relations/?level=srmkg_cap")
        .content.decode()
        .count('id="relation-')
        == 0
    )


def test_reviewer_accepts_a_flagged_relation_and_it_is_logged(reviewer_client, reviewer, flagged):
    response = reviewer_client.post(
        f"/review/relations/{flagged.pk}/decide/", {"decision": "accept"}
    )
    assert response.status_code == 302
    flagged.refresh_from_db()
    assert (flagged.verification, flagged.needs_review, flagged.reviewed_by) == (
        "accepted",
        False,
        reviewer,
    )
    last = RelationDecision.objects.filter(relation=flagged).order_by("-pk").first()
    assert (last.level, last.label, last.reviewer) == ("reviewer", "accept", reviewer)
    again = reviewer_client.post(f"/review/relations/{flagged.pk}/decide/", {"decision": "reject"})
    assert again.status_code == 302  # back to the list, which says who decided it
    assert "was already accepted by rita" in reviewer_client.get(again["Location"]).content.decode()
    flagged.refresh_from_db()
    assert flagged.verification == "accepted"


def test_bad_decision_and_other_workspace_and_auditor(
    reviewer_client, auditor_client, flagged, other_workspace
):
    bad = reviewer_client.post(f"/review/relations/{flagged.pk}/decide/", {"decision": "maybe"})
    assert bad.status_code == 422
    flagged.refresh_from_db()
    assert flagged.needs_review and flagged.verification == "rejected"
    assert (
        auditor_client.post(
            f"/review/relations/{flagged.pk}/decide/", {"decision": "accept"}
        ).status_code
        == 403
    )
    outsider = make_user("oscar", workspace=other_workspace, role="reviewer")
    from django.test import Client

    client = Client()
    client.force_login(outsider)
    assert (
        client.post(f"/review/relations/{flagged.pk}/decide/", {"decision": "accept"}).status_code
        == 404
    )
    flagged.refresh_from_db()
    assert flagged.needs_review


def test_decided_relations_are_listed_with_who_and_when(
    reviewer_client, auditor_client, reviewer, flagged, workspace, other_workspace
):
    """A decided relation leaves "Waiting for review": the page lists it under "Decided
    by reviewers" with the decision, the reviewer and the time (no other workspace's)."""
    empty = reviewer_client.get("/review/relations/").content.decode()
    assert "No reviewer has decided a relation yet." in empty
    assert (
        reviewer_client.post(
            f"/review/relations/{flagged.pk}/decide/", {"decision": "reject"}
        ).status_code
        == 302
    )
    flagged.refresh_from_db()
    theirs_src = make_source(other_workspace)
    theirs = ClaimRelation.objects.create(
        workspace=other_workspace,
        from_claim=make_claim(theirs_src, text="Their first claim."),
        to_claim=make_claim(theirs_src, text="Their second claim."),
        kind="supports",
        confidence=0.6,
        verification="accepted",
        verification_level="reviewer",
        reviewed_by=reviewer,
        reviewed_at=flagged.reviewed_at,
    )
    for client in (reviewer_client, auditor_client):
        html = client.get("/review/relations/").content.decode()
        decided = html.split('id="decided-h"')[1]
        assert f'id="relation-{flagged.pk}"' not in html  # no longer waiting
        row = decided.split(f'id="decided-{flagged.pk}"')[1].split("</tr>")[0]
        assert flagged.from_claim.public_id in row and flagged.to_claim.public_id in row
        assert "Rejected" in row and f"<td>{reviewer.username}</td>" in row
        assert "UTC" in row
        assert f'id="decided-{theirs.pk}"' not in html


def test_the_decided_list_costs_the_same_queries_for_few_and_many(
    reviewer_client, reviewer, workspace
):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext
    from django.utils import timezone

    src = make_source(workspace)

    def decided(n):
        for i in range(n):
            ClaimRelation.objects.create(
                workspace=workspace,
                from_claim=make_claim(src, text=f"From claim {n}-{i}."),
                to_claim=make_claim(src, text=f"To claim {n}-{i}."),
                kind="supports",
                confidence=0.6,
                verification="accepted",
                verification_level="reviewer",
                reviewed_by=make_user(f"decider{n}{i}"),
                reviewed_at=timezone.now(),
            )

    def queries() -> int:
        with CaptureQueriesContext(connection) as captured:
            assert reviewer_client.get("/review/relations/").status_code == 200
        return len(captured)

    decided(1)
    few = queries()
    decided(4)
    html = reviewer_client.get("/review/relations/").content.decode()
    assert len(re.findall(r'id="decided-\d+"', html)) == 5
    assert queries() == few
