from __future__ import annotations

import pytest

from tests.verifier.pipeline.conftest import DOC_A, unstarted_job
from verifier.models import (
    Claim,
    ClaimRelation,
    EvidenceBinding,
    IngestItem,
    IngestStatus,
    SourceSentence,
    SourceVersion,
    Verdict,
)
from verifier.services.ingest import STAGE_ORDER, ingest_stage_run
from verifier.services.ingest_create import (
    ClaimUpload,
    IngestInputError,
    SourceUpload,
    ingest_job_create,
)


def _rows(job) -> dict[str, int]:
    from verifier.models import Entity, EntityRelation

    claims = Claim.objects.filter(workspace=job.workspace)
    return {
        "claims": claims.count(),
        "versions": SourceVersion.objects.filter(source__workspace=job.workspace).count(),
        "relations": ClaimRelation.objects.filter(workspace=job.workspace).count(),
        "entities": Entity.objects.filter(workspace=job.workspace).count(),
        "entity_edges": EntityRelation.objects.filter(workspace=job.workspace).count(),
        "bindings": EvidenceBinding.objects.filter(claim__in=claims).count(),
        "verdicts": Verdict.objects.filter(claim__in=claims).count(),
        "published": claims.filter(published=True).count(),
        "duplicates": claims.filter(duplicate_of__isnull=False).count(),
        "sentences": SourceSentence.objects.filter(workspace=job.workspace).count(),
    }


def test_job_runs_every_stage_and_publishes_with_a_report(workspace, run_job):
    job = run_job(workspace, label="delta")
    assert job.status == IngestStatus.SUCCEEDED and job.errors == []
    assert job.started_at and job.finished_at
    for stage in STAGE_ORDER:
        entry = job.progress[stage]
        assert entry["done"] == entry["total"] and entry["failed"] == 0, stage
    claims = Claim.objects.filter(ingest_job=job)
    assert claims.count() == 7
    assert not claims.filter(published=False).exists()
    assert not claims.filter(embedding__isnull=True).exists()
    assert not claims.filter(quality="").exists()
    report = job.quality_report
    assert report["claims"] == 7
    assert set(report["quality"]["g2"]) >= {"passed", "shortfalls"}
    assert [f["name"] for f in report["trust"]["factors"]] == [
        "embedding_coverage",
        "verification_coverage",
        "orphan_rate",
        "vector_index",
        "relation_health",
        "issue_penalty",
    ]
    assert 0 <= report["trust"]["score"] <= 100
    # the two copies of the marsh-grass sentence are grouped as near-duplicates
    assert report["duplicates"] == 1
    dup = claims.get(duplicate_of__isnull=False)
    assert "grasses trap silt" in dup.text and "grasses trap silt" in dup.duplicate_of.text
    # "was built in 1871" vs "was not built in 1871" share Halden Point: contradicts
    assert ClaimRelation.objects.filter(workspace=workspace, kind="contradicts").exists()


def test_claims_stay_unpublished_until_store(workspace):
    job = ingest_job_create(
        workspace=workspace, sources=[SourceUpload(ref="source:d", text=DOC_A)], start=False
    )
    for stage in STAGE_ORDER[:-1]:
        ingest_stage_run(job_id=job.pk, stage=stage)
        assert not Claim.objects.filter(ingest_job=job, published=True).exists(), stage
    ingest_stage_run(job_id=job.pk, stage=STAGE_ORDER[-1])
    job.refresh_from_db()
    assert job.status == IngestStatus.SUCCEEDED
    assert Claim.objects.filter(ingest_job=job, published=False).count() == 0


def _planner_row_counts(models) -> dict[str, float]:
    from django.db import connection

    tables = [m._meta.db_table for m in models]
    with connection.cursor() as cursor:
        cursor.execute("SELECT relname, reltuples FROM pg_class WHERE relname = ANY(%s)", [tables])
        return dict(cursor.fetchall())


def _keep_autovacuum_out(models) -> None:
    """Autovacuum's own ANALYZE sees none of this test's uncommitted rows, and it writes
    the row counts in place: one that ran over a table at the same time as the store's
    would put the old count back. Its lock conflicts with this one, held until the test's
    transaction rolls back, so it waits (or gives up) instead."""
    from django.db import connection

    tables = ", ".join(connection.ops.quote_name(m._meta.db_table) for m in models)
    with connection.cursor() as cursor:
        cursor.execute(f"LOCK TABLE {tables} IN SHARE UPDATE EXCLUSIVE MODE")


