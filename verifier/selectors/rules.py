"""Reads of rule sets: which one is active per domain pack (the pipeline, the console's
Rules page, the audit walk and ``GET /connect/v1/verification-rules`` all ask here), the
workspace's versions, and the console's diff and what-if impact of a definition."""

from __future__ import annotations

import dataclasses
import re
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Final

from django.db.models import OuterRef, Q, QuerySet, Subquery
from django.http import Http404

from verifier import vocabulary
from verifier.models import (
    Claim,
    ClaimStateChoices,
    EvidenceBinding,
    RuleSet,
    RuleSetActivation,
    Source,
    Verdict,
    Workspace,
)
from verifier.scoring.dimension_heuristics import dimension_scores
from verifier.scoring.quality import QUALITY_CLASSES, quality_class
from verifier.scoring.rulesets import (
    BUILT_IN_RULE_SETS,
    CORE_V1,
    DIMENSIONS,
    RuleSetDefinition,
    classify,
    from_dict,
    overall_score,
    to_dict,
)
from verifier.selectors.claims import claims_state_counts

BUILT_IN_SOURCE = "built_in"
CLASSES: Final = QUALITY_CLASSES
FLIP_LIST_LIMIT: Final = 200
IMPACT_CHUNK: Final = 2000
_VERSIONED_NAME: Final = re.compile(r"\bv\d+$")


def rule_set_label(subject: RuleSet | RuleSetDefinition) -> str:
    """The one name the console gives a rule-set version, a stored row or a definition:
    "<name> v<version>" ("Delta rules v2"); the name alone when it already ends in its
    version ("Core v1", never "Core v1 v1"); "<name> (version <n>)" when it ends in
    another ("Core v1 (version 2)"); then " (built-in)" for a built-in one (a row of no
    workspace, or a definition equal to the built-in of its name)."""
    name, version = subject.name, subject.version
    if isinstance(subject, RuleSet):
        built_in = subject.workspace_id is None
    else:
        built_in = BUILT_IN_RULE_SETS.get(name) == subject
    if name.endswith(f" v{version}"):
        label = name
    elif _VERSIONED_NAME.search(name):
        label = f"{name} (version {version})"
    else:
        label = f"{name} v{version}"
    return f"{label} (built-in)" if built_in else label


@dataclass(frozen=True)
class ActiveRules:
    definition: RuleSetDefinition
    rule_set: RuleSet | None
    policy: str
    activation: RuleSetActivation | None
    domain_pack: str

    @property
    def label(self) -> str:
        return rule_set_label(self.rule_set if self.rule_set is not None else self.definition)


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
    packs = rule_set_activations_latest(workspace=workspace)
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


def rule_set_activations_latest(
    *, workspace: Workspace, domain_packs: Iterable[str] | None = None
) -> dict[str, RuleSetActivation]:
    """The newest activation of each domain pack ('' = all packs), limited to
    ``domain_packs`` when given: the one rule for which activation is in force."""
    activations = RuleSetActivation.objects.filter(workspace=workspace)
    if domain_packs is not None:
        activations = activations.filter(domain_pack__in=list(domain_packs))
    latest: dict[str, RuleSetActivation] = {}
    for activation in activations.select_related("rule_set", "activated_by").order_by(
        "domain_pack", "-activated_at", "-id"
    ):
        latest.setdefault(activation.domain_pack, activation)
    return latest


def rule_set_definition(rule_set: RuleSet) -> RuleSetDefinition:
    """The stored definition, validated (raises ``InvalidRuleSet`` when corrupt)."""
    return from_dict(rule_set.definition)


def rule_set_active(*, workspace: Workspace, domain_pack: str) -> ActiveRules:
    """The latest activation for the domain pack, else the all-packs one, else Core v1."""
    latest = rule_set_activations_latest(workspace=workspace, domain_packs=[domain_pack, ""])
    chosen = latest.get(domain_pack) or latest.get("")
    if chosen is None:
        return ActiveRules(CORE_V1, None, CORE_V1.default_policy, None, domain_pack)
    return ActiveRules(
        rule_set_definition(chosen.rule_set), chosen.rule_set, chosen.policy, chosen, domain_pack
    )


