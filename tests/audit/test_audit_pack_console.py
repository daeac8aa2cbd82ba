"""Audit packs in the console: a button on the claim list (with its filters), a source, a
trace and the job pages; the job page's progress and download; any role may export."""

from __future__ import annotations

import hashlib
import json
import re
import zipfile

import pytest

from tests.audit.conftest import judge
from tests.factories import make_claim
from verifier.audit_pack import check
from verifier.audit_pack.check import check_pack, render_report
from verifier.models import AuditPackJob, VerificationJob
from verifier.services.ingest_create import SourceUpload, ingest_job_create

pytestmark = pytest.mark.django_db


@pytest.fixture
def packs_dir(settings, tmp_path):
    settings.SPANPROOF_AUDIT_PACK_DIR = tmp_path / "packs"
    return settings.SPANPROOF_AUDIT_PACK_DIR


def _hidden(html: str) -> dict[str, str]:
    form = re.search(r'<form method="post" action="/audit/pack/".*?</form>', html, re.S)
    assert form, "no audit-pack button"
    fields = dict(re.findall(r'type="hidden" name="(\w+)" value="([^"]*)"', form.group(0)))
    fields.pop("csrfmiddlewaretoken")
    return fields


def test_the_claim_list_button_carries_the_current_filter(auditor_client, supported_claim):
    html = auditor_client.get("/audit/claims/?state=supported&q=Sediment").content.decode()
    assert _hidden(html) == {"scope": "claims", "state": "supported", "q": "Sediment"}


def test_the_source_trace_and_job_pages_have_the_button(
    auditor_client, admin_client_ws, workspace, source, supported_claim
):
    html = auditor_client.get(f"/audit/sources/{source.pk}/").content.decode()
    assert _hidden(html) == {"scope": "source", "source": source.ref}

    trace_id = admin_client_ws.post(
        "/connect/v1/retrieve", {"query": "sediment"}, content_type="application/json"
    ).json()["trace_id"]
    html = auditor_client.get(f"/audit/traces/{trace_id}/").content.decode()
    assert _hidden(html) == {"scope": "trace", "trace": trace_id}

    job = ingest_job_create(workspace=workspace, sources=[SourceUpload(ref="source:q", text="T.")])
    html = auditor_client.get(f"/ingest/jobs/{job.pk}/").content.decode()
    assert _hidden(html) == {"scope": "ingest_job", "job": str(job.pk)}

    verify = VerificationJob.objects.create(workspace=workspace)
    html = auditor_client.get(f"/verify/jobs/{verify.pk}/").content.decode()
    assert _hidden(html) == {"scope": "verification_job", "job": str(verify.pk)}


def test_an_auditor_exports_a_filtered_pack_and_downloads_it(
    auditor_client, source, supported_claim, packs_dir, tmp_path, django_capture_on_commit_callbacks
):
    other = make_claim(source, "Salt marsh grasses trap silt.")
    judge(other, label="abstained", confidence=0.0)
    with django_capture_on_commit_callbacks(execute=True):
        response = auditor_client.post("/audit/pack/", {"scope": "claims", "state": "supported"})
    job = AuditPackJob.objects.get()
    assert response.status_code == 302 and response["Location"] == f"/audit/pack/jobs/{job.pk}/"
    page = auditor_client.get(response["Location"]).content.decode()
    assert "Succeeded" in page and f"/audit/pack/jobs/{job.pk}/download" in page
    assert job.exported_by == {"role": "auditor"}
    download = auditor_client.get(f"/audit/pack/jobs/{job.pk}/download")
    pack = tmp_path / "console.zip"
    pack.write_bytes(b"".join(download.streaming_content))
    report = check_pack(pack)
    assert report.ok, render_report(report)
    with zipfile.ZipFile(pack) as archive:
        ids = [json.loads(line)["id"] for line in archive.read(check.CLAIMS_FILE).splitlines()]
    assert ids == [supported_claim.public_id]
    # the page shows the key to pin
    key = job.workspace.signing_key.public_key
    assert f"--public-key {key}" in page
    # and a checker to trust: its download outside the pack, and its SHA-256 to compare
    # the pack's copy with (auditor walk M2)
    checker = auditor_client.get("/connect/v1/audit-pack/checker")
    assert checker.status_code == 200
    digest = hashlib.sha256(checker.content).hexdigest()
    assert 'href="/connect/v1/audit-pack/checker"' in page
    assert f"sha256sum pack/check.py    # must print {digest}" in page
    with zipfile.ZipFile(pack) as archive:
        assert hashlib.sha256(archive.read(check.CHECKER_FILE)).hexdigest() == digest


