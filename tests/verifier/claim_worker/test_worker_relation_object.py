"""Relation-object mismatch end to end: a corpus ingested by the real pipeline (its
relate stage records entities and co-mention edges), verified through
``worker_verify``; a claim reached through the knowledge graph carries the tail of the
relation that reached it, and is reduced ×0.70 when the claim never names that tail."""

from __future__ import annotations

import pytest

from verifier.claim_worker.ranking import RELATION_OBJECT_MISMATCH
from verifier.services import claim_worker_retrieval
from verifier.services.claim_worker_verify import worker_verify
from verifier.services.ingest import STAGE_ORDER, ingest_stage_run
from verifier.services.ingest_create import SourceUpload, ingest_job_create

pytestmark = pytest.mark.django_db

PAINTED = (
    "The Halden Point lighthouse was built in 1871. "
    "Halden Point was painted by Anna Kessel in 1901. "
    "Halden Point lies at the mouth of the Marrow River."
)


@pytest.fixture
def painted(workspace):
    job = ingest_job_create(
        workspace=workspace,
        sources=[SourceUpload(ref="source:halden", title="Halden", text=PAINTED)],
        start=False,
    )
    for stage in STAGE_ORDER:
        ingest_stage_run(job_id=job.pk, stage=stage)
    return workspace


def _item(body, text):
    return next(e for e in body["evidence"] if text in e["quote"])


def test_a_kg_candidate_whose_relation_ends_elsewhere_is_reduced(painted, monkeypatch):
    claim = "The Halden Point lighthouse was built in 1871."
    body = worker_verify(workspace=painted, job_id="j", claim=claim, top_k=20, store=False)
    item = _item(body, "Anna Kessel")
    # reached through Halden Point, whose co-mention edge here ends at Anna Kessel
    assert item["signals"]["kg_raw"] > 0
    assert item["signals"]["relation_object"] == "Anna Kessel"
    assert "relation_object_mismatch" in item["signals"]["adjustments"]
    # the claim this text copies mentions no other entity: no tail, no reduction
    same = _item(body, "was built in 1871")
    assert same["signals"]["relation_object"] == ""
    assert "relation_object_mismatch" not in same["signals"]["adjustments"]

    # the same request without the graph tails: the only difference is the ×0.70
    monkeypatch.setattr(claim_worker_retrieval, "worker_relation_tails", lambda **kw: {})
    plain = worker_verify(workspace=painted, job_id="j", claim=claim, top_k=20, store=False)
    before = _item(plain, "Anna Kessel")
    assert "relation_object_mismatch" not in before["signals"]["adjustments"]
    assert item["ranking_score"] == pytest.approx(
        before["ranking_score"] * RELATION_OBJECT_MISMATCH, abs=2e-4
    )


def test_a_kg_candidate_whose_relation_ends_at_the_claims_object_is_not(painted):
    claim = "Halden Point was painted by Anna Kessel."
    body = worker_verify(workspace=painted, job_id="j", claim=claim, top_k=20, store=False)
    item = _item(body, "Anna Kessel")
    assert "Anna Kessel" in item["signals"]["relation_object"]
    assert "relation_object_mismatch" not in item["signals"]["adjustments"]
    # the Marrow River one, reached through Halden Point too, still ends elsewhere
    river = _item(body, "Marrow River")
    assert river["signals"]["relation_object"] == "Marrow River"
    assert "relation_object_mismatch" in river["signals"]["adjustments"]