def _analyze(models) -> None:
    from django.db import connection

    with connection.cursor() as cursor:
        for m in models:
            cursor.execute(f"ANALYZE {connection.ops.quote_name(m._meta.db_table)}")


def test_store_refreshes_the_planner_statistics_of_the_tables_the_job_filled(workspace):
    """The job's rows are uncommitted here, so autovacuum cannot have counted them: only
    the store stage's own ANALYZE brings the planner's row counts up to date."""
    from verifier.services.ingest_store import FILLED_TABLES

    _keep_autovacuum_out(FILLED_TABLES)
    # The counts an earlier test's rows left (its ANALYZE, or autovacuum's, before its rows
    # were deleted) could happen to be this job's: counted now, before the job, they are 0.
    _analyze(FILLED_TABLES)
    job = unstarted_job(workspace)
    for stage in STAGE_ORDER[:-1]:
        ingest_stage_run(job_id=job.pk, stage=stage)
    earlier = [m for m in FILLED_TABLES if m is not SourceSentence]  # store fills that one
    before = {m._meta.db_table: m.objects.count() for m in earlier}
    assert all(before.values())
    assert _planner_row_counts(earlier) != before

    ingest_stage_run(job_id=job.pk, stage=STAGE_ORDER[-1])

    actual = {m._meta.db_table: m.objects.count() for m in FILLED_TABLES}
    assert all(actual.values())
    assert _planner_row_counts(FILLED_TABLES) == actual


def test_each_stage_run_twice_gives_the_same_rows(workspace):
    job = unstarted_job(workspace)
    for stage in STAGE_ORDER[:-1]:
        ingest_stage_run(job_id=job.pk, stage=stage)
        once = _rows(job)
        # a redelivered task before progress was saved: same stage, nothing marked done
        job.refresh_from_db()
        job.progress[stage]["completed"] = []
        type(job).objects.filter(pk=job.pk).update(stage=stage, progress=job.progress)
        IngestItem.objects.filter(job=job, stage=stage).update(status="pending")
        ingest_stage_run(job_id=job.pk, stage=stage)
        assert _rows(job) == once, stage


def test_reingesting_identical_text_adds_nothing(workspace, run_job):
    job = run_job(workspace)
    before = _rows(job)

    again = run_job(workspace)
    assert again.status == IngestStatus.SUCCEEDED
    assert _rows(again) == before  # same text -> same version hash -> no new claims
    assert again.quality_report["claims"] == 0


class SimulatedCrash(BaseException):
    """The worker process dying mid-stage (not an item failure)."""


@pytest.fixture
def flaky_extractor(monkeypatch):
    """The real extractor, made to crash or fail on chosen calls."""
    from verifier.engine import get_extractor
    from verifier.services import ingest_extract

    real = get_extractor()
    plan: dict[str, BaseException] = {}
    calls: list[str] = []

    class Flaky:
        model_id, family = real.model_id, real.family

        def extract(self, text):
            calls.append(text)
            for marker, exc in plan.items():
                if marker in text:
                    raise exc
            return real.extract(text)

    monkeypatch.setattr(ingest_extract, "get_extractor", lambda: Flaky())
    return plan, calls


def test_crash_mid_stage_resumes_without_loss_or_duplicates(workspace, flaky_extractor):
    plan, calls = flaky_extractor
    job = unstarted_job(workspace)
    plan["Fishing boats"] = SimulatedCrash()
    with pytest.raises(SimulatedCrash):
        ingest_stage_run(job_id=job.pk, stage="extract")
    job.refresh_from_db()
    assert job.progress["extract"]["done"] == 1 and job.stage == "extract"
    first = Claim.objects.filter(ingest_job=job).count()
    assert first == 4
    plan.clear()
    calls.clear()
    ingest_stage_run(job_id=job.pk, stage="extract")  # the redelivered task
    job.refresh_from_db()
    assert len(calls) == 1  # the finished source was not extracted again
    assert job.progress["extract"]["done"] == 2 and job.stage == "relate"
    assert Claim.objects.filter(ingest_job=job).count() == 7


def test_a_failing_item_is_recorded_and_the_rest_go_on(workspace, run_job, flaky_extractor):
    plan, _ = flaky_extractor
    plan["Fishing boats"] = ValueError("extractor returned garbage")
    job = run_job(workspace)
    assert job.status == IngestStatus.SUCCEEDED
    assert job.progress["extract"] == {
        **job.progress["extract"],
        "done": 1,
        "total": 2,
        "failed": 1,
    }
    [error] = job.errors
    assert error["stage"] == "extract" and "garbage" in error["error"]
    assert error["item"].startswith("version:")
    assert Claim.objects.filter(ingest_job=job, published=True).count() == 4
    assert job.quality_report["failed_items"] == 1


