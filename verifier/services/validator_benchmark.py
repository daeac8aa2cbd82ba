"""The validator benchmark: the whole chain on planted ground truth.

A fixture (``bench/fixtures/planted-v1.json``) holds original sources and claims that
are labelled ``supported`` or ``unsupported`` (tier ``fabricated`` | ``overstated`` |
``misattributed`` | ``contradicted``). Claims carry NO quotes: each is bound by evidence
search inside its cited source, judged, and given a state, exactly as in ingest.

Metric definitions:

* a **catch** is an unsupported claim whose final state is not ``supported``;
* ``recall_strict`` counts only catches with a verdict- or evidence-based reason
  (contradicted, abstained, low confidence, no evidence, …) — a catch whose only
  reason is ``coverage_gap`` (the judge never answered) is not counted;
* ``recall_with_coverage`` counts every catch, coverage gaps included;
* ``false_flag_rate``: share of ``supported`` claims (not ``beyond_window``) that did
  not end ``supported``;
* ``affirm_unseen_rate``: share of ``beyond_window`` claims (true about the topic but
  not stated in the source) that ended ``supported`` — must be 0.
"""

from __future__ import annotations

import json
import statistics
import time
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.db import transaction
from django.utils import timezone

from verifier.engine import get_judge
from verifier.errors import ApplicationError
from verifier.judges import Judge
from verifier.models import (
    Claim,
    ClaimOrigin,
    ClaimStateChoices,
    EvidenceBinding,
    ValidatorRun,
    Verdict,
    Workspace,
)
from verifier.services.binding import claim_bind
from verifier.services.judging import claims_judge
from verifier.services.sources import source_upsert
from verifier.services.workspaces import workspace_create

TIERS = ("fabricated", "overstated", "misattributed", "contradicted")
LABELS = ("supported", "unsupported")
COVERAGE_GAP_REASON = "coverage_gap"


class FixtureError(ApplicationError, ValueError):
    """The fixture file does not have the documented shape."""

    def __init__(self, message: str) -> None:
        super().__init__("invalid_fixture", message)


@dataclass(frozen=True)
class BenchmarkResult:
    run: ValidatorRun
    metrics: dict[str, Any]
    per_claim: list[dict[str, Any]]


