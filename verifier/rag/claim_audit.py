"""One claim's audit result: its verdict, the chunks that support it and the evidence
(read by the audit, ``audit``, and by the suggested fix, ``fix``)."""

from __future__ import annotations

from dataclasses import dataclass

from verifier.rag.decompose import AnswerClaim
from verifier.rag.evidence import Window
from verifier.rag.overclaims import Overclaim

Verdict = str  # supported | partial | unsupported | contradicted


@dataclass(frozen=True)
class ClaimAudit:
    claim: AnswerClaim
    verdict: Verdict
    supported_by: tuple[str, ...]
    note: str
    evidence: tuple[Window, ...]
    label: str  # the judge label recorded: entailed | contradicted | abstained
    confidence: float
    overclaims: tuple[Overclaim, ...] = ()
    missing: tuple[str, ...] = ()
    unknown_cited: tuple[str, ...] = ()  # ids the claim cites that no chunk has

    def as_dict(self) -> dict[str, object]:
        out: dict[str, object] = {
            "span": self.claim.span,
            "supported_by": list(self.supported_by),
            "verdict": self.verdict,
        }
        if self.note:
            out["note"] = self.note
        out["evidence"] = [w.as_dict() for w in self.evidence]
        return out
