"""What /healthz reports: database, pgvector, broker, embedding model, stuck jobs.

A failed check says which one failed and the kind of error, never the error's text: a
driver's message names the socket path, host, port or user it tried
(``verifier.outage.check_failure``)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import connection
from django.db.models import QuerySet

from verifier import embeddings
from verifier.outage import check_failure


def _database() -> dict[str, Any]:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT version()")
            (version,) = cursor.fetchone()
        return {"ok": True, "version": version.split(" on ")[0]}
    except Exception as exc:
        return check_failure("the database", exc)


def _pgvector() -> dict[str, Any]:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'")
            row = cursor.fetchone()
        if row is None:
            return {"ok": False, "error": "extension 'vector' is not installed"}
        return {"ok": True, "version": row[0]}
    except Exception as exc:
        return check_failure("the database", exc)


def _broker() -> dict[str, Any]:
    from config.celery import app

    url = settings.CELERY_BROKER_URL
    transport = url.split("://", 1)[0]
    try:
        with app.connection_for_write() as conn:
            conn.ensure_connection(max_retries=1, timeout=2)
        return {"ok": True, "transport": transport}
    except Exception as exc:
        return {"transport": transport, **check_failure("the broker", exc)}


def _embedding_model() -> dict[str, Any]:
    try:
        model = embeddings.get_model()
        dims = (
            getattr(model, "get_embedding_dimension", None)
            or model.get_sentence_embedding_dimension
        )()
        return {"ok": True, "model": embeddings.EMBEDDING_MODEL_NAME, "dimensions": dims}
    except embeddings.EmbeddingUnavailable as exc:
        return {"ok": False, "model": embeddings.EMBEDDING_MODEL_NAME, "error": str(exc)}


STUCK_JOBS_LISTED = 20


def _stuck(stalled: QuerySet[Any], fields: dict[str, str]) -> dict[str, Any]:
    try:
        rows = list(
            stalled.order_by("pk").values("pk", "beat", *fields.values())[:STUCK_JOBS_LISTED]
        )
    except Exception as exc:
        return check_failure("the database", exc)
    return {
        "ok": not rows,
        "stale_after_seconds": settings.SPANPROOF_JOB_STALE_SECONDS,
        "stuck": [
            {
                "id": row["pk"],
                **{name: row[column] for name, column in fields.items()},
                "last_heartbeat": row["beat"].isoformat(),
            }
            for row in rows
        ],
    }


def _jobs() -> dict[str, dict[str, Any]]:
    """Active background jobs whose worker has not beaten for the stale period: ingest
    jobs, verification batches, audit-pack exports, calibrator changes, the review
    queue's send-backs to the judge. Reported, not counted against the overall status:
    the web process is healthy, and the watchdogs re-enqueue or fail them
    (``services.ingest_watch``, ``services.job_watch``)."""
    from django.utils import timezone

    from verifier.models import (
        AuditPackJob,
        CalibratorChangeJob,
        ReviewRejudgeJob,
        VerificationJob,
    )
    from verifier.selectors.ingest import ingest_jobs_stalled
    from verifier.selectors.jobs import jobs_stalled

    now = timezone.now()
    leased = {"status": "status", "attempts": "attempts"}
    return {
        "ingest_jobs": _stuck(
            ingest_jobs_stalled(now=now),
            {"status": "status", "stage": "stage", "attempts": "stage_attempts"},
        ),
        "verification_jobs": _stuck(jobs_stalled(VerificationJob, now=now), leased),
        "audit_pack_jobs": _stuck(jobs_stalled(AuditPackJob, now=now), leased),
        "calibrator_change_jobs": _stuck(jobs_stalled(CalibratorChangeJob, now=now), leased),
        "review_rejudge_jobs": _stuck(jobs_stalled(ReviewRejudgeJob, now=now), leased),
    }


def _workers() -> dict[str, Any]:
    """Whether a Celery worker is alive (``verifier.selectors.worker_beats``), and the
    active jobs waiting for one ("waiting for a worker since HH:MM UTC"). Reported, not
    counted against the overall status, like the stuck jobs."""
    from django.utils import timezone

    from verifier.models import IngestJob, VerificationJob
    from verifier.selectors.worker_beats import (
        WORKER_STALE_SECONDS,
        worker_is_live,
        worker_last_beat,
        worker_wait_since,
    )
    from verifier.time_words import utc_words

    try:
        now = timezone.now()
        last = worker_last_beat()
        live = worker_is_live(last_beat=last, now=now)
        waiting = []
        if not live:
            for kind, model in (("ingest", IngestJob), ("verification", VerificationJob)):
                jobs = model.objects.filter(status__in=("queued", "running")).order_by("pk")
                for pk, beat, created in jobs.values_list("pk", "heartbeat_at", "created_at")[
                    :STUCK_JOBS_LISTED
                ]:
                    since = worker_wait_since(job_beat=beat or created, last_beat=last, now=now)
                    if since is not None:
                        waiting.append(
                            {
                                "kind": kind,
                                "id": pk,
                                "since": since.isoformat(),
                                "message": f"waiting for a worker since {utc_words(since, 'time')}",
                            }
                        )
    except Exception as exc:
        return check_failure("the database", exc)
    return {
        "ok": live or not waiting,
        "live": live,
        "last_beat": last.isoformat() if last else None,
        "stale_after_seconds": WORKER_STALE_SECONDS,
        "waiting": waiting,
    }


def health_report() -> dict[str, Any]:
    checks = {
        "database": _database(),
        "pgvector": _pgvector(),
        "broker": _broker(),
        "embedding_model": _embedding_model(),
    }
    report: dict[str, Any] = {"ok": all(c["ok"] for c in checks.values()), "checks": checks}
    checks.update(_jobs())
    checks["workers"] = _workers()
    return report
