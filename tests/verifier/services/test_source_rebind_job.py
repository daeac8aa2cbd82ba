"""A new version written through ``POST /connect/v1/sources`` has its source's earlier
claims judged again by an ingest job queued on commit
(``services.ingest_create.source_upsert_queue_rebind``), not within the request: a large
source's claims take minutes to judge (500: ~95 s), past the web worker's timeout."""

from __future__ import annotations

import pytest

from tests.factories import make_binding, make_claim, make_source
from verifier.models import EvidenceBinding, IngestItem, IngestStatus, StateEvent, Verdict
from verifier.services.ingest_create import source_upsert_queue_rebind

SENTENCES = [
    "Sediment settles where the current slows near Halden Point.",
    "Salt marsh grasses trap silt at high tide along the Marrow River.",
    "The Halden Point lighthouse was built in 1871 by the harbour board.",
]
TEXT = " ".join(SENTENCES)


def _source_with_claims(workspace):
    source = make_source(workspace, ref="source:delta", text=TEXT)
    for sentence in SENTENCES:
        make_binding(make_claim(source, sentence, published=True), sentence)
    return source


def _bound_in(version) -> int:
    return EvidenceBinding.objects.filter(source_version=version, is_active=True).count()


@pytest.mark.django_db
def test_a_new_version_queues_the_rejudging_and_the_job_does_it(
    workspace, django_capture_on_commit_callbacks
):
    source = _source_with_claims(workspace)
    verdicts = Verdict.objects.filter(claim__source=source).count()

    with django_capture_on_commit_callbacks(execute=False) as queued:
        write = source_upsert_queue_rebind(
            workspace=workspace,
            ref=source.ref,
            text=TEXT + " Fishing boats leave before dawn.",
            door_name="sources API",
        )

    job = write.rebind_job
    assert write.created_version and job is not None and queued
    assert job.status == IngestStatus.QUEUED
    assert job.label == "sources API: new version v2 of source:delta"
    # nothing was judged within the call: the claims wait for the job
    assert _bound_in(write.version) == 0
    assert Verdict.objects.filter(claim__source=source).count() == verdicts

    with django_capture_on_commit_callbacks(execute=True):
        for send in queued:  # the worker runs the job (tasks eager), stage after stage
            send()

    job.refresh_from_db()
    assert job.status == IngestStatus.SUCCEEDED, job.errors
    assert list(
        IngestItem.objects.filter(job=job, stage="extract").values_list("key", flat=True)
    ) == [f"rebind:{write.version.pk}"]
    assert _bound_in(write.version) == len(SENTENCES)
    assert Verdict.objects.filter(claim__source=source).count() > verdicts
    causes = StateEvent.objects.filter(claim__source=source).values_list("cause", flat=True)
    assert any(f"sources API: new version v2 (ingest job #{job.pk})" in c for c in causes)


@pytest.mark.django_db
def test_no_job_for_a_new_source_or_an_unchanged_text(
    workspace, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=False) as queued:
        made = source_upsert_queue_rebind(
            workspace=workspace, ref="source:new", text=TEXT, door_name="sources API"
        )
        same = source_upsert_queue_rebind(
            workspace=workspace, ref="source:new", text=TEXT, door_name="sources API"
        )
    assert made.created_source and made.rebind_job is None
    assert not same.created_version and same.rebind_job is None
    assert queued == []