def test_a_running_job_page_polls_and_stops_when_done(auditor_client, workspace):
    job = AuditPackJob.objects.create(
        workspace=workspace, scope={"scope": "claims"}, status="running", total=10, done=4
    )
    page = auditor_client.get(f"/audit/pack/jobs/{job.pk}/").content.decode()
    assert 'hx-trigger="every 1s"' in page and "4 / 10 claims written" in page
    job.status = "failed"
    job.error = "boom"
    job.save()
    response = auditor_client.get(f"/audit/pack/jobs/{job.pk}/", headers={"HX-Request": "true"})
    assert response.status_code == 286  # htmx: stop polling
    assert "The export failed: boom" in response.content.decode()
    assert auditor_client.get(f"/audit/pack/jobs/{job.pk}/download").status_code == 404


@pytest.mark.parametrize(
    ("form", "message"),
    [
        ({"scope": "source"}, "A source pack needs the source"),
        ({"scope": "claims", "state": "bogus"}, "state: &quot;bogus&quot; is not a valid choice"),
        ({"scope": "claims", "quality": "shiny"}, "quality: &quot;shiny&quot; is not a valid"),
        ({"scope": "claims", "job": "seven"}, "job: A valid integer is required"),
    ],
)
def test_a_bad_scope_is_a_message_and_no_job(auditor_client, form, message):
    response = auditor_client.post("/audit/pack/", form, follow=True)
    assert message in response.content.decode()
    assert not AuditPackJob.objects.exists()


def test_blank_filters_are_filters_not_set(auditor_client):
    response = auditor_client.post("/audit/pack/", {"scope": "claims", "state": "", "q": " "})
    job = AuditPackJob.objects.get()
    assert response["Location"] == f"/audit/pack/jobs/{job.pk}/"
    assert job.scope == {"scope": "claims"}


def test_another_workspaces_job_is_a_404(auditor_client, other_workspace):
    job = AuditPackJob.objects.create(workspace=other_workspace, scope={"scope": "claims"})
    assert auditor_client.get(f"/audit/pack/jobs/{job.pk}/").status_code == 404
    assert auditor_client.get(f"/audit/pack/jobs/{job.pk}/download").status_code == 404


@pytest.mark.parametrize(
    ("scope", "message"),
    [
        ("ingest_job", "An ingest job pack needs the job&#x27;s id."),
        ("verification_job", "A verification job pack needs the job&#x27;s id."),
    ],
)
def test_a_job_scope_without_its_id_is_a_message_in_good_english(auditor_client, scope, message):
    response = auditor_client.post("/audit/pack/", {"scope": scope, "job": ""}, follow=True)
    assert message in response.content.decode()
    assert not AuditPackJob.objects.exists()


def test_the_job_page_gives_its_scope_in_words_not_codes(auditor_client, source, packs_dir):
    """The page said "Claims (reason=human_supported)": the claim list's field labels and
    the reason's label now, as the claim list shows them."""
    response = auditor_client.post(
        "/audit/pack/", {"scope": "claims", "reason": "human_supported", "q": "silt", "job": "7"}
    )
    job = AuditPackJob.objects.get()
    page = auditor_client.get(response["Location"]).content.decode()
    assert (
        "<p>Claims (Reason: Confirmed by a reviewer, Ingest job: 7, Text: “silt”): the claims,"
        in page
    )
    assert "reason=" not in page and "human_supported" not in page.split("<form")[0]
    # what the export reads is still the codes
    assert job.scope["reason"] == "human_supported"
