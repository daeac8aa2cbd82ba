"""Store stage: publish the job's claims and index the sentences of its source versions
(``verifier.services.sentence_index``); then, once that item is marked done, compute
and persist the quality report and trust score, mark the job succeeded — or
``degraded`` when claims were left with coverage gaps (the judge was unreachable,
crashed or omitted them), with a warning that gives their count and causes, or when
extraction failed on every source (a warning that gives the first error) — and queue
its webhooks.

Claims become visible to retrieval only here (``published``); retrieval still applies
its own gates (state, duplicates, trust). The report is
``{"quality": quality_report(...).to_dict(), "trust": trust_score(...).to_dict(), ...}``.
High-severity issues for the trust score are the job's failed items plus its claims
that ended ``contradicted``. Webhooks are queued only by the run that moves the job
from running to succeeded, so a redelivered store task sends nothing twice.
"""

from __future__ import annotations

from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Final

from django.db import connection, transaction
from django.utils import timezone

from verifier import vocabulary
from verifier.engine import get_judge
from verifier.models import (
    Claim,
    ClaimRelation,
    EvidenceBinding,
    IngestJob,
    IngestStage,
    IngestStatus,
    SourceSentence,
    Verdict,
)
from verifier.scoring.quality import quality_report
from verifier.scoring.trust import trust_score
from verifier.selectors.claims import claims_state_counts
from verifier.selectors.envelopes import iso_millis
from verifier.selectors.ingest import (
    contradicted_count,
    extract_failures,
    ingest_coverage_gap_causes,
    ingest_quality_counts,
    ingest_trust_inputs,
    job_claims,
    job_notices,
)
from verifier.selectors.rules import rule_set_active
from verifier.services.relation_verify import relations_verify_pending
from verifier.services.sentence_index import source_sentences_index
from verifier.services.webhooks import webhook_deliveries_queue


def _stage_complete(job: IngestJob, stage: str) -> bool:
    entry = job.progress.get(stage) or {}
    return entry.get("total") is not None and entry.get("done") == entry.get("total")


def _rules_used(job: IngestJob) -> list[dict[str, Any]]:
    packs = sorted(set(job_claims(job).values_list("source__domain_pack", flat=True)))
    used = []
    for pack in packs:
        rules = rule_set_active(workspace=job.workspace, domain_pack=pack)
        used.append(
            {
                "domain_pack": pack,
                "rule_set": rules.label,
                "rule_set_id": rules.rule_set.pk if rules.rule_set else None,
                "policy": rules.policy,
            }
        )
    return used


def ingest_job_report(*, job: IngestJob) -> dict[str, Any]:
    """The job's quality report document (pure arithmetic over counted rows)."""
    counts = ingest_quality_counts(job, remediated=_stage_complete(job, IngestStage.REMEDIATE))
    failed_items = len(job.errors)
    trust = trust_score(
        ingest_trust_inputs(job, high_severity_issues=failed_items + contradicted_count(job))
    )
    return {
        "job": job.pk,
        "quality": quality_report(counts).to_dict(),
        "trust": trust.to_dict(),
        "claims": job_claims(job).count(),
        # The job's claims by state when it finished (``claims_state_counts``, the same
        # definition as the home page's); the console shows them beside the counts now.
        "states": claims_state_counts(job_claims(job)),
        "duplicates": job_claims(job).filter(duplicate_of__isnull=False).count(),
        "failed_items": failed_items,
        "rule_sets": _rules_used(job),
        "notices": job_notices(job=job),
        "generated_at": iso_millis(timezone.now()),  # as the API writes every time
    }


# Publishing inserts every claim into the HNSW index (about 0.8 ms a claim here, most of
# the store stage), one claim after another within a statement. A large job is published
# in PUBLISH_WORKERS contiguous id ranges on as many connections at once (the index
# takes concurrent inserts), each range committing on its own: a crash leaves some
# ranges published and the rerun publishes the rest; the job succeeds only after all.
PUBLISH_WORKERS: Final = 2
PUBLISH_PARALLEL_MIN: Final = 2000


def _publish_range(job_id: int, first: int, last: int) -> int:
    try:
        rows = Claim.objects.filter(
            ingest_job_id=job_id, published=False, pk__gte=first, pk__lte=last
        )
        return rows.update(published=True)
    finally:
        connection.close()  # this thread's own connection


