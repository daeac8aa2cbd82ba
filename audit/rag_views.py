"""Console for the RAG answer audit: paste or upload, then see each claim and its evidence."""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, replace
from typing import Any, Final

from django import forms
from django.core.paginator import Paginator
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_http_methods

from audit.highlighting import Segment, Span, segments
from audit.paging import CONSOLE_PAGE_SIZE
from review.verdict_words import rag_note_in_words
from verifier.http import MemberRequest
from verifier.models import ClaimOrigin
from verifier.permissions import role_required
from verifier.rag import MAX_ANSWER_CHARS, MAX_CHUNKS_TOTAL_CHARS, RagInputError
from verifier.rag.audit import claim_not_judged
from verifier.selectors.rag_audits import rag_audit_get, rag_audit_list
from verifier.services.rag_audit import rag_audit_run
from verifier.upload_text import uploaded_text
from verifier.vocabulary import api_message_in_words

MAX_UPLOAD_BYTES: Final = 4 * MAX_CHUNKS_TOTAL_CHARS


class RagAuditForm(forms.Form):
    answer = forms.CharField(widget=forms.Textarea(attrs={"rows": 6}), required=False, strip=False)
    answer_file = forms.FileField(required=False, label="or upload the answer (text)")
    chunks = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 8}),
        required=False,
        strip=False,
        help_text='JSONL, one {"id": ..., "text": ...} per line, or a JSON array.',
    )
    chunks_file = forms.FileField(required=False, label="or upload the chunks (.jsonl/.json)")

    def _read(self, name: str, limit: int) -> str | None:
        upload = self.cleaned_data.get(f"{name}_file")
        if not upload:
            return None
        return uploaded_text(
            upload,
            max_bytes=limit,
            too_large=f"The {name} file is larger than {limit} bytes.",
            not_utf8=f"The {name} file is not UTF-8 text.",
        )

    def error_field(self, details: dict[str, Any]) -> str | None:
        """The field a refusal's ``details.field`` names (``chunks[1].id`` and ``chunks
        line 2.id`` are the chunks: their file when one was uploaded), so the message
        stands beside it; ``None`` (the whole form) for any other."""
        name = str(details.get("field", "")).split("[", 1)[0].split(" ", 1)[0]
        name = name.split(".", 1)[0]
        if name not in ("answer", "chunks"):
            return None
        return f"{name}_file" if self.cleaned_data.get(f"{name}_file") else name

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        answer = self._read("answer", 4 * MAX_ANSWER_CHARS)
        chunks = self._read("chunks", MAX_UPLOAD_BYTES)
        data["answer"] = answer if answer is not None else data.get("answer", "")
        data["chunks"] = chunks if chunks is not None else data.get("chunks", "")
        return data


@dataclass(frozen=True)
class ClaimRow:
    index: int
    claim: dict[str, Any]
    start: int  # offsets into the answer, -1 when the span cannot be found
    stored: Any = None  # the claim this answer claim was stored as, when known

    @property
    def note(self) -> str:
        """The claim's note in words (the judge's codes worded, as the review console's)."""
        return rag_note_in_words(self.claim.get("note"))


def claim_rows(answer: str, claims: list[dict[str, Any]]) -> list[ClaimRow]:
    """Locate each claim's verbatim span in the answer, in reading order."""
    rows, pos = [], 0
    for index, claim in enumerate(claims):
        start = answer.find(claim["span"], pos)
        if start < 0:
            start = answer.find(claim["span"])
        rows.append(ClaimRow(index, claim, start))
        if start >= 0:
            pos = start + len(claim["span"])
    return rows


def answer_segments(answer: str, rows: list[ClaimRow]) -> list[tuple[Segment, str]]:
    spans = [Span(r.start, r.start + len(r.claim["span"]), r.index) for r in rows if r.start >= 0]
    verdicts: dict[Hashable, str] = {r.index: r.claim["verdict"] for r in rows}
    return [(seg, verdicts[seg.keys[0]] if seg.keys else "") for seg in segments(answer, spans)]


