"""Blind review after an undo: a withdrawn decision is no decision, so the item is blind
again (its state, why and verdicts hidden) until the reviewer decides it again, and the
undo's flash names neither the state nor the judge's answer. Outside blind review the
undo is as before."""

from __future__ import annotations

import html
import re

import pytest
from django.test import Client

from review.services import review_exclude
from tests.factories import make_user
from tests.review.conftest import queue_claim, seen
from verifier import vocabulary

pytestmark = pytest.mark.django_db

HX = {"HTTP_HX_REQUEST": "true", "HTTP_HX_TARGET": "review-item"}
JUDGE = "secret-judge"
HIDDEN_AGAIN = "its state and verdicts are hidden again until you decide."


def _url(claim, action: str = "") -> str:
    return f"/review/item/{claim.public_id}/" + (f"{action}/" if action else "")


def _blind(client) -> None:
    assert client.post("/review/blind/", {"next": "/review/"}).status_code == 302


def _decide(client, claim, decision: str = "supported") -> None:
    response = client.post(_url(claim, "decide"), {"decision": decision, "version": seen(claim)})
    assert response.status_code == 302


def _flash(body: str) -> str:
    found = re.search(r'<div id="review-flash" class="flash"><span>(.*?)</span>', body, re.S)
    assert found, "no flash"
    return html.unescape(found.group(1))


def _undo(client, claim, htmx: bool) -> str:
    """The item page an undo shows (in place with htmx, else after its redirect)."""
    if htmx:
        response = client.post(_url(claim, "undo"), **HX)
    else:
        response = client.post(_url(claim, "undo"), follow=True)
        assert response.redirect_chain == [(_url(claim), 302)]
    assert response.status_code == 200
    return response.content.decode()


def _assert_blind(body: str) -> None:
    assert "State and verdicts hidden (blind review) until you decide." in body
    assert "Hidden in blind review until you decide." in body
    assert JUDGE not in body
    assert '<table class="verdicts">' not in body and 'id="why-queued"' not in body
    assert "State history" not in body


def _assert_seeing(body: str) -> None:
    assert "State and verdicts hidden" not in body and "Hidden in blind review" not in body
    assert JUDGE in body and '<table class="verdicts">' in body


@pytest.mark.parametrize("htmx", [True, False], ids=["htmx", "redirect"])
def test_an_undo_in_blind_review_makes_the_item_blind_again(reviewer_client, source, htmx):
    claim = queue_claim(source, "contradicted", judge_model=JUDGE)
    _blind(reviewer_client)
    _assert_blind(reviewer_client.get(_url(claim)).content.decode())

    _decide(reviewer_client, claim)
    _assert_seeing(reviewer_client.get(_url(claim)).content.decode())

    body = _undo(reviewer_client, claim, htmx)
    _assert_blind(body)
    flash = _flash(body)
    assert flash == f"Undone: your decision on {claim.public_id} is withdrawn; {HIDDEN_AGAIN}"
    claim.refresh_from_db()
    assert claim.state == "contradicted"  # the judge's answer decides again, unseen
    for told in ("now ", vocabulary.label("state", "contradicted"), "contradict"):
        assert told not in flash
    # Opened again later: still blind.
    _assert_blind(reviewer_client.get(_url(claim)).content.decode())

    _decide(reviewer_client, claim, "contradicted")
    _assert_seeing(reviewer_client.get(_url(claim)).content.decode())


def test_a_blind_undo_keeps_the_note_offer_and_names_no_state(reviewer_client, source):
    claim = queue_claim(source, "contradicted", judge_model=JUDGE)
    _blind(reviewer_client)
    reviewer_client.post(
        _url(claim, "decide"),
        {"decision": "supported", "note": "checked the log", "version": seen(claim)},
    )
    flash = _flash(_undo(reviewer_client, claim, htmx=True))
    assert flash == (
        f"Undone: your decision on {claim.public_id} is withdrawn; {HIDDEN_AGAIN} "
        "Its note is back in the note field."
    )


