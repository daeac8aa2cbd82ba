"""A verification batch still running does not count its waiting claims as results:
they are stored unverified until verified, and a tile "Unverified 3" beside "0 / 3
claims verified" read as three verified claims found unverified."""

from __future__ import annotations

import pytest

from tests.factories import make_source
from verifier.services.claim_lines import parse_claim_lines
from verifier.services.claim_verification import verification_job_create, verification_job_run

pytestmark = pytest.mark.django_db

TEXT = "The harbour wall was rebuilt in 1998. It is 412 metres long."


def test_waiting_claims_are_not_counted_by_state_until_the_batch_is_done(
    reviewer_client, workspace, reviewer
):
    make_source(workspace, ref="source:harbour", text=TEXT)
    claims = parse_claim_lines(
        "text,source\n"
        "The harbour wall was rebuilt in 1998.,source:harbour\n"
        "The wall is 412 metres long.,source:harbour\n"
        "The wall was rebuilt in 2004.,source:harbour\n"
    )
    job = verification_job_create(
        workspace=workspace, claims=claims, policy="", actor=reviewer, enqueue=False
    )
    html = reviewer_client.get(f"/verify/jobs/{job.pk}/").content.decode()
    assert "0 / 3 claims verified" in html
    assert 'aria-label="Claims by state"' not in html
    assert 'id="verify-job-tiles-waiting"' in html
    assert html.count("Waiting to be verified") == 3

    verification_job_run(job_id=job.pk)
    html = reviewer_client.get(f"/verify/jobs/{job.pk}/").content.decode()
    assert 'aria-label="Claims by state"' in html
    assert 'id="verify-job-tiles-waiting"' not in html