def rule_set_domain_packs(*, workspace: Workspace) -> list[str]:
    packs = set(
        Source.objects.filter(workspace=workspace).values_list("domain_pack", flat=True).distinct()
    )
    packs |= set(
        RuleSetActivation.objects.filter(workspace=workspace).values_list("domain_pack", flat=True)
    )
    packs.discard("")
    return ["", *sorted(packs)]


def rule_set_list(*, workspace: Workspace) -> QuerySet[RuleSet]:
    return (
        RuleSet.objects.filter(Q(workspace=workspace) | Q(workspace__isnull=True))
        .select_related("created_by", "parent")
        .order_by("workspace_id", "name", "-version")
    )


def rule_set_get(*, workspace: Workspace, pk: int) -> RuleSet:
    rule_set = rule_set_list(workspace=workspace).filter(pk=pk).first()
    if rule_set is None:
        raise Http404("No such rule set in this workspace.")
    return rule_set


def rule_set_activations(*, workspace: Workspace) -> QuerySet[RuleSetActivation]:
    return RuleSetActivation.objects.filter(workspace=workspace).select_related(
        "rule_set", "activated_by"
    )


def rule_set_diff(a: RuleSetDefinition, b: RuleSetDefinition) -> list[dict[str, Any]]:
    """Side-by-side rows of every tunable number; ``changed`` marks differences."""
    rows: list[dict[str, Any]] = []

    def add(label: str, left: Any, right: Any) -> None:
        rows.append({"label": label, "a": left, "b": right, "changed": left != right})

    policy = vocabulary.label  # a policy in the form's words ("Strict"), not its code
    add("Default policy", policy("policy", a.default_policy), policy("policy", b.default_policy))
    for key in DIMENSIONS:
        # the words of the form that sets them ("Logical structure weight"), not the key
        title = vocabulary.label("dimension", key)
        add(f"{title} · weight", a.dimension(key).weight, b.dimension(key).weight)
        add(
            f"{title} · passing threshold",
            a.dimension(key).passing_threshold,
            b.dimension(key).passing_threshold,
        )
    for name in ("strict", "balanced", "lenient"):
        words = policy("policy", name)
        add(
            f"{words} · supported at ≥",
            a.policy(name).min_overall_score,
            b.policy(name).min_overall_score,
        )
        add(f"{words} · weak at ≥", a.policy(name).weak_threshold, b.policy(name).weak_threshold)
    return rows


@dataclass
class Flip:
    public_id: str
    text: str
    state: str
    old: str
    new: str
    old_score: float
    new_score: float


@dataclass
class Impact:
    total: int
    moved: int
    matrix: dict[str, dict[str, int]]
    before: dict[str, int]
    after: dict[str, int]
    flips: list[Flip]
    truncated: bool
    old_label: str
    old_policy: str
    # The claims in scope by state now (``claims_state_counts``), and how many of them
    # are excluded and so in no class.
    states: dict[str, int]
    not_validated: int
    # Claims in scope with no class yet (not excluded): a job is still validating them
    # and classes them under the rules in force when it gets there; an activation does
    # not class them again, so they are counted apart.
    unclassified: int = 0
    # For "all packs": the packs with an activation of their own, whose claims keep
    # their pack's rules (``rule_set_active``) and are left out.
    own_packs: list[str] = dataclasses.field(default_factory=list)
    own_pack_claims: int = 0

    @property
    def rows(self) -> list[tuple[str, list[tuple[str, int]], int]]:
        return [
            (old, [(new, self.matrix[old][new]) for new in CLASSES], self.before[old])
            for old in CLASSES
        ]


def _impact_claims(*, workspace: Workspace, domain_pack: str) -> tuple[QuerySet[Claim], list[str]]:
    """The claims an activation for ``domain_pack`` ('' = all packs) re-classes the
    scope of, and (for all packs) the packs left out for having rules of their own."""
    claims = Claim.objects.filter(workspace=workspace)
    if domain_pack:
        return claims.filter(source__domain_pack=domain_pack), []
    return claims, sorted(p for p in rule_set_activations_latest(workspace=workspace) if p)


