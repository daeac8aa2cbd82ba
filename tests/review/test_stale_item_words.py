"""A refusal of a stale page says what changed, in words: "Already excluded by ada at
06:45 UTC.", "Already decided by omar at …, as Contradicts.", "Already re-judged at …",
not "Already changed by ada" (which did not say what). Blind review leaves out another
person's or the judge's answer."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest
from django.test import Client

from review.models import ReviewLease
from review.selectors.item import ItemChange
from tests.factories import make_user
from tests.review.conftest import seen
from verifier.models import Membership

pytestmark = pytest.mark.django_db

HX = {"HTTP_HX_REQUEST": "true", "HTTP_HX_TARGET": "review-item"}
WHEN = r"\d\d:\d\d UTC"


def _alert(response) -> str:
    assert response.status_code == 409
    found = re.search(
        r'<p role="alert" class="form-error review-error">(.*?)</p>',
        response.content.decode(),
        re.S,
    )
    assert found
    return re.sub(r"<[^>]+>", "", found.group(1)).removesuffix(" Open the current item")


def _other(workspace, name: str, role: str) -> Client:
    client = Client()
    client.force_login(make_user(name, workspace=workspace, role=role))
    return client


def _stale_decision(reviewer_client, claim, version):
    return reviewer_client.post(
        f"/review/item/{claim.public_id}/decide/",
        {"decision": "supported", "version": version},
        **HX,
    )


def test_an_exclusion_is_said_as_one(reviewer_client, workspace, make_queue_claim):
    claim = make_queue_claim("abstained")
    version = seen(claim)
    ada = _other(workspace, "ada", "admin")
    excluded = ada.post(
        f"/review/item/{claim.public_id}/exclude/", {"reason": "off topic", "version": version}
    )
    assert excluded.status_code in (200, 302)
    words = _alert(_stale_decision(reviewer_client, claim, version))
    assert re.fullmatch(rf"Already excluded by ada at {WHEN}\.", words), words


@pytest.mark.parametrize("blind", [False, True])
def test_a_decision_names_its_answer_unless_blind(
    reviewer_client, reviewer, workspace, make_queue_claim, blind
):
    Membership.objects.filter(user=reviewer).update(blind_review=blind)
    claim = make_queue_claim("abstained")
    version = seen(claim)
    omar = _other(workspace, "omar", "reviewer")
    decided = omar.post(
        f"/review/item/{claim.public_id}/decide/",
        {"decision": "not_stated", "version": version},
    )
    assert decided.status_code in (200, 302)
    ReviewLease.objects.filter(claim=claim).delete()
    words = _alert(_stale_decision(reviewer_client, claim, version))
    said = "" if blind else ", as Not stated"
    assert re.fullmatch(rf"Already decided by omar at {WHEN}{said}\.", words), words


def test_a_rejudge_is_said_as_one(reviewer_client, workspace, make_queue_claim):
    claim = make_queue_claim("abstained")
    version = seen(claim)
    ada = _other(workspace, "ada", "admin")
    sent = ada.post(f"/review/item/{claim.public_id}/rejudge/", {"version": version})
    assert sent.status_code in (200, 302)
    words = _alert(_stale_decision(reviewer_client, claim, version))
    # with the state changed, the event names who sent it back; else the judge's verdict
    # is the change, with its answer
    assert re.fullmatch(
        rf"Already re-judged at {WHEN}"
        r"(, sent back to the judge by ada|: the judge answered [A-Z][a-z ]+)\.",
        words,
    ), words


AT = datetime(2026, 6, 10, 6, 45, tzinfo=UTC)
OMAR = "by omar at 06:45 UTC"
REJUDGED = "Already re-judged at 06:45 UTC"
WITHDRAWN = f"Already changed {OMAR}: their decision was withdrawn."
CASES = [
    # (the change, blind review, the words)
    ({"human_verdict": True, "answer": "withdrawn"}, False, WITHDRAWN),
    ({"human_verdict": True, "cause": "review: undo by omar"}, False, WITHDRAWN),
    (
        {"human_verdict": True, "answer": "contradicted", "cause": "review: x by omar"},
        False,
        f"Already decided {OMAR}, as Contradicts.",
    ),
    ({"human_verdict": True, "answer": "contradicted"}, True, f"Already decided {OMAR}."),
    (
        {"actor_id": "me", "human_verdict": True, "answer": "contradicted"},
        True,
        "Already decided by you at 06:45 UTC, as Contradicts.",
    ),
    ({"cause": "restored"}, False, f"Already restored {OMAR}."),
    ({"cause": "excluded: off topic"}, False, f"Already excluded {OMAR}."),
    (
        {"actor_name": "the judge", "answer": "abstained"},
        False,
        f"{REJUDGED}: the judge answered No answer.",
    ),
    ({"actor_name": "the judge", "answer": "abstained"}, True, f"{REJUDGED}."),
    (
        {"actor_id": None, "cause": "re-judge requested by rita", "answer": "entailed"},
        False,
        f"{REJUDGED}, sent back to the judge by you: the judge answered Supports.",
    ),
    (
        {"actor_id": None, "cause": "new version v3 of the cited source"},
        False,
        "Already changed at 06:45 UTC: the cited source has a new version.",
    ),
    (
        {"actor_id": None, "actor_name": "the system", "cause": "test setup"},
        False,
        "Already changed by the system at 06:45 UTC.",
    ),
]


@pytest.mark.parametrize(("change", "hide", "said"), CASES)
def test_each_change_in_words(reviewer, change, hide, said):
    base = {"version": "v1.e1", "at": AT, "actor_id": 0, "actor_name": "omar"}
    if change.get("actor_id") == "me":
        change = {**change, "actor_id": reviewer.pk}
    item = ItemChange(**{"human_verdict": False, **base, **change})
    assert item.in_words(viewer=reviewer, hide_answer=hide) == said
