"""Undo on the relations page: the Undo button on a row of "Decided by reviewers" the
viewer may undo (their own recent decision, named for the relation), the relation back in
"Waiting for review" with a flash; refusals go back to the list with a warning; an
auditor gets 403 and a POST without the CSRF token is refused, nothing changed."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from tests.factories import make_claim, make_source, make_user
from verifier.models import ClaimRelation
from verifier.services.relation_verify import (
    relation_review_decide,
    relation_review_undo,
    relations_verify,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def waiting(workspace):
    src = make_source(workspace)
    rows = []
    for i in range(2):
        r = ClaimRelation.objects.create(
            workspace=workspace,
            from_claim=make_claim(src, text=f"Sediment settles in basin {i}."),
            to_claim=make_claim(src, text=f"Silt collects in basin {i}."),
            kind="supports",
            confidence=0.6,
        )
        rows.append(r)
    relations_verify(workspace=workspace, relations=rows, judge=None)  # isolated → reject
    for r in rows:
        r.refresh_from_db()
    return rows


def _name(r):
    return f"relation {r.pk}: {r.from_claim.public_id} supports {r.to_claim.public_id}"


def _decided_row(html, relation):
    return html.split('id="decided-h"')[1].split(f'id="decided-{relation.pk}"')[1].split("</tr>")[0]


def test_undo_button_only_on_my_own_decisions(reviewer_client, reviewer, workspace, waiting):
    omar = make_user("omar", workspace=workspace, role="reviewer")
    mine, theirs = waiting
    relation_review_decide(relation=mine, reviewer=reviewer, accept=True)
    relation_review_decide(relation=theirs, reviewer=omar, accept=False)
    decision = mine.decisions.order_by("-pk").first()
    html = reviewer_client.get("/review/relations/").content.decode()
    row = _decided_row(html, mine)
    assert f'action="/review/relations/{mine.pk}/undo/"' in row
    assert f'<input type="hidden" name="decision" value="{decision.pk}">' in row
    assert f'aria-label="Undo your decision on {_name(mine)}">Undo</button>' in row
    assert "csrfmiddlewaretoken" in row
    assert "/undo/" not in _decided_row(html, theirs)
    # an auditor reads the decided list without the column
    auditor = make_user("aldo2", workspace=workspace, role="auditor")
    client = Client()
    client.force_login(auditor)
    html = client.get("/review/relations/").content.decode()
    assert "/undo/" not in html and '<th scope="col">Undo</th>' not in html


def test_undo_puts_the_relation_back_in_the_waiting_list(reviewer_client, reviewer, waiting):
    r = waiting[0]
    assert reviewer_client.post(f"/review/relations/{r.pk}/decide/", {"decision": "accept"})
    decision = r.decisions.order_by("-pk").first()
    listed = "/review/relations/?kind=supports"
    response = reviewer_client.post(
        f"/review/relations/{r.pk}/undo/", {"decision": decision.pk, "next": listed}
    )
    assert response.status_code == 302 and response["Location"] == listed
    html = reviewer_client.get(listed).content.decode()
    assert (
        f"Undone: your decision on relation {r.pk} is withdrawn; it waits for review again "
        "(Rejected by the graph check)." in html
    )
    assert f'id="relation-{r.pk}"' in html  # waiting again
    assert f'id="decided-{r.pk}"' not in html
    r.refresh_from_db()
    assert (r.verification, r.verification_level, r.needs_review, r.reviewed_by) == (
        "rejected",
        "srmkg_reject",
        True,
        None,
    )


def test_a_stale_undo_says_who_decided_and_undoes_nothing(
    reviewer_client, reviewer, workspace, waiting
):
    omar = make_user("omar", workspace=workspace, role="reviewer")
    r = waiting[0]
    relation_review_decide(relation=r, reviewer=reviewer, accept=True)
    shown = r.decisions.order_by("-pk").first().pk
    relation_review_undo(relation=r, reviewer=reviewer)  # from another tab
    relation_review_decide(relation=r, reviewer=omar, accept=False)
    response = reviewer_client.post(f"/review/relations/{r.pk}/undo/", {"decision": shown})
    assert response.status_code == 302 and response["Location"] == "/review/relations/"
    html = reviewer_client.get("/review/relations/").content.decode()
    assert re.search(
        rf"Relation {r.pk} was decided again meanwhile \(rejected by omar at \d\d:\d\d UTC\): "
        "nothing was undone.",
        html,
    )
    r.refresh_from_db()
    assert (r.verification, r.reviewed_by) == ("rejected", omar)
    assert r.decisions.filter(label="withdrawn").count() == 1


def test_an_auditor_gets_403_and_nothing_changes(auditor_client, reviewer, waiting):
    r = waiting[0]
    relation_review_decide(relation=r, reviewer=reviewer, accept=True)
    response = auditor_client.post(f"/review/relations/{r.pk}/undo/", {})
    assert response.status_code == 403
    r.refresh_from_db()
    assert (r.verification_level, r.needs_review) == ("reviewer", False)
    assert not r.decisions.filter(label="withdrawn").exists()


def test_an_undo_without_the_csrf_token_is_refused(reviewer, waiting):
    r = waiting[0]
    relation_review_decide(relation=r, reviewer=reviewer, accept=True)
    client = Client(enforce_csrf_checks=True)
    client.force_login(reviewer)
    assert client.post(f"/review/relations/{r.pk}/undo/", {}).status_code == 403
    r.refresh_from_db()
    assert r.verification_level == "reviewer" and not r.needs_review
    # the page's own form carries the token
    html = client.get("/review/relations/").content.decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', html).group(1)
    response = client.post(f"/review/relations/{r.pk}/undo/", {"csrfmiddlewaretoken": token})
    assert response.status_code == 302
    r.refresh_from_db()
    assert r.needs_review


def test_an_undo_of_another_workspaces_relation_is_404(reviewer_client, other_workspace):
    src = make_source(other_workspace)
    theirs = ClaimRelation.objects.create(
        workspace=other_workspace,
        from_claim=make_claim(src, text="Their first claim."),
        to_claim=make_claim(src, text="Their second claim."),
        kind="supports",
    )
    assert reviewer_client.post(f"/review/relations/{theirs.pk}/undo/", {}).status_code == 404


def test_the_decided_list_with_undo_buttons_costs_the_same_queries(
    reviewer_client, reviewer, workspace
):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    src = make_source(workspace)

    def decided(n):
        rows = [
            ClaimRelation.objects.create(
                workspace=workspace,
                from_claim=make_claim(src, text=f"From claim {n}-{i}."),
                to_claim=make_claim(src, text=f"To claim {n}-{i}."),
                kind="supports",
                confidence=0.6,
            )
            for i in range(n)
        ]
        relations_verify(workspace=workspace, relations=rows, judge=None)
        for r in rows:
            r.refresh_from_db()
            relation_review_decide(relation=r, reviewer=reviewer, accept=True)

    def queries() -> int:
        with CaptureQueriesContext(connection) as captured:
            assert reviewer_client.get("/review/relations/").status_code == 200
        return len(captured)

    decided(1)
    few = queries()
    decided(4)
    html = reviewer_client.get("/review/relations/").content.decode()
    assert html.count(">Undo</button>") == 5
    assert queries() == few


def test_undo_is_offered_and_works_with_decision_logging_off(
    reviewer_client, reviewer, workspace, settings
):
    """With ``srmkg_log_decisions`` off the page promises an undo: the button is there,
    and it puts the relation back in the waiting list."""
    settings.SPANPROOF_RELATION_VERIFICATION = {"srmkg_log_decisions": False}
    src = make_source(workspace)
    r = ClaimRelation.objects.create(
        workspace=workspace,
        from_claim=make_claim(src, text="Sediment settles in the unlogged basin."),
        to_claim=make_claim(src, text="Silt collects in the unlogged basin."),
        kind="supports",
        confidence=0.6,
    )
    relations_verify(workspace=workspace, relations=[r], judge=None)
    assert not r.decisions.exists()
    reviewer_client.post(f"/review/relations/{r.pk}/decide/", {"decision": "reject"})
    html = reviewer_client.get("/review/relations/").content.decode()
    assert "You can undo your own decision" in html
    assert f'action="/review/relations/{r.pk}/undo/"' in _decided_row(html, r)

    decision = r.decisions.get()
    response = reviewer_client.post(
        f"/review/relations/{r.pk}/undo/", {"decision": decision.pk}, follow=True
    )
    assert "Undone: your decision on relation" in response.content.decode()
    r.refresh_from_db()
    assert (r.verification, r.verification_level, r.needs_review) == (
        "rejected",
        "srmkg_reject",
        True,
    )