def evidence_role(claim: dict[str, Any], chunk_id: str) -> str:
    """What one evidence chunk of ``claim`` did, in words: it backs the claim (it is in
    ``supported_by``), or, for a contradicted claim, it is the chunk that contradicts it;
    else it is the closest passage, which backs the claim only in part or not at all, or
    which the judge gave no answer on (a claim not judged is no finding about it)."""
    if claim_not_judged(claim):
        return "closest passage: the judge gave no answer on this passage"
    if chunk_id in claim.get("supported_by", []):
        return "supports the claim"
    if claim.get("verdict") == "contradicted":
        return "contradicts the claim"
    if claim.get("verdict") == "partial":
        return "closest passage: backs the claim only in part"
    return "closest passage: does not back the claim"


def evidence_views(audit: Any, claim: dict[str, Any]) -> list[dict[str, Any]]:
    texts = {c["id"]: c["text"] for c in audit.chunks}
    out = []
    for item in claim.get("evidence", []):
        text = texts.get(item["chunk_id"], "")
        spans = [Span(item["start"], item["end"], item["chunk_id"])]
        out.append(
            {
                "evidence": item,
                "role": evidence_role(claim, item["chunk_id"]),
                "segments": segments(text, spans),
            }
        )
    return out


def with_stored_claims(rows: list[ClaimRow], stored: list[Any]) -> list[ClaimRow]:
    """Each row with the claim it was stored as: the stored claim whose original words
    are the row's span (the audit keeps its claims as an unordered set, so they are
    matched by their words, each used once, never by their order)."""
    left = list(stored)
    out = []
    for row in rows:
        match = next((c for c in left if c.original_text == row.claim["span"]), None)
        if match is not None:
            left.remove(match)
        out.append(replace(row, stored=match))
    return out


def _detail_context(audit: Any, selected: int | None) -> dict[str, Any]:
    claims = audit.result.get("claims", [])
    rows = with_stored_claims(claim_rows(audit.answer, claims), list(audit.claims.order_by("pk")))
    if selected is None:
        selected = next((r.index for r in rows if r.claim["verdict"] != "supported"), 0)
    elif not 0 <= selected < len(rows):
        raise Http404("This answer has no such claim.")
    current = rows[selected] if rows else None
    not_judged = [r for r in rows if claim_not_judged(r.claim)]
    return {
        "not_judged": not_judged,
        "origin_label": ClaimOrigin.RAG_ANSWER.label,
        "audit": audit,
        "rows": rows,
        "answer_segments": answer_segments(audit.answer, rows),
        "current": current,
        "evidence": evidence_views(audit, current.claim) if current else [],
    }


@require_http_methods(["GET", "POST"])
@role_required()
def rag_audit_index(request: MemberRequest) -> HttpResponse:
    form = RagAuditForm(request.POST or None, request.FILES or None)
    status = 200
    if request.method == "POST":
        if form.is_valid():
            try:
                write = rag_audit_run(
                    workspace=request.workspace,
                    answer=form.cleaned_data["answer"],
                    chunks=form.cleaned_data["chunks"],
                    actor=request.user,
                )
            except RagInputError as exc:
                form.add_error(form.error_field(exc.details), api_message_in_words(exc.message))
            else:
                return redirect("audit-rag:detail", audit_id=write.audit.pk)
        status = 400
    # every audit, newest first, a page at a time (the form's error page shows page 1)
    page = Paginator(rag_audit_list(workspace=request.workspace), CONSOLE_PAGE_SIZE).get_page(
        request.GET.get("page")
    )
    return render(request, "audit/rag_index.html", {"form": form, "page": page}, status=status)


@require_GET
@role_required()
def rag_audit_detail(
    request: MemberRequest, audit_id: int, claim: int | None = None
) -> HttpResponse:
    audit = rag_audit_get(workspace=request.workspace, audit_id=audit_id)
    context = _detail_context(audit, claim)
    if claim is not None and getattr(request, "htmx", False):
        return render(request, "audit/rag_claim_partial.html", context)
    return render(request, "audit/rag_detail.html", context)
