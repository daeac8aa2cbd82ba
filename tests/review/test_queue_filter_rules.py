"""The queue's filters say what they match: the judge's confidence in percent and only
for answers, "left" and the reason chips counted as the rows are, an invalid filter
that lists nothing (and Start reviewing that refuses it), blind review without the
judge-derived filters, and the verdict history's notes in words."""

from __future__ import annotations

import html
import re

import pytest

from review.models import ReviewLease
from tests.factories import make_claim, make_source
from tests.review.conftest import queue_claim, seen
from verifier.services.claim_state import claim_state_refresh

pytestmark = pytest.mark.django_db

HX = {"HTTP_HX_REQUEST": "true", "HTTP_HX_TARGET": "review-item"}


def _text(page: str) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page)).split())


def _rows(body: str) -> list[str]:
    return re.findall(r'<tr data-claim="(claim:[a-z0-9]+)"', body)


def _get(client, query: str) -> str:
    response = client.get(f"/review/?{query}")
    assert response.status_code == 200
    return response.content.decode()


def _decide(client, claim, decision: str = "contradicted", note: str = ""):
    response = client.post(
        f"/review/item/{claim.public_id}/decide/",
        {"decision": decision, "version": seen(claim), "note": note},
    )
    assert response.status_code == 302, response.content.decode()[:500]
    claim.refresh_from_db()
    return claim


def _progress(body: str) -> str:
    return _text(re.search(r'id="my-progress"[^>]*>(.*?)</p>', body, re.S).group(1))


def _chips(body: str) -> dict[str, int]:
    return {
        reason: int(n)
        for reason, n in re.findall(
            r'data-reason="([a-z_]+)"[^>]*>[^<]*<span class="n">(\d+)</span>', body
        )
    }


def _in_all(body: str) -> int:
    return int(re.search(r"(\d+) in all", body).group(1))


# --- 1. the judge's confidence ------------------------------------------------------


def test_confidence_bounds_are_percent_and_match_only_answers(reviewer_client, source):
    abstained = queue_claim(source, "abstained", confidence=0.95)  # sure it cannot decide
    not_asked = queue_claim(source, "not_asked")
    never = queue_claim(source, "not_judged")  # bound, the judge not asked yet
    sure = queue_claim(source, "contradicted", text="Contradicted, sure.")
    borderline = queue_claim(  # shown as "80 %"
        source, "contradicted", confidence=0.795, text="Contradicted, borderline."
    )
    low = queue_claim(source, "low_confidence")  # entailed 0.2
    decided = _decide(
        reviewer_client,
        queue_claim(source, "contradicted", confidence=0.92, text="Contradicted, decided."),
    )
    assert {c.state_reason for c in (abstained, not_asked, never)} == {
        "abstained",
        "no_evidence",
        "not_judged",
    }
    assert decided.state_reason == "human_contradicted"

    assert _rows(_get(reviewer_client, "reason=abstained&confidence_min=80")) == []
    assert set(_rows(_get(reviewer_client, "confidence_min=80"))) == {
        sure.public_id,
        borderline.public_id,
    }
    assert "80\u00a0% sure" in _get(reviewer_client, "confidence_min=80")
    assert _rows(_get(reviewer_client, "confidence_max=50")) == [low.public_id]
    assert _rows(_get(reviewer_client, "confidence_max=79")) == [low.public_id]
    # a reviewer's decision shows no confidence: no bound matches it
    assert set(_rows(_get(reviewer_client, "state=contradicted&confidence_min=0"))) == {
        sure.public_id,
        borderline.public_id,
    }
    assert decided.public_id in _rows(_get(reviewer_client, "state=contradicted"))


def test_after_an_undo_the_confidence_filter_reads_the_judges_answer_again(reviewer_client, source):
    """An undo appends a withdrawal, the latest verdict: the filter reads the verdict
    the claim stands on again (the judge's 90 %, as its row shows), not the withdrawal."""
    claim = queue_claim(source, "contradicted")  # the judge: contradicted, 90 %
    _decide(reviewer_client, claim, "supported")
    assert claim.state_reason == "human_supported"
    # a reviewer's decision in force: no confidence, no bound matches it
    assert claim.public_id not in _rows(_get(reviewer_client, "state=queue&confidence_min=80"))

    undone = reviewer_client.post(f"/review/item/{claim.public_id}/undo/", {"version": seen(claim)})
    assert undone.status_code == 302
    claim.refresh_from_db()
    assert claim.state_reason == "contradicted"
    assert claim.verdicts.latest_first().first().label == "withdrawn"
    body = _get(reviewer_client, "confidence_min=80")
    assert _rows(body) == [claim.public_id]
    assert "90\u00a0% sure" in body  # the row shows the confidence the filter read
    # and names the judge as the one it stands on, not the reviewer who took theirs back
    judge = re.search(r'data-label="Judge">([^<]*)</td>', body).group(1)
    assert judge == "heuristic-nli"
    assert _rows(_get(reviewer_client, "confidence_max=50")) == []

    # decided again after the undo: the new decision is in force, no bound matches
    _decide(reviewer_client, claim, "contradicted")
    assert _rows(_get(reviewer_client, "state=contradicted&confidence_min=0")) == []
    body = _get(reviewer_client, "state=contradicted")
    assert re.search(r'data-label="Judge">([^<]*)</td>', body).group(1) == "reviewer rita"


