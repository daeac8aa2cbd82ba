from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from verifier.services.validator_benchmark import (
    TIERS,
    FixtureError,
    validator_benchmark_run,
)


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{value * 100:.1f}%"


class Command(BaseCommand):
    help = (
        "Run the validator benchmark on a planted-ground-truth fixture: evidence search in "
        "the cited source -> bind -> judge -> state, in a fresh bench-<timestamp> workspace."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("fixture", help="Path to the fixture JSON (sources + claims).")
        parser.add_argument("--runs", type=int, default=1, help="Repeat the whole chain N times.")
        parser.add_argument("--json", action="store_true", help="Print everything as JSON.")

    def handle(self, *args: Any, **options: Any) -> None:
        if options["runs"] < 1:
            raise CommandError("--runs must be at least 1")
        try:
            result = validator_benchmark_run(fixture_path=options["fixture"], runs=options["runs"])
        except FixtureError as exc:
            raise CommandError(str(exc)) from exc
        metrics = result.metrics
        if options["json"]:
            payload = {"validator_run": result.run.pk, "metrics": metrics}
            payload["per_claim"] = result.per_claim
            self.stdout.write(json.dumps(payload, indent=2, default=str))
            return
        judge = metrics["judge"]
        self.stdout.write(
            f"Validator run #{result.run.pk}: {metrics['claims']} claims, judge "
            f"{judge['model']} ({judge['family']}), {metrics['runs']} run(s)"
        )
        for tier in (*TIERS, "all"):
            row = metrics["recall"][tier]
            missed = f"  missed: {', '.join(row['missed'])}" if row["missed"] else ""
            self.stdout.write(
                f"  {tier:<14} n={row['claims']:<3} recall_strict {_pct(row['recall_strict']):>7}"
                f"  recall_with_coverage {_pct(row['recall_with_coverage']):>7}{missed}"
            )
        self.stdout.write(
            f"  false_flag_rate {_pct(metrics['false_flag_rate'])} "
            f"(of {metrics['supported_claims']}) {', '.join(metrics['false_flagged'])}"
        )
        self.stdout.write(
            f"  affirm_unseen_rate {_pct(metrics['affirm_unseen_rate'])} "
            f"(of {metrics['beyond_window_claims']}) {', '.join(metrics['affirmed_unseen'])}"
        )
        self.stdout.write(f"  bound {metrics['bound']}, no evidence {metrics['no_evidence']}")
        for row in result.per_claim:
            self.stdout.write(
                f"    {row['id']:<12} {row['label']:<11} {row['tier'] or '':<13} "
                f"{row['state']:<12} {row['reason']}"
            )
