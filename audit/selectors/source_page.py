"""The audit console's source page: a window of a version's text with the spans bound in
it coloured by their claim's state, and a page of the claims bound to the version."""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from django.core.paginator import Paginator
from django.db.models import Count, Q

from audit.highlighting import MapCell, Span, span_map, text_window, window_segments
from audit.selectors.sources import source_versions
from verifier.models import EvidenceBinding, Source, SourceVersion
from verifier.untrusted_input import decimal_int

# A claim's state, by how much a reader must look at it (the highlight of a run of
# text bound by several claims takes the first of its claims' states in this order).
STATE_ATTENTION: Final = ("contradicted", "unverified", "inferred", "excluded", "supported")
STATE_LEGEND: Final = (
    ("supported", "Supported", "solid underline"),
    ("unverified", "Unverified", "dashed underline"),
    ("contradicted", "Contradicted", "wavy red underline, struck through"),
    ("excluded", "Excluded", "dotted underline, grey"),
    ("inferred", "Inferred", "double underline"),
)
SPAN_CLAIMS_PAGE: Final = 50


@dataclass(frozen=True)
class SourceFocus:
    """What the page was asked to focus: a span (``?span=S-E`` or ``?span=S``) or a
    claim (``?claim=<public_id>``)."""

    start: int | None = None
    end: int | None = None
    claim: str = ""
    # ``?span=`` as it was given (cut short), when it was given: the page says what it
    # does not name (not a span, reversed, out of range, no span bound there).
    span: str = ""

    @classmethod
    def parse(cls, params: Mapping[str, str]) -> SourceFocus:
        raw = (params.get("span") or "").strip()[:40]
        start = end = None
        if raw:
            head, dash, tail = raw.partition("-")
            start = decimal_int(head, max_digits=9)
            if start is not None and dash:
                end = decimal_int(tail, max_digits=9)
                if end is None or end <= start:
                    start = end = None
        return cls(start=start, end=end, claim=(params.get("claim") or "").strip()[:40], span=raw)


@dataclass
class SourceView:
    source: Source
    versions: list[SourceVersion]
    version: SourceVersion
    is_current: bool
    segments: list[dict[str, Any]]
    hash_ok: bool
    text_length: int
    window: tuple[int, int]
    focus: tuple[int, int] | None
    pinned: list[EvidenceBinding]
    claims_page: Any  # Page of EvidenceBinding
    state_counts: list[tuple[str, int]]
    bound_total: int
    state_filter: str
    span_map: list[MapCell]
    legend: tuple[tuple[str, str, str], ...] = STATE_LEGEND
    # Why ``?span=`` focuses nothing ("" when it focuses a bound span, or was not given).
    focus_notice: str = ""
    earlier_at: int | None = None
    later_at: int | None = None


def _claim_not_here(*, source: Source, version: SourceVersion, public_id: str) -> str:
    """Why ``?claim=<public_id>`` focuses nothing in ``version``: the claim has no span
    bound in it (naming the version of this source that holds its active span, if one
    does), or this workspace has no such claim."""
    elsewhere = (
        EvidenceBinding.objects.filter(
            claim__public_id=public_id,
            claim__workspace_id=source.workspace_id,
            source_version__source=source,
            is_active=True,
        )
        .values_list("source_version__number", flat=True)
        .first()
    )
    if elsewhere is not None:
        return (
            f"Claim “{public_id}” has no span bound in v{version.number}: its span is "
            f"bound in v{elsewhere}. No span is focused."
        )
    return f"No claim “{public_id}” has a span bound in v{version.number}: no span is focused."


def _dominant_state(states: list[str]) -> str:
    for state in STATE_ATTENTION:
        if state in states:
            return state
    return states[0] if states else ""


