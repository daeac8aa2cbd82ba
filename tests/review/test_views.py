from __future__ import annotations

import re

import pytest

from review.models import ReviewLease, ReviewNote
from tests.factories import make_claim, make_source, make_user
from tests.review.conftest import QUOTE, bulk_seen, queue_claim, seen
from verifier.models import Membership, Verdict

HX = {"HTTP_HX_REQUEST": "true", "HTTP_HX_TARGET": "review-item"}


def _url(claim, action=""):
    return f"/review/item/{claim.public_id}/" + (f"{action}/" if action else "")


def test_start_reviewing_serves_the_next_item(reviewer_client, make_queue_claim):
    make_queue_claim("abstained")
    gap = make_queue_claim("coverage_gap")
    response = reviewer_client.post("/review/start/?reason=coverage_gap")
    assert response.status_code == 302
    assert response["Location"] == f"/review/item/{gap.public_id}/?reason=coverage_gap"
    page = reviewer_client.get(response["Location"])
    assert page.status_code == 200
    body = page.content.decode()
    assert "Leased to you" in body and "next by risk: No answer from the judge" in body


def test_item_highlights_the_bound_span_escaped(reviewer_client, workspace):
    text = "Before <b>bold</b> & the span 😀 here. After."
    source = make_source(workspace, text=text)
    claim = make_claim(source, "A claim.")
    from tests.factories import make_binding

    make_binding(claim, "the span 😀 here")
    body = reviewer_client.get(_url(claim)).content.decode()
    assert (
        '<div id="source-text" class="source-text" tabindex="0" data-offset="0" '
        'data-sentences="0-37 38-44" role="region" '
        'aria-label="Source text: select a span with the mouse, or a sentence at a time with '
        'the arrow keys" aria-describedby="source-keys">Before &lt;b&gt;bold&lt;/b&gt; &amp; '
        '<mark class="span focus" id="bound-span">the span 😀 here</mark>. After.</div>'
    ) in body


def test_decide_supported_in_place_loads_the_next_item(reviewer_client, make_queue_claim):
    first = make_queue_claim("contradicted")
    second = make_queue_claim("abstained")
    reviewer_client.get(_url(first))
    response = reviewer_client.post(
        _url(first, "decide"), {"decision": "supported", "version": seen(first)}, **HX
    )
    assert response.status_code == 200
    assert response["HX-Push-Url"] == _url(second)
    body = response.content.decode()
    assert f'data-claim="{second.public_id}"' in body
    assert "marked supported" in body
    assert "<html" not in body
    first.refresh_from_db()
    assert first.state == "supported"
    assert not ReviewLease.objects.filter(claim=first).exists()
    assert ReviewLease.objects.get(claim=second).reviewer.username == "rita"


def test_decide_supported_without_span_is_a_form_error(reviewer_client, make_queue_claim):
    claim = make_queue_claim("no_evidence")
    response = reviewer_client.post(
        _url(claim, "decide"), {"decision": "supported", "version": seen(claim)}, **HX
    )
    assert response.status_code == 422
    assert "Supported needs a bound span" in response.content.decode()
    assert not Verdict.objects.filter(claim=claim, reviewer__isnull=False).exists()


def test_decide_with_a_selected_span_binds_it(reviewer_client, make_queue_claim):
    claim = make_queue_claim("no_evidence")
    text = claim.source.versions.get().text
    start = text.index(QUOTE)
    response = reviewer_client.post(
        _url(claim, "decide"),
        {
            "decision": "supported",
            "span_start": start,
            "span_end": start + len(QUOTE),
            "span_text": QUOTE,
            "version": seen(claim),
        },
    )
    assert response.status_code == 302
    claim.refresh_from_db()
    assert claim.state == "supported"
    binding = claim.bindings.get(is_active=True)
    assert (binding.start, binding.end, binding.bound_by) == (start, start + len(QUOTE), "reviewer")


