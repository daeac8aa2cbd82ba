"""Why a claim is in the review queue, in words a reviewer reads (pure Python).

The judge's verdict note starts with a code ("low_coverage: 0.40 (missing: delta)",
"number_mismatch: 12 vs 14 (span 1)"); these functions turn the decisive part of it
into a sentence, and the judge's confidence into what it means for its answer. An
abstention has no answer, so it never shows a confidence ("Confidence 1.00" on an
abstention reads as certainty).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Final

from verifier.states import NO_BOUND_EVIDENCE_NOTE
from verifier.vocabulary import JUDGE_NOT_ASKED as JUDGE_NOT_ASKED
from verifier.vocabulary import confidence_percent, label

# code -> sentence; "{detail}" is the note's text after the code.
NOTE_CODES: Final[dict[str, str]] = {
    "low_coverage": "The span covers too few of the claim's words ({detail}).",
    "signals_disagree": "Word overlap and meaning disagree ({detail}).",
    "weak_support": "The span supports the claim only weakly ({detail}).",
    "spans_conflict": "One span supports the claim and another contradicts it ({detail}).",
    "embedding_unavailable": "Meaning similarity could not be computed ({detail}).",
    "no_content_words": "The claim has no content words to check.",
    "number_mismatch": "The numbers differ: {detail}.",
    "number_unsupported": "The span does not state the number {detail}.",
    "unit_mismatch": "The units differ: {detail}.",
    "date_mismatch": "The dates differ: {detail}.",
    "date_unsupported": "The span does not state the date {detail}.",
    "entity_mismatch": "A name does not match: {detail}.",
    "scope": "The scope differs: {detail}.",
    "antonym": "Opposite words: {detail}.",
    "negation": "One of them negates the other: {detail}.",
    NO_BOUND_EVIDENCE_NOTE: "No span was bound, so the judge was not asked.",
    "omitted": "The judge's answer left this claim out.",
    "self_consistency_disagreement": "The judge gave different answers across samples ({detail}).",
    "judge_reviewers_disagree": (
        "The judge decided, but this workspace's reviewers would most likely decide the "
        "other way ({detail})."
    ),
    "reviewer_calibrator": "Decided by this workspace's reviewer calibrator ({detail}).",
    "supported": "The span supports the claim ({detail}).",
    "entailed": "The span entails the claim ({detail}).",
    "verbatim": "The claim is stated verbatim ({detail}).",
}
_CODE_RE: Final = re.compile(r"^\s*([a-z_]+)\s*(?::\s*(.*))?$", re.DOTALL)
_LABEL_TAIL_RE: Final = re.compile(r"\s*\((?:span|candidate|chunk|window)[^)]*\)\s*$")
ANSWERS: Final = {"entailed": "supports", "contradicted": "contradicts"}


# A reviewer's undo (``review.services.review_undo``): "undo: withdraws verdict 47 (entailed)".
_UNDO_RE: Final = re.compile(r"^undo: withdraws verdict (\d+) \(([a-z_]+)\)$")
HUMAN_JUDGE_PREFIX: Final = "human:"  # a person's verdict's judge id: "human:<username>"


def judge_in_words(
    judge_model: str | None,
    reviewer_name: str | None = None,
    *,
    calibrator_version: int | None = None,
) -> str:
    """Who gave a verdict, as the console names them: a person as "reviewer rita" (the
    docs' word for a person who decides), the workspace's reviewer calibrator that
    answered on top of a judge (``calibrator_version``: the verdict's calibrator) as
    "the reviewers' calibrator v3 (on top of heuristic-nli)", a model by its id; ""
    for no verdict."""
    if reviewer_name:
        return f"reviewer {reviewer_name}"
    if judge_model and judge_model.startswith(HUMAN_JUDGE_PREFIX):
        return f"reviewer {judge_model[len(HUMAN_JUDGE_PREFIX) :]}"
    if calibrator_version is not None:
        on_top = f" (on top of {judge_model})" if judge_model else ""
        return f"the reviewers' calibrator v{calibrator_version}{on_top}"
    return judge_model or ""


def undo_note_in_words(note: str, decision: Callable[[int], str | None] | None = None) -> str:
    """An undo's note in words: which decision it withdraws (``decision(verdict id)``
    names it, e.g. "rita's decision of 2025-05-02 14:03"; else "an earlier decision") and
    that decision's answer as the console labels it ("Supports"), never the verdict's id
    or its code; any other note as it is."""
    match = _UNDO_RE.match((note or "").strip())
    if match is None:
        return note
    which = (decision(int(match.group(1))) if decision else None) or "an earlier decision"
    return f"Undo: withdraws {which} ({label('verdict', match.group(2))})."


def note_in_words(note: str) -> str:
    """The decisive reason of a verdict note as a sentence ('' for an empty note)."""
    note = undo_note_in_words((note or "").strip())
    if note.startswith("rag audit:"):  # "rag audit: <verdict>; <judge note>"
        note = note.split(";", 1)[1].strip() if ";" in note else ""
    if not note:
        return ""
    match = _CODE_RE.match(note)
    if match is None or match.group(1) not in NOTE_CODES:
        plain = note if note.endswith((".", "!", "?")) else note + "."
        return plain[:1].upper() + plain[1:]
    code, detail = match.group(1), _LABEL_TAIL_RE.sub("", match.group(2) or "").strip()
    sentence = NOTE_CODES[code].format(detail=detail)
    return sentence.replace(" ().", ".").replace(" ( ).", ".")


# A RAG audit claim's note ("verifier.rag.audit"): parts joined by "; ", where a part the
# judge's note fills reads "contradicted by c2: number_mismatch: 412 vs 300" or "judge: …".
_RAG_JUDGE_PART: Final = re.compile(r"^(contradicted by [^:]+|judge): (.+)$", re.DOTALL)


def rag_note_in_words(note: str | None) -> str:
    """A RAG audit claim's note as the console shows it: each part that quotes the
    judge's note ("contradicted by c2: number_mismatch: 412 metres vs 300 metres") has
    that note worded as ``note_in_words`` words it ("contradicted by c2: The numbers
    differ: 412 metres vs 300 metres."); every other part as written. The stored note,
    which the API returns, keeps its codes."""
    parts = []
    for part in (note or "").split("; "):
        match = _RAG_JUDGE_PART.match(part)
        if match is not None and note_code(match.group(2)) in NOTE_CODES:
            part = f"{match.group(1)}: {note_in_words(match.group(2))}"
        parts.append(part)
    return "; ".join(parts)


def note_code(note: str | None) -> str:
    """The code a verdict note starts with ("negation: ..." → "negation"; "" for none)."""
    match = _CODE_RE.match((note or "").strip())
    return match.group(1) if match is not None else ""


def confidence_in_words(
    label: str | None, confidence: float | None, *, human: bool = False, note: str = ""
) -> str:
    """The judge's confidence in its own answer, or why there is none. A claim with no
    bound span never reaches the judge (its verdict is an abstention noted
    ``no_bound_evidence``): it says so rather than "the judge abstained"."""
    if human:
        return "decided by a person"
    if label in (None, ""):
        return "not judged"
    if note_code(note) == NO_BOUND_EVIDENCE_NOTE:
        return "none (the judge was not asked)"
    if label == "coverage_gap":
        return "no answer (the judge failed or left it out)"
    if label == "abstained" or label not in ANSWERS:
        return "no answer (the judge abstained)"
    return f"{confidence_percent(confidence or 0.0)} sure the span {ANSWERS[label]} the claim"
