"""A URL that answers htmx with a part of its page and otherwise with the whole page says
``Vary: HX-Request`` on both answers (verifier.htmx_vary), so no browser cache serves
the part as the page (Back, Forward, a restored tab: tests/browser/
test_htmx_history_browser.py)."""

from __future__ import annotations

import pytest

from tests.review.conftest import queue_claim
from tests.verifier.calibrators.conftest import build_reviewed_workspace, pin_heuristic
from verifier.models import AuditPackJob, CalibratorChangeJob, IngestJob, VerificationJob
from verifier.services.judge_calibrators import judge_calibrator_fit
from verifier.services.rag_audit import rag_audit_run

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}
LAYOUT = '<main id="main"'


def _vary(response) -> set[str]:
    return {name.strip().lower() for name in response.get("Vary", "").split(",") if name}


def _review_queue(workspace, source, settings):
    queue_claim(source, "no_evidence")
    return "/review/?reason=no_evidence", {"HX-Target": "queue-results"}


def _review_item(workspace, source, settings):
    return f"/review/item/{queue_claim(source, 'no_evidence').public_id}/", {}


def _rag_claim(workspace, source, settings):
    chunks = '{"id": "c1", "text": "Tarn Point Light was first lit in 1858."}\n'
    audit = rag_audit_run(workspace=workspace, answer="It was lit in 1858 [c1].", chunks=chunks)
    return f"/audit/rag/{audit.audit.pk}/claims/0/", {}


def _ingest_job(workspace, source, settings):
    return f"/ingest/jobs/{IngestJob.objects.create(workspace=workspace).pk}/", {}


def _verify_job(workspace, source, settings):
    return f"/verify/jobs/{VerificationJob.objects.create(workspace=workspace, total=3).pk}/", {}


def _verify_job_ended(workspace, source, settings):
    job = VerificationJob.objects.create(workspace=workspace, total=3, done=3, status="succeeded")
    return f"/verify/jobs/{job.pk}/", {}


def _pack_job(workspace, source, settings):
    job = AuditPackJob.objects.create(workspace=workspace, scope={"scope": "claims"}, total=3)
    return f"/audit/pack/jobs/{job.pk}/", {}


def _calibrator_job(workspace, source, settings):
    pin_heuristic(settings)
    build_reviewed_workspace(workspace)
    row = judge_calibrator_fit(workspace=workspace).row
    job = CalibratorChangeJob.objects.create(
        workspace=workspace,
        calibrator=row,
        action="activate",
        judge_model=row.judge_model,
        cause="calibrator v1 activated",
    )
    return f"/audit/calibrators/changes/{job.pk}/", {}


@pytest.mark.parametrize(
    "make_url",
    [
        _review_queue,
        _review_item,
        _rag_claim,
        _ingest_job,
        _verify_job,
        _verify_job_ended,
        _pack_job,
        _calibrator_job,
    ],
)
def test_the_page_and_its_htmx_part_both_vary_on_hx_request(
    admin_client_ws, workspace, source, settings, make_url
):
    url, headers = make_url(workspace, source, settings)
    page = admin_client_ws.get(url)
    part = admin_client_ws.get(url, headers=HTMX | headers)
    assert page.status_code == 200 and part.status_code in (200, 286)
    assert LAYOUT in page.content.decode() and LAYOUT not in part.content.decode()
    assert "hx-request" in _vary(page)
    assert "hx-request" in _vary(part)
    for name in headers:  # a header that chose the part (the queue's HX-Target) too
        assert name.lower() in _vary(part)


def test_a_page_that_never_asks_whether_htmx_called_does_not_vary_on_it(admin_client_ws):
    page = admin_client_ws.get("/glossary/", headers=HTMX)
    assert page.status_code == 200 and LAYOUT in page.content.decode()
    assert "hx-request" not in _vary(page)
