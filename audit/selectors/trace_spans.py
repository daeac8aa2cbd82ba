"""The spans a trace document lists, each with the permalink of its highlighted span on
the source page (when the workspace still has that source version)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.db.models import Q

from verifier.models import Claim, SourceVersion, Workspace
from verifier.selectors.permalinks import span_permalink
from verifier.untrusted_input import canonical_ref


def _offsets(span: dict[str, Any]) -> tuple[int, int] | None:
    start, end = span.get("start"), span.get("end")
    if isinstance(start, int) and isinstance(end, int) and 0 <= start < end:
        return start, end
    return None


def trace_span_rows(*, workspace: Workspace, spans: Sequence[Any]) -> list[dict[str, Any]]:
    """``spans`` (a trace document's list) as rows: each span's own fields, and
    ``permalink`` to the span highlighted in its source version ("" when the version is
    not in this workspace, or the span's offsets are not a span), and ``claim_known``:
    whether the claim it is for is still in this workspace (its page is linked). Two
    queries."""
    rows = [dict(span) for span in spans if isinstance(span, dict)]
    claim_ids = {str(r["claim_id"]) for r in rows if r.get("claim_id")}
    known = (
        set(
            Claim.objects.filter(workspace=workspace, public_id__in=claim_ids).values_list(
                "public_id", flat=True
            )
        )
        if claim_ids
        else set()
    )
    refs = {str(r.get("source_ref")) for r in rows if r.get("source_ref")}
    versions: dict[tuple[str, str], tuple[int, str]] = {}
    numbers: dict[tuple[str, int], tuple[int, str]] = {}
    if refs:
        wanted = Q()
        for row in rows:
            ref = row.get("source_ref")
            if row.get("source_hash"):
                wanted |= Q(source__ref=ref, sha256=str(row["source_hash"]))
            elif isinstance(row.get("source_version"), int):
                wanted |= Q(source__ref=ref, number=row["source_version"])
        if wanted:
            found = SourceVersion.objects.filter(wanted, source__workspace=workspace).values_list(
                "source__ref", "sha256", "number", "source_id"
            )
            for ref, sha256, number, source_id in found:
                versions[(ref, sha256)] = numbers[(ref, number)] = (source_id, sha256)
    for row in rows:
        # the stored ref's form: a trace recorded before migration 0041 may hold another
        ref = canonical_ref(str(row.get("source_ref") or ""))
        version_number = row.get("source_version")
        hit = versions.get((ref, str(row.get("source_hash") or ""))) or (
            numbers.get((ref, version_number)) if isinstance(version_number, int) else None
        )
        offsets = _offsets(row)
        row["claim_known"] = bool(row.get("claim_id")) and str(row.get("claim_id")) in known
        row["permalink"] = (
            span_permalink(source_id=hit[0], sha256=hit[1], start=offsets[0], end=offsets[1])
            if hit is not None and offsets is not None
            else ""
        )
    return rows
