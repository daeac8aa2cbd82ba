"""Reads for one trace's page: what the trace records, with its long lists (the steps, the
spans used, the claims considered) a page at a time, each list paged on its own.

A 1,000-claim verification job's trace considers 1,000 claims and lists 1,000 spans, and
a trace may record thousands of steps: drawn whole, such a page was megabytes of HTML.
Each list shows ``TRACE_PAGE_SIZE`` rows and counts them all; the whole document is one
link away (the page links its JSON). The number of queries does not grow with the trace.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from django.core.paginator import Page, Paginator
from django.db.models import Count, Q
from django.http import Http404

from audit.paging import CONSOLE_PAGE_SIZE
from audit.selectors.trace_seeds import TraceSeed, trace_seed_rows
from audit.selectors.trace_spans import trace_span_rows
from verifier import vocabulary
from verifier.models import Trace, TraceClaim, Workspace
from verifier.selectors.traces import TRACE_NOT_FOUND, TraceStep, trace_policy, trace_steps

TRACE_PAGE_SIZE: Final = CONSOLE_PAGE_SIZE
# The page parameters of the three lists (the page's links keep the other two).
STEPS_PAGE_KEY: Final = "steps_page"
SPANS_PAGE_KEY: Final = "spans_page"
CLAIMS_PAGE_KEY: Final = "claims_page"


@dataclass(frozen=True, slots=True)
class FlatStep:
    """One step of the tree in the order the tree is read (a step, then its children),
    with the place of its parent step in that order (None for a top-level step)."""

    step: TraceStep
    parent: int | None


@dataclass(frozen=True)
class ShownStep:
    """A step as one page of the steps draws it: ``continued`` marks a step listed on an
    earlier page, shown again (without its time) because steps on this page are inside
    it."""

    name: str
    ms: float | None
    detail: tuple[tuple[str, Any], ...]
    steps: list[ShownStep]
    continued: bool = False


@dataclass(frozen=True)
class TracePage:
    """What the trace page shows. ``steps``, ``spans`` and ``considered`` are pages of
    their lists (their ``paginator.count`` counts the whole list); ``step_tree`` draws the
    steps of ``steps`` as a tree and ``span_rows`` are the spans of ``spans`` with their
    links (``trace_span_rows``)."""

    trace: Trace
    policy: Any
    policy_rows: list[tuple[str, str]]
    seeds: list[TraceSeed]
    expansion: Any
    judge: Any
    caller: Any
    request: Any
    total_ms: float | None
    steps: Page[FlatStep]
    step_tree: list[ShownStep]
    spans: Page[Any]
    span_rows: list[dict[str, Any]]
    considered: Page[TraceClaim]
    included: int


def trace_steps_flat(steps: Sequence[TraceStep]) -> list[FlatStep]:
    """The tree's steps in reading order, each with its parent's place (no recursion, so
    a deep tree is read as readily as a wide one)."""
    flat: list[FlatStep] = []
    stack: list[tuple[TraceStep, int | None]] = [(step, None) for step in reversed(steps)]
    while stack:
        step, parent = stack.pop()
        flat.append(FlatStep(step, parent))
        here = len(flat) - 1
        stack.extend((child, here) for child in reversed(step.steps))
    return flat


def trace_steps_tree(flat: Sequence[FlatStep], start: int, stop: int) -> list[ShownStep]:
    """Steps ``flat[start:stop]`` as a tree, under the steps of earlier pages they are
    inside (shown as ``continued``). Every step's parent is on the page or one of those:
    a parent is read before its children, and one read before ``start`` whose child is
    on the page is also a parent of ``flat[start]`` (or that step itself)."""
    if start >= stop:
        return []
    chain: list[int] = []
    parent = flat[start].parent
    while parent is not None:
        chain.append(parent)
        parent = flat[parent].parent
    shown: dict[int, ShownStep] = {}
    roots: list[ShownStep] = []
    for index in [*reversed(chain), *range(start, stop)]:
        entry = flat[index]
        continued = index < start
        node = ShownStep(
            entry.step.name,
            None if continued else entry.step.ms,
            () if continued else entry.step.detail,
            [],
            continued,
        )
        shown[index] = node
        (shown[entry.parent].steps if entry.parent is not None else roots).append(node)
    return roots


def _policy_value(code: str, value: Any) -> str:
    if code == "include" and isinstance(value, list):
        return ", ".join(vocabulary.label("state", state) for state in value) or "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int | float | str):
        return str(value)
    return json.dumps(value, default=str)


def trace_policy_rows(policy: Any) -> list[tuple[str, str]]:
    """A recorded verification policy (``VerificationPolicy.to_dict``) as (field code,
    value in words) rows, in the order it was recorded: the states served by their
    labels, yes or no for a switch. Empty for a policy that is not a mapping (the page
    then shows it as recorded)."""
    if not isinstance(policy, Mapping):
        return []
    return [(str(code), _policy_value(str(code), value)) for code, value in policy.items()]


def _trace_counted(*, workspace: Workspace, trace_id: str) -> tuple[Trace, int, int]:
    """(the trace, how many claims it considered, how many of them it included), in one
    query; the same 404 as ``trace_get`` for a malformed id, a missing one and another
    workspace's."""
    try:
        parsed = uuid.UUID(str(trace_id))
    except (ValueError, AttributeError):
        raise Http404(TRACE_NOT_FOUND) from None
    trace = (
        Trace.objects.filter(workspace=workspace, trace_id=parsed)
        .annotate(
            considered_count=Count("considered"),
            included_count=Count("considered", filter=Q(considered__included=True)),
        )
        .first()
    )
    if trace is None:
        raise Http404(TRACE_NOT_FOUND)
    return trace, trace.considered_count, trace.included_count


