"""Audit console: the claims list, its exports and a claim's page. Each view parses the
request, calls one selector or service, renders."""

from __future__ import annotations

import json
from urllib.parse import urlencode

from django.http import HttpResponse, HttpResponseBadRequest, StreamingHttpResponse
from django.http.response import HttpResponseBase
from django.shortcuts import render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_GET

from audit import exports, selectors
from audit.paging import CONSOLE_PAGE_SIZE
from verifier.binding import OCCURRENCES_COUNTED
from verifier.http import MemberRequest
from verifier.models import ClaimStateChoices
from verifier.permissions import role_required
from verifier.scoring.quality import QUALITY_CLASSES, quality_class
from verifier.selectors import counts
from verifier.selectors.claims import claim_get
from verifier.services.claim_state import claim_recheck_on_read, claims_recheck_stored
from verifier.state_policy import queue_reason_order


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
            workspace=request.workspace,
            filters=filters,
            params=request.GET,
            page_size=CONSOLE_PAGE_SIZE,
        )
    )
    query = request.GET.copy()
    for key in ("page", "after", "before", "excel"):
        query.pop(key, None)
    if "reason" in filters:
        query["reason"] = filters["reason"]
    list_query = selectors.claim_list_query(request.GET)
    excel_query = query.copy()
    excel_query["excel"] = "1"
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
            "qualities": QUALITY_CLASSES,
            # each claim's link carries the list as it is, for the claim page's way back
            "claim_link_query": urlencode({selectors.CLAIM_LIST_RETURN_KEY: list_query})
            if list_query
            else "",
            "export_query": query.urlencode(),
            "excel_export_query": excel_query.urlencode(),
            "export_notes": exports.header_notes(),
            "count_cap": f"{counts.COUNT_CAP:,}",
        },
    )


# ``?excel=1`` on the CSV export: a UTF-8 byte-order mark first, so Excel reads the text
# as UTF-8 (``exports.EXCEL_BOM``); without it the CSV is plain UTF-8 for programs.
_EXCEL_VALUES = {"": False, "0": False, "1": True}


def _stream(request: MemberRequest, kind: str) -> HttpResponseBase:
    filters = selectors.audit_claim_filters(request.GET)
    errors = selectors.audit_claim_filter_errors(filters)
    excel = _EXCEL_VALUES.get(request.GET.get("excel", "").strip())
    if kind == "csv" and excel is None:
        errors["excel"] = (
            "use excel=1 for a CSV that Excel opens with its accents intact, or leave it out."
        )
    if errors:
        return HttpResponseBadRequest(
            "".join(f"{key}: {message}\n" for key, message in errors.items()),
            content_type="text/plain; charset=utf-8",
        )
    claims = selectors.audit_claim_list(workspace=request.workspace, filters=filters)
    claims_recheck_stored(claims=claims)  # no export vouches for a span gone stale
    rows = exports.export_rows(claims)
    stamp = timezone.now().strftime("%Y%m%dT%H%M%SZ")
    if kind == "jsonl":
        response = StreamingHttpResponse(
            exports.jsonl_lines(rows), content_type="application/x-ndjson; charset=utf-8"
        )
    else:
        response = StreamingHttpResponse(
            exports.csv_lines(rows, excel=bool(excel)), content_type="text/csv; charset=utf-8"
        )
    name = f"claims-{stamp}-excel" if kind == "csv" and excel else f"claims-{stamp}"
    response["Content-Disposition"] = f'attachment; filename="{name}.{kind}"'
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
    claim_recheck_on_read(claim=claim_get(workspace=request.workspace, public_id=public_id))
    audit = selectors.claim_audit(workspace=request.workspace, public_id=public_id)
    envelope = exports.envelope_of(audit.claim)
    list_query = selectors.claim_list_return_query(request.GET)
    return render(
        request,
        "audit/claim_detail.html",
        {
            "audit": audit,
            "claim": audit.claim,
            "envelope_json": json.dumps(envelope, indent=2, ensure_ascii=False, default=str),
            "failed_checks": sum(1 for c in audit.checks if c.passed is False),
            "quality_class": quality_class(audit.claim.state, audit.claim.quality),
            "occurrences_counted": OCCURRENCES_COUNTED,
            "list_url": reverse("audit:claim-list") + (f"?{list_query}" if list_query else ""),
        },
    )
