"""The judge reads a bound span within its whole sentence: a quote cut from a sentence
that says the opposite is judged as the source says it (through the real API, database,
binding and judge)."""

from __future__ import annotations

import json

import pytest

from verifier.models import EvidenceBinding

pytestmark = pytest.mark.django_db

URL = "/connect/v1/claims/verify"
TEXT = (
    "The council met on Tuesday. It is false that the council approved the budget. "
    "Critics claimed the levy doubled, but the records show no change."
)


def verify(api, claims: list[dict]) -> list[dict]:
    payload = {"sources": [{"ref": "source:council", "text": TEXT}], "claims": claims}
    response = api.post(URL, data=json.dumps(payload), content_type="application/json")
    assert response.status_code == 200, response.content
    return response.json()["results"]


def test_a_quote_cut_from_a_negated_sentence_is_not_supported(api):
    (cut,) = verify(
        api,
        [
            {
                "text": "The council approved the budget.",
                "source": "source:council",
                "quote": "the council approved the budget.",
            }
        ],
    )
    assert cut["state"] == "contradicted", cut
    # the binding is still the quote, at its own offsets
    binding = EvidenceBinding.objects.get(claim__public_id=cut["claim_id"], is_active=True)
    assert TEXT[binding.start : binding.end] == "the council approved the budget."


def test_a_quote_cut_from_a_reported_claim_is_not_supported(api):
    (cut,) = verify(
        api,
        [{"text": "The levy doubled.", "source": "source:council", "quote": "the levy doubled"}],
    )
    assert cut["state"] != "supported", cut


def test_a_whole_sentence_quote_is_still_supported(api):
    (whole,) = verify(
        api,
        [
            {
                "text": "The council met on Tuesday.",
                "source": "source:council",
                "quote": "The council met on Tuesday.",
            }
        ],
    )
    assert whole["state"] == "supported", whole
