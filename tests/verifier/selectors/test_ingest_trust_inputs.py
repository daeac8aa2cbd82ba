"""The trust-score inputs of a job, counted from its stored rows."""

from __future__ import annotations

import pytest

from tests.factories import make_claim, make_source
from verifier.models import ClaimRelation, IngestJob
from verifier.selectors.ingest import ingest_trust_inputs

pytestmark = pytest.mark.django_db


def _relation(a, b, kind: str) -> None:
    ClaimRelation.objects.create(
        workspace=a.workspace, from_claim=a, to_claim=b, kind=kind, confidence=0.6
    )


def test_counts_relations_touching_the_job_and_its_orphans(workspace):
    job, earlier = (IngestJob.objects.create(workspace=workspace) for _ in range(2))
    source = make_source(workspace)
    a, b, c, _lonely = (
        make_claim(source, f"Claim {n} of the job.", ingest_job=job) for n in "abcd"
    )
    outside, unrelated = (
        make_claim(source, f"Claim {n} of another job.", ingest_job=earlier) for n in "xy"
    )
    _relation(a, b, "supports")
    _relation(c, outside, "contradicts")  # touches the job from its side
    _relation(outside, unrelated, "supports")  # never touches the job
    _relation(unrelated, outside, "elaborates")
    a.embedding = [0.1] * 384
    a.save(update_fields=["embedding"])

    inputs = ingest_trust_inputs(job, high_severity_issues=3)

    assert inputs.total_claims == 4
    assert inputs.embedded_claims == 1
    assert inputs.orphan_claims == 1  # ``_lonely``; ``c`` counts through its outside edge
    assert (inputs.relations, inputs.supports_relations, inputs.contradicts_relations) == (
        2,
        1,
        1,
    )
    assert inputs.high_severity_issues == 3


def test_a_job_without_claims_counts_zero(workspace):
    inputs = ingest_trust_inputs(
        IngestJob.objects.create(workspace=workspace), high_severity_issues=0
    )
    assert (inputs.total_claims, inputs.orphan_claims, inputs.relations) == (0, 0, 0)
