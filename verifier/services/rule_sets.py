"""Rule sets as the pipeline uses them: the active one per domain pack.

Which rule set is active is answered by ``audit.selectors.rule_set_active`` (latest
activation for the pack, else the all-packs one, else built-in Core v1) — the same
answer the console's Rules page and the audit walk show; it is not re-implemented.
"""

from __future__ import annotations

from audit.selectors import ActiveRules, rule_set_active
from verifier.models import Workspace


def rule_set_for_pack(*, workspace: Workspace, domain_pack: str) -> ActiveRules:
    return rule_set_active(workspace=workspace, domain_pack=domain_pack)
