"""Audit console: sources, a version with its spans highlighted, and version diffs. Each view
parses the request, calls one selector or service, renders."""

from __future__ import annotations

from typing import Any

from django.core.paginator import Paginator
from django.http import Http404, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from audit import selectors
from audit.highlighting import (
    DIFF_CONTEXT_CHARS,
    DIFF_PAGE_CHARS,
    DIFF_RUN_SHOWN_CHARS,
    diff_pages,
    diff_summary,
)
from audit.paging import CONSOLE_PAGE_SIZE
from verifier.http import MemberRequest
from verifier.permissions import role_required
from verifier.selectors.text_search import search_query_error
from verifier.untrusted_input import decimal_int


@require_GET
@role_required()
def source_list(request: MemberRequest) -> HttpResponse:
    q = request.GET.get("q", "").strip()
    rag = request.GET.get("rag") == "1"
    # A search too long to run is said next to its field, and nothing is listed (as the
    # claim list does), never cut short and run as a search nobody typed.
    q_error = search_query_error(q)
    page = None
    if not q_error:
        sources = selectors.audit_source_list(
            workspace=request.workspace, q=q, include_rag_chunks=rag
        )
        page = Paginator(sources, CONSOLE_PAGE_SIZE).get_page(request.GET.get("page"))
    return render(
        request,
        "audit/source_list.html",
        {"page": page, "q": q, "rag": rag, "q_error": q_error},
    )


def _digits(value: str | None) -> int | None:
    return decimal_int(value, max_digits=9)


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
            "earlier_bound": selectors.claims_bound_to_earlier_versions(
                source=source, version=view.version
            )
            if view.is_current
            else 0,
            "map_cells": [
                {"cell": cell, "query": query(("cpage",), at=cell.start)} for cell in view.span_map
            ],
        },
    )


@require_GET
@role_required()
def source_detail(request: MemberRequest, source_id: int) -> HttpResponse:
    source = selectors.audit_source_get(workspace=request.workspace, source_id=source_id)
    number = request.GET.get("v", "").strip()
    parsed = decimal_int(number, max_digits=9)
    if number and parsed is None:
        # ``?v=`` that names no version number is not found, as ``?v=99`` is: never the
        # current version shown as if it were the one asked for.
        raise Http404("No such version of this source.")
    version = selectors.source_version_get(source=source, number=parsed)
    return _render_source(request, source, version)


@require_GET
@role_required()
def source_version(request: MemberRequest, source_id: int, sha256: str) -> HttpResponse:
    source = selectors.audit_source_get(workspace=request.workspace, source_id=source_id)
    version = selectors.source_version_get(source=source, sha256=sha256.lower())
    return _render_source(request, source, version)


@require_GET
@role_required()
def source_diff(request: MemberRequest, source_id: int) -> HttpResponse:
    source = selectors.audit_source_get(workspace=request.workspace, source_id=source_id)
    versions = selectors.source_versions(source=source)
    raw = {key: request.GET.get(key, "").strip() for key in ("from", "to")}
    if len(versions) >= 2 and not (raw["from"] or raw["to"]):
        raw = {"from": str(versions[1].number), "to": str(versions[0].number)}
    # A value that names no version of this source is said next to its field.
    chosen: dict[str, int] = {}
    errors: dict[str, str] = {}
    if len(versions) >= 2:
        numbers = {v.number for v in versions}
        for key, name in (("from", "From"), ("to", "To")):
            number = decimal_int(raw[key], max_digits=9)
            if number is not None and number in numbers:
                chosen[key] = number
            elif not raw[key]:
                errors[key] = f"{name}: choose a version."
            else:
                errors[key] = (
                    f"{name}: “{raw[key][:40]}” is not a version of this source; its versions "
                    f"are v{versions[-1].number} to v{versions[0].number}."
                )
    context: dict[str, Any] = {
        "source": source,
        "versions": versions,
        "chosen": chosen,
        "errors": errors,
    }
    if not errors and len(chosen) == 2:
        old = selectors.source_version_get(source=source, number=chosen["from"])
        new = selectors.source_version_get(source=source, number=chosen["to"])
        diff, rechecked = selectors.source_version_diff(
            source=source,
            old=old,
            new=new,
            lost_page=_digits(request.GET.get("lost_page")),
            held_page=_digits(request.GET.get("held_page")),
        )
        summary = diff_summary(
            old.text, new.text, old_name=f"v{old.number}", new_name=f"v{new.number}"
        )
        # Every change with a little unchanged text around it, a page at a time: the
        # whole text of two long versions would be a page of megabytes.
        pages = Paginator(diff_pages(diff), 1).get_page(_digits(request.GET.get("diff_page")))
        shown = pages.object_list[0] if pages.object_list else []
        context.update(
            {
                "old": old,
                "new": new,
                "diff": shown,
                "diff_page": pages,
                "diff_cut": any(piece.op == "cut" for piece in shown),
                "diff_context": f"{DIFF_CONTEXT_CHARS:,}",
                "diff_run_shown": f"{DIFF_RUN_SHOWN_CHARS:,}",
                "diff_page_chars": f"{DIFF_PAGE_CHARS:,}",
                "rechecked": rechecked,
                "diff_summary": summary,
            }
        )
    return render(request, "audit/source_diff.html", context)
