"""Re-class stored claims under the rule set now in force for their domain pack: what an
admin's activation does to the claims it was previewed on (``rule_set_impact``'s flip
list). Run in the background after the activation commits; in batches, each its own
transaction; running it again gives the same classes."""

from __future__ import annotations

from typing import Final

from django.db import transaction

from verifier.models import Claim, Workspace
from verifier.services.ingest_validate import claims_classify

RECLASS_BATCH: Final = 1000


def claims_reclass(*, workspace_id: int, domain_pack: str) -> int:
    """Classify again every classified claim of the workspace whose source is in
    ``domain_pack`` (every pack for ""; a pack with an activation of its own keeps it,
    as ``rule_set_active`` reads it); returns how many. Claims not classified yet are a
    job's own, still being validated: left to it."""
    workspace = Workspace.objects.filter(pk=workspace_id).first()
    if workspace is None:
        return 0  # gone since the activation
    claims = Claim.objects.filter(workspace=workspace).exclude(quality="")
    if domain_pack:
        claims = claims.filter(source__domain_pack=domain_pack)
    done = last = 0
    while True:
        after = claims.filter(pk__gt=last).select_related("source").order_by("pk")
        batch = list(after[:RECLASS_BATCH])
        if not batch:
            return done
        with transaction.atomic():
            claims_classify(workspace=workspace, claims=batch)
        done += len(batch)
        last = batch[-1].pk
