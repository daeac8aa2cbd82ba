"""Rule sets as the pipeline uses them: the active one per domain pack, and inline
weight overrides stored as their own inspectable version.

Which rule set is active is answered by ``audit.selectors.rule_set_active`` (latest
activation for the pack, else the all-packs one, else built-in Core v1) — the same
answer the console's Rules page and the audit walk show; it is not re-implemented.
"""

from __future__ import annotations

from collections.abc import Mapping

from django.db import transaction

from audit.selectors import ActiveRules, rule_set_active
from audit.services import rule_set_activate, rule_set_create
from verifier.models import RuleSet, RuleSetActivation, Workspace
from verifier.scoring.rulesets import RuleSetDefinition, with_weight_overrides


def rule_set_for_pack(*, workspace: Workspace, domain_pack: str) -> ActiveRules:
    return rule_set_active(workspace=workspace, domain_pack=domain_pack)


@transaction.atomic
def rule_set_override_weights(
    *,
    workspace: Workspace,
    base: RuleSetDefinition,
    weights: Mapping[str, float],
    domain_pack: str = "",
    policy: str | None = None,
    parent: RuleSet | None = None,
    actor=None,
) -> tuple[RuleSet, RuleSetActivation]:
    """Override some dimension weights of ``base`` (the rest keep theirs; all six are
    renormalised to sum to 1), store the result as the next version of
    ``<base name> (<pack or all packs>)``, and activate it for ``domain_pack``."""
    definition = with_weight_overrides(base, weights)
    scope = domain_pack or "all packs"
    named = RuleSetDefinition(
        name=f"{base.name} ({scope})",
        display_name=f"{base.display_name or base.name} ({scope})",
        version=1,
        dimensions=definition.dimensions,
        policies=definition.policies,
        default_policy=definition.default_policy,
    )
    note = "Inline weight override: " + ", ".join(f"{k}={v}" for k, v in sorted(weights.items()))
    rule_set = rule_set_create(
        workspace=workspace, definition=named, parent=parent, note=note, actor=actor
    )
    activation = rule_set_activate(
        workspace=workspace,
        rule_set=rule_set,
        domain_pack=domain_pack,
        policy=policy or named.default_policy,
        actor=actor,
    )
    return rule_set, activation
