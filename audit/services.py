"""Writes for the audit console: rule-set versions and their activation (admins only)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from django.contrib.auth.models import User
from django.db import connection, transaction
from django.db.models import Q

from verifier.domain_packs import domain_pack_problem
from verifier.errors import ApplicationError
from verifier.models import ActivityAction, RuleSet, RuleSetActivation, Workspace
from verifier.scoring.rulesets import (
    CORE_V1,
    InvalidRuleSet,
    RuleSetDefinition,
    to_dict,
    validate_definition,
)
from verifier.selectors.rules import (
    rule_set_activations_latest,
    rule_set_domain_packs,
    rule_set_label,
)
from verifier.services.activity import activity_record
from verifier.services.enqueue import RECLASS_CLAIMS, task_enqueue_on_commit
from verifier.untrusted_input import identifier_refusal


class RuleSetUnchanged(ApplicationError):
    """A new version would repeat the latest one of its name: nothing is stored;
    ``rule_set`` is that version, for the console to link to. A 409 (a conflict with
    what is stored, as a repeated webhook's ``webhook_exists``), never a 200: a save
    that answered 200 would read as one that made a version."""

    status_code = 409

    def __init__(self, rule_set: RuleSet) -> None:
        self.rule_set = rule_set
        super().__init__(
            "rule_set_unchanged",
            f"This definition is identical to version {rule_set.version} "
            f"({rule_set_label(rule_set)}): nothing was saved.",
            {"rule_set": rule_set.pk, "version": rule_set.version},
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
    """Store ``definition`` as the next immutable version of its name in the workspace;
    refused (``RuleSetUnchanged``) when it is identical to the latest one.

    Versions of one name are numbered one save at a time: a transaction-scoped advisory
    lock on (workspace, name) holds a second save of the same name, from another tab or
    process, until the first commits, so it reads the new latest and takes the next
    number (a row lock cannot do this for a name that has no version yet)."""
    name = definition.name.strip()
    _check_name(workspace, name)
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_advisory_xact_lock(hashtextextended(%s, 0))",
            [f"rule-set-version:{workspace.pk}:{name}"],
        )
    latest = RuleSet.objects.filter(workspace=workspace, name=name).order_by("-version").first()
    version = (latest.version if latest else 0) + 1
    definition = replace(definition, name=name, version=version)
    errors = validate_definition(definition)
    if errors:
        raise InvalidRuleSet(errors)
    document = to_dict(definition)
    if latest is not None and _unversioned(latest.definition) == _unversioned(document):
        raise RuleSetUnchanged(latest)
    rule_set = RuleSet.objects.create(
        workspace=workspace,
        name=name,
        version=version,
        definition=document,
        parent=parent,
        note=note.strip(),
        created_by=actor,
    )
    activity_record(
        workspace=workspace,
        action=ActivityAction.RULE_SET_SAVED,
        target=rule_set_label(rule_set),
        details={"rule_set_id": rule_set.pk, "note": rule_set.note}
        if rule_set.note
        else {"rule_set_id": rule_set.pk},
    )
    return rule_set


def _check_name(workspace: Workspace, name: str) -> None:
    """A rule set's name is shown on every page that names its versions: it reads as
    what it is (``identifier_refusal``), and one that differs from another series' only
    in letter case ("Delta rules" beside "delta rules") would start a second series that
    looks like the first."""
    refused = identifier_refusal("name", name)
    if refused is not None:
        raise InvalidRuleSet([refused])
    other = (
        RuleSet.objects.filter(Q(workspace=workspace) | Q(workspace__isnull=True))
        .filter(name__iexact=name)
        .exclude(name=name)
        .values_list("name", flat=True)
        .first()
    )
    if other is not None:
        raise InvalidRuleSet(
            [
                f"“{name}” differs from the rule set “{other}” only in letter case: use "
                f"“{other}” for a new version of it, or a name that reads differently."
            ]
        )


def _unversioned(document: dict[str, Any]) -> dict[str, Any]:
    """A stored definition without its version number: what two versions compare by."""
    return {key: value for key, value in document.items() if key != "version"}


@transaction.atomic
def rule_set_activate(
    *,
    workspace: Workspace,
    rule_set: RuleSet,
    domain_pack: str,
    policy: str,
    actor: User | None,
    create_pack: bool = False,
    previewed_against: str | None = None,
) -> RuleSetActivation:
    """Record that ``workspace`` now uses ``rule_set`` under ``policy`` for ``domain_pack``.

    ``previewed_against``: the activation in force for the pack when the admin was shown
    the impact (its id, "" for none). Another admin's activation since, or the same rule
    set and policy already in force, refuses it: the flip list shown is not what this
    activation would do.

    The pack is one of the workspace's (its sources' packs and the packs rule sets were
    activated for; empty: all packs); a new pack is made only when asked explicitly
    (``create_pack``), so a typo never becomes a pack of its own, and only with a name
    that fits and reads as what it is (``verifier.domain_packs``)."""
    if rule_set.workspace_id not in (None, workspace.pk):
        raise InvalidRuleSet(["rule set belongs to another workspace"])
    domain_pack = domain_pack.strip()
    known = rule_set_domain_packs(workspace=workspace)
    problem = domain_pack_problem(domain_pack, known)
    if problem is not None:
        raise InvalidRuleSet([problem])
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
        raise InvalidRuleSet([f"policy {policy!r} is not defined by {rule_set_label(rule_set)}"])
    if previewed_against is not None:
        Workspace.objects.select_for_update().filter(pk=workspace.pk).first()  # one at a time
        current = rule_set_activations_latest(workspace=workspace, domain_packs=[domain_pack])
        now = current.get(domain_pack)
        where = f"“{domain_pack}”" if domain_pack else "all packs"
        if str(now.pk if now else "") != previewed_against:
            by = now.activated_by.get_username() if now and now.activated_by else "someone"
            raise InvalidRuleSet(
                [
                    f"{by} put {rule_set_label(now.rule_set) if now else 'another rule set'} "
                    f"in force for {where} after you previewed this activation: the impact "
                    "you were shown no longer holds. Preview it again."
                ]
            )
        if now is not None and now.rule_set_id == rule_set.pk and now.policy == policy:
            raise InvalidRuleSet(
                [
                    f"{rule_set_label(rule_set)} is already in force for {where} with the "
                    f"{policy} policy: nothing to activate."
                ]
            )
    activation = RuleSetActivation.objects.create(
        workspace=workspace,
        domain_pack=domain_pack,
        rule_set=rule_set,
        policy=policy,
        activated_by=actor,
    )
    # The stored classes follow (the flip list the admin was shown), after commit.
    task_enqueue_on_commit(RECLASS_CLAIMS, workspace.pk, domain_pack)
    activity_record(
        workspace=workspace,
        action=ActivityAction.RULE_SET_ACTIVATED,
        target=rule_set_label(rule_set),
        details={"rule_set_id": rule_set.pk, "domain_pack": domain_pack, "policy": policy},
    )
    return activation
