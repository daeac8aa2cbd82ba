"""Audit console: rule sets (admins only): list, new, preview, diff, put in force. Each view
parses the request, calls one selector or service, renders."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlencode

from django.contrib import messages
from django.core.paginator import Paginator
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from audit import services
from audit.forms import RuleSetForm
from audit.paging import CONSOLE_PAGE_SIZE
from verifier.domain_packs import domain_pack_problem
from verifier.http import MemberRequest
from verifier.models import RuleSet
from verifier.permissions import ADMIN_ROLES, role_required
from verifier.scoring.rulesets import CORE_V1, POLICY_NAMES, InvalidRuleSet, to_dict
from verifier.selectors import rules as rule_selectors
from verifier.untrusted_input import decimal_int
from verifier.vocabulary import ALL_PACKS, label


@require_GET
@role_required(*ADMIN_ROLES)
def rules(request: MemberRequest) -> HttpResponse:
    workspace = request.workspace
    packs = rule_selectors.rule_set_domain_packs(workspace=workspace)
    active = [rule_selectors.rule_set_active(workspace=workspace, domain_pack=p) for p in packs]
    rule_sets = list(rule_selectors.rule_set_list(workspace=workspace))
    activations = Paginator(
        rule_selectors.rule_set_activations(workspace=workspace), CONSOLE_PAGE_SIZE
    ).get_page(request.GET.get("page"))
    return render(
        request,
        "audit/rules.html",
        {
            "active": active,
            "packs": packs,
            "core": CORE_V1,
            "rule_sets": rule_sets,
            "page": activations,
            "all_packs": ALL_PACKS,
        },
    )


def _base_rule_set(request: MemberRequest) -> tuple[Any, Any]:
    """The rule set a new version starts from: ?from=<id>, else the built-in Core v1."""
    source = request.POST.get("from") or request.GET.get("from") or ""
    pk = decimal_int(source)
    if pk is not None:
        parent = rule_selectors.rule_set_get(workspace=request.workspace, pk=pk)
        return parent, rule_selectors.rule_set_definition(parent)
    return None, CORE_V1


@require_http_methods(["GET", "POST"])
@role_required(*ADMIN_ROLES)
def rule_set_new(request: MemberRequest) -> HttpResponse:
    workspace = request.workspace
    parent, base = _base_rule_set(request)
    packs = rule_selectors.rule_set_domain_packs(workspace=workspace)
    impact = None
    identical: RuleSet | None = None
    if request.method == "POST":
        form = RuleSetForm(request.POST, base=base, packs=packs)
        action = request.POST.get("action", "preview")
        if form.is_valid():
            data = form.cleaned_data
            definition = form.definition()
            if action == "save":
                # Save, review, then activate: a draft version is stored but not active.
                try:
                    draft = services.rule_set_create(
                        workspace=workspace,
                        definition=definition,
                        parent=parent,
                        note=data["note"],
                        actor=request.user,
                    )
                except InvalidRuleSet as exc:
                    for message in exc.errors:
                        form.add_error(None, message)
                except services.RuleSetUnchanged as exc:
                    identical = exc.rule_set  # the page links to it; nothing was stored
                else:
                    messages.success(
                        request,
                        f"Saved {rule_selectors.rule_set_label(draft)} as a draft: it is not "
                        "active. Review its impact, then activate it for a domain pack or "
                        f"{ALL_PACKS}.",
                    )
                    if (
                        parent is not None
                        and parent.name == draft.name
                        and draft.version > parent.version + 1
                    ):
                        # Started from an older version (a second tab, another admin):
                        # the versions between do not carry over, and the comparison
                        # below is with the version started from.
                        messages.warning(
                            request,
                            f"{rule_selectors.rule_set_label(draft)} was made from version "
                            f"{parent.version}, not from version {draft.version - 1} saved "
                            "since: it does not carry the changes of the versions between. "
                            "Compare them before activating it.",
                        )
                    # the activate form on the version's page starts at the previewed target
                    target = urlencode(
                        {"domain_pack": data["domain_pack"], "policy": data["policy"]}
                    )
                    return redirect(
                        reverse("audit:rule-set-detail", args=[draft.pk]) + f"?{target}"
                    )
            else:
                impact = rule_selectors.rule_set_impact(
                    workspace=workspace,
                    domain_pack=data["domain_pack"],
                    definition=definition,
                    policy=data["policy"],
                )
        if request.htmx and action == "preview":
            # Every field goes back out of band too: each error shows beside its field,
            # and a field fixed since loses its error.
            return render(
                request,
                "audit/partials/rule_impact.html",
                {"impact": impact, "form": form, "oob": True},
                status=_form_status(form),
            )
    else:
        # A tuned copy of a built-in (from the Rules page's link, or from its row in the
        # version history) gets its own name, so versions read "Acme rules v2".
        built_in = parent is None or parent.workspace_id is None
        initial = {"name": f"{base.name} tuned"} if built_in else {}
        form = RuleSetForm(base=base, packs=packs, initial=initial)
    return render(
        request,
        "audit/rule_set_form.html",
        {
            "form": form,
            "parent": parent,
            "base": base,
            "impact": impact,
            "packs": packs,
            "identical": identical,
        },
        # nothing was stored: the refusal's 409, not a 200 that reads as a save
        status=services.RuleSetUnchanged.status_code if identical else _form_status(form),
    )


def _form_status(form: RuleSetForm) -> int:
    """422 for a form sent back with its errors, as the members, API key and webhook
    forms answer (htmx swaps a 422 in: base.html's responseHandling)."""
    return 422 if form.is_bound and form.errors else 200


@require_GET
@role_required(*ADMIN_ROLES)
def rule_set_detail(request: MemberRequest, pk: int) -> HttpResponse:
    workspace = request.workspace
    rule_set = rule_selectors.rule_set_get(workspace=workspace, pk=pk)
    definition = rule_selectors.rule_set_definition(rule_set)
    parent_def = rule_selectors.rule_set_definition(rule_set.parent) if rule_set.parent else CORE_V1
    packs = rule_selectors.rule_set_domain_packs(workspace=workspace)
    # a new pack's name refused on the confirmation page comes back typed, to correct
    new_pack = request.GET.get("new_domain_pack", "").strip()[:64]
    return render(
        request,
        "audit/rule_set_detail.html",
        {
            "rule_set": rule_set,
            "definition": definition,
            "definition_json": json.dumps(to_dict(definition), indent=2),
            "diff": rule_selectors.rule_set_diff(parent_def, definition),
            "compared_to": rule_selectors.rule_set_label(rule_set.parent or CORE_V1),
            "packs": packs,
            "new_pack": new_pack if new_pack not in packs else "",
            "policies": POLICY_NAMES,
            "target_pack": request.GET.get("domain_pack", "").strip(),
            "target_policy": _policy_or(request.GET.get("policy", ""), definition.default_policy),
        },
    )


def _policy_or(policy: str, default: str) -> str:
    """``policy`` when it names one, else ``default``: the select never opens on none."""
    return policy if policy in POLICY_NAMES else default


def _pack_choice(data: Any) -> tuple[str, bool]:
    """The domain pack a form chose: one of the select's, or a new one typed under "New
    pack" (then ``create`` says whether its creation was confirmed)."""
    new = (data.get("new_domain_pack") or "").strip()
    if new:
        return new, data.get("create_pack") == "1"
    return (data.get("domain_pack") or "").strip(), False


def _activate(request: MemberRequest, rule_set: Any) -> HttpResponse:
    pack, create = _pack_choice(request.POST)
    try:
        activation = services.rule_set_activate(
            workspace=request.workspace,
            rule_set=rule_set,
            domain_pack=pack,
            policy=request.POST.get("policy", ""),
            actor=request.user,
            create_pack=create,
            # the confirmation page's; the detail page's direct activation has none
            previewed_against=request.POST.get("previewed_against"),
        )
    except InvalidRuleSet as exc:
        messages.error(request, "; ".join(exc.errors))
        detail = reverse("audit:rule-set-detail", args=[rule_set.pk])
        if pack not in rule_selectors.rule_set_domain_packs(workspace=request.workspace):
            # a new pack refused: the message names it, and the name comes back typed
            retry = urlencode(
                {"policy": request.POST.get("policy", ""), "new_domain_pack": pack[:64]}
            )
            return redirect(f"{detail}?{retry}")
        # back to the version's page with the pack and policy just tried still chosen:
        # "Preview it again" is one click, never a silent switch to all packs
        target = urlencode({"domain_pack": pack, "policy": request.POST.get("policy", "")})
        return redirect(f"{detail}?{target}")
    messages.success(
        request,
        f"Activated {rule_selectors.rule_set_label(rule_set)} for "
        f"{activation.domain_pack or ALL_PACKS} with the {label('policy', activation.policy)} "
        "policy; the claims it covers are classed again under it in the background.",
    )
    return redirect(reverse("audit:rules"))


@require_POST
@role_required(*ADMIN_ROLES)
def rule_set_activate(request: MemberRequest, pk: int) -> HttpResponse:
    """Activate a stored version, after a confirmation page with its impact (flip list)."""
    return _confirm_or_activate(
        request, rule_selectors.rule_set_get(workspace=request.workspace, pk=pk)
    )


def _confirm_or_activate(request: MemberRequest, rule_set: Any) -> HttpResponse:
    """The confirmation page with the flip list (a new pack is made only by confirming it,
    ticked); with ``confirm=1``, the activation."""
    policy = request.POST.get("policy", "")
    if request.POST.get("confirm") == "1" or policy not in POLICY_NAMES:
        return _activate(request, rule_set)  # an unknown policy is refused there
    domain_pack, create = _pack_choice(request.POST)
    packs = rule_selectors.rule_set_domain_packs(workspace=request.workspace)
    impact = rule_selectors.rule_set_impact(
        workspace=request.workspace,
        domain_pack=domain_pack,
        definition=rule_selectors.rule_set_definition(rule_set),
        policy=policy,
    )
    in_force = rule_selectors.rule_set_activations_latest(
        workspace=request.workspace, domain_packs=[domain_pack]
    ).get(domain_pack)
    return render(
        request,
        "audit/rule_set_confirm.html",
        {
            "rule_set": rule_set,
            "impact": impact,
            "previewed_against": in_force.pk if in_force else "",
            "domain_pack": domain_pack,
            "policy": policy,
            # A pack not in the workspace yet is made only by this confirmation, and
            # only with a name that fits and reads as what it is.
            "new_pack": domain_pack not in packs,
            "pack_problem": domain_pack_problem(domain_pack, packs),
            "create_pack": create,
            "all_packs": ALL_PACKS,
        },
    )


@require_POST
@role_required(*ADMIN_ROLES)
def rule_set_builtin_activate(request: MemberRequest) -> HttpResponse:
    """The built-in goes through the same confirmation as every other version."""
    return _confirm_or_activate(request, services.rule_set_builtin_ensure())


@require_GET
@role_required(*ADMIN_ROLES)
def rule_set_diff(request: MemberRequest) -> HttpResponse:
    workspace = request.workspace
    options = list(rule_selectors.rule_set_list(workspace=workspace))

    unknown: list[str] = []

    def pick(key: str) -> tuple[Any, Any]:
        """The version ``?key=`` names; the built-in when it names none (blank) and, with
        a word on the page, when it names one this workspace does not have."""
        value = request.GET.get(key, "").strip()
        if (pk := decimal_int(value)) is not None:
            try:
                rs = rule_selectors.rule_set_get(workspace=workspace, pk=pk)
            except Http404:
                pass
            else:
                return rs, rule_selectors.rule_set_definition(rs)
        if value:
            unknown.append(value)
        return None, CORE_V1

    a, a_def = pick("a")
    b, b_def = pick("b")
    for value in unknown:
        messages.warning(
            request,
            f"No rule-set version “{value[:40]}” in this workspace: "
            f"{rule_selectors.rule_set_label(CORE_V1)} is shown in its place.",
        )
    return render(
        request,
        "audit/rule_set_diff.html",
        {
            "options": options,
            "a": a,
            "b": b,
            "core": CORE_V1,
            "a_label": rule_selectors.rule_set_label(a or CORE_V1),
            "b_label": rule_selectors.rule_set_label(b or CORE_V1),
            "rows": rule_selectors.rule_set_diff(a_def, b_def),
        },
    )
