"""VoG (seed 004, Layer 2): ask the judge whether ``source_text`` and ``target_text``
support a borderline relation, and parse the verdict GROUNDED / PARTIAL / REJECTED.

The judge (the ``Judge`` protocol: does this span entail this claim?) is asked one of
two questions. For a relation between entities it reads both texts as evidence and is
asked whether they support the ``statement`` (the relation as a sentence). For a
relation whose ends are themselves statements (``target_is_claim``: our claim
relations) it reads ``source_text`` and is asked whether it supports ``target_text``
(the TO end's own text; the ``statement`` where there is none): offered as evidence,
the TO end's own span would entail the TO claim whatever the FROM claim says.

The judge's structured label is translated to the VoG vocabulary and then parsed like
any textual answer, by exact label only: an answer such as ``UNGROUNDED`` or ``not
grounded`` is never GROUNDED.

Honest contract: no evidence text (neither text; for ``target_is_claim``, no
``source_text``) → reject (``vog_no_evidence``) without asking the judge; judge
unavailable, empty or malformed → reject (``vog_unavailable``). Only a question that
carries evidence is a VoG call (what the per-cycle cap counts).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Literal

from verifier.judges.base import Judge, JudgeItem
from verifier.judges.coverage import judge_items

Verdict = Literal["GROUNDED", "PARTIAL", "REJECTED"]
VERDICTS: Final = ("GROUNDED", "PARTIAL", "REJECTED")
# The judge protocol's labels in the VoG vocabulary; anything else is "unavailable".
JUDGE_LABEL_VERDICT: Final = {
    "entailed": "GROUNDED",
    "abstained": "PARTIAL",
    "contradicted": "REJECTED",
}
# For a relation that asserts a contradiction the judge's "contradicted" grounds it.
JUDGE_LABEL_VERDICT_CONTRADICTION: Final = {
    "contradicted": "GROUNDED",
    "abstained": "PARTIAL",
    "entailed": "REJECTED",
}
# What a verdict is worth as a VoG score, times the judge's confidence.
VERDICT_WEIGHT: Final = {"GROUNDED": 1.0, "PARTIAL": 0.5, "REJECTED": 0.0}

LEVEL_GROUNDED: Final = "vog_grounded"
LEVEL_PARTIAL: Final = "vog_partial"
LEVEL_REJECTED: Final = "vog_rejected"
LEVEL_NO_EVIDENCE: Final = "vog_no_evidence"
LEVEL_UNAVAILABLE: Final = "vog_unavailable"

# A verdict is the whole answer's first token, optionally followed by a confidence:
# "GROUNDED", "partial 0.6", "REJECTED (confidence: 0.9)".
_ANSWER = re.compile(
    r"^\s*(?P<label>[A-Za-z]+)\b(?:[^0-9A-Za-z]*(?:confidence\s*[:=]?\s*)?(?P<conf>[0-9]*\.?[0-9]+))?",
)


@dataclass(frozen=True)
class ParsedVerdict:
    verdict: Verdict
    confidence: float


def parse_verdict(answer: str | None, *, default_confidence: float = 1.0) -> ParsedVerdict | None:
    """The verdict of an answer, or None when it is not exactly one of the labels."""
    if not answer or not answer.strip():
        return None
    match = _ANSWER.match(answer)
    if match is None:
        return None
    label = match.group("label").upper()
    if label not in VERDICTS:
        return None
    rest = answer[match.start("label") + len(label) :].lstrip()
    if rest[:1].isalpha() and not rest.lower().startswith("confidence"):
        return None  # "GROUNDED? not really" is fine, "grounded not" is not a clean label
    confidence = default_confidence
    if match.group("conf") is not None:
        confidence = float(match.group("conf"))
        if not 0.0 <= confidence <= 1.0:
            return None
    return ParsedVerdict(verdict=label, confidence=confidence)  # type: ignore[arg-type]


@dataclass(frozen=True)
class VogQuestion:
    key: str
    statement: str  # what the evidence must support (never the evidence itself)
    source_text: str  # the relation's FROM end (a chunk's own text)
    target_text: str  # the relation's TO end
    # the relation asserts that the evidence contradicts the statement
    contradiction: bool = False
    # the TO end is a statement (a claim): what the FROM text must support, not evidence
    target_is_claim: bool = False

    @property
    def has_evidence(self) -> bool:
        if self.target_is_claim:
            return bool(self.source_text.strip())
        return bool(self.source_text.strip() or self.target_text.strip())

    def judge_item(self) -> JudgeItem:
        """The question as the judge reads it (only for a question with evidence)."""
        if self.target_is_claim:
            hypothesis = self.target_text.strip() or self.statement
            return JudgeItem(key=self.key, claim=hypothesis, spans=(self.source_text,))
        spans = tuple(t for t in (self.source_text, self.target_text) if t.strip())
        return JudgeItem(key=self.key, claim=self.statement, spans=spans)


@dataclass(frozen=True)
class VogOutcome:
    key: str
    level: str
    verdict: Verdict | None
    confidence: float
    vog_score: float
    note: str

    @property
    def grounded(self) -> bool:
        return self.verdict == "GROUNDED"


def relation_statement(from_text: str, relation_type: str, to_text: str) -> str:
    return f"{from_text.strip()} {relation_type.replace('_', ' ').strip()} {to_text.strip()}"


def _outcome(key: str, answer: str | None, confidence: float, note: str) -> VogOutcome:
    parsed = parse_verdict(answer, default_confidence=confidence)
    if parsed is None:
        return VogOutcome(key, LEVEL_UNAVAILABLE, None, 0.0, 0.0, note or "unparseable verdict")
    level = {"GROUNDED": LEVEL_GROUNDED, "PARTIAL": LEVEL_PARTIAL, "REJECTED": LEVEL_REJECTED}
    return VogOutcome(
        key,
        level[parsed.verdict],
        parsed.verdict,
        parsed.confidence,
        VERDICT_WEIGHT[parsed.verdict] * parsed.confidence,
        note,
    )


def vog_within_cap(
    questions: Sequence[VogQuestion], cap: int
) -> tuple[list[VogQuestion], list[VogQuestion]]:
    """(to ask, beyond the cap), in input order. The cap counts VoG calls only: a
    question without evidence is answered ``vog_no_evidence`` without a call and never
    takes one of the ``cap`` places."""
    asked: list[VogQuestion] = []
    beyond: list[VogQuestion] = []
    calls = 0
    for q in questions:
        if not q.has_evidence:
            asked.append(q)
        elif calls < cap:
            asked.append(q)
            calls += 1
        else:
            beyond.append(q)
    return asked, beyond


def vog_ask(judge: Judge | None, questions: Sequence[VogQuestion]) -> dict[str, VogOutcome]:
    """One outcome per question; the judge sees only questions that carry evidence."""
    out: dict[str, VogOutcome] = {}
    asked: list[JudgeItem] = []
    contradiction = {q.key for q in questions if q.contradiction}
    for q in questions:
        if not q.has_evidence:
            out[q.key] = VogOutcome(q.key, LEVEL_NO_EVIDENCE, None, 0.0, 0.0, "no evidence text")
            continue
        if judge is None:
            out[q.key] = VogOutcome(q.key, LEVEL_UNAVAILABLE, None, 0.0, 0.0, "no judge")
            continue
        asked.append(q.judge_item())
    if asked and judge is not None:
        for result in judge_items(judge, asked):
            table = (
                JUDGE_LABEL_VERDICT_CONTRADICTION
                if result.key in contradiction
                else JUDGE_LABEL_VERDICT
            )
            answer = table.get(result.label)
            out[result.key] = _outcome(result.key, answer, result.confidence, result.note)
    return out
