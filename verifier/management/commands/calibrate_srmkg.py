"""``manage.py calibrate_srmkg --workspace W [--min-samples 50] [--test-fraction 0.2]
[--l2 1.0] [--lr 0.1] [--epochs 500] [--dry-run]``: fit the workspace's SR-MKG
calibration on its logged decisions and print JSON with ``auc`` (held out) and
``n_train``. Refuses (exit 1, nothing stored) with too few decisions or one class.
Delete the workspace's ``SrmkgCalibration`` records to revert to the heuristic."""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from verifier.models import Workspace
from verifier.relations import calibration
from verifier.relations.calibration import CalibrationRefused
from verifier.services.relation_verify import srmkg_calibrate


class Command(BaseCommand):
    help = "Calibrate the SR-MKG scorer of one workspace on its decision log (seed 004)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--workspace", required=True, help="workspace slug")
        parser.add_argument("--min-samples", type=int, default=calibration.DEFAULT_MIN_SAMPLES)
        parser.add_argument(
            "--test-fraction", type=float, default=calibration.DEFAULT_TEST_FRACTION
        )
        parser.add_argument("--l2", type=float, default=calibration.DEFAULT_L2)
        parser.add_argument("--lr", type=float, default=calibration.DEFAULT_LR)
        parser.add_argument("--epochs", type=int, default=calibration.DEFAULT_EPOCHS)
        parser.add_argument("--dry-run", action="store_true", help="train, do not store")

    def handle(self, *args: Any, **options: Any) -> None:
        workspace = Workspace.objects.filter(slug=options["workspace"]).first()
        if workspace is None:
            raise CommandError(f"no workspace {options['workspace']!r}", returncode=2)
        if options["min_samples"] < 2 or options["epochs"] < 1 or options["lr"] <= 0:
            raise CommandError("--min-samples >= 2, --epochs >= 1, --lr > 0", returncode=2)
        if options["l2"] < 0 or not 0 <= options["test_fraction"] < 1:
            raise CommandError("--l2 >= 0 and 0 <= --test-fraction < 1", returncode=2)
        try:
            out = srmkg_calibrate(
                workspace=workspace,
                min_samples=options["min_samples"],
                test_fraction=options["test_fraction"],
                l2=options["l2"],
                lr=options["lr"],
                epochs=options["epochs"],
                dry_run=options["dry_run"],
            )
        except CalibrationRefused as exc:
            raise CommandError(f"refused: {exc}", returncode=1) from exc
        self.stdout.write(json.dumps(out, indent=2))
