"""Audit console: retrieval traces and their steps. Each view parses the request, calls one
selector or service, renders."""

from __future__ import annotations

import json
from typing import Any

from django.http import HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from audit import selectors
from audit.selectors.trace_seeds import trace_seed_rows
from verifier.http import MemberRequest
from verifier.permissions import role_required
from verifier.selectors import counts
from verifier.selectors import traces as trace_selectors
from verifier.vocabulary import ALL_PACKS


@require_GET
@role_required()
def trace_list(request: MemberRequest) -> HttpResponse:
    page = trace_selectors.trace_page(workspace=request.workspace, params=request.GET)
    return render(
        request,
        "audit/trace_list.html",
        {"page": page, "count_cap": f"{counts.COUNT_CAP:,}", "all_packs": ALL_PACKS},
    )


@require_GET
@role_required()
def trace_detail(request: MemberRequest, trace_id: Any) -> HttpResponse:
    trace = trace_selectors.trace_get(workspace=request.workspace, trace_id=str(trace_id))
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
            "seeds": trace_seed_rows(
                workspace=request.workspace,
                seeds=document.get("seeds") or document.get("seed_claims") or [],
            ),
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
                workspace=request.workspace, spans=document.get("spans") or []
            ),
            "request_json": json.dumps(document.get("request"), indent=2, ensure_ascii=False)
            if document.get("request")
            else "",
            "document_json": json.dumps(document, indent=2, ensure_ascii=False, default=str),
            "export_url": f"/connect/v1/traces/{trace.trace_id}/export?format=json",
            "all_packs": ALL_PACKS,
        },
    )
