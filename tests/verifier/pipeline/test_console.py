from __future__ import annotations

import html

from django.core.files.uploadedfile import SimpleUploadedFile

from tests.verifier.pipeline.conftest import DOC_A
from verifier import vocabulary
from verifier.models import IngestJob, IngestStage, IngestStatus


def test_upload_form_starts_a_job_and_progress_polls_until_done(
    reviewer_client, django_capture_on_commit_callbacks
):
    assert reviewer_client.get("/ingest/").status_code == 200
    upload = SimpleUploadedFile(
        "notes.html", b"<p>The Marrow River delta gains land in wet years.</p>"
    )
    with django_capture_on_commit_callbacks(execute=True):
        response = reviewer_client.post(
            "/ingest/", {"label": "web", "text": DOC_A, "format": "text", "files": [upload]}
        )
    job = IngestJob.objects.get()
    assert response.status_code == 302 and response.url == f"/ingest/jobs/{job.pk}/"
    assert len(job.payload["sources"]) == 2
    page = reviewer_client.get(response.url)
    assert page.status_code == 200 and b"Quality report" in page.content
    partial = reviewer_client.get(response.url, headers={"HX-Request": "true"})
    assert partial.status_code == 286  # finished: htmx stops polling
    assert b"hx-trigger" not in partial.content


def test_running_job_keeps_polling_and_can_be_cancelled(reviewer_client):
    reviewer_client.post("/ingest/", {"text": DOC_A, "format": "text"})
    job = IngestJob.objects.get()
    page = reviewer_client.get(f"/ingest/jobs/{job.pk}/").content.decode()
    # The live status line stays in the page, outside the panel the polls swap inside.
    assert page.index('<p class="job-message" id="job-message" role="status">') < page.index(
        '<section id="job-progress"'
    )
    assert 'hx-trigger="every 1s" hx-swap="innerHTML"' in page
    partial = reviewer_client.get(f"/ingest/jobs/{job.pk}/", headers={"HX-Request": "true"})
    assert partial.status_code == 200  # not 286: the polls go on
    body = partial.content.decode()
    assert 'id="job-progress"' not in body and "aria-live" not in body
    assert f'id="job-message" role="status" hx-swap-oob="innerHTML">Job #{job.pk} queued' in body
    response = reviewer_client.post(f"/ingest/jobs/{job.pk}/cancel/")
    assert response.status_code == 302
    job.refresh_from_db()
    assert job.status == "cancelled"


def test_empty_form_shows_an_error_and_auditors_cannot_upload(reviewer_client, auditor_client):
    response = reviewer_client.post("/ingest/", {"text": "", "format": "text"})
    # refused, as every console form refuses: a 400 with the form and its error
    assert response.status_code == 400 and b"Paste some text" in response.content
    assert auditor_client.get("/ingest/").status_code == 200
    assert auditor_client.post("/ingest/", {"text": DOC_A, "format": "text"}).status_code == 403
    assert not IngestJob.objects.exists()


def test_queued_message_is_gone_once_the_job_has_ended(
    reviewer_client, django_capture_on_commit_callbacks
):
    reviewer_client.post("/ingest/", {"text": DOC_A, "format": "text"})
    job = IngestJob.objects.get()
    running = reviewer_client.get(f"/ingest/jobs/{job.pk}/").content.decode()
    assert f"Job #{job.pk} queued" in running  # the live status line, while it waits
    with django_capture_on_commit_callbacks(execute=True):
        reviewer_client.post("/ingest/", {"text": DOC_A, "format": "text"})
    done = IngestJob.objects.exclude(pk=job.pk).get()
    done.refresh_from_db()
    page = reviewer_client.get(f"/ingest/jobs/{done.pk}/").content.decode()
    assert done.status in ("succeeded", "degraded")
    assert "queued" not in page
    assert f"Job #{done.pk} {done.status}." in page