def test_exclude_restore_note_via_views(reviewer_client, make_queue_claim):
    claim = make_queue_claim("abstained")
    assert reviewer_client.post(_url(claim, "exclude"), {"reason": ""}, **HX).status_code == 422
    response = reviewer_client.post(
        _url(claim, "exclude"), {"reason": "off topic", "version": seen(claim)}, **HX
    )
    assert response.status_code == 200
    claim.refresh_from_db()
    assert claim.state == "excluded"
    response = reviewer_client.post(_url(claim, "restore"), {"version": seen(claim)}, **HX)
    assert response.status_code == 200 and "Restored" in response.content.decode()
    claim.refresh_from_db()
    assert claim.state == "unverified"
    response = reviewer_client.post(_url(claim, "note"), {"text": "needs a map"}, **HX)
    assert response.status_code == 200
    assert "needs a map" in response.content.decode()
    assert ReviewNote.objects.get(claim=claim).author.username == "rita"


def test_rejudge_appends_a_model_verdict(reviewer_client, make_queue_claim):
    claim = make_queue_claim("abstained")
    before = claim.verdicts.count()
    response = reviewer_client.post(_url(claim, "rejudge"), {"version": seen(claim)})
    assert response.status_code == 302
    assert claim.verdicts.count() == before + 1
    assert claim.verdicts.first().reviewer is None


def test_skip_releases_and_previous_link(reviewer_client, make_queue_claim):
    first = make_queue_claim("contradicted")
    second = make_queue_claim("abstained")
    reviewer_client.post("/review/start/")
    response = reviewer_client.post(_url(first, "skip"), **HX)
    assert response["HX-Push-Url"] == _url(second)
    assert not ReviewLease.objects.filter(claim=first).exists()
    assert f'id="link-previous" href="{_url(first)}"' in response.content.decode()


def test_the_end_of_a_filter_says_what_it_still_holds(reviewer_client, workspace, make_queue_claim):
    """The queue counts every claim in the filter; "next" serves none held by another
    reviewer or skipped: the end says so instead of "nothing left"."""
    from review.services import review_lease_claim

    held = make_queue_claim("contradicted")
    skipped = make_queue_claim("contradicted")
    otto = make_user("otto", workspace=workspace, role="reviewer")
    review_lease_claim(claim=held, reviewer=otto, served_reason="t")
    start = reviewer_client.post("/review/start/?reason=contradicted", **HX)
    assert start["HX-Push-Url"] == _url(skipped) + "?reason=contradicted"
    end = reviewer_client.post(_url(skipped, "skip") + "?reason=contradicted", **HX)
    assert (
        "Nothing left for you in this filter; it still holds 1 being reviewed by someone "
        "else (back when they finish or their hold expires) and 1 you skipped (Start "
        "reviewing again to see them)."
    ) in end.content.decode()


def test_claim_held_by_another_reviewer_is_read_only(reviewer_client, workspace, make_queue_claim):
    claim = make_queue_claim("abstained")
    otto = make_user("otto", workspace=workspace, role="reviewer")
    from review.services import review_lease_claim

    review_lease_claim(claim=claim, reviewer=otto, served_reason="t")
    body = reviewer_client.get(_url(claim)).content.decode()
    assert "otto</strong> is reviewing" in body
    assert 'id="btn-supported"' not in body
    response = reviewer_client.post(_url(claim, "decide"), {"decision": "contradicted"})
    assert response.status_code == 409
    assert not Verdict.objects.filter(claim=claim, reviewer__isnull=False).exists()


def test_auditor_is_read_only(auditor_client, make_queue_claim):
    claim = make_queue_claim("abstained")
    body = auditor_client.get(_url(claim)).content.decode()
    assert "Verdict history" in body
    assert 'id="btn-supported"' not in body and 'id="decide-form"' not in body
    assert not ReviewLease.objects.exists()
    for action in ("decide", "exclude", "restore", "rejudge", "note", "skip", "release"):
        assert (
            auditor_client.post(_url(claim, action), {"decision": "supported"}).status_code == 403
        )
    claim.refresh_from_db()
    assert claim.state == "unverified"