def test_a_confidence_out_of_range_is_an_error_beside_its_field(reviewer_client, source):
    queue_claim(source, "contradicted")
    body = _get(reviewer_client, "confidence_min=150")
    assert _rows(body) == []
    field = re.search(r'<input[^>]*name="confidence_min"[^>]*>', body).group(0)
    assert 'min="0"' in field and 'max="100"' in field
    assert 'aria-invalid="true"' in field
    assert 'aria-describedby="id_confidence_min_error"' in field
    error = re.search(r'id="id_confidence_min_error">(.*?)</span>', body).group(1)
    assert html.unescape(error).startswith("Judge's confidence ≥ (%): enter a percentage")
    assert "Judge&#x27;s confidence ≥ (%)</label>" in body
    assert _rows(_get(reviewer_client, "confidence_min=90")) != []


# --- 2. what is left, and the chips -------------------------------------------------


def test_left_counts_only_claims_no_reviewer_decided(reviewer_client, source):
    judged = [queue_claim(source, "contradicted", text=f"Contradicted {i}.") for i in range(3)]
    for claim in judged[:2]:
        _decide(reviewer_client, claim)
    body = _get(reviewer_client, "state=contradicted&judge_model=human:rita")
    assert len(_rows(body)) == 2
    assert _progress(body).endswith("· 0 left in this filter")
    body = _get(reviewer_client, "state=contradicted")
    assert _in_all(body) == 3
    assert _progress(body).endswith("· 1 left in this filter")
    # the default queue holds no decided claim
    assert _progress(_get(reviewer_client, "")).endswith("· 1 left in this filter")


def test_chips_count_each_reason_as_its_rows_and_add_up(reviewer_client, source):
    judged = [queue_claim(source, "contradicted", text=f"Contradicted {i}.") for i in range(3)]
    _decide(reviewer_client, judged[0])
    body = _get(reviewer_client, "state=contradicted")
    chips = _chips(body)
    assert chips["contradicted"] == 2  # "Contradicted by the span": the judge's only
    assert chips["human_contradicted"] == 1
    assert "Contradicted by a reviewer <span" in body
    assert sum(chips.values()) == _in_all(body) == 3
    assert set(_rows(_get(reviewer_client, "state=contradicted&reason=contradicted"))) == {
        judged[1].public_id,
        judged[2].public_id,
    }
    assert _rows(_get(reviewer_client, "state=contradicted&reason=human_contradicted")) == [
        judged[0].public_id
    ]
    # the default queue: no chip for a reason it cannot hold
    assert "human_contradicted" not in _chips(_get(reviewer_client, ""))

    for i in range(2):
        claim = make_claim(source, f"Affirmed before {i}.", legacy_affirmed=True)
        claim_state_refresh(claim=claim, cause="test")
    body = _get(reviewer_client, "state=inferred")
    chips = _chips(body)
    assert chips["legacy_affirmed"] == 2
    assert sum(chips.values()) == _in_all(body) == 2
    assert _progress(body).endswith("· 2 left in this filter")


# --- 3. an invalid filter -----------------------------------------------------------


def test_an_invalid_filter_lists_nothing_and_says_why(reviewer_client, workspace, source):
    for ref in ("source:x", "source:y"):
        queue_claim(make_source(workspace, ref=ref), "abstained")
    queue_claim(source, "abstained")
    body = _get(reviewer_client, "confidence_max=abc&source=source:x")
    assert _rows(body) == []
    alert = _text(re.search(r'id="queue-filter-error"[^>]*>(.*?)</p>', body, re.S).group(1))
    assert alert.startswith("This filter is invalid, so no claims are listed:")
    assert "Judge's confidence ≤ (%): enter a percentage" in alert
    assert "left in this filter" not in _progress(body)
    assert 'value="source:x"' in body  # the fields still show the filter
    assert 'data-reason="' not in body  # no chips counting another filter
    assert "No claims are listed until the filter is fixed." in _text(body)

    for query, field in (
        ("origin=bogus", "Origin"),
        ("domain_pack=a-pack-since-gone", "Domain pack"),
        ("reason=bogus", "Reason"),
    ):
        body = _get(reviewer_client, query)
        assert _rows(body) == [], query
        assert f"{field}: Select a valid choice" in _text(body), query

    # a reason given by its label, as the chip shows it, is that reason
    body = _get(reviewer_client, "reason=Judge+undecided")
    assert len(_rows(body)) == 3
    assert 'data-reason="abstained" aria-current="true"' in body


