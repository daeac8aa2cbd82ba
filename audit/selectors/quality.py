"""The audit console's quality page: stored quality reports, the trust trend, and the
validator benchmark runs."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from django.db.models import Q, QuerySet

from verifier.models import Claim, IngestJob, ValidatorRun, Workspace
from verifier.scoring.trust import TRUST_FACTOR_LABELS
from verifier.selectors.claims import claims_state_counts_by

TREND_JOBS: Final = 30


def quality_summary(report: Any) -> dict[str, Any] | None:
    """Normalise a stored quality report; counts that were not recorded stay None."""
    if not isinstance(report, Mapping):
        return None
    nested = report.get("quality")
    quality: Mapping[str, Any] = nested if isinstance(nested, Mapping) else report
    trust = report.get("trust", report.get("trust_score"))
    if isinstance(trust, int | float) and not isinstance(trust, bool):
        trust = {"score": trust, "factors": []}
    if not isinstance(trust, Mapping):
        # a flat report: {**quality_report(...).to_dict(), **trust_score(...).to_dict()}
        trust = report if "score" in report and "factors" in report else None
    nested_g2 = quality.get("g2")
    g2: Mapping[str, Any] = nested_g2 if isinstance(nested_g2, Mapping) else {}
    counted = [quality.get(k) for k in ("supported", "weak", "unsupported")]
    total = quality.get("total")
    if not isinstance(total, int) and all(isinstance(n, int) for n in counted):
        total = sum(n for n in counted if isinstance(n, int))
    # Nothing validated: the trust score and G2 were not measured (unknown, not 0 / fail).
    measured = not (isinstance(total, int) and total == 0)
    return {
        "measured": measured,
        "trust_score": trust.get("score") if trust and measured else None,
        "factors": _labelled(trust.get("factors")) if trust else [],
        "supported": quality.get("supported"),
        "weak": quality.get("weak"),
        "unsupported": quality.get("unsupported"),
        "total": quality.get("total"),
        "ok_pct": quality.get("ok_pct"),
        "weak_pct": quality.get("weak_pct"),
        "unsupported_pct": quality.get("unsupported_pct"),
        "coverage_gaps": quality.get("coverage_gaps"),
        "remediation_drops": quality.get("remediation_drops"),
        "g2_passed": g2.get("passed") if measured else None,
        "g2_shortfalls": list(g2.get("shortfalls") or []) if measured else [],
    }


def _labelled(factors: Any) -> list[dict[str, Any]]:
    """The stored factors, each with the label people read (its name when unknown)."""
    out = []
    for factor in factors if isinstance(factors, list) else []:
        if isinstance(factor, Mapping):
            name = str(factor.get("name", ""))
            out.append({**factor, "label": TRUST_FACTOR_LABELS.get(name, name)})
    return out


def quality_jobs(*, workspace: Workspace) -> QuerySet[IngestJob]:
    return IngestJob.objects.filter(workspace=workspace).order_by("-created_at", "-id")


def quality_jobs_states_now(*, job_ids: list[int]) -> dict[int, dict[str, int]]:
    """{job id: its claims by state now} for a page of jobs, in one query."""
    claims = Claim.objects.filter(ingest_job_id__in=job_ids)
    return claims_state_counts_by(claims, "ingest_job_id", job_ids)


def quality_trend(*, workspace: Workspace) -> list[tuple[int, int | None]]:
    """(job id, trust score) for the latest jobs with a report, oldest first; the score
    is None (a gap in the chart) for a job with nothing validated."""
    rows = (
        IngestJob.objects.filter(workspace=workspace, quality_report__isnull=False)
        .order_by("-created_at", "-id")
        .values_list("pk", "quality_report")[:TREND_JOBS]
    )
    points: list[tuple[int, int | None]] = []
    for pk, report in rows:
        summary = quality_summary(report)
        if summary and isinstance(summary["trust_score"], int | float):
            points.append((pk, int(summary["trust_score"])))
        elif summary and not summary["measured"]:
            points.append((pk, None))
    return list(reversed(points))


BENCHMARK_WORKSPACE_PREFIX: Final = "bench-"


def validator_runs(*, workspace: Workspace) -> QuerySet[ValidatorRun]:
    """This workspace's runs plus the deployment's benchmark runs, which live in
    throwaway ``bench-<timestamp>`` workspaces holding only planted fixture claims."""
    return ValidatorRun.objects.filter(
        Q(workspace=workspace)
        | Q(workspace__isnull=True)
        | Q(workspace__slug__startswith=BENCHMARK_WORKSPACE_PREFIX)
    ).order_by("-created_at", "-id")


def _rate(value: Any) -> str:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return f"{100 * value:.1f}%"
    return "unknown"


def validator_run_headline(metrics: Any) -> list[tuple[str, str]]:
    """The benchmark's headline numbers; anything not measured reads "unknown"."""
    if not isinstance(metrics, Mapping):
        return []
    recall = metrics.get("recall")
    overall = recall.get("all") if isinstance(recall, Mapping) else None
    overall = overall if isinstance(overall, Mapping) else {}
    return [
        ("Claims", str(metrics.get("claims", "unknown"))),
        ("Recall on planted unsupported (strict)", _rate(overall.get("recall_strict"))),
        ("Recall counting coverage gaps", _rate(overall.get("recall_with_coverage"))),
        ("False-flag rate on known-good", _rate(metrics.get("false_flag_rate"))),
        ("Affirm rate on unseen claims", _rate(metrics.get("affirm_unseen_rate"))),
        ("Seconds", str(metrics.get("seconds", "unknown"))),
    ]