def test_other_workspace_claim_is_404(reviewer_client, other_workspace):
    foreign = queue_claim(make_source(other_workspace), "abstained")
    assert reviewer_client.get(_url(foreign)).status_code == 404
    assert (
        reviewer_client.post(_url(foreign, "decide"), {"decision": "supported"}).status_code == 404
    )
    assert reviewer_client.get("/review/item/claim:doesnotexist/").status_code == 404


def test_blind_mode_hides_verdicts_until_i_decide(reviewer_client, reviewer, make_queue_claim):
    claim = make_queue_claim("contradicted", judge_model="secret-judge")
    assert "secret-judge" in reviewer_client.get(_url(claim)).content.decode()
    reviewer_client.post("/review/blind/", {"next": _url(claim)})
    assert Membership.objects.get(user=reviewer).blind_review
    body = reviewer_client.get(_url(claim)).content.decode()
    assert "secret-judge" not in body and "Hidden in blind review" in body
    reviewer_client.post(
        _url(claim, "decide"), {"decision": "contradicted", "version": seen(claim)}
    )
    assert "secret-judge" in reviewer_client.get(_url(claim)).content.decode()


def test_a_decision_by_someone_else_is_shown_by_who_and_when_even_in_blind_review(
    reviewer_client, admin_client_ws, reviewer, make_queue_claim
):
    claim = make_queue_claim("contradicted")
    admin_client_ws.post(_url(claim, "decide"), {"decision": "supported", "version": seen(claim)})
    reviewer_client.post("/review/blind/", {"next": _url(claim)})
    body = reviewer_client.get(_url(claim)).content.decode()
    notice = re.search(r'<p class="notice" id="decided-by-other"[^>]*>(.*?)</p>', body, re.S)
    assert notice, "the reviewer is not told that a decision stands"
    assert "Already decided by <strong>ada</strong>" in notice.group(1)
    assert "stays hidden until you decide" in notice.group(1)
    assert "Confirmed" not in notice.group(1) and "supported" not in notice.group(1)
    # the one who decided is not told about their own decision
    assert 'id="decided-by-other"' not in admin_client_ws.get(_url(claim)).content.decode()


def test_bulk_actions_need_confirmation(reviewer_client, make_queue_claim):
    a, b = make_queue_claim("abstained"), make_queue_claim("no_evidence")
    data = {
        "action": "exclude",
        "reason": "batch import noise",
        "claims": [a.public_id, b.public_id],
    }
    response = reviewer_client.post("/review/bulk/", data)
    assert response.status_code == 200
    assert "Confirm: Exclude 2 claims" in response.content.decode()
    a.refresh_from_db()
    assert a.state == "unverified"
    response = reviewer_client.post("/review/bulk/", {**data, **bulk_seen(a, b), "confirm": "on"})
    assert response.status_code == 302
    a.refresh_from_db(), b.refresh_from_db()
    assert (a.state, b.state) == ("excluded", "excluded")
    assert a.exclusion_reason == "batch import noise"


def test_bulk_rejudge(reviewer_client, make_queue_claim, django_capture_on_commit_callbacks):
    a = make_queue_claim("abstained")
    before = a.verdicts.count()
    data = {"action": "rejudge", "claims": [a.public_id], "confirm": "on", **bulk_seen(a)}
    with django_capture_on_commit_callbacks(execute=True):  # the job's task, run eagerly
        assert reviewer_client.post("/review/bulk/", data).status_code == 302
    assert a.verdicts.count() == before + 1


