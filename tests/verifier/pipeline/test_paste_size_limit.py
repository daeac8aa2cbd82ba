"""A pasted text is held to a source's limit, 5,000,000 characters, as an uploaded file
(5 MB) and ``POST /connect/v1/sources`` are. Finding: the upload form's paste field had no
limit, so 5,000,001 pasted characters were stored as a source the API would refuse."""

from __future__ import annotations

from django.conf import settings

from verifier.models import IngestJob, Source
from verifier.pipeline.forms import IngestUploadForm

LIMIT = settings.SOURCE_TEXT_MAX_CHARS


def _text(length: int) -> str:
    return ("Tide " * (length // 5 + 1))[:length]


def test_a_paste_over_the_limit_is_the_fields_error_naming_it(reviewer_client):
    response = reviewer_client.post(
        "/ingest/", {"text": _text(LIMIT + 1), "format": "text", "title": "Too long"}
    )
    assert response.status_code == 400
    page = response.content.decode()
    assert "The pasted text is 5,000,001 characters long" in page
    assert "a source holds at most 5,000,000 characters" in page
    assert not IngestJob.objects.exists() and not Source.objects.exists()


def test_a_paste_at_the_limit_is_accepted():
    form = IngestUploadForm({"text": _text(LIMIT), "format": "text", "title": "Just fits"})
    assert form.is_valid(), form.errors
    [upload] = form.cleaned_data["uploads"]
    assert len(upload.text) == LIMIT
