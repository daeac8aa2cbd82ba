"""Audit console views: parse the request, call one selector or service, render."""

from __future__ import annotations

import json
from typing import Any, Final
from urllib.parse import urlencode

from django.contrib import messages
from django.core.paginator import Paginator
from django.http import Http404, HttpResponse, HttpResponseBadRequest, StreamingHttpResponse
from django.http.response import HttpResponseBase
from django.shortcuts import redirect, render
from django.template.defaultfilters import pluralize
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from audit import exports, selectors, services
from audit.forms import RuleSetForm
from verifier.domain_packs import domain_pack_problem
from verifier.engine import get_judge
from verifier.http import MemberRequest
from verifier.models import ClaimStateChoices, RuleSet
from verifier.permissions import ADMIN_ROLES, role_required
from verifier.pipeline.views import HTMX_STOP_POLLING
from verifier.scoring.quality import quality_class
from verifier.scoring.rulesets import CORE_V1, POLICY_NAMES, InvalidRuleSet, to_dict
from verifier.selectors import calibrators as calibrator_selectors
from verifier.selectors import counts
from verifier.selectors import rules as rule_selectors
from verifier.selectors import traces as trace_selectors
from verifier.selectors.claims import claim_get
from verifier.services import judge_calibrators as calibrator_services
from verifier.services.claim_state import claim_recheck_on_read
from verifier.state_policy import queue_reason_order

PAGE_SIZE: Final = 50
JOBS_PAGE_SIZE: Final = 20
CHART_WIDTH: Final = 480
CHART_HEIGHT: Final = 150
CHART_PAD: Final = 10
# Room for the axes' labels: the scores on the left, the job numbers and title below.
CHART_LEFT: Final = 44
CHART_BOTTOM: Final = 40
CHART_Y_TICKS: Final = (0, 50, 90, 100)
CHART_MAX_X_LABELS: Final = 8
FLIPS_SHOWN: Final = 200  # rows of each flip list on the activation page


def _ws(request: MemberRequest) -> Any:
    return request.workspace


# --- claims ------------------------------------------------------------------------


@require_GET
@role_required()
def claim_list(request: MemberRequest) -> HttpResponse:
    filters = selectors.audit_claim_filters(request.GET)
    # A value no claim list allows is said next to its field, never read as "no match".
    errors = selectors.audit_claim_filter_errors(filters)
    page = (
        None
        if errors
        else selectors.audit_claim_page(
            workspace=_ws(request), filters=filters, params=request.GET, page_size=PAGE_SIZE
        )
    )
    query = request.GET.copy()
    for key in ("page", "after", "before"):
        query.pop(key, None)
    if "reason" in filters:
        query["reason"] = filters["reason"]
    return render(
        request,
        "audit/claim_list.html",
        {
            "page": page,
            "filters": filters,
            "errors": errors,
            "state": filters.get("state"),
            "states": ClaimStateChoices.values,
            "reasons": list(queue_reason_order()),
            "export_query": query.urlencode(),
            "export_notes": exports.header_notes(),
            "count_cap": f"{counts.COUNT_CAP:,}",
        },
    )


def _stream(request: MemberRequest, kind: str) -> HttpResponseBase:
    filters = selectors.audit_claim_filters(request.GET)
    errors = selectors.audit_claim_filter_errors(filters)
    if errors:
        return HttpResponseBadRequest(
            "".join(f"{key}: {message}\n" for key, message in errors.items()),
            content_type="text/plain; charset=utf-8",
        )
    claims = selectors.audit_claim_list(workspace=_ws(request), filters=filters)
    rows = exports.export_rows(claims)
    stamp = timezone.now().strftime("%Y%m%dT%H%M%SZ")
    if kind == "jsonl":
        response = StreamingHttpResponse(
            exports.jsonl_lines(rows), content_type="application/x-ndjson; charset=utf-8"
        )
    else:
        response = StreamingHttpResponse(
            exports.csv_lines(rows), content_type="text/csv; charset=utf-8"
        )
    response["Content-Disposition"] = f'attachment; filename="claims-{stamp}.{kind}"'
    response["Cache-Control"] = "no-store"
    # What the codes mean: the glossary (the claim list shows the same notes).
    response["Link"] = f'<{reverse("glossary")}>; rel="describedby"'
    return response


