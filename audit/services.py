"""Writes for the audit console: rule-set versions and their activation (admins only)."""

from __future__ import annotations

from dataclasses import replace

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Max

from verifier.models import RuleSet, RuleSetActivation, Workspace
from verifier.scoring.rulesets import (
    CORE_V1,
    InvalidRuleSet,
    RuleSetDefinition,
    to_dict,
    validate_definition,
)


def rule_set_builtin_ensure() -> RuleSet:
    """The stored row of the built-in Core v1 (workspace NULL), created on first use."""
    rule_set, _ = RuleSet.objects.get_or_create(
        workspace=None,
        name=CORE_V1.name,
        version=CORE_V1.version,
        defaults={"definition": to_dict(CORE_V1), "note": "Built-in."},
    )
    return rule_set


@transaction.atomic
def rule_set_create(
    *,
    workspace: Workspace,
    definition: RuleSetDefinition,
    parent: RuleSet | None = None,
    note: str = "",
    actor: User | None = None,
) -> RuleSet:
    """Store ``definition`` as the next immutable version of its name in the workspace."""
    name = definition.name.strip()
    latest = (
        RuleSet.objects.select_for_update()
        .filter(workspace=workspace, name=name)
        .aggregate(v=Max("version"))["v"]
    )
    version = (latest or 0) + 1
    definition = replace(definition, name=name, version=version)
    errors = validate_definition(definition)
    if errors:
        raise InvalidRuleSet(errors)
    return RuleSet.objects.create(
        workspace=workspace,
        name=name,
        version=version,
        definition=to_dict(definition),
        parent=parent,
        note=note.strip(),
        created_by=actor,
    )


@transaction.atomic
def rule_set_activate(
    *,
    workspace: Workspace,
    rule_set: RuleSet,
    domain_pack: str,
    policy: str,
    actor: User | None,
    create_pack: bool = False,
) -> RuleSetActivation:
    """Record that ``workspace`` now uses ``rule_set`` under ``policy`` for ``domain_pack``.

    The pack is one of the workspace's (its sources' packs and the packs rule sets were
    activated for; empty: all packs); a new pack is made only when asked explicitly
    (``create_pack``), so a typo never becomes a pack of its own."""
    from verifier.selectors.rules import rule_set_domain_packs

    if rule_set.workspace_id not in (None, workspace.pk):
        raise InvalidRuleSet(["rule set belongs to another workspace"])
    domain_pack = domain_pack.strip()
    known = rule_set_domain_packs(workspace=workspace)
    if domain_pack not in known and not create_pack:
        listed = ", ".join(f"“{p}”" for p in known if p) or "none yet"
        raise InvalidRuleSet(
            [
                f"“{domain_pack}” is not a domain pack of this workspace (its packs: {listed}). "
                "Choose one, or create the new pack explicitly."
            ]
        )
    names = {p["name"] for p in rule_set.definition.get("policies", [])}
    if policy not in names:
        raise InvalidRuleSet([f"policy {policy!r} is not defined by {rule_set}"])
    return RuleSetActivation.objects.create(
        workspace=workspace,
        domain_pack=domain_pack,
        rule_set=rule_set,
        policy=policy,
        activated_by=actor,
    )