def test_cancel_stops_between_stages_and_publishes_nothing(workspace):
    from verifier.services.ingest import ingest_job_cancel

    job = ingest_job_create(
        workspace=workspace, sources=[SourceUpload(ref="source:a", text=DOC_A)], start=False
    )
    assert ingest_stage_run(job_id=job.pk, stage="extract") == "relate"
    assert ingest_job_cancel(job=job)
    assert ingest_stage_run(job_id=job.pk, stage="relate") is None
    job.refresh_from_db()
    assert job.status == IngestStatus.CANCELLED and job.finished_at
    assert not ingest_job_cancel(job=job)
    assert not Claim.objects.filter(ingest_job=job, published=True).exists()


def test_imported_claims_skip_extraction_and_bind(workspace, run_job):
    from tests.factories import make_source

    make_source(workspace, ref="source:delta", text=DOC_A)
    job = run_job(
        workspace,
        docs={},
        sources=[],
        claims=[
            ClaimUpload(
                source_ref="source:delta",
                text="Sediment settles where the current slows.",
                quote="Sediment settles where the current slows near Halden Point.",
            ),
            ClaimUpload(source_ref="source:delta", text="The delta grows in wet years."),
            ClaimUpload(
                source_ref="source:delta",
                text="The lighthouse dates from 1871.",
                legacy_verdict="affirmed",
            ),
        ],
    )
    assert job.status == IngestStatus.SUCCEEDED
    claims = {c.text: c for c in Claim.objects.filter(ingest_job=job)}
    assert len(claims) == 3 and all(c.origin == "imported" for c in claims.values())
    assert claims["The lighthouse dates from 1871."].legacy_affirmed
    quoted = claims["Sediment settles where the current slows."]
    assert quoted.bindings.get(is_active=True).bound_by == "quote"
    searched = claims["The delta grows in wet years."]
    assert searched.bindings.get(is_active=True).bound_by == "evidence_search"


def test_html_upload_is_stored_as_its_text(workspace, run_job):
    html = (
        "<html><head><style>p{}</style></head><body><h1>Delta</h1>"
        "<p>The Marrow River delta gains land in wet years.</p>"
        "<p>Sediment settles where the current slows &amp; spreads.</p></body></html>"
    )
    job = run_job(workspace, sources=[SourceUpload(ref="source:h", text=html, format="html")])
    version = SourceVersion.objects.get(source__ref="source:h")
    assert "<p>" not in version.text and "p{}" not in version.text
    assert "slows & spreads." in version.text
    assert Claim.objects.filter(ingest_job=job).count() == 2


@pytest.mark.parametrize(
    ("kwargs", "code"),
    [
        ({}, "empty_upload"),
        ({"sources": [SourceUpload(ref="source:x", text="   ")]}, "empty_text"),
        (
            {"claims": [ClaimUpload(source_ref="source:nope", text="A claim here.")]},
            "unknown_source",
        ),
    ],
)
def test_bad_uploads_are_rejected(workspace, kwargs, code):
    with pytest.raises(IngestInputError) as err:
        ingest_job_create(workspace=workspace, **kwargs)
    assert err.value.code == code


def test_store_verifies_the_jobs_relations_once(workspace, run_job):
    """Seed 004: every relation of the job gets one logged SR-MKG / VoG decision before
    publishing; only accepted ones feed graph expansion."""
    from verifier.models import RelationDecision

    job = run_job(workspace, label="delta")
    relations = ClaimRelation.objects.filter(workspace=workspace)
    assert relations.exists()
    assert not relations.filter(verification="pending").exists()
    decided = RelationDecision.objects.filter(workspace=workspace)
    assert decided.count() == relations.count()
    assert set(decided.values_list("relation_id", flat=True)) == set(
        relations.values_list("pk", flat=True)
    )
    from verifier.services.ingest_store import ingest_job_store

    ingest_job_store(job=job)  # a redelivered store decides nothing twice
    assert RelationDecision.objects.filter(workspace=workspace).count() == relations.count()


def test_the_quality_report_writes_its_time_as_the_api_does(workspace, run_job):
    """``2026-11-28T19:52:11.107Z``, as every API time (a webhook's report carried
    ``+00:00`` with microseconds)."""
    import re

    report = run_job(workspace).quality_report
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", report["generated_at"])