@require_GET
@role_required()
def claim_export_jsonl(request: MemberRequest) -> HttpResponseBase:
    return _stream(request, "jsonl")


@require_GET
@role_required()
def claim_export_csv(request: MemberRequest) -> HttpResponseBase:
    return _stream(request, "csv")


@require_GET
@role_required()
def claim_detail(request: MemberRequest, public_id: str) -> HttpResponse:
    # Read-time Layer-1 re-check: a stale span demotes the claim before we show it.
    claim_recheck_on_read(claim=claim_get(workspace=_ws(request), public_id=public_id))
    audit = selectors.claim_audit(workspace=_ws(request), public_id=public_id)
    envelope = exports.envelope_of(audit.claim)
    return render(
        request,
        "audit/claim_detail.html",
        {
            "audit": audit,
            "claim": audit.claim,
            "envelope_json": json.dumps(envelope, indent=2, ensure_ascii=False, default=str),
            "failed_checks": sum(1 for c in audit.checks if c.passed is False),
            "quality_class": quality_class(audit.claim.state, audit.claim.quality),
        },
    )


# --- sources -----------------------------------------------------------------------


@require_GET
@role_required()
def source_list(request: MemberRequest) -> HttpResponse:
    q = request.GET.get("q", "").strip()[:200]
    rag = request.GET.get("rag") == "1"
    sources = selectors.audit_source_list(workspace=_ws(request), q=q, include_rag_chunks=rag)
    page = Paginator(sources, PAGE_SIZE).get_page(request.GET.get("page"))
    return render(request, "audit/source_list.html", {"page": page, "q": q, "rag": rag})


def _digits(value: str | None) -> int | None:
    return int(value) if value and value.isdigit() and len(value) < 10 else None


def _render_source(request: MemberRequest, source: Any, version: Any) -> HttpResponse:
    params = request.GET
    view = selectors.source_view(
        source=source,
        version=version,
        focus=selectors.SourceFocus.parse(params),
        at=_digits(params.get("at")),
        state=params.get("state", ""),
        claims_page=_digits(params.get("cpage")),
    )

    def query(drop: tuple[str, ...], **values: Any) -> str:
        out = params.copy()
        for key in drop:
            out.pop(key, None)
        for key, value in values.items():
            out[key] = str(value)
        return out.urlencode()

    return render(
        request,
        "audit/source_detail.html",
        {
            "view": view,
            "source": source,
            "earlier_query": query(("cpage",), at=view.earlier_at)
            if view.earlier_at is not None
            else "",
            "later_query": query(("cpage",), at=view.later_at) if view.later_at is not None else "",
            "prev_claims_query": query((), cpage=view.claims_page.previous_page_number())
            if view.claims_page.has_previous()
            else "",
            "next_claims_query": query((), cpage=view.claims_page.next_page_number())
            if view.claims_page.has_next()
            else "",
            "state_links": [
                {
                    "state": state,
                    "count": n,
                    "query": query(("cpage",), state=state),
                    "pressed": state == view.state_filter,
                }
                for state, n in view.state_counts
            ],
            "all_states_query": query(("cpage", "state")),
            "map_cells": [
                {"cell": cell, "query": query(("cpage",), at=cell.start)} for cell in view.span_map
            ],
        },
    )


@require_GET
@role_required()
def source_detail(request: MemberRequest, source_id: int) -> HttpResponse:
    source = selectors.audit_source_get(workspace=_ws(request), source_id=source_id)
    number = request.GET.get("v", "")
    version = selectors.source_version_get(
        source=source, number=int(number) if number.isdigit() else None
    )
    return _render_source(request, source, version)


@require_GET
@role_required()
def source_version(request: MemberRequest, source_id: int, sha256: str) -> HttpResponse:
    source = selectors.audit_source_get(workspace=_ws(request), source_id=source_id)
    version = selectors.source_version_get(source=source, sha256=sha256.lower())
    return _render_source(request, source, version)