def test_a_job_with_nothing_validated_shows_trust_and_g2_as_unknown(reviewer_client, workspace):
    from verifier.scoring.quality import QualityCounts, quality_report
    from verifier.scoring.trust import TrustInputs, trust_score

    empty = quality_report(QualityCounts(0, 0, 0, None, None, 0, 0, 0)).to_dict()
    trust = trust_score(TrustInputs(0, 0, 0, 0, False, False, 0, 0, 0, 0)).to_dict()
    job = IngestJob.objects.create(
        workspace=workspace, status="succeeded", quality_report={"quality": empty, "trust": trust}
    )
    html = reviewer_client.get(f"/ingest/jobs/{job.pk}/").content.decode()
    g2 = html.split("G2 quality gate", 1)[1].split("</dd>", 1)[0].split("<dd>", 1)[1]
    score = html.split("<dt>Trust score</dt>", 1)[1].split("</dd>", 1)[0]
    assert "unknown" in g2 and "fail" not in g2
    assert "unknown" in score and "0" not in score


def test_an_unknown_format_is_the_fields_own_error(reviewer_client):
    """It was a KeyError in the form's clean (the field had failed, so it was not in
    cleaned_data): a 500."""
    response = reviewer_client.post("/ingest/", {"text": "Some text.", "format": "exe"})
    assert response.status_code == 400
    assert b"Select a valid choice. exe is not one of the available choices." in response.content
    assert not IngestJob.objects.exists()


def test_a_blank_domain_pack_keeps_an_existing_sources_own():
    """The form no longer fills in ``general``: a source already stored in another pack
    keeps it (``source_upsert`` refuses a different pack), a new one gets ``general``."""
    from verifier.pipeline.forms import IngestUploadForm

    form = IngestUploadForm({"text": "Some text.", "format": "text", "domain_pack": ""})
    assert form.is_valid(), form.errors
    assert [u.domain_pack for u in form.cleaned_data["uploads"]] == [""]
    named = IngestUploadForm({"text": "Some text.", "format": "text", "domain_pack": " legal "})
    assert named.is_valid(), named.errors
    assert [u.domain_pack for u in named.cleaned_data["uploads"]] == ["legal"]


def test_an_uploaded_file_with_a_bom_keeps_it_in_the_text_not_in_the_claim(
    reviewer_client, django_capture_on_commit_callbacks
):
    """The stored text is the file (its hash is the file's), BOM included; the first
    claim and its span start after the BOM, at code point 1 (auditor walk L4)."""
    import hashlib

    from verifier.models import Claim, SourceVersion

    data = "\ufeffThe Marrow River delta gains land in wet years.\n".encode()
    upload = SimpleUploadedFile("bom.txt", data)
    with django_capture_on_commit_callbacks(execute=True):
        reviewer_client.post("/ingest/", {"format": "text", "files": [upload]})
    version = SourceVersion.objects.get()
    assert version.text.startswith("\ufeff")
    assert version.sha256 == hashlib.sha256(data).hexdigest()
    claim = Claim.objects.get()
    assert claim.text == "The Marrow River delta gains land in wet years."
    binding = claim.bindings.get(is_active=True)
    assert (binding.start, binding.end) == (1, 1 + len(claim.text))
    assert binding.quote == claim.text == version.text[binding.start : binding.end]


def test_the_job_page_names_statuses_stages_and_states_in_words(
    reviewer_client, django_capture_on_commit_callbacks
):
    """It showed the codes ("succeeded", "validate", "supported"); now the vocabulary's
    words, each stage's explanation on hover (one table, which the model's choices read)."""
    with django_capture_on_commit_callbacks(execute=True):
        reviewer_client.post("/ingest/", {"text": DOC_A, "format": "text"})
    job = IngestJob.objects.get()
    page = reviewer_client.get(f"/ingest/jobs/{job.pk}/").content.decode()
    assert f'title="{html.escape(vocabulary.explanation("ingest_status", job.status))}">' in page
    assert f">{vocabulary.label('ingest_status', job.status)}</strong>" in page
    validate = vocabulary.term("ingest_stage", "validate")
    assert f'<th scope="row" title="{html.escape(validate.explanation)}">Validate</th>' in page
    assert '<span class="label">Supported</span>' in page or "Unverified</span>" in page
    # the G2 gate says what it holds the job to
    assert "G2 quality gate" in page
    assert "(at least 90 % supported, at most 2 % unsupported)" in page
    listing = reviewer_client.get("/ingest/").content.decode()
    assert f"<td>{vocabulary.label('ingest_status', job.status)}</td>" in listing
    assert IngestStatus.SUCCEEDED.label == vocabulary.label("ingest_status", "succeeded")
    assert IngestStage.REMEDIATE.label == vocabulary.label("ingest_stage", "remediate")