def _impact_rows(claims: QuerySet[Claim]) -> Iterator[Mapping[str, Any]]:
    latest = Verdict.objects.filter(claim=OuterRef("pk")).latest_first()
    quote = EvidenceBinding.objects.filter(claim=OuterRef("pk"), is_active=True).values("quote")
    return (
        claims.annotate(
            span_text=Subquery(quote[:1]),
            verdict_label=Subquery(latest.values("label")[:1]),
            verdict_confidence=Subquery(latest.values("confidence")[:1]),
        )
        .order_by("id")
        .values("public_id", "text", "state", "span_text", "verdict_label", "verdict_confidence")
        .iterator(chunk_size=IMPACT_CHUNK)
    )


def rule_set_impact(
    *,
    workspace: Workspace,
    domain_pack: str,
    definition: RuleSetDefinition,
    policy: str,
) -> Impact:
    """Re-class the claims an activation of ``definition`` with ``policy`` for
    ``domain_pack`` ('' = all packs) would class again, under the rules in force and
    under it: exactly what ``verifier.services.quality_reclass`` touches, the claims in
    scope that have a class now.

    Per-dimension scores are not stored, so both sides use the same offline
    heuristic scores (``verifier.scoring.dimension_heuristics``): only the rule
    set differs between the two columns. Each class is capped by the claim's state
    now (``verifier.scoring.quality.quality_class``), as the quality report counts it:
    an unverified claim is never counted supported, whatever either rule set says;
    excluded claims are in no class. Claims with no class yet and, for all packs, the
    claims of packs with rules of their own are counted apart.
    """
    current = rule_set_active(workspace=workspace, domain_pack=domain_pack)
    claims, own_packs = _impact_claims(workspace=workspace, domain_pack=domain_pack)
    own_pack_claims = 0
    if own_packs:
        own_pack_claims = claims.filter(source__domain_pack__in=own_packs).count()
        claims = claims.exclude(source__domain_pack__in=own_packs)
    unclassified = claims.filter(quality="").exclude(state=ClaimStateChoices.EXCLUDED).count()
    matrix = {old: dict.fromkeys(CLASSES, 0) for old in CLASSES}
    before: Counter[str] = Counter()
    after: Counter[str] = Counter()
    flips: list[Flip] = []
    moved = total = not_validated = 0
    for row in _impact_rows(claims.exclude(quality="")):
        scores = dimension_scores(
            claim_text=row["text"],
            span_text=row["span_text"],
            verdict_label=row["verdict_label"],
            verdict_confidence=row["verdict_confidence"],
        )
        old = quality_class(row["state"], classify(current.definition, scores, current.policy))
        new = quality_class(row["state"], classify(definition, scores, policy))
        if old is None or new is None:
            not_validated += 1
            continue
        total += 1
        before[old] += 1
        after[new] += 1
        matrix[old][new] += 1
        if old != new:
            moved += 1
            if len(flips) < FLIP_LIST_LIMIT:
                flips.append(
                    Flip(
                        row["public_id"],
                        row["text"],
                        row["state"],
                        old,
                        new,
                        round(overall_score(current.definition, scores), 3),
                        round(overall_score(definition, scores), 3),
                    )
                )
    # excluded claims without a class are in no class either
    not_validated += claims.filter(quality="", state=ClaimStateChoices.EXCLUDED).count()
    return Impact(
        total=total,
        moved=moved,
        matrix=matrix,
        before={c: before[c] for c in CLASSES},
        after={c: after[c] for c in CLASSES},
        flips=flips,
        truncated=moved > len(flips),
        old_label=current.label,
        old_policy=current.policy,
        states=claims_state_counts(claims),
        not_validated=not_validated,
        unclassified=unclassified,
        own_packs=own_packs,
        own_pack_claims=own_pack_claims,
    )
