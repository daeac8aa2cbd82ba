from __future__ import annotations

import pytest

from verifier.services.ingest_create import SourceUpload, ingest_job_create

DOC_A = (
    "The Marrow River delta gains land in wet years. Sediment settles where the current "
    "slows near Halden Point. Salt marsh grasses trap silt at high tide along the Marrow "
    "River. The Halden Point lighthouse was built in 1871 by the harbour board."
)
DOC_B = (
    "Marsh grasses trap silt at high tide along the Marrow River. The Halden Point "
    "lighthouse was not built in 1871. Fishing boats leave the harbour before dawn each "
    "morning in summer."
)

# The broker tests (marker ``broker``) use their own database on the local Redis server.
REDIS_URL = "redis://127.0.0.1:6379/15"


def redis_reachable() -> bool:
    import redis

    try:
        return bool(redis.Redis.from_url(REDIS_URL, socket_connect_timeout=1).ping())
    except Exception:
        return False


def skip_unless_redis() -> None:
    """Skip the calling test, saying why, when no Redis server answers at ``REDIS_URL``."""
    if not redis_reachable():
        pytest.skip(f"Redis is not reachable at {REDIS_URL}: the broker tests need a Redis server")


@pytest.fixture(autouse=True)
def _local_webhook_receivers(settings):
    """The webhook tests' receiver listens on loopback over plain http: admit exactly
    that here, as an operator would, instead of weakening the defaults."""
    settings.SPANPROOF_WEBHOOK_ALLOWED_NETWORKS = ["127.0.0.1/32"]
    settings.SPANPROOF_WEBHOOK_ALLOW_HTTP = True


def unstarted_job(workspace):
    """A job over DOC_A and DOC_B whose stages the test runs itself."""
    return ingest_job_create(
        workspace=workspace,
        sources=[
            SourceUpload(ref="source:a", text=DOC_A),
            SourceUpload(ref="source:b", text=DOC_B),
        ],
        start=False,
    )


@pytest.fixture
def run_job(django_capture_on_commit_callbacks):
    """Create a job and run its whole stage chain (tasks eager, on-commit executed)."""

    def run(workspace, docs=None, **kwargs):
        docs = docs if docs is not None else {"source:delta": DOC_A, "source:harbour": DOC_B}
        sources = kwargs.pop(
            "sources", [SourceUpload(ref=ref, text=text, title=ref) for ref, text in docs.items()]
        )
        with django_capture_on_commit_callbacks(execute=True):
            job = ingest_job_create(workspace=workspace, sources=sources, **kwargs)
        job.refresh_from_db()
        return job

    return run
