"""Writes of the workers' signs of life (``WorkerBeat``, ``verifier.worker_liveness``)."""

from __future__ import annotations

from django.utils import timezone

from verifier.models import WorkerBeat


def worker_beat_record(*, hostname: str) -> None:
    """The worker ``hostname`` is alive now (one upsert)."""
    WorkerBeat.objects.update_or_create(hostname=hostname, defaults={"beat_at": timezone.now()})


def worker_beat_forget(*, hostname: str) -> None:
    """The worker ``hostname`` stopped cleanly: it no longer counts as live."""
    WorkerBeat.objects.filter(hostname=hostname).delete()
