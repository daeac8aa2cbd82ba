"""The ingest job page: an upload whose text is stored already makes no version and no
claims, and the page says so (not a job of zeros with no reason); each stage's progress
bar is named by its stage."""

from __future__ import annotations

import pytest
from django.urls import reverse

from verifier.services.ingest_create import SourceUpload, ingest_job_create

pytestmark = pytest.mark.django_db

TEXT = "The harbour light was automated in 1991. Its tower is 31 metres tall."


def _job(workspace):
    upload = SourceUpload(ref="source:harbour.txt", title="harbour.txt", text=TEXT)
    return ingest_job_create(workspace=workspace, sources=[upload], start=False)


def test_a_duplicate_upload_says_nothing_new_was_stored(reviewer_client, workspace):
    first = _job(workspace)
    again = _job(workspace)

    page = reviewer_client.get(reverse("ingest:job", args=[again.pk])).content.decode()
    assert 'id="job-unchanged"' in page
    assert "no new version and no new claims" in page and "source:harbour.txt" in page

    page = reviewer_client.get(reverse("ingest:job", args=[first.pk])).content.decode()
    assert 'id="job-unchanged"' not in page


def test_each_progress_bar_is_named_by_its_stage(reviewer_client, workspace):
    job = _job(workspace)
    page = reviewer_client.get(reverse("ingest:job", args=[job.pk])).content.decode()
    bars = page.count("<progress ")
    assert bars and page.count('<progress class="progress" max="100" value="') == bars
    assert page.count('aria-label="Extract: ') == 1
