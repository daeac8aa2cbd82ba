"""Reads shared by the background jobs that hold a lease and beat
(``services.job_heartbeat``): verification batches, audit-pack exports, calibrator
changes. Each such model has ``status`` (``queued`` / ``running`` / …), ``created_at``,
``heartbeat_at``, ``runner`` and ``attempts``."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import TypeVar, cast

from django.conf import settings
from django.db.models import QuerySet
from django.db.models.functions import Coalesce

from verifier.models.jobs import LeasedJob

JobModel = TypeVar("JobModel", bound=LeasedJob)

UNFINISHED = ("queued", "running")


def jobs_stalled(model: type[JobModel], *, now: datetime) -> QuerySet[JobModel]:
    """Queued or running jobs of ``model`` not heard from for
    ``SPANPROOF_JOB_STALE_SECONDS`` (a queued one counts from its creation)."""
    cutoff = now - timedelta(seconds=settings.SPANPROOF_JOB_STALE_SECONDS)
    rows = (
        model._default_manager.filter(status__in=UNFINISHED)
        .annotate(beat=Coalesce("heartbeat_at", "created_at"))
        .filter(beat__lt=cutoff)
    )
    return cast("QuerySet[JobModel]", rows)