@require_GET
@role_required()
def source_diff(request: MemberRequest, source_id: int) -> HttpResponse:
    source = selectors.audit_source_get(workspace=_ws(request), source_id=source_id)
    versions = selectors.source_versions(source=source)
    context: dict[str, Any] = {"source": source, "versions": versions}
    old_n, new_n = request.GET.get("from", ""), request.GET.get("to", "")
    if len(versions) >= 2 and not (old_n or new_n):
        old_n, new_n = str(versions[1].number), str(versions[0].number)
    if old_n.isdigit() and new_n.isdigit():
        old = selectors.source_version_get(source=source, number=int(old_n))
        new = selectors.source_version_get(source=source, number=int(new_n))
        diff, stale = selectors.source_version_diff(source=source, old=old, new=new)
        context.update({"old": old, "new": new, "diff": diff, "stale": stale})
    return render(request, "audit/source_diff.html", context)


# --- traces ------------------------------------------------------------------------


@require_GET
@role_required()
def trace_list(request: MemberRequest) -> HttpResponse:
    page = trace_selectors.trace_page(workspace=_ws(request), params=request.GET)
    return render(
        request, "audit/trace_list.html", {"page": page, "count_cap": f"{counts.COUNT_CAP:,}"}
    )


@require_GET
@role_required()
def trace_detail(request: MemberRequest, trace_id: Any) -> HttpResponse:
    trace = trace_selectors.trace_get(workspace=_ws(request), trace_id=str(trace_id))
    document = trace.document or {}
    considered = trace_selectors.trace_considered(trace=trace)
    policy = trace_selectors.trace_policy(document)
    steps, total_ms = trace_selectors.trace_steps(document)
    return render(
        request,
        "audit/trace_detail.html",
        {
            "trace": trace,
            "policy": policy,
            "policy_json": json.dumps(policy, indent=2, default=str),
            "seeds": document.get("seeds") or document.get("seed_claims") or [],
            "expansion": document.get("expansion") or document.get("graph_expansion"),
            "expansion_json": json.dumps(
                document.get("expansion") or document.get("graph_expansion"),
                indent=2,
                default=str,
            ),
            "considered": considered,
            "included": sum(1 for c in considered if c.included),
            "steps": steps,
            "total_ms": total_ms,
            "judge": document.get("judge"),
            "caller": document.get("caller"),
            "spans": selectors.trace_span_rows(
                workspace=_ws(request), spans=document.get("spans") or []
            ),
            "request_json": json.dumps(document.get("request"), indent=2, ensure_ascii=False)
            if document.get("request")
            else "",
            "document_json": json.dumps(document, indent=2, ensure_ascii=False, default=str),
            "export_url": f"/connect/v1/traces/{trace.trace_id}/export?format=json",
        },
    )


# --- quality -----------------------------------------------------------------------


def _chart_y(score: float, inner_h: float) -> float:
    return round(CHART_PAD + inner_h * (1 - max(0, min(100, score)) / 100), 1)


