"""The audit console's sources: the list, one source and its versions, and the diff
between two versions (the span permalink into a version is ``verifier.selectors.permalinks``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db.models import Q, QuerySet
from django.http import Http404

from audit.highlighting import diff_segments
from verifier.binding import span_matches
from verifier.binding.recheck import recheck
from verifier.binding.spans import BoundSpan
from verifier.domain_packs import RAG_CHUNK_REF_PREFIX
from verifier.models import EvidenceBinding, Source, SourceVersion, Workspace
from verifier.selectors.claim_filters import text_contains
from verifier.vocabulary import Term, recheck_between


def audit_source_list(
    *, workspace: Workspace, q: str = "", include_rag_chunks: bool = False
) -> QuerySet[Source]:
    """The workspace's sources by ref; ``q`` searches ref and title. RAG-audit chunks
    (``rag-chunk:`` sources, one per audited chunk) are left out unless asked for."""
    sources = Source.objects.filter(workspace=workspace)
    if not include_rag_chunks:
        sources = sources.exclude(ref__startswith=RAG_CHUNK_REF_PREFIX)
    if q:
        sources = sources.filter(Q(text_contains("ref", q)) | Q(text_contains("title", q)))
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
    binding: EvidenceBinding
    status: str
    still_at_offsets: bool
    # the status in words true of the two versions compared (not of the current one)
    words: Term


def source_version_diff(
    *, source: Source, old: SourceVersion, new: SourceVersion
) -> tuple[list[Any], list[StaleBinding]]:
    """Word diff old → new, and the active bindings on ``old`` re-checked against ``new``."""
    diff = diff_segments(old.text, new.text)
    stale: list[StaleBinding] = []
    bindings = (
        EvidenceBinding.objects.filter(source_version=old, is_active=True)
        .select_related("claim")
        .order_by("start", "id")
    )
    for b in bindings:
        span = BoundSpan(
            quote=b.quote,
            start=b.start,
            end=b.end,
            match=b.match,  # type: ignore[arg-type]
            source_hash=b.source_hash,
        )
        status = recheck(span, new.text, new.sha256)
        if status == "fresh":
            continue
        in_range = 0 <= b.start < b.end <= len(new.text)
        still = in_range and span_matches(b.quote, new.text[b.start : b.end], b.match)  # type: ignore[arg-type]
        words = recheck_between(status, bound=f"v{old.number}", against=f"v{new.number}")
        stale.append(StaleBinding(b, status, still, words))
    return diff, stale
