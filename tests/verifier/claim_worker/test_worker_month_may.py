"""The month "May" is not the hedge "may": the worker's cue words (table) and
/worker/verify on a verbatim claim naming the month (TRUE, as with any other month)."""

from __future__ import annotations

import pytest
from django.test import TestCase

from tests.verifier.api.conftest import client_for
from verifier.claim_worker.text import claim_features, has_uncertainty
from verifier.services.ingest import STAGE_ORDER, ingest_stage_run
from verifier.services.ingest_create import SourceUpload, ingest_job_create

FERRY = "The Orrin ferry runs every day from May to September."


@pytest.mark.parametrize(
    ("text", "uncertain"),
    [
        # the month
        (FERRY, False),
        ("The park is open on weekends from May to September.", False),
        ("The bridge opened in May.", False),
        ("the bridge opened in may.", False),  # lower-cased, after "in"
        ("May 2020 was the wettest month on record.", False),  # sentence start, a year next
        ("The vote was held on 3 May 1998.", False),
        ("The vote was held on May 3.", False),
        ("The vote was held on 3 may.", False),  # a day number before, the clause ends
        ("may to september is the busy season.", False),  # a range of months
        ("Sailings run in April or may.", False),
        ("Season: May to September.", False),
        ("The fair runs from early May until June.", False),
        ("Crews Expect Rain In May.", False),  # title case
        # the modal
        ("The ferry may run every day.", True),
        ("May the ferry run every day? It may.", True),
        ("May cause drowsiness.", True),  # sentence start, nothing of a month near
        ("Table 3 may be misleading.", True),  # a number before, but the clause goes on
        ("The first is true; the last may be false.", True),
        ("Rates may rise in June.", True),
        ("It is likely open in May.", True),  # another hedge beside the month
        ("The ferry runs every day in June.", False),
    ],
)
def test_month_may_is_not_a_hedge(text, uncertain):
    assert has_uncertainty(text) is uncertain
    assert claim_features(text).uncertain is uncertain


def _ingest(workspace, ref, text):
    job = ingest_job_create(
        start=False, workspace=workspace, sources=[SourceUpload(ref=ref, title=ref, text=text)]
    )
    for stage in STAGE_ORDER:
        ingest_stage_run(job_id=job.pk, stage=stage)


@pytest.mark.parametrize("month", ["May", "June"])
def test_verbatim_claim_naming_may_is_true(workspace, month):
    sentence = FERRY.replace("May", month)
    _ingest(workspace, "source:orrin-ferry", sentence)
    with TestCase.captureOnCommitCallbacks(execute=True):
        resp = client_for(workspace).post(
            "/worker/verify", {"job_id": "j", "claim": sentence}, content_type="application/json"
        )
    assert resp.status_code == 200, resp.content
    body = resp.json()
    assert body["evidence"][0]["stance"] == "supports"
    assert "hedged_evidence_blocks_true" not in body["reconciliation_reasons"]
    assert body["verdict"] == "TRUE", body["reconciliation_reasons"]