def trend_chart(points: list[tuple[int, int | None]]) -> dict[str, Any] | None:
    """Plot coordinates for trust scores 0–100 across jobs, computed here, not in JS.

    A job with no score (nothing validated) keeps its place on the x axis and breaks
    the line: a gap, never a drop to 0.
    """
    known = [(job, score) for job, score in points if score is not None]
    if not known:
        return None
    inner_w = CHART_WIDTH - CHART_LEFT - CHART_PAD
    inner_h = CHART_HEIGHT - CHART_PAD - CHART_BOTTOM
    step = inner_w / (len(points) - 1) if len(points) > 1 else 0
    every = max(1, -(-len(points) // CHART_MAX_X_LABELS))  # label at most 8 jobs
    dots, gaps, lines, x_ticks = [], [], [], []
    line: list[str] = []
    for i, (job_id, score) in enumerate(points):
        x = round(CHART_LEFT + (i * step if len(points) > 1 else inner_w / 2), 1)
        if i % every == 0 or i == len(points) - 1:
            x_ticks.append({"x": x, "label": f"#{job_id}"})
        if score is None:
            gaps.append({"x": x, "job": job_id})
            if line:
                lines.append(" ".join(line))
            line = []
            continue
        y = _chart_y(score, inner_h)
        dots.append({"x": x, "y": y, "job": job_id, "score": score})
        line.append(f"{x},{y}")
    if line:
        lines.append(" ".join(line))
    return {
        "width": CHART_WIDTH,
        "height": CHART_HEIGHT,
        # The axes: scores 0–100 up the left, the jobs along the bottom, each titled.
        "left": CHART_LEFT,
        "right": CHART_WIDTH - CHART_PAD,
        "bottom": round(CHART_PAD + inner_h, 1),
        "top": CHART_PAD,
        "y_ticks": [{"y": _chart_y(v, inner_h), "label": v} for v in CHART_Y_TICKS],
        "x_ticks": x_ticks,
        "x_title_y": CHART_HEIGHT - 4,
        "x_label_y": round(CHART_PAD + inner_h + 14, 1),
        "y_title_x": 12,
        "y_title_y": round(CHART_PAD + inner_h / 2, 1),
        "lines": lines,
        "dots": dots,
        "gaps": gaps,
        "threshold_y": _chart_y(90, inner_h),
        "first": known[0][1],
        "last": known[-1][1],
        "count": len(points),
        "unknown": len(gaps),
    }


@require_GET
@role_required()
def quality(request: MemberRequest) -> HttpResponse:
    workspace = _ws(request)
    page = Paginator(selectors.quality_jobs(workspace=workspace), JOBS_PAGE_SIZE).get_page(
        request.GET.get("page")
    )
    now = selectors.quality_jobs_states_now(job_ids=[job.pk for job in page])
    jobs = [
        {"job": job, "q": selectors.quality_summary(job.quality_report), "now": now[job.pk]}
        for job in page
    ]
    runs = Paginator(selectors.validator_runs(workspace=workspace), JOBS_PAGE_SIZE).get_page(
        request.GET.get("runs_page")
    )
    run_rows = [
        {"run": run, "headline": selectors.validator_run_headline(run.metrics)} for run in runs
    ]
    return render(
        request,
        "audit/quality.html",
        {
            "page": page,
            "jobs": jobs,
            "runs": runs,
            "run_rows": run_rows,
            "chart": trend_chart(selectors.quality_trend(workspace=workspace)),
            "agreement": selectors.reviewer_agreement(workspace=workspace),
        },
    )


# --- rule sets (admins only) -------------------------------------------------------


@require_GET
@role_required(*ADMIN_ROLES)
def rules(request: MemberRequest) -> HttpResponse:
    workspace = _ws(request)
    packs = rule_selectors.rule_set_domain_packs(workspace=workspace)
    active = [rule_selectors.rule_set_active(workspace=workspace, domain_pack=p) for p in packs]
    rule_sets = list(rule_selectors.rule_set_list(workspace=workspace))
    activations = Paginator(
        rule_selectors.rule_set_activations(workspace=workspace), PAGE_SIZE
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
        },
    )


def _base_rule_set(request: MemberRequest) -> tuple[Any, Any]:
    """The rule set a new version starts from: ?from=<id>, else the built-in Core v1."""
    source = request.POST.get("from") or request.GET.get("from") or ""
    if source.isdigit():
        parent = rule_selectors.rule_set_get(workspace=_ws(request), pk=int(source))
        return parent, rule_selectors.rule_set_definition(parent)
    return None, CORE_V1


@require_http_methods(["GET", "POST"])
@role_required(*ADMIN_ROLES)
def rule_set_new(request: MemberRequest) -> HttpResponse:
    workspace = _ws(request)
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
                        "all packs.",
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
            )
    else:
        # A tuned copy of the built-in gets its own name, so versions read "Acme rules v2".
        initial = {} if parent else {"name": f"{CORE_V1.name} tuned"}
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
    )