def test_an_undo_outside_blind_review_names_the_state_as_before(reviewer_client, source):
    claim = queue_claim(source, "contradicted", judge_model=JUDGE)
    _decide(reviewer_client, claim)
    body = _undo(reviewer_client, claim, htmx=True)
    _assert_seeing(body)
    state = vocabulary.label("state", "contradicted")
    reason = vocabulary.label("reason", "contradicted")
    assert _flash(body) == (
        f"Undone: your decision on {claim.public_id} is withdrawn; now {state} ({reason})."
    )


def test_a_blind_undo_that_restores_my_earlier_decision_leaves_the_item_seen(
    reviewer_client, source
):
    """Undo takes back the latest decision only: an earlier decision of mine that stands
    again is a decision, so the item and the flash stay as after deciding."""
    claim = queue_claim(source, "contradicted", judge_model=JUDGE)
    _blind(reviewer_client)
    _decide(reviewer_client, claim, "supported")
    _decide(reviewer_client, claim, "contradicted")
    body = _undo(reviewer_client, claim, htmx=True)
    _assert_seeing(body)
    state = vocabulary.label("state", "supported")
    assert _flash(body).startswith(
        f"Undone: your decision on {claim.public_id} is withdrawn; now {state} ("
    )


def test_a_blind_undo_over_anothers_decision_hides_what_they_decided(
    reviewer_client, workspace, source
):
    olga = Client()
    olga.force_login(make_user("olga", workspace=workspace, role="reviewer"))
    claim = queue_claim(source, "contradicted", judge_model=JUDGE)
    _decide(olga, claim, "supported")
    _blind(reviewer_client)
    _decide(reviewer_client, claim, "contradicted")
    body = _undo(reviewer_client, claim, htmx=True)
    _assert_blind(body)
    notice = re.search(r'id="decided-by-other"[^>]*>(.*?)</p>', body, re.S)
    assert notice and "Already decided by <strong>olga</strong>" in notice.group(1)
    assert "stays hidden until you decide" in notice.group(1)
    assert (
        _flash(body) == f"Undone: your decision on {claim.public_id} is withdrawn; {HIDDEN_AGAIN}"
    )


def test_the_restore_flash_after_an_undo_in_blind_review_names_no_state(
    reviewer_client, reviewer, source
):
    claim = queue_claim(source, "contradicted", judge_model=JUDGE)
    _blind(reviewer_client)
    _decide(reviewer_client, claim)
    _undo(reviewer_client, claim, htmx=True)
    review_exclude(claim=claim, reviewer=reviewer, reason="noise", expected_version=seen(claim))
    restored = reviewer_client.post(_url(claim, "restore"), {"version": seen(claim)}, **HX)
    body = restored.content.decode()
    assert _flash(body) == f"Restored {claim.public_id}."
    _assert_blind(body)


@pytest.mark.parametrize(
    ("history", "decided"),
    [
        ([], {"rita": False}),
        ([("rita", "entailed")], {"rita": True, "olga": False}),
        ([("rita", "entailed"), ("rita", "withdrawn")], {"rita": False}),
        # an undo takes back the latest decision only: the earlier one stands again
        ([("rita", "entailed"), ("rita", "contradicted"), ("rita", "withdrawn")], {"rita": True}),
        ([("rita", "entailed"), ("rita", "withdrawn"), ("rita", "contradicted")], {"rita": True}),
        # olga's decision, replaced by rita's, is not withdrawn by rita's undo
        (
            [("olga", "entailed"), ("rita", "contradicted"), ("rita", "withdrawn")],
            {"rita": False, "olga": True},
        ),
        ([("judge", "contradicted"), ("rita", "entailed"), ("rita", "withdrawn")], {"rita": False}),
    ],
)
def test_decided_by_counts_no_withdrawn_decision(history, decided):
    from django.contrib.auth.models import User

    from review.selectors.item import decided_by
    from verifier.models import Verdict

    people = {"rita": User(pk=1, username="rita"), "olga": User(pk=2, username="olga")}
    verdicts = [
        Verdict(
            pk=pk,
            label=label,
            reviewer_id=people[who].pk if who in people else None,
        )
        for pk, (who, label) in enumerate(history, start=1)
    ][::-1]  # newest first, as the claim's verdicts are read
    for who, expected in decided.items():
        assert decided_by(verdicts, people[who]) is expected
