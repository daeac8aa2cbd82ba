"""``manage.py relation_stats [--workspace W] [--raw] [--days N]``: seed 004 metrics as
JSON (avg VoG score, rejected by the vector prefilter, rejected by VoG, hallucinations
blocked); ``--raw`` dumps the per-event rows the totals are computed from."""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from verifier.models import Workspace
from verifier.selectors.relation_verification import (
    chunk_event_list,
    relation_decision_list,
    relation_stats_get,
)

DECISION_FIELDS = (
    "id",
    "workspace__slug",
    "relation_id",
    "relation_type",
    "base",
    "jaccard",
    "type_boost",
    "isolated",
    "score",
    "level",
    "source",
    "label",
    "vog_verdict",
    "vog_confidence",
    "vog_score",
    "was_hallucination_blocked",
    "needs_review",
    "calibration_version",
    "created_at",
)
CHUNK_FIELDS = (
    "id",
    "workspace__slug",
    "chunks_in",
    "chunks_rejected_srmkg",
    "chunks_rejected_vog",
    "vog_scores",
    "created_at",
)


class Command(BaseCommand):
    help = "Relation verification statistics (seed 004) as JSON."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--workspace", help="workspace slug (default: all)")
        parser.add_argument("--raw", action="store_true", help="dump the per-event rows")
        parser.add_argument("--days", type=int, help="only the last N days")

    def handle(self, *args: Any, **options: Any) -> None:
        days = options["days"]
        if days is not None and days < 1:
            raise CommandError("--days must be a positive number of days", returncode=2)
        workspace = None
        if options["workspace"]:
            workspace = Workspace.objects.filter(slug=options["workspace"]).first()
            if workspace is None:
                raise CommandError(f"no workspace {options['workspace']!r}", returncode=2)
        out: dict[str, Any] = relation_stats_get(workspace=workspace, days=days)
        out["days"] = days
        if options["raw"]:
            out["decision_rows"] = list(
                relation_decision_list(workspace=workspace, days=days).values(*DECISION_FIELDS)
            )
            out["chunk_events"] = list(
                chunk_event_list(workspace=workspace, days=days).values(*CHUNK_FIELDS)
            )
        self.stdout.write(json.dumps(out, indent=2, default=str))
