"""The audit console's sources: the list, one source and its versions, and the diff
between two versions (the span permalink into a version is ``verifier.selectors.permalinks``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from django.core.paginator import Page, Paginator
from django.db.models import QuerySet
from django.http import Http404

from audit.highlighting import diff_segments
from audit.paging import CONSOLE_PAGE_SIZE
from verifier.binding import (
    OCCURRENCES_COUNTED,
    Binding,
    BoundSpan,
    RecheckStatus,
    bind,
    occurrences,
    recheck,
    source_index,
)
from verifier.domain_packs import RAG_CHUNK_REF_PREFIX
from verifier.models import Claim, EvidenceBinding, Source, SourceVersion, Workspace
from verifier.selectors.permalinks import span_permalink
from verifier.selectors.text_search import text_search
from verifier.vocabulary import Term, recheck_between


def audit_source_list(
    *, workspace: Workspace, q: str = "", include_rag_chunks: bool = False
) -> QuerySet[Source]:
    """The workspace's sources by ref; ``q`` searches ref and title (the search rule:
    ``verifier.selectors.text_search``). RAG-audit chunks (``rag-chunk:`` sources, one
    per audited chunk) are left out unless asked for."""
    sources = Source.objects.filter(workspace=workspace)
    if not include_rag_chunks:
        sources = sources.exclude(ref__startswith=RAG_CHUNK_REF_PREFIX)
    match = text_search(q, "ref_folded", "title_folded")
    if match is not None:
        sources = sources.filter(match)
    return sources.order_by("ref")


def audit_source_get(*, workspace: Workspace, source_id: int) -> Source:
    source = Source.objects.filter(workspace=workspace, pk=source_id).first()
    if source is None:
        raise Http404("No such source in this workspace.")
    return source


def source_versions(*, source: Source) -> list[SourceVersion]:
    """All versions, newest first, without their text."""
    return list(SourceVersion.objects.filter(source=source).defer("text").order_by("-number"))


def source_version_get(
    *, source: Source, sha256: str | None = None, number: int | None = None
) -> SourceVersion:
    versions = SourceVersion.objects.filter(source=source)
    if sha256 is not None:
        version = versions.filter(sha256=sha256).first()
    elif number is not None:
        version = versions.filter(number=number).first()
    else:
        version = versions.order_by("-number").first()
    if version is None:
        raise Http404("No such version of this source.")
    return version


@dataclass
class StaleBinding:
    """An active span bound to the "from" version whose quote is not at its offsets in
    the "to" version: the span changed there, moved, or lies past its end."""

    binding: EvidenceBinding
    # ``span_lost`` or ``offsets_out_of_range``: the re-check of the span's offsets
    status: str
    # the status in words true of the two versions compared (not of the current one)
    words: Term
    # where the binding layer's ``bind`` finds the quote in the "to" version, if anywhere
    now: Binding | None
    # how many times it occurs there that way (``occurrences``; None for fuzzy or not found)
    now_occurrences: int | None
    now_permalink: str

    @property
    def now_places_capped(self) -> bool:
        """Whether the quote occurs at least as often as ``occurrences`` counts."""
        return (self.now_occurrences or 0) >= OCCURRENCES_COUNTED


@dataclass
class VersionRecheck:
    """The active spans bound to the "from" version, re-checked in the "to" version's text
    by the binding layer's rule (``recheck``), apart from the hash: a span whose words
    are still at its offsets ``held``, the others ``lost``. Each list is paged on its own
    (``DIFF_SPANS_PAGE_SIZE`` rows); only the rows on the pages shown have their claims
    read (one query for both pages) and, for a span that no longer holds, the quote
    searched for in the "to" version."""

    # the rows shown, with the pages they are on (the links to the others, the counts)
    lost: list[StaleBinding]
    lost_page: Page[tuple[EvidenceBinding, RecheckStatus]]
    held: list[EvidenceBinding]
    held_page: Page[EvidenceBinding]
    # the words for a span that holds (``recheck_between("fresh")``)
    held_words: Term

    @property
    def lost_count(self) -> int:
        return self.lost_page.paginator.count

    @property
    def held_count(self) -> int:
        return self.held_page.paginator.count

    @property
    def total(self) -> int:
        return self.lost_count + self.held_count


# Rows a page of each of the diff's two span lists (no longer hold / unchanged).
DIFF_SPANS_PAGE_SIZE: Final = CONSOLE_PAGE_SIZE


def source_version_diff(
    *,
    source: Source,
    old: SourceVersion,
    new: SourceVersion,
    lost_page: int | None = None,
    held_page: int | None = None,
) -> tuple[list[Any], VersionRecheck]:
    """Word diff old → new, and the active bindings on ``old`` re-checked against ``new``,
    each of the two lists at the page asked for (out of range: the nearest page)."""
    diff = diff_segments(old.text, new.text)
    bound, against = f"v{old.number}", f"v{new.number}"
    # Every span is re-checked (a string comparison) to split the two lists and count
    # them; the claims are read for the rows shown only.
    bindings = (
        EvidenceBinding.objects.filter(source_version=old, is_active=True)
        .only("id", "claim_id", "quote", "start", "end", "match")
        .order_by("start", "id")
    )
    lost_rows: list[tuple[EvidenceBinding, RecheckStatus]] = []
    held_rows: list[EvidenceBinding] = []
    for b in bindings:
        # Checked as if bound to ``new``: every span's hash differs from ``new``'s (it is
        # bound to ``old``), so the question is only whether its words are still there.
        span = BoundSpan(
            quote=b.quote,
            start=b.start,
            end=b.end,
            match=b.match,  # type: ignore[arg-type]
            source_hash=new.sha256,
        )
        status = recheck(span, new.text, new.sha256)
        if status == "fresh":
            held_rows.append(b)
        else:
            lost_rows.append((b, status))
    lost_rows_page = Paginator(lost_rows, DIFF_SPANS_PAGE_SIZE).get_page(lost_page)
    held_rows_page = Paginator(held_rows, DIFF_SPANS_PAGE_SIZE).get_page(held_page)
    shown = [b for b, _status in lost_rows_page] + list(held_rows_page)
    if shown:
        claims = Claim.objects.only("public_id", "text", "state").in_bulk(
            {b.claim_id for b in shown}
        )
        for b in shown:
            b.claim = claims[b.claim_id]
    index = None
    lost: list[StaleBinding] = []
    for b, status in lost_rows_page:
        if index is None:
            index = source_index(new.text, new.sha256)
        found = bind(b.quote, new.text, index=index)
        lost.append(
            StaleBinding(
                binding=b,
                status=status,
                words=recheck_between(status, bound=bound, against=against),
                now=found,
                now_occurrences=None
                if found is None
                else occurrences(b.quote, new.text, found, index=index),
                now_permalink=""
                if found is None
                else span_permalink(
                    source_id=source.pk, sha256=new.sha256, start=found.start, end=found.end
                ),
            )
        )
    held_words = recheck_between("fresh", bound=bound, against=against)
    return diff, VersionRecheck(
        lost=lost,
        lost_page=lost_rows_page,
        held=list(held_rows_page),
        held_page=held_rows_page,
        held_words=held_words,
    )
