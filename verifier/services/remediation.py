"""Remediation: one repair pass for claims that ended weak or unsupported.

The offline repair narrows the claim to what its best span states: the claim text
becomes the single source sentence (inside the active binding or the best evidence
candidate) that the claim overlaps most, which drops the over-claim. The repaired
text is re-bound as an exact quote and re-judged; only then can it return to
circulation. A claim that is still not supported is soft-excluded (reversible). The
original text stays in ``Claim.original_text``; every step appends state events and
verdicts, so the history shows the whole path.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db import transaction

from verifier.binding import source_index
from verifier.judges import Judge
from verifier.models import BoundBy, Claim, ClaimStateChoices, EvidenceCandidate
from verifier.selectors.claim_state import claim_binding_check
from verifier.services.binding import claim_bind
from verifier.services.claim_state import claim_exclude, claim_history_note
from verifier.services.evidence_search import content_concepts, evidence_search
from verifier.services.judging import claims_judge
from verifier.states import REMEDIATION_EXCLUSION_REASON

EXCLUSION_REASON = REMEDIATION_EXCLUSION_REASON
# States that get a repair pass. Contradicted claims go to a person, not to repair.
# The repaired sentence must still carry at least this share of the claim's content
# concepts: narrowing drops an over-claim, it never swaps in an unrelated statement.
REPAIR_MIN_OVERLAP = 0.5
REMEDIABLE_STATES = frozenset({ClaimStateChoices.UNVERIFIED, ClaimStateChoices.INFERRED})


@dataclass(frozen=True)
class RemediationOutcome:
    claim: Claim
    attempted: bool
    repaired_text: str | None  # None when no span was available to narrow to
    final_state: str
    excluded: bool
    note: str


def _candidate_windows(claim: Claim) -> list[tuple[str, int, int]]:
    """(text, start, end) windows to narrow to, in the current version: the active
    fresh binding first, then stored candidates, then a fresh evidence search."""
    check = claim_binding_check(claim=claim)
    version = check.version
    if version is None:
        return []
    windows: list[tuple[str, int, int]] = []
    if check.binding is not None and check.status == "fresh":
        windows.append((version.text, check.binding.start, check.binding.end))
    for candidate in EvidenceCandidate.objects.filter(claim=claim, source_version=version):
        windows.append((version.text, candidate.start, candidate.end))
    if not windows:
        for span in evidence_search(version=version, claim_text=claim.text, limit=3):
            windows.append((version.text, span.start, span.end))
    return windows


def repaired_text_for(claim: Claim) -> str | None:
    """The sentence of the best span that overlaps the claim's content most, or None."""
    windows = _candidate_windows(claim)
    if not windows:
        return None
    claim_concepts = content_concepts(claim.text)
    best: tuple[float, str] | None = None
    for text, start, end in windows:
        sentences = source_index(text).sentences
        for s, e in sentences:
            if s < start or e > end:
                continue
            sentence = text[s:e]
            overlap = len(claim_concepts & content_concepts(sentence))
            score = overlap / (len(claim_concepts) or 1)
            if best is None or score > best[0]:
                best = (score, sentence)
    if best is None or best[0] < REPAIR_MIN_OVERLAP:
        return None
    return best[1]


def claim_remediate(*, claim: Claim, judge: Judge | None = None) -> RemediationOutcome:
    """One repair pass; re-binds and re-judges before anything can be promoted."""
    claim.refresh_from_db()
    if claim.state not in REMEDIABLE_STATES:
        return RemediationOutcome(claim, False, None, claim.state, False, "not remediable")
    repaired = repaired_text_for(claim)
    best_note = f"was: {claim.text[:120]}"
    with transaction.atomic():
        if repaired is not None and repaired != claim.text:
            original = claim.original_text or claim.text
            Claim.objects.filter(pk=claim.pk).update(text=repaired, original_text=original)
            claim.text, claim.original_text = repaired, original
            claim_history_note(
                claim=claim, cause=f"remediation: text narrowed to its best span ({best_note})"
            )
    if repaired is not None:
        claim_bind(claim=claim, quote=repaired, bound_by=BoundBy.REMEDIATION)
        claims_judge(claims=[claim], judge=judge, cause="remediation: re-judged")
    claim.refresh_from_db()
    if claim.state == ClaimStateChoices.SUPPORTED:
        return RemediationOutcome(claim, True, repaired, claim.state, False, "repaired")
    claim_exclude(claim=claim, reason=EXCLUSION_REASON)
    claim.refresh_from_db()
    note = "no span to narrow to" if repaired is None else "still not supported after repair"
    return RemediationOutcome(claim, True, repaired, claim.state, True, note)