def _listed(value: Any) -> list[Any]:
    return list(value) if isinstance(value, list) else []


def trace_page(
    *,
    workspace: Workspace,
    trace_id: str,
    steps_page: int | None = None,
    spans_page: int | None = None,
    claims_page: int | None = None,
    page_size: int = TRACE_PAGE_SIZE,
) -> TracePage:
    """The trace's page: a page of each of its three lists (the first when the number is
    None, the last when it is past the end). Five queries at most, whatever the trace's
    size: the trace with its counts, a page of the claims it considered, the seeds'
    claims, and the page of spans' claims and source versions (none for a list that is
    empty)."""
    trace, considered_count, included_count = _trace_counted(workspace=workspace, trace_id=trace_id)
    document: Mapping[str, Any] = trace.document if isinstance(trace.document, Mapping) else {}
    tree, total_ms = trace_steps(document)
    flat = trace_steps_flat(tree)
    policy = trace_policy(document)
    steps = Paginator(flat, page_size).get_page(steps_page)
    spans = Paginator(
        [span for span in _listed(document.get("spans")) if isinstance(span, dict)], page_size
    ).get_page(spans_page)
    claims = Paginator(
        trace.considered.select_related("claim").order_by("-included", "exclusion_reason", "id"),
        page_size,
    )
    claims.count = considered_count  # counted with the trace: no count query of its own
    considered = claims.get_page(claims_page)
    return TracePage(
        trace=trace,
        policy=policy,
        policy_rows=trace_policy_rows(policy),
        seeds=trace_seed_rows(
            workspace=workspace, seeds=document.get("seeds") or document.get("seed_claims") or []
        ),
        expansion=document.get("expansion") or document.get("graph_expansion"),
        judge=document.get("judge"),
        caller=document.get("caller"),
        request=document.get("request"),
        total_ms=total_ms,
        steps=steps,
        step_tree=trace_steps_tree(flat, steps.start_index() - 1, steps.end_index())
        if flat
        else [],
        spans=spans,
        span_rows=trace_span_rows(workspace=workspace, spans=list(spans.object_list)),
        considered=considered,
        included=included_count,
    )