@require_GET
@role_required(*ADMIN_ROLES)
def rule_set_detail(request: MemberRequest, pk: int) -> HttpResponse:
    workspace = _ws(request)
    rule_set = rule_selectors.rule_set_get(workspace=workspace, pk=pk)
    definition = rule_selectors.rule_set_definition(rule_set)
    parent_def = rule_selectors.rule_set_definition(rule_set.parent) if rule_set.parent else CORE_V1
    return render(
        request,
        "audit/rule_set_detail.html",
        {
            "rule_set": rule_set,
            "definition": definition,
            "definition_json": json.dumps(to_dict(definition), indent=2),
            "diff": rule_selectors.rule_set_diff(parent_def, definition),
            "compared_to": rule_selectors.rule_set_label(rule_set.parent or CORE_V1),
            "packs": rule_selectors.rule_set_domain_packs(workspace=workspace),
            "policies": POLICY_NAMES,
            "target_pack": request.GET.get("domain_pack", "").strip(),
            "target_policy": request.GET.get("policy", definition.default_policy),
        },
    )


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
            workspace=_ws(request),
            rule_set=rule_set,
            domain_pack=pack,
            policy=request.POST.get("policy", ""),
            actor=request.user,
            create_pack=create,
        )
    except InvalidRuleSet as exc:
        messages.error(request, "; ".join(exc.errors))
        return redirect("audit:rule-set-detail", pk=rule_set.pk)
    messages.success(
        request,
        f"Activated {rule_selectors.rule_set_label(rule_set)} for "
        f"{activation.domain_pack or 'all domain packs'} with the {activation.policy} policy; "
        "the claims it covers are classed again under it in the background.",
    )
    return redirect(reverse("audit:rules"))


@require_POST
@role_required(*ADMIN_ROLES)
def rule_set_activate(request: MemberRequest, pk: int) -> HttpResponse:
    """Activate a stored version, after a confirmation page with its impact (flip list)."""
    return _confirm_or_activate(request, rule_selectors.rule_set_get(workspace=_ws(request), pk=pk))


