"""An empty review queue with no filter says why, in words true of the workspace: nothing
uploaded yet (with the way to upload for those who may), ingest jobs still on their way,
or every claim decided; with a filter, that nothing matches it. It said "Nothing to
review for this filter." in every case, with no filter set."""

from __future__ import annotations

import html
import re

import pytest

from tests.review.conftest import queue_claim
from verifier.models import IngestJob, IngestStatus

pytestmark = pytest.mark.django_db


def _empty_state(client, query: str = "") -> str:
    page = client.get(f"/review/{query}").content.decode()
    found = re.search(r'<p class="empty">(.*?)</p>', page, re.S)
    assert found is not None, "the queue shows its empty state"
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", found.group(1))).split())


def test_a_new_workspace_says_nothing_was_uploaded(reviewer_client, auditor_client):
    assert _empty_state(reviewer_client) == (
        "Nothing has been uploaded to this workspace yet: upload the first sources ."
    )
    page = reviewer_client.get("/review/").content.decode()
    assert 'href="/ingest/">upload the first sources</a>' in page
    assert "once a reviewer or an admin uploads sources" in _empty_state(auditor_client)


def test_running_jobs_are_named(reviewer_client, workspace):
    IngestJob.objects.create(workspace=workspace, status=IngestStatus.RUNNING)
    assert _empty_state(reviewer_client).startswith(
        "Nothing to review yet: 1 ingest job still running."
    )
    IngestJob.objects.create(workspace=workspace, status=IngestStatus.QUEUED)
    assert "2 ingest jobs still running" in _empty_state(reviewer_client)


def test_a_workspace_whose_claims_are_all_decided_says_so(reviewer_client, source):
    queue_claim(source, "supported")
    assert _empty_state(reviewer_client) == (
        "Nothing waits for review: every claim in this workspace is decided."
    )


def test_a_filter_that_matches_nothing_says_so(reviewer_client, source):
    queue_claim(source, "supported")
    assert _empty_state(reviewer_client, "?origin=api").startswith(
        "Nothing to review for this filter."
    )