def test_start_reviewing_refuses_an_invalid_filter_with_the_same_message(
    reviewer_client, make_queue_claim
):
    claim = make_queue_claim("abstained")
    response = reviewer_client.post("/review/start/?origin=bogus&confidence_min=abc")
    assert response.status_code == 422
    body = response.content.decode()
    alert = _text(re.search(r'id="queue-filter-error"[^>]*>(.*?)</p>', body, re.S).group(1))
    assert alert == _text(
        re.search(
            r'id="queue-filter-error"[^>]*>(.*?)</p>',
            _get(reviewer_client, "origin=bogus&confidence_min=abc"),
            re.S,
        ).group(1)
    )
    assert "Origin: Select a valid choice" in alert
    assert not ReviewLease.objects.exists()
    # after an action on an item opened by that filter, the next step says the same
    skipped = reviewer_client.post(
        f"/review/item/{claim.public_id}/skip/?origin=bogus", **HX
    ).content.decode()
    assert "This filter is invalid, so no claims are listed" in _text(skipped)


# --- 4. blind review ----------------------------------------------------------------


def test_blind_review_leaves_out_the_judge_derived_filters_chips_and_link_params(
    reviewer_client, make_queue_claim
):
    contradicted = make_queue_claim("contradicted")
    abstained = make_queue_claim("abstained")
    query = "reason=abstained&confidence_min=80&state=queue&source=source:marrow_delta"
    seeing = _get(reviewer_client, query)  # the same filter seen, and its bar kept
    assert 'name="reason"' in seeing and 'data-reason="' in seeing
    assert reviewer_client.post("/review/blind/", {"next": "/review/"}).status_code == 302

    body = _get(reviewer_client, query)
    bar = re.search(r'<form id="queue-filter".*?</form>', body, re.S).group(0)
    for name in ("state", "reason", "judge_model", "confidence_min", "confidence_max"):
        assert f'name="{name}"' not in bar, name
    assert 'name="source"' in bar
    assert 'data-reason="' not in body and 'aria-label="Reasons"' not in body
    assert 'id="blind-ignored"' in body
    # the queue by the other filters (the source), not by the reason
    assert set(_rows(body)) == {contradicted.public_id, abstained.public_id}
    links = re.findall(r'href="(/review/item/claim:[^"]+)"', body)
    assert links and all("source=source" in link for link in links)
    assert not any(
        key in html.unescape(link)
        for link in links
        for key in ("reason=", "confidence_min=", "state=")
    )
    start = re.search(r'action="(/review/start/[^"]*)"', body).group(1)
    assert "reason=" not in start and "source=" in start

    # the item's own links drop them too; "next" serves by the queue's order
    item = reviewer_client.get(f"/review/item/{abstained.public_id}/?{query}").content.decode()
    actions = re.findall(r'(?:action|href)="(/review/item/[^"]+)"', item)
    assert actions and not any("reason=" in a or "confidence_min" in a for a in actions)
    served = reviewer_client.post(f"/review/start/?{query}", follow=True).content.decode()
    assert f'data-claim="{contradicted.public_id}"' in served


# --- 6. the verdict history's notes -------------------------------------------------


def test_the_verdict_history_words_the_judges_notes(reviewer_client, source):
    claim = queue_claim(
        source,
        "abstained",
        confidence=1.0,
        note="number_mismatch: 40 kilometres vs 14 kilometres (span 1)",
    )
    _decide(reviewer_client, claim, "supported", note="checked: the table says 14")
    page = reviewer_client.get(f"/review/item/{claim.public_id}/").content.decode()
    history = _text(re.search(r'<table class="verdicts">(.*?)</table>', page, re.S).group(1))
    assert "The numbers differ: 40 kilometres vs 14 kilometres." in history
    assert "number_mismatch" not in history
    assert "checked: the table says 14" in history  # a reviewer's note as written

    not_asked = queue_claim(source, "not_asked")
    page = reviewer_client.get(f"/review/item/{not_asked.public_id}/").content.decode()
    history = _text(re.search(r'<table class="verdicts">(.*?)</table>', page, re.S).group(1))
    assert "No span was bound, so the judge was not asked." in history
    assert "no_bound_evidence" not in history


@pytest.mark.parametrize("value", ["NaN", "nan", "Infinity", "-Infinity", "sNaN"])
def test_a_confidence_that_is_no_number_is_a_form_error_not_a_500(reviewer_client, source, value):
    """Django refuses a non-finite decimal with its message %-formatted: the label's
    "(%)" broke that into a 500 on the queue and on Start reviewing."""
    queue_claim(source, "contradicted")
    for key in ("confidence_min", "confidence_max"):
        response = reviewer_client.get(f"/review/?{key}={value}")
        assert response.status_code == 200, (key, value)
        body = response.content.decode()
        assert _rows(body) == []
        alert = _text(re.search(r'id="queue-filter-error"[^>]*>(.*?)</p>', body, re.S).group(1))
        assert "Judge's confidence" in alert and "enter a percentage from 0 to 100" in alert
        started = reviewer_client.post(f"/review/start/?{key}={value}")
        assert started.status_code == 422, (key, value)
    assert not ReviewLease.objects.exists()