def source_view(
    *,
    source: Source,
    version: SourceVersion,
    focus: SourceFocus | None = None,
    at: int | None = None,
    state: str = "",
    claims_page: int | None = None,
) -> SourceView:
    """A window of the version's text around the focus, with the spans bound in it
    coloured by their claim's state, and one page of the claims bound to the version.

    The text outside the window is not rendered (a 200 KB source has thousands of
    spans): the page links to the text before and after. The claims list starts at
    the page holding the focused claim and pins that claim at its top.
    """
    focus = focus or SourceFocus()
    versions = source_versions(source=source)
    text = version.text
    on_version = EvidenceBinding.objects.filter(source_version=version).select_related("claim")
    pinned: list[EvidenceBinding] = []
    focus_range: tuple[int, int] | None = None
    if focus.claim:
        pinned = list(
            on_version.filter(
                claim__public_id=focus.claim, claim__workspace_id=source.workspace_id
            ).order_by("-is_active", "start", "id")[:1]
        )
        if pinned:
            focus_range = (pinned[0].start, pinned[0].end)
    notice = ""
    named = f"v{version.number}"
    if focus.claim and not pinned:
        notice = _claim_not_here(source=source, version=version, public_id=focus.claim)
    if not focus.claim and focus.span:
        if focus.start is None:
            notice = (
                f"“{focus.span}” does not name a span: a span link reads ?span=START-END "
                "with START before END (character offsets)."
            )
        elif (focus.end or focus.start + 1) > len(text):
            notice = (
                f"“{focus.span}” lies outside the text of {named} "
                f"({len(text):,} characters): no span is focused."
            )
        else:
            end = focus.end if focus.end is not None else focus.start + 1
            focus_range = (focus.start, end)
    window = text_window(len(text), focus=focus_range, at=at)
    in_window = list(
        on_version.filter(start__lt=window[1], end__gt=window[0]).order_by("start", "end", "id")
    )
    if focus_range is not None and focus.claim == "" and focus.end is None:
        # ``#seg-<start>`` / ``?span=<start>``: the span that starts there.
        starting = [b for b in in_window if b.start == focus_range[0]]
        if starting:
            focus_range = (starting[0].start, max(b.end for b in starting))
        else:
            notice = f"No span bound in {named} starts at character {focus_range[0]:,}."
    if focus_range is not None and not pinned:
        pinned = [b for b in in_window if (b.start, b.end) == focus_range][:5]
        if not pinned and not notice:
            notice = (
                f"No span is bound at [{focus_range[0]:,}, {focus_range[1]:,}) in {named}: "
                "the text there is shown, no span is focused."
            )
    marked = None if notice else focus_range  # the span focused: one that is bound
    by_pk: dict[Hashable, EvidenceBinding] = {b.pk: b for b in in_window}
    rows = []
    for seg in window_segments(text, [Span(b.start, b.end, b.pk) for b in in_window], window):
        states = [by_pk[k].claim.state for k in seg.keys]
        rows.append(
            {
                "text": seg.text,
                # the characters either side, for how the page shows the text's edges
                # (a carriage return whose line feed starts the next segment is no lone one)
                "before": text[max(0, seg.start - 1) : seg.start],
                "after": text[seg.end : seg.end + 1],
                "start": seg.start,
                "end": seg.end,
                "keys": " ".join(str(k) for k in seg.keys),
                "count": len(seg.keys),
                "state": _dominant_state(states),
                "states": ", ".join(sorted(set(states))),
                "focus": marked is not None
                and seg.keys != ()
                and seg.start < marked[1]
                and seg.end > marked[0],
            }
        )
    counts = Counter(
        dict(
            on_version.order_by()
            .values_list("claim__state")
            .annotate(n=Count("id"))
            .values_list("claim__state", "n")
        )
    )
    state = state if state in STATE_ATTENTION else ""
    listed = on_version.order_by("start", "id")
    if state:
        listed = listed.filter(claim__state=state)
    paginator = Paginator(listed, SPAN_CLAIMS_PAGE)
    paginator.count = counts.get(state, 0) if state else sum(counts.values())
    if claims_page is None and pinned:
        first = pinned[0]
        before = listed.filter(Q(start__lt=first.start) | Q(start=first.start, id__lt=first.pk))
        claims_page = before.count() // SPAN_CLAIMS_PAGE + 1
    page = paginator.get_page(claims_page)
    size = window[1] - window[0]
    # every span of the version as a marker on the map of the whole text (one narrow
    # read), so the spans outside the rendered window are still seen and reachable
    starts = on_version.order_by().values_list("start", "claim__state")
    return SourceView(
        source=source,
        versions=versions,
        version=version,
        is_current=bool(versions) and versions[0].pk == version.pk,
        segments=rows,
        hash_ok=hashlib.sha256(text.encode("utf-8")).hexdigest() == version.sha256,
        text_length=len(text),
        window=window,
        focus=marked,
        pinned=pinned,
        claims_page=page,
        state_counts=[(s, counts.get(s, 0)) for s in STATE_ATTENTION if counts.get(s, 0)],
        bound_total=sum(counts.values()),
        state_filter=state,
        span_map=span_map(len(text), starts, window=window, attention=STATE_ATTENTION),
        earlier_at=max(0, window[0] - max(size, 1)) if window[0] > 0 else None,
        later_at=window[1] if window[1] < len(text) else None,
        focus_notice=notice,
    )


def claims_bound_to_earlier_versions(*, source: Source, version: SourceVersion) -> int:
    """How many claims hold their active span in a version of ``source`` before
    ``version`` (the current one: a new version left their spans behind). The current
    version's page names them, since none of its highlights do."""
    return (
        EvidenceBinding.objects.filter(
            is_active=True, source_version__source=source, source_version__number__lt=version.number
        )
        .values("claim_id")
        .distinct()
        .count()
    )
