"""``manage.py ingest``'s progress bar never goes backwards as a job moves through its
stages: a stage that is complete and still the job's own counts once, not twice."""

from __future__ import annotations

import re

from verifier.management.commands.ingest import _bar
from verifier.models import IngestJob
from verifier.models.ingest import STAGE_ORDER


def _percent(job: IngestJob) -> float:
    match = re.search(r"\]\s+([0-9.]+)%", _bar(job))
    assert match, _bar(job)
    return float(match.group(1))


def _snapshots() -> list[IngestJob]:
    """A job's progress as the command sees it on each poll: every stage from 0 of its
    items to all of them, one of them ending with a failed item, then the job done."""
    jobs: list[IngestJob] = []
    progress: dict[str, dict[str, int]] = {}
    for stage in STAGE_ORDER:
        total = 0 if stage == "remediate" else 2
        for done in range(total + 1):
            failed = 1 if stage == "group" and done == total else 0
            progress[stage] = {"done": done - failed, "total": total, "failed": failed}
            jobs.append(
                IngestJob(
                    status="running",
                    stage=stage,
                    progress={k: dict(v) for k, v in progress.items()},
                )
            )
    jobs.append(IngestJob(status="succeeded", stage=STAGE_ORDER[-1], progress=progress))
    return jobs


def test_the_percent_never_goes_down_across_the_stages():
    percents = [_percent(job) for job in _snapshots()]
    assert percents == sorted(percents), percents
    assert percents[0] == 0.0
    assert percents[-1] == 100.0


def test_a_complete_current_stage_counts_once():
    # relate 1/1 is the job's stage and complete: 2 of 7 stages, not 3.
    job = IngestJob(
        status="running",
        stage="relate",
        progress={"extract": {"done": 1, "total": 1}, "relate": {"done": 1, "total": 1}},
    )
    assert _percent(job) == 28.6
    assert "relate 1/1" in _bar(job)
    job.stage = "group"
    job.progress["group"] = {"done": 0, "total": 1}
    assert _percent(job) == 28.6
