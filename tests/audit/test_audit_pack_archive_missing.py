"""A succeeded audit-pack job whose archive was moved or deleted: the console says so and
offers to export the pack again (a 410 page, never a 500), the API answers 410
``pack_missing`` and stops offering the download."""

from __future__ import annotations

import re

import pytest

from tests.verifier.api.conftest import client_for
from verifier.models import AuditPackJob
from verifier.services.audit_pack import audit_pack_file

pytestmark = pytest.mark.django_db


@pytest.fixture
def packs_dir(settings, tmp_path):
    settings.SPANPROOF_AUDIT_PACK_DIR = tmp_path / "packs"
    return settings.SPANPROOF_AUDIT_PACK_DIR


def _export(auditor_client, django_capture_on_commit_callbacks) -> AuditPackJob:
    with django_capture_on_commit_callbacks(execute=True):
        auditor_client.post("/audit/pack/", {"scope": "claims", "state": "supported"})
    job = AuditPackJob.objects.order_by("-pk").first()
    assert job is not None and job.status == "succeeded"
    return job


def test_the_console_offers_to_export_again_when_the_archive_is_gone(
    auditor_client, supported_claim, packs_dir, tmp_path, django_capture_on_commit_callbacks
):
    job = _export(auditor_client, django_capture_on_commit_callbacks)
    download = f"/audit/pack/jobs/{job.pk}/download"
    assert download in auditor_client.get(f"/audit/pack/jobs/{job.pk}/").content.decode()
    audit_pack_file(job).rename(tmp_path / "moved.zip")

    page = auditor_client.get(f"/audit/pack/jobs/{job.pk}/").content.decode()
    assert download not in page
    assert "no longer on the server" in page
    form = re.search(r'<form method="post" action="/audit/pack/">.*?</form>', page, re.S)
    assert form and "Export again" in form.group(0)
    fields = dict(re.findall(r'type="hidden" name="(\w+)" value="([^"]*)"', form.group(0)))
    fields.pop("csrfmiddlewaretoken")
    assert fields == {"scope": "claims", "state": "supported"}

    # a stale link: the same page as a 410, not a 500
    response = auditor_client.get(download)
    assert response.status_code == 410
    assert "no longer on the server" in response.content.decode()

    # exporting again makes a new archive to download
    again = _export_with(auditor_client, fields, django_capture_on_commit_callbacks)
    assert again.pk != job.pk and audit_pack_file(again).is_file()
    assert auditor_client.get(f"/audit/pack/jobs/{again.pk}/download").status_code == 200


def _export_with(auditor_client, fields, django_capture_on_commit_callbacks) -> AuditPackJob:
    with django_capture_on_commit_callbacks(execute=True):
        response = auditor_client.post("/audit/pack/", fields)
    assert response.status_code == 302
    return AuditPackJob.objects.order_by("-pk").first()


def test_the_api_answers_410_pack_missing_and_offers_no_download(
    workspace, supported_claim, packs_dir, tmp_path, django_capture_on_commit_callbacks
):
    api = client_for(workspace, "read")
    with django_capture_on_commit_callbacks(execute=True):
        job_id = api.post(
            "/connect/v1/audit-pack/jobs", {"scope": "claims"}, content_type="application/json"
        ).json()["id"]
    job = api.get(f"/connect/v1/audit-pack/jobs/{job_id}").json()
    assert job["status"] == "succeeded" and job["download"]
    audit_pack_file(AuditPackJob.objects.get(pk=job_id)).unlink()

    response = api.get(f"/connect/v1/audit-pack/jobs/{job_id}/download")
    assert response.status_code == 410
    error = response.json()["error"]
    assert error["code"] == "pack_missing"
    assert "Export the pack again" in error["message"]
    assert error["details"]["job"] == job_id
    assert api.get(f"/connect/v1/audit-pack/jobs/{job_id}").json()["download"] is None
