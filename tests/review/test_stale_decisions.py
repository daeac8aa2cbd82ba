"""A decision made on a stale page is refused with a 409 and the current item."""

from __future__ import annotations

from review.models import ReviewLease
from tests.factories import make_user
from tests.review.conftest import seen
from verifier.models import Verdict

HX = {"HTTP_HX_REQUEST": "true", "HTTP_HX_TARGET": "review-item"}


def _url(claim, action=""):
    return f"/review/item/{claim.public_id}/" + (f"{action}/" if action else "")


def _version(body: str) -> str:
    marker = 'data-version="'
    at = body.index(marker) + len(marker)
    return body[at : body.index('"', at)]


def test_second_decision_from_the_same_stale_page_is_refused(reviewer_client, make_queue_claim):
    claim = make_queue_claim("contradicted")
    page = reviewer_client.get(_url(claim))
    assert page["Cache-Control"].count("no-store") == 1
    version = _version(page.content.decode())
    form = {"decision": "supported", "version": version}
    first = reviewer_client.post(_url(claim, "decide"), form, **HX)
    assert first.status_code == 200
    again = reviewer_client.post(_url(claim, "decide"), form, **HX)
    assert again.status_code == 409
    body = again.content.decode()
    assert "Already decided by you at" in body and "Open the current item</a>" in body
    assert f'data-claim="{claim.public_id}"' in body
    assert "no-store" in again["Cache-Control"]
    assert Verdict.objects.filter(claim=claim, reviewer__isnull=False).count() == 1


def test_a_decision_without_a_version_is_refused_with_the_current_item(
    client, reviewer_client, workspace, make_queue_claim
):
    """Omar's page was read-only while Rita held the lease, so it carried no decision
    form; once Rita decides and her lease is gone, a decision Omar sends without the
    version it was made on must not flip what Rita decided."""
    claim = make_queue_claim("contradicted")
    served = reviewer_client.post("/review/start/")  # Rita is served it: her lease
    assert claim.public_id in served["Location"]
    version = _version(reviewer_client.get(_url(claim)).content.decode())
    omar = make_user("omar", workspace=workspace, role="reviewer")
    client.force_login(omar)
    assert 'id="decide-form"' not in client.get(_url(claim)).content.decode()
    decided = reviewer_client.post(
        _url(claim, "decide"), {"decision": "supported", "version": version}, **HX
    )
    assert decided.status_code == 200
    for action, form in [
        ("decide", {"decision": "contradicted"}),
        ("decide", {"decision": "contradicted", "version": ""}),
        ("exclude", {"reason": "off topic"}),
        ("rejudge", {}),
    ]:
        refused = client.post(_url(claim, action), form, **HX)
        assert refused.status_code == 409, (action, form)
        body = refused.content.decode()
        assert "did not say which version" in body
        assert f'data-claim="{claim.public_id}"' in body and "supported" in body
    claim.refresh_from_db()
    assert (claim.state, claim.exclusion_reason) == ("supported", "")
    assert list(
        Verdict.objects.filter(claim=claim, reviewer__isnull=False).values_list(
            "reviewer__username", flat=True
        )
    ) == ["rita"]


def test_a_decision_on_an_item_another_reviewer_changed_is_refused(
    client, reviewer_client, workspace, make_queue_claim
):
    claim = make_queue_claim("contradicted")
    version = _version(reviewer_client.get(_url(claim)).content.decode())
    ReviewLease.objects.filter(claim=claim).delete()  # rita's lease ran out
    other = make_user("omar", workspace=workspace, role="reviewer")
    client.force_login(other)
    client.get(_url(claim))
    client.post(_url(claim, "decide"), {"decision": "supported", "version": seen(claim)})
    ReviewLease.objects.filter(claim=claim).delete()
    stale = reviewer_client.post(
        _url(claim, "decide"), {"decision": "contradicted", "version": version}, **HX
    )
    assert stale.status_code == 409
    assert "Already decided by omar at" in stale.content.decode()
    assert Verdict.objects.filter(claim=claim, reviewer__isnull=False).count() == 1


def test_exclude_restore_and_rejudge_check_the_version(reviewer_client, make_queue_claim):
    claim = make_queue_claim("contradicted")
    version = _version(reviewer_client.get(_url(claim)).content.decode())
    excluded = reviewer_client.post(
        _url(claim, "exclude"), {"reason": "off topic", "version": version}, **HX
    )
    assert excluded.status_code == 200
    claim.refresh_from_db()
    assert claim.exclusion_reason == "off topic"
    again = reviewer_client.post(
        _url(claim, "exclude"), {"reason": "dup", "version": version}, **HX
    )
    assert again.status_code == 409
    assert "Already excluded by you at" in again.content.decode()
    restored = reviewer_client.post(_url(claim, "restore"), {"version": version}, **HX)
    assert restored.status_code == 409
    claim.refresh_from_db()
    assert claim.exclusion_reason == "off topic"
    current = _version(reviewer_client.get(_url(claim)).content.decode())
    assert (
        reviewer_client.post(_url(claim, "restore"), {"version": current}, **HX).status_code == 200
    )
    events = claim.state_events.count()
    rejudged = reviewer_client.post(_url(claim, "rejudge"), {"version": current}, **HX)
    assert rejudged.status_code == 409
    assert claim.state_events.count() == events