def _confirm_or_activate(request: MemberRequest, rule_set: Any) -> HttpResponse:
    """The confirmation page with the flip list (a new pack is made only by confirming it,
    ticked); with ``confirm=1``, the activation."""
    policy = request.POST.get("policy", "")
    if request.POST.get("confirm") == "1" or policy not in POLICY_NAMES:
        return _activate(request, rule_set)  # an unknown policy is refused there
    domain_pack, create = _pack_choice(request.POST)
    packs = rule_selectors.rule_set_domain_packs(workspace=_ws(request))
    impact = rule_selectors.rule_set_impact(
        workspace=_ws(request),
        domain_pack=domain_pack,
        definition=rule_selectors.rule_set_definition(rule_set),
        policy=policy,
    )
    return render(
        request,
        "audit/rule_set_confirm.html",
        {
            "rule_set": rule_set,
            "impact": impact,
            "domain_pack": domain_pack,
            "policy": policy,
            # A pack not in the workspace yet is made only by this confirmation, and
            # only with a name that fits and reads as what it is.
            "new_pack": domain_pack not in packs,
            "pack_problem": domain_pack_problem(domain_pack, packs),
            "create_pack": create,
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
    workspace = _ws(request)
    options = list(rule_selectors.rule_set_list(workspace=workspace))

    unknown: list[str] = []

    def pick(key: str) -> tuple[Any, Any]:
        """The version ``?key=`` names; the built-in when it names none (blank) and, with
        a word on the page, when it names one this workspace does not have."""
        value = request.GET.get(key, "").strip()
        if value.isdigit() and len(value) < 19:
            try:
                rs = rule_selectors.rule_set_get(workspace=workspace, pk=int(value))
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


# --- reviewer calibrators (admins only) -----------------------------------------------


@require_GET
@role_required(*ADMIN_ROLES)
def calibrators(request: MemberRequest) -> HttpResponse:
    workspace = _ws(request)
    page = Paginator(calibrator_selectors.calibrator_list(workspace=workspace), PAGE_SIZE).get_page(
        request.GET.get("page")
    )
    changes = calibrator_selectors.calibrator_changes_unfinished(
        calibrator_ids=[row.pk for row in page]
    )
    judge = get_judge()
    model_id, version = str(judge.model_id), int(judge.prompt_version)
    rows = [
        {
            "row": row,
            "refusal": calibrator_selectors.calibrator_refusal(row),
            "stale": calibrator_selectors.calibrator_use_refusal(
                row, judge_model=model_id, prompt_version=version
            ),
            "change": changes.get(row.pk),
        }
        for row in page
    ]
    return render(
        request,
        "audit/calibrators.html",
        {
            "page": page,
            "rows": rows,
            "floor": calibrator_selectors.calibrator_precision_floor(),
            "min_new": calibrator_services.min_new_decisions(),
            "judge_model": get_judge().model_id,
        },
    )


@require_GET
@role_required(*ADMIN_ROLES)
def calibrator_detail(request: MemberRequest, pk: int) -> HttpResponse:
    row = calibrator_selectors.calibrator_get(workspace=_ws(request), pk=pk)
    judge = get_judge()
    model_id, version = str(judge.model_id), int(judge.prompt_version)
    return render(
        request,
        "audit/calibrator_detail.html",
        {
            "calibrator": row,
            "floor": calibrator_selectors.calibrator_precision_floor(),
            "refusal": calibrator_selectors.calibrator_activation_refusal(
                row=row, judge_model=model_id, prompt_version=version
            ),
            "stale": calibrator_selectors.calibrator_use_refusal(
                row, judge_model=model_id, prompt_version=version
            ),
            "params_json": json.dumps(row.params, indent=2),
            "job": calibrator_selectors.calibrator_change_job_latest(calibrator=row),
        },
    )


@require_POST
@role_required(*ADMIN_ROLES)
def calibrator_activate(request: MemberRequest, pk: int) -> HttpResponse:
    """Activate a proposed calibrator, after a confirmation page with its flip list; the
    claims are brought in line in the background (the calibrator's page shows how far)."""
    workspace = _ws(request)
    row = calibrator_selectors.calibrator_get(workspace=workspace, pk=pk)
    if request.POST.get("confirm") == "1":
        try:
            job = calibrator_services.judge_calibrator_activate(calibrator=row, actor=request.user)
        except calibrator_services.CalibratorRefused as exc:
            messages.error(request, exc.message)
            return redirect("audit:calibrator-detail", pk=row.pk)
        messages.success(
            request,
            f"Activated {row}: new verdicts of {row.judge_model} pass through it; its answers "
            f"are being applied to the {job.total} claim{pluralize(job.total)} it may decide.",
        )
        return redirect("audit:calibrator-detail", pk=row.pk)
    preview = calibrator_selectors.calibrator_activation_preview(
        workspace=workspace, row=row, judge=get_judge()
    )
    if preview.refusal:
        messages.error(request, preview.refusal)
        return redirect("audit:calibrator-detail", pk=row.pk)
    return render(
        request,
        "audit/calibrator_confirm.html",
        {"calibrator": row, "plan": preview.plan, "preview": preview, "shown": FLIPS_SHOWN},
    )


@require_POST
@role_required(*ADMIN_ROLES)
def calibrator_deactivate(request: MemberRequest, pk: int) -> HttpResponse:
    row = calibrator_selectors.calibrator_get(workspace=_ws(request), pk=pk)
    try:
        job = calibrator_services.judge_calibrator_deactivate(calibrator=row, actor=request.user)
    except calibrator_services.CalibratorRefused as exc:
        messages.error(request, exc.message)
        return redirect("audit:calibrator-detail", pk=row.pk)
    restored = (
        f"the judge's answer is being given back to the claims it decided (of {job.total} in scope)"
        if job is not None
        else f"the configured judge is no longer {row.judge_model}: no claim was read again"
    )
    messages.success(request, f"Deactivated {row}: new verdicts are the plain judge's; {restored}.")
    return redirect("audit:calibrator-detail", pk=row.pk)


@require_GET
@role_required(*ADMIN_ROLES)
def calibrator_job(request: MemberRequest, job_id: int) -> HttpResponse:
    """How far a calibrator change has brought the claims (polled by htmx)."""
    job = calibrator_selectors.calibrator_change_job_get(workspace=_ws(request), job_id=job_id)
    if request.htmx:
        response = render(request, "audit/partials/calibrator_job.html", {"job": job})
        if job.finished:
            response.status_code = HTMX_STOP_POLLING
        return response
    return render(request, "audit/calibrator_job.html", {"job": job})
