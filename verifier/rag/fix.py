"""The suggested fix: the minimal rewrite of the answer that would clear the audit.

Supported claims stay (their citations re-attributed to the chunks that support them);
unsupported and contradicted claims are dropped; an over-claim whose other facts are
backed is softened ("always" -> "often") or, when the chunk hedges, restated as the
chunk's own words. One short paragraph.
"""

from __future__ import annotations

from collections.abc import Sequence

from verifier.rag.chunks import Chunk
from verifier.rag.claim_audit import ClaimAudit
from verifier.rag.overclaims import soften

MAX_FIX_CHARS = 800
MAX_STATEMENT_CHARS = 200
NOTHING_LEFT = "Drop the answer: none of its claims is supported by the chunks."


def _sentence(text: str, ids: Sequence[str]) -> str:
    text = text.strip().rstrip(".;:,")
    if not text:
        return ""
    text = text[0].upper() + text[1:]
    cite = f" [{', '.join(ids)}]" if ids else ""
    return f"{text}{cite}."


def _piece(audit: ClaimAudit) -> str:
    if audit.verdict == "supported":
        return _sentence(audit.claim.text, audit.supported_by)
    if audit.verdict != "partial" or not audit.overclaims or audit.missing:
        return ""
    window = audit.evidence[0]
    if any(o.kind == "absolute" for o in audit.overclaims):
        return _sentence(soften(audit.claim.text, list(audit.overclaims)), [window.chunk_id])
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
    pieces = [p for p in (_piece(a) for a in audits) if p]
    if not pieces:
        statements = _cited_statements(audits, chunks)
        return (
            f"{NOTHING_LEFT} The cited chunks state only: {statements}."
            if statements
            else (NOTHING_LEFT)
        )
    text = " ".join(pieces)
    if len(text) > MAX_FIX_CHARS:
        text = text[: MAX_FIX_CHARS - 1].rsplit(" ", 1)[0] + "…"
    return text