def fixture_load(path: str | Path) -> dict[str, Any]:
    """Read and validate a fixture; raise ``FixtureError`` naming the first problem."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise FixtureError(f"cannot read fixture {path}: {exc}") from exc
    if not isinstance(data, dict):
        raise FixtureError("the fixture must be a JSON object with sources and claims")
    sources, claims = data.get("sources"), data.get("claims")
    if not isinstance(sources, list) or not sources:
        raise FixtureError("fixture.sources must be a non-empty list")
    if not isinstance(claims, list) or not claims:
        raise FixtureError("fixture.claims must be a non-empty list")
    source_ids: set[str] = set()
    for i, source in enumerate(sources):
        if not isinstance(source, dict) or not all(
            isinstance(source.get(k), str) and source.get(k) for k in ("id", "title", "text")
        ):
            raise FixtureError(f"sources[{i}] needs non-empty string id, title and text")
        if source["id"] in source_ids:
            raise FixtureError(f"duplicate source id {source['id']!r}")
        source_ids.add(source["id"])
    claim_ids: set[str] = set()
    for i, claim in enumerate(claims):
        where = f"claims[{i}]"
        if not isinstance(claim, dict):
            raise FixtureError(f"{where} must be an object")
        for key in ("id", "source_id", "label", "text"):
            if not isinstance(claim.get(key), str) or not claim[key].strip():
                raise FixtureError(f"{where}.{key} must be a non-empty string")
        if claim["id"] in claim_ids:
            raise FixtureError(f"duplicate claim id {claim['id']!r}")
        claim_ids.add(claim["id"])
        if claim["source_id"] not in source_ids:
            raise FixtureError(f"{where} cites unknown source {claim['source_id']!r}")
        if claim["label"] not in LABELS:
            raise FixtureError(f"{where}.label must be one of {', '.join(LABELS)}")
        if claim["label"] == "unsupported" and claim.get("tier") not in TIERS:
            raise FixtureError(f"{where}.tier must be one of {', '.join(TIERS)}")
        if claim.get("tier") == "misattributed" and (
            claim.get("evidence_source_id") not in source_ids
            or claim.get("evidence_source_id") == claim["source_id"]
        ):
            raise FixtureError(f"{where} needs an evidence_source_id other than its source_id")
        if not isinstance(claim.get("beyond_window", False), bool):
            raise FixtureError(f"{where}.beyond_window must be a boolean")
    return data


def _load(fixture: dict[str, Any], workspace: Workspace) -> list[tuple[dict[str, Any], Claim]]:
    sources = {}
    for spec in fixture["sources"]:
        write = source_upsert(
            workspace=workspace,
            ref=f"source:{spec['id']}",
            text=spec["text"],
            title=spec["title"],
        )
        sources[spec["id"]] = write.source
    loaded = []
    for spec in fixture["claims"]:
        claim = Claim.objects.create(
            workspace=workspace,
            source=sources[spec["source_id"]],
            text=spec["text"],
            original_text=spec["text"],
            origin=ClaimOrigin.IMPORTED,
        )
        loaded.append((spec, claim))
    return loaded


def _rate(numerator: int, denominator: int) -> float | None:
    return round(numerator / denominator, 4) if denominator else None


def benchmark_metrics(per_claim: list[dict[str, Any]]) -> dict[str, Any]:
    """Metrics from per-claim rows (``label``, ``tier``, ``beyond_window``, ``state``,
    ``reason``, ``bound``, ``bind_reason``). Pure."""
    tiers: dict[str, dict[str, Any]] = {}
    grouped: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in per_claim:
        if row["label"] == "unsupported":
            grouped[row["tier"]].append(row)
    all_unsupported = [row for row in per_claim if row["label"] == "unsupported"]
    for tier, rows in [*((t, grouped.get(t, [])) for t in TIERS), ("all", all_unsupported)]:
        caught = [r for r in rows if r["state"] != ClaimStateChoices.SUPPORTED]
        strict = [r for r in caught if r["reason"] != COVERAGE_GAP_REASON]
        tiers[tier] = {
            "claims": len(rows),
            "caught": len(caught),
            "recall_strict": _rate(len(strict), len(rows)),
            "recall_with_coverage": _rate(len(caught), len(rows)),
            "missed": [r["id"] for r in rows if r["state"] == ClaimStateChoices.SUPPORTED],
        }
    known_good = [r for r in per_claim if r["label"] == "supported" and not r["beyond_window"]]
    flagged = [r for r in known_good if r["state"] != ClaimStateChoices.SUPPORTED]
    unseen = [r for r in per_claim if r["label"] == "supported" and r["beyond_window"]]
    affirmed = [r for r in unseen if r["state"] == ClaimStateChoices.SUPPORTED]
    return {
        "claims": len(per_claim),
        "recall": tiers,
        "false_flag_rate": _rate(len(flagged), len(known_good)),
        "false_flagged": [r["id"] for r in flagged],
        "supported_claims": len(known_good),
        "affirm_unseen_rate": _rate(len(affirmed), len(unseen)),
        "affirmed_unseen": [r["id"] for r in affirmed],
        "beyond_window_claims": len(unseen),
        "bound": sum(1 for r in per_claim if r["bound"]),
        "no_evidence": sum(1 for r in per_claim if r["bind_reason"] == "no_evidence"),
        "states": dict(Counter(r["state"] for r in per_claim)),
        "reasons": dict(Counter(r["reason"] for r in per_claim)),
    }


def _run_once(
    fixture: dict[str, Any], judge: Judge, label: str
) -> tuple[Workspace, list[dict[str, Any]]]:
    stamp = timezone.now().strftime("%Y%m%d%H%M%S%f")
    with transaction.atomic():
        workspace = workspace_create(slug=f"bench-{stamp}", name=f"Validator benchmark {label}")
        loaded = _load(fixture, workspace)
    bind_reasons = {}
    for _spec, claim in loaded:
        outcome = claim_bind(claim=claim, quote=None)
        bind_reasons[claim.pk] = outcome.reason
    claims_judge(claims=[claim for _, claim in loaded], judge=judge, cause="validator benchmark")
    rows = []
    for spec, claim in loaded:
        claim.refresh_from_db()
        binding = EvidenceBinding.objects.filter(claim=claim, is_active=True).first()
        verdict = Verdict.objects.filter(claim=claim).latest_first().first()
        rows.append(
            {
                "id": spec["id"],
                "label": spec["label"],
                "tier": spec.get("tier"),
                "beyond_window": bool(spec.get("beyond_window", False)),
                "source_id": spec["source_id"],
                "claim": spec["text"],
                "state": claim.state,
                "reason": claim.state_reason,
                "bound": binding is not None,
                "bind_reason": bind_reasons[claim.pk],
                "quote": binding.quote if binding else None,
                "verdict": verdict.label if verdict else None,
                "confidence": verdict.confidence if verdict else None,
                "note": verdict.note if verdict else "",
            }
        )
    return workspace, rows


def validator_benchmark_run(
    *, fixture_path: str | Path, runs: int = 1, judge: Judge | None = None
) -> BenchmarkResult:
    """Run the chain ``runs`` times (each in a fresh ``bench-<timestamp>`` workspace) and
    store one ``ValidatorRun`` with the last run's metrics plus every run's headline."""
    fixture = fixture_load(fixture_path)
    runs = max(1, int(runs))
    judge = judge or get_judge()
    per_run: list[dict[str, Any]] = []
    workspace: Workspace | None = None
    rows: list[dict[str, Any]] = []
    for n in range(1, runs + 1):
        began = time.perf_counter()
        workspace, rows = _run_once(fixture, judge, f"{Path(fixture_path).name} #{n}")
        metrics = benchmark_metrics(rows)
        metrics["seconds"] = round(time.perf_counter() - began, 2)
        per_run.append(metrics)
    metrics = dict(per_run[-1])
    metrics["judge"] = {
        "model": judge.model_id,
        "family": judge.family,
        "prompt_version": judge.prompt_version,
    }
    metrics["fixture"] = str(fixture_path)
    metrics["runs"] = runs
    if runs > 1:
        flags = [m["false_flag_rate"] or 0.0 for m in per_run]
        recalls = [m["recall"]["all"]["recall_strict"] or 0.0 for m in per_run]
        metrics["across_runs"] = {
            "false_flag_rate": {"mean": statistics.fmean(flags), "min": min(flags)},
            "recall_strict_all": {"mean": statistics.fmean(recalls), "min": min(recalls)},
            "seconds": [m["seconds"] for m in per_run],
        }
    run = ValidatorRun.objects.create(
        workspace=workspace,
        fixture=str(fixture_path)[:300],
        judge_model=str(judge.model_id)[:200],
        runs=runs,
        metrics=metrics,
        per_claim=rows,
    )
    return BenchmarkResult(run=run, metrics=metrics, per_claim=rows)
