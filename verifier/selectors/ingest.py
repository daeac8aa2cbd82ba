"""Reads for ingest jobs: scoped lookups, stage item keys, and report inputs."""

from __future__ import annotations

from collections import Counter
from datetime import datetime, timedelta
from typing import Any, Final

from django.conf import settings
from django.db import connection
from django.db.models import Count, Exists, OuterRef, Q, QuerySet, Subquery
from django.db.models.functions import Coalesce
from django.http import Http404

from verifier.models import (
    Claim,
    ClaimOrigin,
    ClaimRelation,
    ClaimStateChoices,
    EvidenceBinding,
    IngestJob,
    IngestStage,
    IngestStatus,
    SourceVersion,
    Verdict,
    Workspace,
)
from verifier.models.ingest import STAGE_ORDER
from verifier.scoring.quality import QualityCounts, quality_class
from verifier.scoring.trust import TrustInputs
from verifier.states import NO_BOUND_EVIDENCE_NOTE, REMEDIATION_EXCLUSION_REASON, StateReason

CLAIM_INDEX_NAME: Final = "claim_embedding_hnsw"


def ingest_job_list(*, workspace: Workspace) -> QuerySet[IngestJob]:
    return IngestJob.objects.filter(workspace=workspace).order_by("-created_at", "-id")


def ingest_job_get(*, workspace: Workspace, job_id: int) -> IngestJob:
    """The job, or the same 404 for missing and other-workspace jobs."""
    job = IngestJob.objects.filter(workspace=workspace, pk=job_id).first()
    if job is None:
        raise Http404("No such ingest job.")
    return job


def ingest_job_is_finished(job: IngestJob) -> bool:
    return job.status not in (IngestStatus.QUEUED, IngestStatus.RUNNING)


def job_claims(job: IngestJob) -> QuerySet[Claim]:
    return Claim.objects.filter(ingest_job=job)


# --- stage items: stable keys over claim-id ranges ----------------------------------


def claim_range_keys(job: IngestJob, batch: int) -> list[str]:
    ids = list(job_claims(job).order_by("pk").values_list("pk", flat=True))
    return [
        f"claims:{chunk[0]}-{chunk[-1]}"
        for chunk in (ids[i : i + batch] for i in range(0, len(ids), batch))
    ]


def claims_in_range(job: IngestJob, key: str) -> QuerySet[Claim]:
    first, last = (int(x) for x in key.removeprefix("claims:").split("-"))
    return job_claims(job).filter(pk__gte=first, pk__lte=last).order_by("pk")


# --- report inputs ------------------------------------------------------------------


def _latest_model_label(field: str = "label") -> Subquery:
    """``field`` of the claim's latest model verdict (a subquery)."""
    latest = Verdict.objects.filter(claim=OuterRef("pk"), reviewer__isnull=True).latest_first()
    return Subquery(latest.values(field)[:1])


def ingest_quality_counts(job: IngestJob, *, remediated: bool) -> QualityCounts:
    claims = job_claims(job).annotate(
        bound=Exists(EvidenceBinding.objects.filter(claim=OuterRef("pk"), is_active=True)),
        latest_label=_latest_model_label(),
    )
    rows = list(claims.values_list("quality", "bound", "latest_label", "state_reason", "state"))
    judged = any(r[2] is not None for r in rows)
    # Each claim's class capped by its state (``quality_class``): never supported unless
    # the claim is.
    classes = Counter(quality_class(r[4], r[0]) for r in rows)
    return QualityCounts(
        supported=classes["supported"],
        weak=classes["weak"],
        unsupported=classes["unsupported"],
        coverage_gaps=(sum(1 for r in rows if r[2] == "coverage_gap") if judged else None),
        remediation_drops=(
            job_claims(job).filter(exclusion_reason=REMEDIATION_EXCLUSION_REASON).count()
            if remediated
            else None
        ),
        bound=sum(1 for r in rows if r[1]),
        unbound=sum(1 for r in rows if not r[1]),
        no_evidence=sum(1 for r in rows if r[3] == StateReason.NO_EVIDENCE),
    )


