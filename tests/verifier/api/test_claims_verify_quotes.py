"""A claim's quote through POST /connect/v1/claims/verify: where it may bind (whole words,
no fuzzy change of a negation or a number), which quotes are refused, and what the span,
the claim's GET and its console page say about the match."""

from __future__ import annotations

import json

import pytest

from verifier.models import Claim, EvidenceBinding

pytestmark = pytest.mark.django_db

URL = "/connect/v1/claims/verify"
REF = "source:pier"
PIER = (
    "Antibiotics are ineffective against viruses. The pier was closed in 2019. "
    "The pier had 1,200 visitors in May. The harbour council reopened it in 2021. "
    "The pier was closed in 2019."
)


def verify(api, *claims: dict) -> list[dict]:
    payload = {
        "sources": [{"ref": REF, "title": "Pier notes", "text": PIER}],
        "claims": [{"source": REF, **c} for c in claims],
    }
    response = api.post(URL, data=json.dumps(payload), content_type="application/json")
    assert response.status_code == 200, response.content
    return response.json()["results"]


def test_a_quote_from_inside_a_word_does_not_bind_nor_support(api):
    (row,) = verify(
        api,
        {
            "text": "Antibiotics are effective against viruses.",
            "quote": "effective against viruses.",
        },
    )
    assert row["status"] == "verified"
    assert row["span"] is None
    assert row["state"] != "supported" and row["reason"] == "no_evidence"
    assert not EvidenceBinding.objects.filter(claim__public_id=row["claim_id"]).exists()


@pytest.mark.parametrize(
    ("text", "quote"),
    [
        ("The pier was never closed in 2019.", "The pier was never closed in 2019."),
        ("The pier had 1,900 visitors in May.", "The pier had 1,900 visitors in May."),
    ],
)
def test_a_fuzzy_match_changing_a_negation_or_a_number_does_not_bind(api, text, quote):
    (row,) = verify(api, {"text": text, "quote": quote})
    assert row["span"] is None and row["reason"] == "no_evidence"
    assert row["state"] != "supported"


def test_the_span_gives_a_fuzzy_score_and_how_often_the_quote_occurs(api):
    fuzzy, exact, once = verify(
        api,
        {
            "text": "The council reopened the pier in 2021.",
            "quote": "The harbour counsil reopened it in 2021.",
        },
        {"text": "The pier was closed in 2019.", "quote": "The pier was closed in 2019."},
        {"text": "The pier had visitors in May.", "quote": "The pier had 1,200 visitors in May."},
    )
    assert fuzzy["span"]["match"] == "fuzzy"
    assert 0.85 <= fuzzy["span"]["score"] < 1
    assert fuzzy["span"]["score"] == round(fuzzy["span"]["score"], 4)
    assert fuzzy["span"]["occurrences"] is None
    # a quote that occurs twice binds the first occurrence, and says it occurs twice
    assert exact["span"]["match"] == "exact" and exact["span"]["score"] is None
    assert exact["span"]["start"] == PIER.index("The pier was closed in 2019.")
    assert exact["span"]["occurrences"] == 2
    assert once["span"]["occurrences"] == 1 and once["span"]["score"] is None


@pytest.mark.parametrize("quote", ["", "   ", ".", "\u2014 \u2026"])
def test_a_quote_with_no_letter_or_digit_is_that_claims_invalid_quote(api, quote):
    bad, good = verify(
        api,
        {"text": "The pier was closed in 2019.", "quote": quote, "external_id": "q-1"},
        {"text": "The pier was closed in 2019.", "quote": None},
    )
    assert bad["status"] == "error" and bad["error"]["code"] == "invalid_quote"
    assert bad["external_id"] == "q-1"
    # a null quote is no quote: evidence search binds the claim
    assert good["status"] == "verified" and good["span"] is not None
    assert Claim.objects.count() == 1


def test_a_one_letter_quote_binds_only_a_whole_word(api):
    (row,) = verify(api, {"text": "The pier was closed.", "quote": "a"})
    # "a" occurs in "was", "had", "harbour"... but never as a word of this source
    assert row["status"] == "verified" and row["span"] is None
    assert row["reason"] == "no_evidence"


def span_match(page: str) -> str:
    """The console claim page's words on how the active span matched."""
    return page.split('id="span-match">')[1].split("</span>")[0]


def test_the_claim_shows_its_submitted_quote_when_the_span_is_not_it(api, auditor_client):
    normalized, exact, fuzzy = verify(
        api,
        {"text": "The pier was closed in 2019.", "quote": "the pier WAS closed in 2019."},
        {"text": "The pier had visitors in May.", "quote": "The pier had 1,200 visitors in May."},
        {
            "text": "The council reopened the pier in 2021.",
            "quote": "The harbour counsil reopened it in 2021.",
        },
    )
    assert normalized["span"]["match"] == "normalized"

    def claim(row: dict) -> dict:
        response = api.get(f"/connect/v1/claims/{row['claim_id']}")
        assert response.status_code == 200
        return response.json()

    assert claim(normalized)["submitted_quote"] == "the pier WAS closed in 2019."
    assert claim(exact)["submitted_quote"] is None
    assert claim(fuzzy)["submitted_quote"] == "The harbour counsil reopened it in 2021."

    page = auditor_client.get(f"/audit/claims/{fuzzy['claim_id']}/").content.decode()
    assert "Submitted quote: “The harbour counsil reopened it in 2021.”" in page
    assert f"similarity {fuzzy['span']['score']:.3f}" in span_match(page)
    page = auditor_client.get(f"/audit/claims/{exact['claim_id']}/").content.decode()
    assert 'id="submitted-quote"' not in page
    assert "similarity" not in span_match(page)


def test_the_console_says_when_the_quote_occurs_more_than_once(api, auditor_client):
    (row,) = verify(
        api, {"text": "The pier was closed in 2019.", "quote": "The pier was closed in 2019."}
    )
    page = auditor_client.get(f"/audit/claims/{row['claim_id']}/").content.decode()
    assert "The quote occurs 2 times in this version; the first is bound." in page
