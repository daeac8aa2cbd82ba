"""Which verification rules a workspace runs under (``GET /connect/v1/verification-rules``)."""

from __future__ import annotations

from typing import Any

from verifier.models import RuleSetActivation, Workspace
from verifier.scoring.rulesets import CORE_V1, to_dict

BUILT_IN_SOURCE = "built_in"


def rule_set_builtin_document() -> dict[str, Any]:
    return to_dict(CORE_V1)


def _overrides(definition: dict[str, Any], base: dict[str, Any]) -> list[dict[str, Any]]:
    """Every dimension weight/threshold and policy threshold that differs from ``base``."""
    changes: list[dict[str, Any]] = []
    base_dims = {d["key"]: d for d in base.get("dimensions", [])}
    for dim in definition.get("dimensions", []):
        was = base_dims.get(dim.get("key"), {})
        for field in ("weight", "passing_threshold"):
            if dim.get(field) != was.get(field):
                changes.append(
                    {
                        "target": f"dimension:{dim.get('key')}",
                        "field": field,
                        "built_in": was.get(field),
                        "value": dim.get(field),
                    }
                )
    base_pols = {p["name"]: p for p in base.get("policies", [])}
    for pol in definition.get("policies", []):
        was = base_pols.get(pol.get("name"), {})
        for field in ("min_overall_score", "weak_threshold"):
            if pol.get(field) != was.get(field):
                changes.append(
                    {
                        "target": f"policy:{pol.get('name')}",
                        "field": field,
                        "built_in": was.get(field),
                        "value": pol.get(field),
                    }
                )
    return changes


def verification_rules_active(*, workspace: Workspace) -> dict[str, Any]:
    """The active rule set per domain pack ('' = all packs), newest activation winning,
    each with its overrides against built-in Core v1; Core v1 when nothing is active."""
    builtin = rule_set_builtin_document()
    activations = (
        RuleSetActivation.objects.filter(workspace=workspace)
        .select_related("rule_set")
        .order_by("domain_pack", "-activated_at", "-id")
    )
    packs: dict[str, RuleSetActivation] = {}
    for activation in activations:
        packs.setdefault(activation.domain_pack, activation)
    entries = []
    for pack, activation in sorted(packs.items()):
        definition = activation.rule_set.definition
        entries.append(
            {
                "domain_pack": pack,
                "source": "workspace" if activation.rule_set.workspace_id else BUILT_IN_SOURCE,
                "rule_set": {
                    "name": activation.rule_set.name,
                    "version": activation.rule_set.version,
                },
                "policy": activation.policy,
                "activated_at": activation.activated_at,
                "definition": definition,
                "overrides": _overrides(definition, builtin),
            }
        )
    if "" not in packs:
        entries.insert(
            0,
            {
                "domain_pack": "",
                "source": BUILT_IN_SOURCE,
                "rule_set": {"name": CORE_V1.name, "version": CORE_V1.version},
                "policy": CORE_V1.default_policy,
                "activated_at": None,
                "definition": builtin,
                "overrides": [],
            },
        )
    return {"workspace": workspace.slug, "rule_sets": entries}