def vector_index_status() -> tuple[bool, bool]:
    """(present, used): the HNSW index exists, and the nearest-neighbour query that
    retrieval runs is planned on it when the planner is told to avoid a full scan and
    a sort (with few rows a planner rightly prefers either, which says nothing: with
    fresh statistics of a small table it picks another index and sorts)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1 FROM pg_indexes WHERE indexname = %s", [CLAIM_INDEX_NAME])
        present = cursor.fetchone() is not None
    if not present:
        return False, False
    probe = "[" + ",".join(["0"] * 383 + ["1"]) + "]"
    from django.db import transaction

    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")
        cursor.execute("SET LOCAL enable_sort = off")
        cursor.execute(
            f"EXPLAIN SELECT id FROM {Claim._meta.db_table} "
            "WHERE published AND embedding IS NOT NULL "
            "ORDER BY embedding <=> %s::vector LIMIT 10",
            [probe],
        )
        plan = "\n".join(row[0] for row in cursor.fetchall())
    return True, CLAIM_INDEX_NAME in plan


def ingest_trust_inputs(job: IngestJob, *, high_severity_issues: int) -> TrustInputs:
    """Counted in the database (the job's claims as subqueries, never as id lists)."""
    claims = job_claims(job)
    job_ids = claims.values("pk")
    relations = ClaimRelation.objects.filter(
        Q(from_claim_id__in=job_ids) | Q(to_claim_id__in=job_ids)
    ).aggregate(
        total=Count("pk"),
        supports=Count("pk", filter=Q(kind="supports")),
        contradicts=Count("pk", filter=Q(kind="contradicts")),
    )
    counts = claims.aggregate(
        total=Count("pk"),
        embedded=Count("pk", filter=Q(embedding__isnull=False)),
        orphans=Count(
            "pk",
            filter=~Q(Exists(ClaimRelation.objects.filter(from_claim=OuterRef("pk"))))
            & ~Q(Exists(ClaimRelation.objects.filter(to_claim=OuterRef("pk")))),
        ),
    )
    # Verified: the judge answered (an abstention included), not a coverage gap and not
    # the abstention recorded locally for a claim with nothing bound, which no judge read
    # (``verifier.states.judge_not_asked``): such a claim is not verification coverage.
    verified = (
        claims.annotate(latest_label=_latest_model_label(), latest_note=_latest_model_label("note"))
        .filter(latest_label__isnull=False)
        .exclude(latest_label="coverage_gap")
        .exclude(latest_label="abstained", latest_note=NO_BOUND_EVIDENCE_NOTE)
        .count()
    )
    present, used = vector_index_status()
    return TrustInputs(
        total_claims=counts["total"],
        embedded_claims=counts["embedded"],
        verified_claims=verified,
        orphan_claims=counts["orphans"],
        vector_index_present=present,
        vector_index_used=used,
        relations=relations["total"],
        supports_relations=relations["supports"],
        contradicts_relations=relations["contradicts"],
        high_severity_issues=high_severity_issues,
    )


def ingest_job_state_counts(job: IngestJob) -> dict[str, int]:
    """The job's claims by state now (``claims_state_counts``, the home page's definition)."""
    from verifier.selectors.claims import claims_state_counts

    return claims_state_counts(job_claims(job))


def contradicted_count(job: IngestJob) -> int:
    return job_claims(job).filter(state=ClaimStateChoices.CONTRADICTED).count()


def job_progress_rows(job: IngestJob) -> list[dict[str, Any]]:
    """One row per stage in pipeline order: done/total/failed and a whole percent.

    The stage a cancelled job stopped at is ``cancelled`` (its items still open were
    not run); for extraction, ``extracted`` also counts the claims it had made: an
    item (a file) counts as done only once the whole file is, so a big file cancelled
    mid-way reads "0 / 1" beside the thousands of claims the job already holds."""
    stopped_at = (job.stage or STAGE_ORDER[0]) if job.status == IngestStatus.CANCELLED else None
    extracted = (
        job_claims(job).filter(origin=ClaimOrigin.EXTRACTED).count()
        if stopped_at == STAGE_ORDER[0]
        else None
    )
    rows = []
    for stage in STAGE_ORDER:
        entry = (job.progress or {}).get(stage) or {}
        done, total = entry.get("done", 0), entry.get("total")
        # Floored, as every progress bar reads (``chunked_percent``): 100 only when done.
        percent = min(100, 100 * done // total) if total else (100 if total == 0 else 0)
        rows.append(
            {
                "stage": stage,
                "done": done,
                "total": total,
                "failed": entry.get("failed", 0),
                "percent": percent,
                "current": job.stage == stage and not ingest_job_is_finished(job),
                "cancelled": stage == stopped_at,
                "extracted": extracted if stage == stopped_at else None,
            }
        )
    return rows


def ingest_coverage_gap_causes(job: IngestJob) -> dict[str, int]:
    """Why the job's claims whose latest judge verdict is a coverage gap got one: the
    verdict note (e.g. ``transport_error: ...``) → how many claims, most frequent first."""
    latest = (
        Verdict.objects.filter(claim__ingest_job=job, reviewer__isnull=True)
        .latest_per_claim()
        .values_list("label", "note")
    )
    causes: dict[str, int] = {}
    for label, note in latest:
        if label == "coverage_gap":
            key = note or "unknown"
            causes[key] = causes.get(key, 0) + 1
    return dict(sorted(causes.items(), key=lambda item: (-item[1], item[0])))


def ingest_jobs_stalled(*, now: datetime) -> QuerySet[IngestJob]:
    """Active jobs whose current stage has not beaten for ``SPANPROOF_JOB_STALE_SECONDS``
    (a queued job counts from its creation): the watchdog's work list, /healthz's count."""
    cutoff = now - timedelta(seconds=settings.SPANPROOF_JOB_STALE_SECONDS)
    return (
        IngestJob.objects.filter(status__in=(IngestStatus.QUEUED, IngestStatus.RUNNING))
        .annotate(beat=Coalesce("heartbeat_at", "created_at"))
        .filter(beat__lt=cutoff)
    )


# ``progress[CANCEL_EXCLUSION]`` of a cancelled job: {excluded, completed, actor_id,
# beat_at}, how far the background exclusion of its unjudged claims went
# (``services.ingest.ingest_job_cancelled_claims_exclude`` writes it).
CANCEL_EXCLUSION: Final = "cancel_exclusion"


def ingest_cancel_exclusions_stalled(*, now: datetime) -> list[IngestJob]:
    """Cancelled jobs whose exclusion of their unjudged claims is unfinished and has not
    moved for ``SPANPROOF_JOB_STALE_SECONDS`` (its worker died, or its message was lost):
    the watchdog sends it again."""
    cutoff = now - timedelta(seconds=settings.SPANPROOF_JOB_STALE_SECONDS)
    jobs = IngestJob.objects.filter(
        status=IngestStatus.CANCELLED, **{f"progress__{CANCEL_EXCLUSION}__completed": False}
    ).only("pk", "progress", "finished_at")
    stalled = []
    for job in jobs:
        beat = (job.progress or {}).get(CANCEL_EXCLUSION, {}).get("beat_at")
        at = datetime.fromisoformat(beat) if beat else job.finished_at
        if at is None or at < cutoff:
            stalled.append(job)
    return stalled


def ingest_cancel_exclusion(job: IngestJob) -> dict[str, Any] | None:
    """How far a cancelled job's exclusion of its unjudged claims went: ``{excluded,
    completed}``, or None when the job was not cancelled (or was cancelled before the
    exclusion ran in the background, all at once)."""
    entry = (job.progress or {}).get(CANCEL_EXCLUSION)
    if job.status != IngestStatus.CANCELLED or not entry:
        return None
    return {"excluded": int(entry.get("excluded", 0)), "completed": bool(entry.get("completed"))}


def extract_failures(job: IngestJob) -> dict[int, str]:
    """The job's source versions whose extraction failed (the extractor raised: it was
    unreachable, answered an error or garbage), by version id, each with its error as
    recorded in ``job.errors``."""
    failed = {}
    for entry in job.errors or []:
        stage, item = entry.get("stage"), str(entry.get("item", ""))
        if stage == IngestStage.EXTRACT and item.startswith("version:"):
            pk = item.removeprefix("version:")
            if pk.isdigit():
                failed[int(pk)] = str(entry.get("error", ""))
    return failed


def job_notices(*, job: IngestJob) -> list[dict[str, str]]:
    """What a person should know about a job that is no failure: each source version
    the job extracted from that ends with no claim at all (the job made none from it,
    and none of the source's earlier claims is bound in it): the extractor read no
    sentence of it as a statement (a text of questions or headings, or in a script the
    offline extractor cannot split into sentences). A version whose extraction failed
    is not one: the extractor read nothing of it, and ``job.errors`` says why."""
    if not job.payload.get("extract", True):
        return []
    failed = extract_failures(job)
    version_ids = [s["version_id"] for s in job.payload.get("sources", [])]
    versions = SourceVersion.objects.filter(pk__in=version_ids).values_list(
        "pk", "source_id", "source__ref"
    )
    bound = set(
        EvidenceBinding.objects.filter(is_active=True, source_version_id__in=version_ids)
        .values_list("source_version_id", flat=True)
        .distinct()
    )
    claimed = set(job_claims(job).values_list("source_id", flat=True).distinct())
    return [
        {
            "code": "no_claims",
            "source": ref,
            "message": f"No claims were found in {ref}: no sentence reads as a statement.",
        }
        for pk, source_id, ref in sorted(versions, key=lambda row: row[2])
        if pk not in bound and source_id not in claimed and pk not in failed
    ]