def _publish(job: IngestJob) -> int:
    """Make the job's claims visible to retrieval; returns how many were published."""
    pending = job_claims(job).filter(published=False)
    # Inside a caller's transaction other connections would not see its rows.
    if transaction.get_connection().in_atomic_block:
        return pending.update(published=True)
    ids = list(pending.order_by("pk").values_list("pk", flat=True))
    if len(ids) < PUBLISH_PARALLEL_MIN:
        return pending.update(published=True)
    size = -(-len(ids) // PUBLISH_WORKERS)
    ranges = [(ids[i], ids[min(i + size, len(ids)) - 1]) for i in range(0, len(ids), size)]
    with ThreadPoolExecutor(max_workers=len(ranges)) as pool:
        return sum(pool.map(lambda r: _publish_range(job.pk, *r), ranges))


# The tables a job fills. Autovacuum analyzes a table only after a tenth of it changed,
# and then only when its daemon gets round to it; until then the planner believes the
# job's thousands of new rows are not there, and the report's counts (EXISTS and
# latest-verdict subqueries per claim) were planned as nested loops over all of them:
# 5.7 s for the 11,656 claims of ``bench/ingest.py``, 0.24 s once analyzed. ANALYZE
# samples a bounded number of rows, so its cost does not grow with the table. A table
# that autovacuum (or another job's store) is analyzing right now is skipped, not waited
# for: its statistics are being refreshed anyway.
FILLED_TABLES: Final = (Claim, EvidenceBinding, Verdict, ClaimRelation, SourceSentence)


def _analyze_filled_tables() -> None:
    # The runtime role owns no table, so it cannot ANALYZE one itself (PostgreSQL 16
    # skips it with a warning); ``spanproof_analyze`` (migration 0008) runs the
    # statement as the tables' owner.
    with connection.cursor() as cursor:
        for model in FILLED_TABLES:
            cursor.execute("SELECT spanproof_analyze(%s::regclass)", [model._meta.db_table])


COVERAGE_GAP_CAUSES_SHOWN: Final = 5


def _extraction_warnings(job: IngestJob) -> list[dict[str, Any]]:
    """The job was to extract claims from its sources and the extractor failed on every
    one (it was unreachable or answered an error): the job read none of its text. A job
    whose extraction failed on some sources only goes on with the rest (``job.errors``
    lists the others)."""
    sources = job.payload.get("sources", []) if job.payload.get("extract", True) else []
    failed = extract_failures(job)
    if not sources or len(failed) < len(sources):
        return []
    first = failed[min(failed)]
    return [
        {
            "code": "extraction_failed",
            "message": (
                f"0 of {vocabulary.counted(len(sources), 'source')} extracted: {first[:200]}"
            ),
            "count": len(failed),
            "causes": [
                {"cause": cause[:300], "count": count}
                for cause, count in Counter(failed.values()).most_common(COVERAGE_GAP_CAUSES_SHOWN)
            ],
        }
    ]


def job_warnings(*, job: IngestJob) -> list[dict[str, Any]]:
    """What keeps a finished job from being a plain success: an extraction that failed
    on every source (nothing of the text was read), and claims the judge never judged
    (coverage gaps). Empty when both went through."""
    warnings = _extraction_warnings(job)
    causes = ingest_coverage_gap_causes(job)
    gaps = sum(causes.values())
    if not gaps:
        return warnings
    top = next(iter(causes))
    return [
        *warnings,
        {
            "code": "coverage_gaps",
            "message": (
                f"{vocabulary.counted(gaps, 'claim')} {'was' if gaps == 1 else 'were'} not "
                f"judged (coverage gaps); most common cause: {top[:200]}"
            ),
            "count": gaps,
            "causes": [
                {"cause": cause[:300], "count": count}
                for cause, count in list(causes.items())[:COVERAGE_GAP_CAUSES_SHOWN]
            ],
        },
    ]


def ingest_job_store(*, job: IngestJob) -> None:
    """The store stage's one item: publish, then refresh the planner statistics of the
    tables the job filled. The job's new claim relations are verified first (seed 004:
    one SR-MKG / VoG cycle, now that the claims' spans are bound), so only accepted ones
    feed graph expansion. The sentences of the job's source versions are indexed after
    publishing (a sentence equal to an embedded claim's text takes its vector; spans
    already indexed are skipped on a rerun). Every step is idempotent: a rerun after a
    crash publishes and decides nothing twice. The job is finished afterwards, by
    :func:`ingest_job_finish`, once the item is marked done."""
    relations_verify_pending(
        workspace=job.workspace, judge=get_judge(), from_claims=job_claims(job)
    )
    _publish(job)
    source_sentences_index(
        version_pks=[s["version_id"] for s in job.payload.get("sources", []) if s.get("version_id")]
    )
    _analyze_filled_tables()


def ingest_job_finish(*, job: IngestJob) -> bool:
    """Report and finish a job whose every item is done: ``succeeded``, or ``degraded``
    with its warnings (``job_warnings``), and its webhooks queued. Called inside the
    transaction that holds the job's row lock and found the last stage's items all done
    (``services.ingest``), so a job is never seen finished with an item still open; only
    the call that moves the job from running finishes it (True)."""
    current = IngestJob.objects.get(pk=job.pk)  # a fresh row: progress and errors as stored
    report = ingest_job_report(job=current)
    warnings = job_warnings(job=current)
    finished = IngestJob.objects.filter(pk=job.pk, status=IngestStatus.RUNNING).update(
        quality_report=report,
        warnings=warnings,
        status=IngestStatus.DEGRADED if warnings else IngestStatus.SUCCEEDED,
        finished_at=timezone.now(),
    )
    if finished:
        current.refresh_from_db()
        webhook_deliveries_queue(job=current, report=report)
    return bool(finished)
