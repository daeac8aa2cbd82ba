"""The trust score's verification coverage counts the claims a judge answered: not the
abstention recorded locally for a claim with nothing bound (no judge read it), nor a
coverage gap."""

from __future__ import annotations

import pytest

from tests.factories import make_claim, make_source
from verifier.models import IngestJob, Verdict
from verifier.selectors.ingest import ingest_trust_inputs
from verifier.states import NO_BOUND_EVIDENCE_NOTE

pytestmark = pytest.mark.django_db


def _verdict(claim, label: str, note: str = "") -> None:
    Verdict.objects.create(
        claim=claim,
        judge_model="test-judge",
        judge_family="test",
        label=label,
        confidence=1.0 if label in ("abstained", "coverage_gap") else 0.9,
        note=note,
    )


def test_claims_no_judge_read_are_not_verification_coverage(workspace):
    job = IngestJob.objects.create(workspace=workspace)
    source = make_source(workspace)
    entailed, abstained, gap, not_asked, _unjudged = (
        make_claim(source, f"Claim {n} of the job.", ingest_job=job) for n in "abcde"
    )
    _verdict(entailed, "entailed")
    _verdict(abstained, "abstained")  # the judge read it and could not decide
    _verdict(gap, "coverage_gap")
    _verdict(not_asked, "abstained", NO_BOUND_EVIDENCE_NOTE)  # nothing bound: not asked

    inputs = ingest_trust_inputs(job, high_severity_issues=0)

    assert inputs.total_claims == 5
    assert inputs.verified_claims == 2  # entailed and the judge's own abstention


def test_a_claim_judged_after_a_not_asked_abstention_counts(workspace):
    job = IngestJob.objects.create(workspace=workspace)
    claim = make_claim(make_source(workspace), "Claim a of the job.", ingest_job=job)
    _verdict(claim, "abstained", NO_BOUND_EVIDENCE_NOTE)
    _verdict(claim, "entailed")  # bound and judged since: the latest verdict counts

    assert ingest_trust_inputs(job, high_severity_issues=0).verified_claims == 1