@pytest.mark.parametrize("action", ["exclude", "rejudge"])
def test_a_bulk_action_leaves_a_claim_decided_after_its_confirmation_alone(
    reviewer_client, client, workspace, make_queue_claim, action, django_capture_on_commit_callbacks
):
    """The confirmation page showed both unverified; otto then decided one. Confirming
    excludes (or re-judges) the other only, and says which one it left and why."""
    from tests.factories import make_user

    a, b = make_queue_claim("abstained"), make_queue_claim("abstained")
    data = {"action": action, "reason": "noise", "claims": [a.public_id, b.public_id]}
    page = reviewer_client.post("/review/bulk/", data).content.decode()
    shown = dict(re.findall(r'name="(seen:claim:[0-9a-z]+)" value="([^"]+)"', page))
    assert set(shown) == {f"seen:{a.public_id}", f"seen:{b.public_id}"}
    otto = make_user("otto", workspace=workspace, role="reviewer")
    client.force_login(otto)
    decided = client.post(
        f"/review/item/{a.public_id}/decide/", {"decision": "contradicted", "version": seen(a)}
    )
    assert decided.status_code == 302
    ReviewLease.objects.filter(reviewer=otto).delete()  # the next item it served him
    a.refresh_from_db()
    verdicts = a.verdicts.count()

    with django_capture_on_commit_callbacks(execute=True):  # a send-back's job runs eagerly
        body = reviewer_client.post(
            "/review/bulk/", {**data, **shown, "confirm": "on"}, follow=True
        ).content.decode()

    a.refresh_from_db(), b.refresh_from_db()
    assert (a.state, a.state_reason) == ("contradicted", "human_contradicted")
    assert a.verdicts.count() == verdicts and not a.exclusion_reason
    assert "Skipped 1 claim that changed after you confirmed the selection" in body
    assert a.public_id in body
    if action == "exclude":
        assert b.state == "excluded"


def test_bulk_exclude_needs_a_reason_and_rows(reviewer_client, make_queue_claim):
    a = make_queue_claim("abstained")
    reviewer_client.post(
        "/review/bulk/", {"action": "exclude", "claims": [a.public_id], "confirm": "on"}
    )
    a.refresh_from_db()
    assert a.state == "unverified"
    response = reviewer_client.post(
        "/review/bulk/", {"action": "exclude", "reason": "x"}, follow=True
    )
    assert re.search("Select at least one claim", response.content.decode())


def test_stop_reviewing_confirms_the_release(reviewer_client, make_queue_claim):
    claim = make_queue_claim("abstained")
    reviewer_client.get(_url(claim))
    response = reviewer_client.post(_url(claim, "release"), follow=True)
    assert "is back in the queue" in response.content.decode()
    assert not ReviewLease.objects.filter(claim=claim).exists()


def test_an_item_leased_to_someone_else_still_offers_next(
    client, reviewer_client, workspace, make_queue_claim
):
    held = make_queue_claim("contradicted")
    other = make_queue_claim("abstained")
    omar = make_user("omar", workspace=workspace, role="reviewer")
    client.force_login(omar)
    client.post("/review/start/")  # served (and leased) the riskiest item: held
    body = reviewer_client.get(_url(held)).content.decode()
    assert "is reviewing this claim" in body
    assert 'id="btn-skip"' in body and 'id="btn-supported"' not in body
    response = reviewer_client.post(_url(held, "skip"), **HX)
    assert f'data-claim="{other.public_id}"' in response.content.decode()
    assert ReviewLease.objects.get(claim=held).reviewer == omar


def test_lease_expiry_is_a_countdown(reviewer_client, make_queue_claim):
    claim = make_queue_claim("abstained")
    reviewer_client.post("/review/start/")  # served by "next": leased
    body = reviewer_client.get(_url(claim)).content.decode()
    match = re.search(
        r'<time class="countdown" datetime="[^"]+" data-countdown>(\d+):(\d\d)</time>', body
    )
    assert match and 14 <= int(match.group(1)) <= 15
