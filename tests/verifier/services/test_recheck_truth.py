"""A claim whose span no longer matches its source's stored text (the version tampered
with behind the append-only triggers' back) is told ``unverified`` / ``stale_source`` by
every door that tells states in bulk, as by the claim's own page and the API: the claims
exports and an audit pack re-check before they tell it (``claims_recheck_stored``), and
the claim list filtered by a state serves only claims of that state."""

from __future__ import annotations

import csv
import io
import json
import zipfile

import pytest
from django.test import Client

from tests.factories import make_binding, make_claim, make_source, tamper
from tests.verifier.api.conftest import client_for
from verifier.audit_pack.scope import PackScope
from verifier.models import Claim, SourceVersion, StateEvent, Verdict
from verifier.services.audit_pack import audit_pack_write
from verifier.services.claim_state import claim_state_refresh, claims_recheck_stored
from verifier.states import CAUSE_RECHECK

pytestmark = pytest.mark.django_db

TEXT = "Sediment settles where the current slows. Salt marsh grasses trap silt at high tide."
QUOTE = "Sediment settles where the current slows."
TAMPERED = TEXT.replace("settles where the current slows", "drifts out into the fast waters")


def _supported(source, text: str, quote: str) -> Claim:
    claim = make_claim(source, text)
    binding = make_binding(claim, quote)
    Verdict.objects.create(
        claim=claim,
        binding=binding,
        judge_model="heuristic-entailment-v1",
        judge_family="heuristic",
        prompt_version=1,
        label="entailed",
        confidence=0.95,
    )
    claim_state_refresh(claim=claim, cause="test setup")
    claim.refresh_from_db()
    assert claim.state == "supported"
    return claim


@pytest.fixture
def tampered(workspace):
    source = make_source(workspace, ref="source:tampered", text=TEXT)
    gone = _supported(source, QUOTE, QUOTE)
    kept = _supported(
        source,
        "Salt marsh grasses trap silt at high tide.",
        "Salt marsh grasses trap silt at high tide.",
    )
    tamper(SourceVersion.objects.get(source=source), TAMPERED)
    return gone, kept


def test_the_csv_export_tells_a_gone_span_stale(tampered, admin_user):
    gone, kept = tampered
    console = Client()
    console.force_login(admin_user)
    response = console.get("/audit/claims/export.csv")
    body = b"".join(response.streaming_content).decode()
    rows = {r["claim_id"]: r for r in csv.DictReader(io.StringIO(body))}
    assert (rows[gone.public_id]["state"], rows[gone.public_id]["reason"]) == (
        "unverified",
        "stale_source",
    )
    assert rows[kept.public_id]["state"] == "supported"
    # the demotion was stored by the state writer, with its event
    gone.refresh_from_db()
    assert (gone.state, gone.state_reason) == ("unverified", "stale_source")
    assert StateEvent.objects.filter(claim=gone, cause__startswith="read-time re-check").exists()


def test_the_jsonl_export_filtered_by_supported_leaves_it_out(tampered, admin_user):
    _gone, kept = tampered
    console = Client()
    console.force_login(admin_user)
    response = console.get("/audit/claims/export.jsonl?state=supported")
    lines = b"".join(response.streaming_content).decode().splitlines()
    assert [json.loads(line)["claim"]["id"] for line in lines] == [kept.public_id]


def test_an_audit_pack_records_a_gone_span_stale(tampered, workspace, tmp_path):
    gone, kept = tampered
    path = tmp_path / "pack.zip"
    with path.open("wb") as sink:
        audit_pack_write(
            workspace=workspace,
            scope=PackScope(kind="claims"),
            sink=sink,
            exported_by={"role": "auditor"},
        )
    with zipfile.ZipFile(path) as archive:
        records = [json.loads(x) for x in archive.read("claims.jsonl").decode().splitlines()]
    by_id = {r["id"]: r for r in records}
    assert (by_id[gone.public_id]["state"], by_id[gone.public_id]["state_reason"]) == (
        "unverified",
        "stale_source",
    )
    # the pack's history ends with the demotion it records
    assert by_id[gone.public_id]["state_events"][-1]["to"] == "unverified"
    assert by_id[kept.public_id]["state"] == "supported"


def test_the_recheck_demotes_only_what_went_stale(tampered):
    _gone, kept = tampered
    assert claims_recheck_stored(claims=Claim.objects.all()) == 1
    assert claims_recheck_stored(claims=Claim.objects.all()) == 0  # nothing left to demote
    kept.refresh_from_db()
    assert kept.state == "supported"


def test_the_claim_list_filtered_by_a_state_serves_only_that_state(tampered, workspace):
    _gone, kept = tampered
    response = client_for(workspace).get("/connect/v1/claims", {"state": "supported"})
    assert response.status_code == 200
    served = [(r["claim"]["id"], r["state"]) for r in response.json()["results"]]
    assert served == [(kept.public_id, "supported")]


def test_a_batchs_demotions_are_written_together(workspace, django_assert_max_num_queries):
    """However many claims of a batch went stale, their demotions are one transaction:
    the lock, one UPDATE, one INSERT of their events (a transaction each kept an export
    of 13,000 stale claims from sending a byte for three minutes)."""
    source = make_source(workspace, ref="source:many", text=TEXT)
    claims = [_supported(source, QUOTE, QUOTE) for _ in range(12)]
    tamper(SourceVersion.objects.get(source=source), TAMPERED)
    with django_assert_max_num_queries(10):
        assert claims_recheck_stored(claims=Claim.objects.filter(source=source)) == 12
    for claim in claims:
        claim.refresh_from_db()
        assert (claim.state, claim.state_reason) == ("unverified", "stale_source")
        event = StateEvent.objects.filter(claim=claim).latest_first().first()
        assert event is not None and event.cause.startswith(CAUSE_RECHECK)
