"""``manage.py rejudge --workspace W [--state unverified ...]``: re-ask the configured judge."""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from verifier.models import Workspace
from verifier.services.judging import workspace_rejudge
from verifier.states import ClaimState


class Command(BaseCommand):
    help = (
        "Append a verdict of the configured judge to every claim of a workspace (optionally "
        "only claims in the given states) and refresh their states. History is append-only: "
        "earlier verdicts stay, with their model ids."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--workspace", required=True, help="Workspace slug.")
        parser.add_argument(
            "--state",
            action="append",
            choices=[state.value for state in ClaimState],
            help="Only claims in this state (repeatable). Default: every claim.",
        )
        parser.add_argument("--json", action="store_true", help="Print the report as JSON.")

    def handle(self, *args: Any, **options: Any) -> None:
        workspace = Workspace.objects.filter(slug=options["workspace"]).first()
        if workspace is None:
            raise CommandError(f"no workspace {options['workspace']!r}")

        def progress(done: int, total: int) -> None:
            if not options["json"]:
                self.stderr.write(f"re-judged {done}/{total}")

        report = workspace_rejudge(
            workspace=workspace, states=options["state"] or None, progress=progress
        )
        payload = {
            "workspace": workspace.slug,
            "judge_model": report.judge_model,
            "claims": report.claims,
            "verdicts": report.verdicts,
            "states_before": report.states_before,
            "states_after": report.states_after,
        }
        if options["json"]:
            self.stdout.write(json.dumps(payload, indent=2))
            return
        self.stdout.write(
            f"{report.claims} claims of {workspace.slug} re-judged by {report.judge_model}: "
            f"{report.verdicts} verdicts appended"
        )
        self.stdout.write(f"  before: {report.states_before}")
        self.stdout.write(f"  after:  {report.states_after}")
