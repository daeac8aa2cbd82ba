"""Pages, exports and the API docs read the one vocabulary (issue 40.1)."""

from __future__ import annotations

import csv
import html
import io
import json
import re

import pytest
from django.urls import reverse

from audit.exports import CSV_COLUMNS
from tests.factories import make_binding, make_claim
from tests.review.conftest import QUOTE, queue_claim
from verifier.models import Verdict
from verifier.services.claim_state import claim_state_refresh

pytestmark = pytest.mark.django_db

INTERNAL_CODES = (
    "human_supported",
    "human_contradicted",
    "legacy_affirmed",
    "No_bound_evidence",
    "coverage_gap",
    "srmkg_",
    "SR-MKG",
    "VoG",
)


def _visible(page: str) -> str:
    """The page's text as a reader sees it (no tags, no attributes, no <code> codes)."""
    page = re.sub(r"<code[^>]*>.*?</code>", " ", page, flags=re.DOTALL)
    # scripts, and the envelope JSON the claim page shows exactly as the API serves it
    page = re.sub(r"<(script|style|datalist|pre)[^>]*>.*?</\1>", " ", page, flags=re.DOTALL)
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page)).split())


def _abstained(source, *, confidence: float, note: str = ""):
    claim = make_claim(source, "The delta grows twelve metres a year.")
    binding = make_binding(claim, QUOTE)
    Verdict.objects.create(
        claim=claim,
        binding=binding,
        judge_model="heuristic-nli",
        judge_family="heuristic",
        prompt_version=1,
        label="abstained",
        confidence=confidence,
        note=note,
    )
    claim_state_refresh(claim=claim, cause="test setup")
    return claim


def test_console_pages_show_labels_not_codes(reviewer_client, reviewer, source):
    decided = queue_claim(source, "contradicted", text="The tide turns twice a day.")
    Verdict.objects.create(
        claim=decided,
        binding=decided.bindings.first(),
        judge_model="human:rita",
        judge_family="human",
        prompt_version=0,
        label="contradicted",
        confidence=1.0,
        reviewer=reviewer,
    )
    claim_state_refresh(claim=decided, cause="review: contradicted by rita", actor=reviewer)
    gap = queue_claim(source, "coverage_gap", text="Silt settles in the bay.")
    unbound = _abstained(source, confidence=0.0, note="no_bound_evidence")
    pages = {
        "queue": "/review/?state=contradicted",
        "queue gaps": "/review/?reason=coverage_gap",
        "item": f"/review/item/{unbound.public_id}/",
        "claims": "/audit/claims/",
        "claim": f"/audit/claims/{decided.public_id}/",
        "gap claim": f"/audit/claims/{gap.public_id}/",
    }
    for name, path in pages.items():
        response = reviewer_client.get(path)
        assert response.status_code == 200, name
        text = _visible(response.content.decode())
        leaked = [code for code in INTERNAL_CODES if code in text]
        assert leaked == [], f"{name} shows internal codes {leaked}"
    claims = _visible(reviewer_client.get("/audit/claims/").content.decode())
    assert "Contradicted by a reviewer" in claims
    item = _visible(reviewer_client.get(pages["item"]).content.decode())
    assert "No span was bound, so the judge was not asked." in item


def test_glossary_explains_the_five_states_and_every_reason(reviewer_client):
    response = reviewer_client.get(reverse("glossary"))
    assert response.status_code == 200
    page = response.content.decode()
    for state in ("supported", "inferred", "unverified", "contradicted", "excluded"):
        assert f'id="state-{state}"' in page
    text = _visible(page)
    assert "Taken out of use by a person or by remediation" in text
    assert "Accepted by the graph check" in text and "Said differently" in text
    assert "Confirmed by a reviewer" in text


def test_exports_carry_codes_with_labels_and_no_confidence_for_an_abstention(
    auditor_client, source
):
    claim = _abstained(source, confidence=1.0, note="low_coverage: 0.1")
    response = auditor_client.get(reverse("audit:claim-export-csv"))
    assert response["Link"] == '</glossary/>; rel="describedby"'
    rows = list(csv.reader(io.StringIO(b"".join(response.streaming_content).decode())))
    row = dict(zip(rows[0], next(r for r in rows[1:] if r[0] == claim.public_id), strict=True))
    assert tuple(rows[0]) == CSV_COLUMNS
    assert (row["state"], row["state_label"]) == ("unverified", "Unverified")
    assert (row["judge_verdict"], row["judge_verdict_label"]) == ("abstained", "No answer")
    assert row["judge_confidence"] == ""  # never 1.0 for an abstention

    jsonl = auditor_client.get(reverse("audit:claim-export-jsonl"))
    envelope = json.loads(b"".join(jsonl.streaming_content).decode().splitlines()[0])
    assert envelope["judge"]["verdict"] == "abstained"
    assert envelope["judge"]["confidence"] is None


def test_api_docs_describe_the_codes(auditor_client, workspace):
    from tests.verifier.api.conftest import client_for

    schema = client_for(workspace).get("/connect/v1/schema", {"format": "json"}).json()
    judge = schema["components"]["schemas"]["Judge"]["properties"]
    assert "No answer" in json.dumps(judge["verdict"]) or "No answer" in json.dumps(schema)
    envelope = schema["components"]["schemas"]["Envelope"]["properties"]
    assert "Evidence-bound" in json.dumps(envelope["state"]) or "exact offsets" in json.dumps(
        envelope["state"]
    )
    assert judge["confidence"].get("nullable") is True
