"""``manage.py calibrate_judge --workspace W [--dry-run] [--json]``: fit a reviewer
calibrator of the configured judge on the workspace's human decisions now and print its
cross-validated figures (docs/learning-from-reviewers.md)."""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from verifier.judges.reviewer_calibrator import (
    MIN_OVERRULES,
    OVERRULE_LABELS,
    may_overrule,
    overrule_figures,
)
from verifier.models import Workspace
from verifier.selectors.calibrators import supported_floor_refusal
from verifier.services.judge_calibrators import (
    CalibratorFit,
    CalibratorRefused,
    judge_calibrator_fit,
)


def _percent(value: Any) -> str:
    return "—" if value is None else f"{100 * float(value):.1f}%"


class Command(BaseCommand):
    help = (
        "Fit a reviewer calibrator of the configured judge on the workspace's human "
        "decisions and store it as a proposed version (an admin activates it on the "
        "console); --dry-run prints the figures and stores nothing."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--workspace", required=True, help="Workspace slug.")
        parser.add_argument("--dry-run", action="store_true", help="Fit and print; store nothing.")
        parser.add_argument("--json", action="store_true", help="Print the figures as JSON.")

    def handle(self, *args: Any, **options: Any) -> None:
        workspace = Workspace.objects.filter(slug=options["workspace"]).first()
        if workspace is None:
            raise CommandError(f"no workspace {options['workspace']!r}")
        try:
            fit = judge_calibrator_fit(workspace=workspace, dry_run=options["dry_run"])
        except CalibratorRefused as exc:
            raise CommandError(exc.message) from exc
        payload = self._payload(workspace, fit)
        if options["json"]:
            self.stdout.write(json.dumps(payload, indent=2))
            return
        self._print(payload)

    def _payload(self, workspace: Workspace, fit: CalibratorFit) -> dict[str, Any]:
        figures = fit.calibrator.figures
        return {
            "workspace": workspace.slug,
            "judge_model": fit.judge_model,
            "judge_prompt_version": fit.judge_prompt_version,
            "stored": None if fit.row is None else {"id": fit.row.pk, "version": fit.row.version},
            "decisions": figures.get("decisions"),
            "supported": figures.get("supported"),
            "contradicted": figures.get("contradicted"),
            "decided_without_fresh_span": fit.unreadable,
            "decided_not_stated": fit.not_stated,
            "floor": fit.floor,
            "cv_roc_auc": figures.get("cv_roc_auc"),
            "supported_threshold": fit.calibrator.supported_threshold,
            "contradicted_threshold": fit.calibrator.contradicted_threshold,
            "cv_supported": figures.get("cv_supported") or {},
            "cv_contradicted": figures.get("cv_contradicted") or {},
            "cv_judge": figures.get("cv_judge") or {},
            "cv_calibrated": figures.get("cv_calibrated") or {},
            "cv_overrule": {
                label: overrule_figures(figures, label)
                | {"may_overrule": may_overrule(figures, label)}
                for label in OVERRULE_LABELS
            },
            "min_overrules": MIN_OVERRULES,
            "activatable": not _refusal(fit),
            "refusal": _refusal(fit),
        }

    def _print(self, p: dict[str, Any]) -> None:
        write = self.stdout.write
        stored = (
            f"stored as v{p['stored']['version']} (proposed)"
            if p["stored"]
            else "dry run: not stored"
        )
        write(
            f"Reviewer calibrator of {p['judge_model']} (reading {p['judge_prompt_version']}) "
            f"for {p['workspace']}: {stored}"
        )
        write(
            f"  learned from {p['decisions']} decisions ({p['supported']} supported, "
            f"{p['contradicted']} contradicted); {p['decided_without_fresh_span']} decided "
            "claims have no fresh bound span and were left out"
        )
        if p["decided_not_stated"]:
            write(
                f'  {p["decided_not_stated"]} claims decided "not stated by the source" are '
                "not learned from (a silent span is no contradiction)"
            )
        write(f"  cross-validated ROC AUC {p['cv_roc_auc']}; precision floor {p['floor']:.2f}")
        for side in ("supported", "contradicted"):
            cv = p[f"cv_{side}"]
            threshold = p[f"{side}_threshold"]
            if threshold is None:
                write(f"  {side}: never decided (the floor is not reached out of fold)")
            else:
                precision, recall = _percent(cv.get("precision")), _percent(cv.get("recall"))
                write(
                    f"  {side}: threshold {threshold:.2f}, precision {precision}, "
                    f"recall {recall}, {cv.get('calls')} calls out of fold"
                )
        for label, key in (("judge alone", "cv_judge"), ("judge + calibrator", "cv_calibrated")):
            cv = p[key]
            write(
                f"  {label}: abstains on {_percent(cv.get('abstention'))} of these decisions, "
                f"entailed precision {_percent(cv.get('entailed_precision'))}"
            )
        for label, cv in p["cv_overrule"].items():
            said = "supported" if label == "entailed" else "contradicted"
            verdict = (
                "it sends such claims back to the queue (the judge and the reviewers disagree)"
                if cv["may_overrule"]
                else "the judge's answer stands (it overrules only where it disagreed on "
                f"{p['min_overrules']}+ of them and reviewers sided with it at the floor)"
            )
            if not cv.get("judge_decided"):
                write(
                    f"  where the judge decided {said}: it did on none of these decisions, so "
                    "there was nothing to measure; the judge's answer stands"
                )
                continue
            write(
                f"  where the judge decided {said}: out of fold it disagreed on "
                f"{cv.get('disagreed', 0)} of {cv.get('judge_decided', 0)}, reviewers sided "
                f"with it on {cv.get('sided_with_calibrator', 0)} "
                f"({_percent(cv.get('precision'))}); {verdict}"
            )
        write(
            "  can be activated" if p["activatable"] else f"  cannot be activated: {p['refusal']}"
        )


def _refusal(fit: CalibratorFit) -> str:
    calibrator = fit.calibrator
    return supported_floor_refusal(
        precision=(calibrator.figures.get("cv_supported") or {}).get("precision"),
        threshold=calibrator.supported_threshold,
        decisions=int(calibrator.figures.get("decisions", fit.decisions)),
    )
