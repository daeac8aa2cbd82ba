from django.db import models


class WorkerBeat(models.Model):
    """The last sign of life of one Celery worker process (``verifier.worker_liveness``):
    a job whose stage has no live worker shows "waiting for a worker since ..." on its
    page and in /healthz."""

    hostname = models.CharField(max_length=255, primary_key=True)
    beat_at = models.DateTimeField()
