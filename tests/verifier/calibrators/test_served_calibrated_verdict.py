"""A claim a reviewer calibrator decided is served with the verdict its state rests on,
and says that the calibrator gave it: the envelope's ``judge.calibrator`` (its id and
version) wherever the envelope is served — ``GET /connect/v1/claims/{id}``, the claim
list, ``POST /connect/v1/retrieve``, claims/verify's result rows — and the console's
claim page. The verdicts are
recorded as the judging service records them: the judge's own answer (abstained), then
the calibrator's (entailed), pointing at its row."""

from __future__ import annotations

import pytest
from django.test import Client

from tests.factories import make_binding, make_claim, make_source, make_user
from tests.verifier.api.conftest import client_for
from verifier.embeddings import embed_text
from verifier.judges.heuristic import FAMILY, MODEL_ID, PROMPT_VERSION
from verifier.models import JudgeCalibrator
from verifier.services.claim_state import claims_state_refresh
from verifier.services.judge_calibrators import judge_calibrator_fit
from verifier.services.verdicts import verdict_build, verdicts_append

SPAN = "The Oakum Street bridge was rebuilt after the flood of 1910 and reopened within a year."
TEXT = "After the 1910 flood, the Oakum Street bridge was back in service in under twelve months."


def _judged(workspace, row: JudgeCalibrator | None, **kw):
    """A published claim with a fresh exact binding: the judge abstained and, with
    ``row``, the calibrator then said entailed (the judging service's two verdicts)."""
    source = make_source(workspace, text=SPAN)
    claim = make_claim(source, TEXT, published=True, embedding=embed_text(TEXT), **kw)
    binding = make_binding(claim, SPAN)
    common = {
        "claim": claim,
        "binding": binding,
        "judge_model": MODEL_ID,
        "judge_family": FAMILY,
        "prompt_version": PROMPT_VERSION,
    }
    verdicts = [verdict_build(**common, label="abstained", confidence=0.9, note="")]
    if row is not None:
        verdicts.append(
            verdict_build(
                **common,
                label="entailed",
                confidence=0.93,
                note=f"reviewer_calibrator: calibrator v{row.version}",
                calibrator=row,
            )
        )
    verdicts_append(verdicts=verdicts)
    claims_state_refresh(claims=[claim], causes={claim.pk: "judged"})
    claim.refresh_from_db()
    return claim


@pytest.fixture
def calibrated(reviewed):
    row = judge_calibrator_fit(workspace=reviewed.workspace).row
    return row, _judged(reviewed.workspace, row, external_id="app-calibrated")


def test_the_envelope_shows_the_calibrators_verdict_and_names_it(reviewed, calibrated):
    row, claim = calibrated
    assert (claim.state, claim.state_reason) == ("supported", "entailed")
    api = client_for(reviewed.workspace, scope="read")
    expected = {
        "model": MODEL_ID,
        "prompt_version": PROMPT_VERSION,
        "verdict": "entailed",
        "confidence": 0.93,
        "calibrator": {"id": row.pk, "version": row.version},
    }

    own = api.get(f"/connect/v1/claims/{claim.public_id}").json()
    assert own["state"] == "supported"
    assert {k: own["judge"][k] for k in expected} == expected

    listed = api.get("/connect/v1/claims", {"state": "supported"}).json()["results"]
    (item,) = [c for c in listed if c["claim"]["id"] == claim.public_id]
    assert item["judge"] == own["judge"]

    served = api.post(
        "/connect/v1/retrieve",
        {"query": "Oakum Street bridge flood", "verification_policy": {"include": ["supported"]}},
        content_type="application/json",
    )
    assert served.status_code == 200, served.content
    (envelope,) = [
        e for e in served.json()["verified_claims"] if e["claim"]["id"] == claim.public_id
    ]
    assert envelope["judge"] == own["judge"]


def _verify_row(workspace, claim) -> dict:
    """The claims/verify row of ``claim`` sent again under its external id (reused)."""
    sent = {"text": claim.text, "source": claim.source.ref, "external_id": claim.external_id}
    response = client_for(workspace).post(
        "/connect/v1/claims/verify", {"claims": [sent]}, content_type="application/json"
    )
    assert response.status_code == 200, response.content
    (row,) = response.json()["results"]
    assert row["reused"] is True
    return row


def test_a_claims_verify_row_names_the_calibrator_as_the_envelope_does(reviewed, calibrated):
    row, claim = calibrated
    own = client_for(reviewed.workspace, scope="read")
    judge = own.get(f"/connect/v1/claims/{claim.public_id}").json()["judge"]
    assert judge["calibrator"] == {"id": row.pk, "version": row.version}
    verified = _verify_row(reviewed.workspace, claim)
    assert verified["judge"] == judge
    assert (verified["verdict"], verified["confidence"], verified["judge_model"]) == (
        judge["verdict"],
        judge["confidence"],
        judge["model"],
    )


def test_a_judges_own_verdict_names_no_calibrator(workspace):
    claim = _judged(workspace, None, external_id="app-own")
    own = client_for(workspace, scope="read").get(f"/connect/v1/claims/{claim.public_id}").json()
    assert (own["state"], own["judge"]["verdict"]) == ("unverified", "abstained")
    assert own["judge"]["calibrator"] is None
    assert _verify_row(workspace, claim)["judge"] == own["judge"]


def test_the_claim_page_says_the_calibrator_decided(reviewed, calibrated):
    row, claim = calibrated
    auditor = make_user("aud-env", workspace=reviewed.workspace, role="auditor")
    client = Client()
    client.force_login(auditor)
    body = client.get(f"/audit/claims/{claim.public_id}/").content.decode()
    assert f"reviewer calibrator v{row.version}" in body
    assert f"The judging verdict (reviewer calibrator v{row.version} of model {MODEL_ID})" in body
