"""Streamed claim exports, filtered like the claim list."""

from __future__ import annotations

import csv
import io
import json

import pytest
from django.urls import reverse

from audit.exports import CSV_COLUMNS
from tests.audit.conftest import QUOTE
from tests.factories import make_claim, make_source
from verifier.models import Claim

pytestmark = pytest.mark.django_db


def _body(response):
    assert response.streaming
    return b"".join(response.streaming_content).decode()


def test_jsonl_export_streams_one_envelope_per_filtered_claim(
    auditor_client, supported_claim, source, other_workspace
):
    make_claim(source, "An unverified claim.")
    make_claim(make_source(other_workspace), QUOTE)
    response = auditor_client.get(reverse("audit:claim-export-jsonl"), {"state": "supported"})
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/x-ndjson")
    assert "attachment" in response["Content-Disposition"]
    lines = [json.loads(line) for line in _body(response).splitlines()]
    assert [e["claim"]["id"] for e in lines] == [supported_claim.public_id]
    assert lines[0]["state"] == "supported"
    assert lines[0]["evidence"][0]["quote"] == QUOTE

    everything = auditor_client.get(reverse("audit:claim-export-jsonl"))
    ids = {json.loads(line)["claim"]["id"] for line in _body(everything).splitlines()}
    assert ids == set(
        Claim.objects.filter(workspace=source.workspace).values_list("public_id", flat=True)
    )


def test_csv_export_has_header_rows_and_neutralises_formulas(
    auditor_client, supported_claim, source
):
    make_claim(source, '=HYPERLINK("http://x")')
    response = auditor_client.get(reverse("audit:claim-export-csv"))
    assert response["Content-Type"].startswith("text/csv")
    rows = list(csv.reader(io.StringIO(_body(response))))
    assert tuple(rows[0]) == CSV_COLUMNS
    by_id = {row[0]: row for row in rows[1:]}
    assert by_id[supported_claim.public_id][CSV_COLUMNS.index("quote")] == QUOTE
    assert any(row[1].startswith("'=HYPERLINK") for row in rows[1:])


def test_export_requires_membership(client, supported_claim):
    response = client.get(reverse("audit:claim-export-jsonl"))
    assert response.status_code == 302


def test_exports_carry_the_reason_and_the_cited_source_of_an_unbound_claim(
    auditor_client, supported_claim, source
):
    """The reason as code and words in both exports; the CSV's source_ref is the cited
    source even when no span is bound (auditor walk L2)."""
    from verifier.services.claim_state import claim_state_refresh

    unbound = make_claim(source, "Rivers always flood in spring.")
    claim_state_refresh(claim=unbound, cause="test")
    unbound.refresh_from_db()
    lines = {
        e["claim"]["id"]: e
        for e in map(
            json.loads, _body(auditor_client.get(reverse("audit:claim-export-jsonl"))).splitlines()
        )
    }
    assert lines[supported_claim.public_id]["reason"] == "entailed"
    assert lines[supported_claim.public_id]["reason_text"] == "The cited span entails the claim."
    assert lines[unbound.public_id]["reason"] == unbound.state_reason
    rows = list(
        csv.reader(io.StringIO(_body(auditor_client.get(reverse("audit:claim-export-csv")))))
    )
    by_id = {row[0]: dict(zip(CSV_COLUMNS, row, strict=True)) for row in rows[1:]}
    assert by_id[supported_claim.public_id]["reason"] == "entailed"
    assert by_id[supported_claim.public_id]["reason_label"] == "Span supports it (judge)"
    assert by_id[unbound.public_id]["source_ref"] == source.ref
    assert by_id[unbound.public_id]["quote"] == ""


def test_the_claims_api_carries_the_reason_as_the_jsonl_export_does(supported_claim):
    """GET /connect/v1/claims (and /claims/{id}): the envelope with ``reason`` and
    ``reason_text``; the JSONL export is the same item (auditor walk L2)."""
    from tests.verifier.api.conftest import client_for

    api = client_for(supported_claim.workspace)
    (item,) = api.get("/connect/v1/claims").json()["results"]
    assert (item["reason"], item["reason_text"]) == (
        "entailed",
        "The cited span entails the claim.",
    )
    one = api.get(f"/connect/v1/claims/{supported_claim.public_id}").json()
    assert one["reason"] == "entailed"


def test_an_excluded_claim_carries_the_persons_reason_in_the_list_the_exports_and_the_api(
    auditor_client, supported_claim, source
):
    """Why a person excluded a claim is read where the claim is listed, exported or
    fetched, not only on its own page; ``null`` for a claim nobody excluded."""
    from tests.verifier.api.conftest import client_for
    from verifier.services.claim_state import claim_exclude

    excluded = make_claim(source, "A claim taken out of serving.")
    claim_exclude(claim=excluded, reason="Cites a retracted report")
    jsonl = {
        e["claim"]["id"]: e
        for e in map(
            json.loads, _body(auditor_client.get(reverse("audit:claim-export-jsonl"))).splitlines()
        )
    }
    assert jsonl[excluded.public_id]["exclusion_reason"] == "Cites a retracted report"
    assert jsonl[supported_claim.public_id]["exclusion_reason"] is None
    rows = list(
        csv.reader(io.StringIO(_body(auditor_client.get(reverse("audit:claim-export-csv")))))
    )
    by_id = {row[0]: dict(zip(CSV_COLUMNS, row, strict=True)) for row in rows[1:]}
    assert by_id[excluded.public_id]["exclusion_reason"] == "Cites a retracted report"
    assert by_id[supported_claim.public_id]["exclusion_reason"] == ""
    api = client_for(source.workspace)
    one = api.get(f"/connect/v1/claims/{excluded.public_id}").json()
    assert (one["state"], one["exclusion_reason"]) == ("excluded", "Cites a retracted report")
    page = auditor_client.get(reverse("audit:claim-list")).content.decode()
    assert '<q dir="auto">Cites a retracted report</q>' in page


@pytest.mark.parametrize(
    "text",
    [
        " =1+1 after a space",
        "\u00a0\u00a0@SUM(A1) after no-break spaces",
        '\uff1dHYPERLINK("http://x") full-width equals',
        "\uff0b1 full-width plus",
        "\n=1+1 after a newline",
    ],
)
def test_csv_export_neutralises_formulas_behind_whitespace_or_full_width(
    auditor_client, source, text
):
    """A spreadsheet that trims cells on import, or reads full-width signs as ASCII ones,
    would run these as formulas: the CSV cell gets the apostrophe too; the JSONL keeps
    the text as stored."""
    claim = make_claim(source, text)
    rows = list(
        csv.reader(io.StringIO(_body(auditor_client.get(reverse("audit:claim-export-csv")))))
    )
    by_id = {row[0]: row for row in rows[1:]}
    assert by_id[claim.public_id][CSV_COLUMNS.index("text")] == "'" + claim.text
    lines = _body(auditor_client.get(reverse("audit:claim-export-jsonl"))).split("\n")
    envelopes = {e["claim"]["id"]: e for e in map(json.loads, filter(None, lines))}
    assert envelopes[claim.public_id]["claim"]["text"] == claim.text
