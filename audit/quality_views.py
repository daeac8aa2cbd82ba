"""Audit console: the Quality page (states, agreement, the trust-score trend). Each view parses
the request, calls one selector or service, renders."""

from __future__ import annotations

from typing import Any, Final

from django.core.paginator import Paginator
from django.http import HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from audit import selectors
from verifier.http import MemberRequest
from verifier.permissions import role_required

JOBS_PAGE_SIZE: Final = 20
CHART_WIDTH: Final = 480
CHART_HEIGHT: Final = 150
CHART_PAD: Final = 10
# Room for the axes' labels: the scores on the left, the job numbers and title below.
CHART_LEFT: Final = 44
CHART_BOTTOM: Final = 40
CHART_Y_TICKS: Final = (0, 50, 90, 100)
CHART_MAX_X_LABELS: Final = 8


def _chart_y(score: float, inner_h: float) -> float:
    return round(CHART_PAD + inner_h * (1 - max(0, min(100, score)) / 100), 1)


def trend_chart(points: list[tuple[int, int | None]]) -> dict[str, Any] | None:
    """Plot coordinates for trust scores 0–100 across jobs, computed here, not in JS.

    A job with no score (nothing validated) keeps its place on the x axis and breaks
    the line: a gap, never a drop to 0.
    """
    known = [(job, score) for job, score in points if score is not None]
    if not known:
        return None
    inner_w = CHART_WIDTH - CHART_LEFT - CHART_PAD
    inner_h = CHART_HEIGHT - CHART_PAD - CHART_BOTTOM
    step = inner_w / (len(points) - 1) if len(points) > 1 else 0
    every = max(1, -(-len(points) // CHART_MAX_X_LABELS))  # label at most 8 jobs
    dots, gaps, lines, x_ticks = [], [], [], []
    line: list[str] = []
    for i, (job_id, score) in enumerate(points):
        x = round(CHART_LEFT + (i * step if len(points) > 1 else inner_w / 2), 1)
        if i % every == 0 or i == len(points) - 1:
            x_ticks.append({"x": x, "label": f"#{job_id}"})
        if score is None:
            gaps.append({"x": x, "job": job_id})
            if line:
                lines.append(" ".join(line))
            line = []
            continue
        y = _chart_y(score, inner_h)
        dots.append({"x": x, "y": y, "job": job_id, "score": score})
        line.append(f"{x},{y}")
    if line:
        lines.append(" ".join(line))
    return {
        "width": CHART_WIDTH,
        "height": CHART_HEIGHT,
        # The axes: scores 0–100 up the left, the jobs along the bottom, each titled.
        "left": CHART_LEFT,
        "right": CHART_WIDTH - CHART_PAD,
        "bottom": round(CHART_PAD + inner_h, 1),
        "top": CHART_PAD,
        "y_ticks": [{"y": _chart_y(v, inner_h), "label": v} for v in CHART_Y_TICKS],
        "x_ticks": x_ticks,
        "x_title_y": CHART_HEIGHT - 4,
        "x_label_y": round(CHART_PAD + inner_h + 14, 1),
        "y_title_x": 12,
        "y_title_y": round(CHART_PAD + inner_h / 2, 1),
        "lines": lines,
        "dots": dots,
        "gaps": gaps,
        "threshold_y": _chart_y(90, inner_h),
        "first": known[0][1],
        "last": known[-1][1],
        "count": len(points),
        "unknown": len(gaps),
    }


@require_GET
@role_required()
def quality(request: MemberRequest) -> HttpResponse:
    workspace = request.workspace
    page = Paginator(selectors.quality_jobs(workspace=workspace), JOBS_PAGE_SIZE).get_page(
        request.GET.get("page")
    )
    now = selectors.quality_jobs_states_now(job_ids=[job.pk for job in page])
    jobs = [
        {
            "job": job,
            "q": selectors.quality_summary(job.quality_report),
            "now": now[job.pk],
            "now_total": sum(now[job.pk].values()),
        }
        for job in page
    ]
    runs = Paginator(selectors.validator_runs(workspace=workspace), JOBS_PAGE_SIZE).get_page(
        request.GET.get("runs_page")
    )
    run_rows = [
        {"run": run, "headline": selectors.validator_run_headline(run.metrics)} for run in runs
    ]
    return render(
        request,
        "audit/quality.html",
        {
            "page": page,
            "jobs": jobs,
            "runs": runs,
            "run_rows": run_rows,
            "chart": trend_chart(selectors.quality_trend(workspace=workspace)),
            "agreement": selectors.reviewer_agreement(workspace=workspace),
        },
    )
