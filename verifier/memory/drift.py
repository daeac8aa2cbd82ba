"""Material drift between what an agent said and what it now claims it said (pure Python).

``compare(claim, source)`` applies the seed-002 rubric, one rule per category, and returns
the categories with the spans that show them (offsets into ``claim`` and into ``source``;
``None`` where the evidence is an omission):

* ``temporal_shift`` — a deadline or timeframe changed ("this week" → "Friday");
* ``confidence_shift`` — a hedge of the source is gone ("I'll try" → "I will") or
  certainty was added ("definitely", "guarantee");
* ``scope_shift`` — a quantity or the deliverable changed ("the draft" → "the final
  report", "2 people" → "4 people");
* ``conditionality_removed`` — a condition of the source is absent ("if nothing comes up");
* ``precision_added`` — specifics beyond the source: a clock time or exact number where
  the source had none or only a vague one ("this week" → "Friday 5pm", "a few" → "3");
* ``actor_shift`` — speaker or addressee swapped inside the content ("I'll send you" →
  "you'll send me"); the verifier adds it too when the wrong party is credited.

Non-material differences never count: synonym substitution, tense normalisation and
filler removal are folded away first (``verifier.memory.wording``) and reported apart.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Final

from verifier.memory import wording
from verifier.text.hedges import SPOKEN_CERTAINTY, SPOKEN_HEDGE

DRIFT_CATEGORIES: Final = (
    "temporal_shift",
    "confidence_shift",
    "scope_shift",
    "conditionality_removed",
    "precision_added",
    "actor_shift",
)

_WEEKDAY = r"(?:mon|tues|wednes|thurs|fri|satur|sun)day"
_MONTH = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
)
_NUMWORD = (
    r"(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen"
    r"|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|hundred)"
)
_ORD = r"(?:st|nd|rd|th)"
CLOCK = re.compile(
    rf"\b(?:(?:\d{{1,2}}(?::\d{{2}})?|{_NUMWORD}(?:[\s-]+(?:thirty|fifteen|forty[\s-]five))?)"
    rf"\s+in\s+the\s+(?:morning|afternoon|evening|night)"
    rf"|\d{{1,2}}(?::\d{{2}})?\s*(?:am|pm|a\.m\.|p\.m\.)|\d{{1,2}}:\d{{2}}|noon|midnight"
    rf"|{_NUMWORD}(?:[\s-]+(?:thirty|fifteen|forty[\s-]five|o'clock))?\s+(?:am|pm|a\.m\.|p\.m\.|o'clock)"
    rf"|half\s+past\s+\w+|quarter\s+(?:past|to)\s+\w+)(?![\w])",
    re.IGNORECASE,
)
DAY = re.compile(
    rf"\b(?:today|tonight|tomorrow|yesterday|soon|later|asap|eod|eow"
    rf"|(?:this|next|last|the\s+following|coming)\s+(?:week(?:end)?|month|year|quarter|morning"
    rf"|afternoon|evening|night|{_WEEKDAY})"
    rf"|(?:the\s+)?end\s+of\s+(?:the\s+)?(?:day|week|month|year|quarter)"
    rf"|{_WEEKDAY}(?:\s+(?:morning|afternoon|evening|night))?"
    rf"|{_MONTH}\s+\d{{1,2}}{_ORD}?|\d{{1,2}}{_ORD}?\s+of\s+{_MONTH}|the\s+\d{{1,2}}{_ORD}"
    rf"|\d{{4}}-\d{{2}}-\d{{2}}|in\s+(?:a|an|one|two|three|four|five|\d+)\s+(?:day|week|month|hour)s?"
    rf"|within\s+(?:a|an|one|two|three|\d+)\s+(?:day|week|month|hour)s?)\b",
    re.IGNORECASE,
)
VAGUE_TIME: Final = frozenset(
    {
        "soon",
        "later",
        "asap",
        "this week",
        "next week",
        "this month",
        "next month",
        "this weekend",
        "the end of the week",
        "end of the week",
        "end of week",
        "eow",
        "this quarter",
        "next quarter",
        "this year",
        "coming week",
        "the following week",
    }
)
NUMBER = re.compile(
    rf"\b(?:\d+(?:[.,]\d+)?%?|{_NUMWORD}|a\s+dozen|a\s+couple(?:\s+of)?|both)\b", re.IGNORECASE
)
VAGUE_QUANTITY = re.compile(
    r"\b(?:a\s+few|some|several|many|a\s+number\s+of|a\s+couple|a\s+bunch\s+of|a\s+lot\s+of)\b",
    re.IGNORECASE,
)
CONDITION = re.compile(
    r"\b(?:if|unless|provided(?:\s+that)?|providing|assuming|as\s+long\s+as|in\s+case"
    r"|depending\s+on|subject\s+to|only\s+when|otherwise)\b[^.;!?\n]*",
    re.IGNORECASE,
)
DELIVERABLES: Final = frozenset(
    {
        "draft",
        "report",
        "summary",
        "slides",
        "deck",
        "presentation",
        "proposal",
        "document",
        "doc",
        "memo",
        "spec",
        "specification",
        "plan",
        "outline",
        "estimate",
        "quote",
        "invoice",
        "contract",
        "prototype",
        "demo",
        "analysis",
        "notes",
        "minutes",
        "version",
        "copy",
        "budget",
        "design",
        "mockup",
        "agenda",
        "ticket",
        "tickets",
        "table",
        "room",
        "rooms",
        "file",
        "files",
        "patch",
        "release",
        "letter",
        "list",
        "sample",
        "samples",
        "results",
        "figures",
        "chapter",
        "section",
        "page",
        "pages",
        "final",
        "full",
        "complete",
        "entire",
        "whole",
        "partial",
        "preliminary",
        "rough",
        "initial",
        "revised",
        "detailed",
        "all",
        "every",
        "each",
        "half",
        "part",
        "only",
    }
)
_FIRST = frozenset({"i", "me", "my", "mine", "myself", "we", "us", "our", "ours"})
_SECOND = frozenset({"you", "your", "yours", "yourself"})

Span = tuple[int, int]


@dataclass(frozen=True)
class Finding:
    category: str
    claim_span: Span | None
    source_span: Span | None
    note: str

    def as_dict(self) -> dict[str, object]:
        return {
            "category": self.category,
            "claim_span": list(self.claim_span) if self.claim_span else None,
            "source_span": list(self.source_span) if self.source_span else None,
            "note": self.note,
        }


@dataclass(frozen=True)
class DriftReport:
    findings: tuple[Finding, ...]
    non_material: tuple[str, ...]
    near_verbatim: bool  # equal once fillers and tense are folded
    equivalent: bool  # equal once synonyms are folded too
    categories: tuple[str, ...] = field(init=False)

    def __post_init__(self) -> None:
        seen = {f.category for f in self.findings}
        object.__setattr__(self, "categories", tuple(c for c in DRIFT_CATEGORIES if c in seen))


def _hits(pattern: re.Pattern[str], text: str) -> list[tuple[str, Span]]:
    return [(" ".join(m.group().lower().split()), m.span()) for m in pattern.finditer(text)]


def _first(hits: Sequence[tuple[str, Span]], keys: Iterable[str] | None = None) -> Span | None:
    wanted = set(keys) if keys is not None else None
    for key, span in hits:
        if wanted is None or key in wanted:
            return span
    return None


def _temporal(claim: str, source: str) -> list[Finding]:
    c_clock, s_clock = _hits(CLOCK, claim), _hits(CLOCK, source)
    c_day = _hits(DAY, claim)
    s_day = _hits(DAY, source)
    c_days = {k for k, _ in c_day}
    s_days = {k for k, _ in s_day}
    findings: list[Finding] = []
    clock_added = bool(c_clock) and not s_clock
    if clock_added:
        findings.append(
            Finding("precision_added", _first(c_clock), _first(s_day), "clock time added")
        )
    elif c_clock and s_clock and {k for k, _ in c_clock} != {k for k, _ in s_clock}:
        new = [k for k, _ in c_clock if k not in {x for x, _ in s_clock}]
        findings.append(
            Finding("temporal_shift", _first(c_clock, new), _first(s_clock), "time changed")
        )
    if c_days and c_days != s_days:
        added = [k for k in c_days if k not in s_days]
        if not s_days:
            if not clock_added:
                findings.append(
                    Finding("precision_added", _first(c_day, added), None, "timeframe added")
                )
        elif added:
            narrowing = all(k in VAGUE_TIME for k in s_days)
            if not (clock_added and narrowing):
                findings.append(
                    Finding(
                        "temporal_shift",
                        _first(c_day, added),
                        _first(s_day),
                        f"{', '.join(sorted(s_days))} → {', '.join(sorted(added))}",
                    )
                )
    return findings


def _numbers(text: str) -> list[tuple[str, Span]]:
    masked = [span for _, span in _hits(CLOCK, text) + _hits(DAY, text)]
    hits = []
    for key, (s, e) in _hits(NUMBER, text):
        if any(ms <= s and e <= me for ms, me in masked):
            continue
        hits.append((key, (s, e)))
    return hits


def _scope_and_precision(claim: str, source: str) -> list[Finding]:
    findings: list[Finding] = []
    c_num, s_num = _numbers(claim), _numbers(source)
    c_keys, s_keys = {k for k, _ in c_num}, {k for k, _ in s_num}
    if c_keys and s_keys and c_keys != s_keys:
        new = [k for k in c_keys if k not in s_keys]
        if new:
            findings.append(
                Finding("scope_shift", _first(c_num, new), _first(s_num), "quantity changed")
            )
    elif c_keys and not s_keys:
        vague = _hits(VAGUE_QUANTITY, source)
        findings.append(
            Finding(
                "precision_added",
                _first(c_num),
                _first(vague),
                "exact number where the source was vague" if vague else "number added",
            )
        )
    c_tok = [t for t in wording.tokens(claim)]
    s_words = {wording.canonical(t.text) for t in wording.tokens(source)}
    c_words = {wording.canonical(t.text) for t in c_tok}
    added = [
        t
        for t in c_tok
        if wording.canonical(t.text) in DELIVERABLES and wording.canonical(t.text) not in s_words
    ]
    if added:
        dropped = [
            t
            for t in wording.tokens(source)
            if wording.canonical(t.text) in DELIVERABLES
            and wording.canonical(t.text) not in c_words
        ]
        findings.append(
            Finding(
                "scope_shift",
                (added[0].start, added[-1].end),
                (dropped[0].start, dropped[-1].end) if dropped else None,
                "deliverable changed: " + " ".join(t.text for t in added),
            )
        )
    return findings


def _confidence(claim: str, source: str) -> list[Finding]:
    c_hedge, s_hedge = _hits(SPOKEN_HEDGE, claim), _hits(SPOKEN_HEDGE, source)
    gone = [k for k, _ in s_hedge if k not in {x for x, _ in c_hedge}]
    if gone:
        return [
            Finding("confidence_shift", None, _first(s_hedge, gone), f"hedge removed: {gone[0]}")
        ]
    c_sure, s_sure = _hits(SPOKEN_CERTAINTY, claim), _hits(SPOKEN_CERTAINTY, source)
    new = [k for k, _ in c_sure if k not in {x for x, _ in s_sure}]
    if new:
        return [
            Finding("confidence_shift", _first(c_sure, new), None, f"certainty added: {new[0]}")
        ]
    return []


def _conditionality(claim: str, source: str) -> list[Finding]:
    c_markers = {k.split()[0] for k, _ in _hits(CONDITION, claim)}
    for key, span in _hits(CONDITION, source):
        if key.split()[0] not in c_markers:
            return [Finding("conditionality_removed", None, span, f"condition omitted: {key}")]
    return []


def _persons(text: str) -> tuple[list[str], list[wording.Token]]:
    seq: list[str] = []
    toks = []
    for tok in wording.tokens(text):
        person = "1" if tok.text in _FIRST else "2" if tok.text in _SECOND else None
        if person and (not seq or seq[-1] != person):
            seq.append(person)
            toks.append(tok)
    return seq, toks


def _actor(claim: str, source: str) -> list[Finding]:
    """The first person pronoun swapped between speaker and addressee ("I'll send you" →
    "you'll send me"); a pronoun merely left out is not a swap."""
    c_seq, c_toks = _persons(claim)
    s_seq, s_toks = _persons(source)
    if c_seq and s_seq and c_seq[0] != s_seq[0]:
        ct, st = c_toks[0], s_toks[0]
        return [
            Finding(
                "actor_shift",
                (ct.start, ct.end),
                (st.start, st.end),
                "speaker or addressee swapped",
            )
        ]
    return []


def _diff_count(a: Sequence[str], b: Sequence[str]) -> int:
    ops = difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes()
    return sum(max(i2 - i1, j2 - j1) for tag, i1, i2, j1, j2 in ops if tag != "equal")


def non_material(claim: str, source: str) -> tuple[tuple[str, ...], bool, bool]:
    """(non-material kinds the pair needed, near-verbatim, equivalent)."""
    c0, s0 = wording.tokens(claim), wording.tokens(source)
    c1, s1 = wording.drop_fillers(c0), wording.drop_fillers(s0)
    w0 = ([t.text for t in c0], [t.text for t in s0])
    w1 = ([t.text for t in c1], [t.text for t in s1])
    w2 = ([wording.tense(w) for w in w1[0]], [wording.tense(w) for w in w1[1]])
    w3 = ([wording.synonym(w) for w in w2[0]], [wording.synonym(w) for w in w2[1]])
    d = [_diff_count(*w) for w in (w0, w1, w2, w3)]
    kinds = []
    if d[1] < d[0]:
        kinds.append("filler_removal")
    if d[2] < d[1]:
        kinds.append("tense_normalization")
    if d[3] < d[2]:
        kinds.append("synonym_substitution")
    order = ("synonym_substitution", "tense_normalization", "filler_removal")
    return tuple(k for k in order if k in kinds), d[2] == 0, d[3] == 0


def compare(claim: str, source: str) -> DriftReport:
    """Material drift of ``claim`` against ``source`` (both plain text)."""
    kinds, near, equivalent = non_material(claim, source)
    if equivalent:
        return DriftReport((), kinds, near, True)
    findings = [
        *_temporal(claim, source),
        *_confidence(claim, source),
        *_scope_and_precision(claim, source),
        *_conditionality(claim, source),
        *_actor(claim, source),
    ]
    return DriftReport(tuple(findings), kinds, near, False)
