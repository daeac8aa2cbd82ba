"""The suggested fix: the minimal rewrite of the answer that would clear the audit.

Per claim:

* ``supported``: kept, its citations re-attributed to the chunks that support it;
* ``partial`` whose facts a chunk backs but whose citation names no chunk: kept, cited to
  the chunks that back it;
* ``partial`` over-claim whose other facts are backed: softened ("always" -> "often"),
  or, when the chunk hedges or no softer wording fits, restated as the chunk's own words;
* ``partial`` otherwise, and ``unsupported`` that a chunk partly backs (an invented
  number in an otherwise backed sentence): restated as the chunk's own words, cited;
* ``unsupported`` that no chunk backs, and ``contradicted``: dropped;
* not judged (the judge gave no answer on it, ``coverage_gap``): kept as written, since
  nothing was found about it (``audit_answer`` gives no fix when no claim was judged).

So the text is only ever what the chunks back. When nothing is left (no claim is
supported or partly backed) the fix says to drop the answer and quotes what the cited
chunks do state. One short paragraph.
"""

from __future__ import annotations

from collections.abc import Sequence

from verifier.rag.chunks import Chunk
from verifier.rag.claim_audit import ClaimAudit
from verifier.rag.overclaims import soften

MAX_FIX_CHARS = 800
MAX_STATEMENT_CHARS = 200
NOTHING_LEFT = "Drop the answer: none of its claims is supported by the chunks."
NOTHING_FULLY = "Rewrite the answer: none of its claims is fully supported by the chunks."


def _sentence(text: str, ids: Sequence[str]) -> str:
    text = text.strip().rstrip(".;:,")
    if not text:
        return ""
    text = text[0].upper() + text[1:]
    cite = f" [{', '.join(ids)}]" if ids else ""
    return f"{text}{cite}."


def _same_words(a: str, b: str) -> bool:
    return a.split() == b.split()


def _piece(audit: ClaimAudit) -> str:
    if audit.label == "coverage_gap":  # not judged: kept as written, no chunk was read
        return _sentence(audit.claim.text, audit.claim.cited)
    if audit.verdict == "supported" or (audit.verdict == "partial" and audit.supported_by):
        return _sentence(audit.claim.text, audit.supported_by)
    if audit.verdict not in ("partial", "unsupported") or not audit.evidence:
        return ""
    window = audit.evidence[0]
    absolute = any(o.kind == "absolute" for o in audit.overclaims)
    if audit.verdict == "partial" and not audit.missing and absolute:
        softened = soften(audit.claim.text, list(audit.overclaims))
        if not _same_words(softened, audit.claim.text):
            return _sentence(softened, [window.chunk_id])
    return _sentence(window.quote, [window.chunk_id])


def _cited_statements(audits: Sequence[ClaimAudit], chunks: Sequence[Chunk]) -> str:
    by_id = {c.id: c for c in chunks}
    cited = [cid for a in audits for cid in a.claim.cited if cid in by_id]
    statements = []
    for cid in dict.fromkeys(cited):
        text = " ".join(by_id[cid].text.split())
        if len(text) > MAX_STATEMENT_CHARS:
            text = text[: MAX_STATEMENT_CHARS - 1].rsplit(" ", 1)[0] + "…"
        statements.append(f"“{text}” [{cid}]")
    return "; ".join(statements)


def suggested_fix(audits: Sequence[ClaimAudit], chunks: Sequence[Chunk] = ()) -> str:
    pieces = list(dict.fromkeys(p for p in (_piece(a) for a in audits) if p))
    if not pieces:
        backed = any(a.verdict in ("supported", "partial") for a in audits)
        head = NOTHING_FULLY if backed else NOTHING_LEFT
        statements = _cited_statements(audits, chunks)
        return f"{head} The cited chunks state only: {statements}." if statements else head
    text = " ".join(pieces)
    if len(text) > MAX_FIX_CHARS:
        text = text[: MAX_FIX_CHARS - 1].rsplit(" ", 1)[0] + "…"
    return text
