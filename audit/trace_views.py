"""Audit console: retrieval traces and their steps. Each view parses the request, calls one
selector or service, renders."""

from __future__ import annotations

import json
from typing import Any

from django.http import HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_GET

from audit.selectors.trace_page import (
    CLAIMS_PAGE_KEY,
    SPANS_PAGE_KEY,
    STEPS_PAGE_KEY,
    trace_page,
)
from verifier.http import MemberRequest
from verifier.permissions import role_required
from verifier.selectors import counts
from verifier.selectors import traces as trace_selectors
from verifier.untrusted_input import decimal_int
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
    params = request.GET
    shown = trace_page(
        workspace=request.workspace,
        trace_id=str(trace_id),
        steps_page=decimal_int(params.get(STEPS_PAGE_KEY), max_digits=9),
        spans_page=decimal_int(params.get(SPANS_PAGE_KEY), max_digits=9),
        claims_page=decimal_int(params.get(CLAIMS_PAGE_KEY), max_digits=9),
    )
    trace = shown.trace
    return render(
        request,
        "audit/trace_detail.html",
        {
            "trace": trace,
            "lists": shown,
            "policy": shown.policy,
            "policy_json": json.dumps(shown.policy, indent=2, default=str),
            "seeds": shown.seeds,
            "expansion": shown.expansion,
            "expansion_json": json.dumps(shown.expansion, indent=2, default=str),
            "judge": shown.judge,
            "caller": shown.caller,
            "request_json": json.dumps(shown.request, indent=2, ensure_ascii=False)
            if shown.request
            else "",
            # The whole document, one link away: session-authenticated for members (the
            # API takes a console session as it takes a key), drawn by the browser.
            "document_url": reverse("api-trace", args=[trace.trace_id]),
            "export_url": reverse("api-trace-export", args=[trace.trace_id]) + "?format=json",
            "all_packs": ALL_PACKS,
        },
    )
