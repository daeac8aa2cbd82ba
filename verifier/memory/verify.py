"""Verify an agent's memory claims against its own earlier turns (pure Python).

For each explicit claim of the message (``detection``), the claimed content is matched to
the agent's own turns only: first by the one binder (exact → normalized → fuzzy), then by
MiniLM cosine similarity over sentence units (a sentence, two adjacent sentences, the
whole turn). The best unit is compared by the drift rubric (``drift.compare``); a
paraphrase is ``supported`` when its differences are all non-material, else only when
the Layer-2 judge entails it. Outcomes, in order:

1. implicit or undeclared claim, no transcript, or no turn of the agent →
   ``inconclusive:insufficient`` (with its ``reason``: ``out_of_scope``, ``no_transcript``,
   ``agent_not_in_transcript``);
2. a "you said" claim (actor ``addressee``): whose content is the agent's own (its best
   unit reaches ``MATCH_THRESHOLD`` and no other speaker said it as closely) → drift with
   ``actor_shift``; any other — the addressee's words, whatever the agent said — is out
   of scope → ``inconclusive:insufficient``, reason ``out_of_scope``;
3. best own unit below ``MATCH_THRESHOLD``: another speaker said it → ``unsupported:drift``
   with ``actor_shift``; coverage incomplete → ``inconclusive:insufficient``; else
   ``unsupported:no_match`` — unless one of the agent's units is the claim but for
   material drift (``_drifted_statement``: "the draft" → "the final report", which
   MiniLM puts far apart) → ``unsupported:drift``; the content is verbatim in another
   speaker's turn but not in the agent's → ``unsupported:drift`` with ``actor_shift``
   too;
4. two statements of the agent (in two turns, or two sentences of one turn) both match
   and disagree — one supports the claim, the other differs from it materially, and they
   differ materially from each other (any drift category) → ``inconclusive:conflict``;
5. material drift → ``unsupported:drift``;
6. binder exact/normalized, fuzzy ≥ ``EXACT_FUZZY_FLOOR``, or equal once fillers and tense
   are folded → ``supported:exact``; words lifted verbatim from a longer sentence are
   first read by the judge with that sentence, and a contradiction ("No, it is not true
   that the meeting is cancelled") is drift as in 8;
7. equal once synonyms are folded too (only non-material differences) →
   ``supported:paraphrase`` without asking the judge;
8. otherwise the judge: entailed → ``supported:paraphrase``; contradicted →
   ``unsupported:drift`` classified ``scope_shift`` (what was said changed in a way the
   other rules do not name: a negation, an antonym, another object); abstained →
   ``unsupported:no_match``.

Every verdict in which drift was detected carries its categories (``drift_categories``),
whatever its outcome. With incomplete coverage every outcome but a supported one becomes
``inconclusive:insufficient`` with reason ``coverage_incomplete`` (the missing turns may
hold what the claim says), keeping the categories of the drift found in the turns that
are there.
"""

from __future__ import annotations

import difflib
import itertools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

import numpy as np
from rapidfuzz import fuzz, process

from verifier.binding import bind
from verifier.judges import Judge, JudgeItem, JudgeResult, judge_items
from verifier.memory import wording
from verifier.memory.detection import MemoryClaim, message_claims
from verifier.memory.drift import DRIFT_CATEGORIES, DriftReport, Finding, compare
from verifier.memory.transcript import Transcript, Turn, speaker_key
from verifier.text.sentences import sentence_spans

# Chosen once by ``bench/memory_verify.py --sweep`` (outcome accuracy 0.896 at 0.4, 0.903 at
# 0.5–0.55, 0.913 at 0.6–0.7; the lowest of the plateau). The only value fitted there.
MATCH_THRESHOLD: Final = 0.6
EXACT_FUZZY_FLOOR: Final = 0.9
CONFLICT_MARGIN: Final = 0.1
# A claim below the threshold still matches a unit of the agent's that it equals but for
# material drift (``_drifted_statement``): the units nearest in characters looked at, the
# words that must be left once the drift spans are cut out, and how alike they must be.
DRIFT_CANDIDATES: Final = 5
DRIFT_RESIDUE_MIN_WORDS: Final = 3
DRIFT_RESIDUE_FLOOR: Final = 0.9
# Two statements disagree when they differ by any material drift category.
CONFLICT_CATEGORIES: Final = frozenset(DRIFT_CATEGORIES)
# Why a claim could not be checked (``inconclusive:insufficient`` only; ``""`` on every
# other outcome): out of scope (implicit, undeclared, or about the addressee's own
# words), no transcript, no turn of the agent in it, or turns missing from it.
INSUFFICIENT_REASONS: Final = (
    "out_of_scope",
    "no_transcript",
    "agent_not_in_transcript",
    "coverage_incomplete",
)

EmbedFn = Callable[[Sequence[str]], np.ndarray]


@dataclass(frozen=True)
class Unit:
    """A stretch of one turn; ``start``/``end`` are offsets in the transcript text."""

    turn: Turn
    start: int
    end: int
    text: str


@dataclass(frozen=True)
class Match:
    turn: int
    speaker: str
    start: int
    end: int
    quote: str
    similarity: float
    binder: str = ""  # exact | normalized | fuzzy | "" (by embeddings)
    # The whole sentence(s) around the span: what the drift rubric compares, so that a
    # quote cut short of its hedge or condition still shows the omission.
    context_start: int = -1
    context: str = ""

    @property
    def compared(self) -> tuple[int, str]:
        if self.context_start >= 0:
            return self.context_start, self.context
        return self.start, self.quote

    def as_dict(self) -> dict[str, Any]:
        start, text = self.compared
        return {
            "turn": self.turn,
            "speaker": self.speaker,
            "start": self.start,
            "end": self.end,
            "quote": self.quote,
            "similarity": round(self.similarity, 4),
            "binder": self.binder,
            "context_start": start,
            "context_end": start + len(text),
        }


@dataclass(frozen=True)
class ClaimVerdict:
    claim: MemoryClaim
    outcome: str
    similarity: float | None = None
    match: Match | None = None
    drift: DriftReport | None = None
    conflicts: tuple[Match, ...] = ()
    judge: dict[str, Any] | None = None
    note: str = ""
    drift_categories: tuple[str, ...] = field(default=())
    reason: str = ""  # one of INSUFFICIENT_REASONS on inconclusive:insufficient

    @property
    def claim_type(self) -> str:
        return self.claim.lane

    def findings(self) -> list[dict[str, Any]]:
        """Drift findings with claim spans in message offsets, source spans in transcript
        offsets."""
        if self.drift is None or self.match is None:
            return []
        return [_absolute(f, self.claim, self.match) for f in self.drift.findings]

    def as_dict(self) -> dict[str, Any]:
        return {
            "claim": self.claim.content,
            "claim_start": self.claim.start,
            "claim_end": self.claim.end,
            "claim_type": self.claim_type,
            "actor": self.claim.actor,
            "outcome": self.outcome,
            "drift_categories": list(self.drift_categories),
            "similarity": None if self.similarity is None else round(self.similarity, 4),
            "match": self.match.as_dict() if self.match else None,
            "drift_spans": self.findings(),
            "non_material": list(self.drift.non_material) if self.drift else [],
            "conflicts": [m.as_dict() for m in self.conflicts],
            "judge": self.judge,
            "note": self.note,
            "reason": self.reason,
        }


def _absolute(finding: Finding, claim: MemoryClaim, match: Match) -> dict[str, Any]:
    cs = finding.claim_span
    ss = finding.source_span
    return {
        "category": finding.category,
        "claim_span": [claim.start + cs[0], claim.start + cs[1]] if cs else None,
        "source_span": [match.compared[0] + ss[0], match.compared[0] + ss[1]] if ss else None,
        "note": finding.note,
    }


def units(transcript: Transcript, turns: Sequence[Turn]) -> list[Unit]:
    out: list[Unit] = []
    for turn in turns:
        spans = sentence_spans(turn.text) or [(0, len(turn.text))]
        seen: set[tuple[int, int]] = set()
        windows = [*spans, *((a[0], b[1]) for a, b in itertools.pairwise(spans))]
        windows.append((spans[0][0], spans[-1][1]))
        for s, e in windows:
            if (s, e) in seen or not turn.text[s:e].strip():
                continue
            seen.add((s, e))
            out.append(Unit(turn, turn.start + s, turn.start + e, turn.text[s:e]))
    return out


def _match(unit: Unit, similarity: float, binder: str = "") -> Match:
    return Match(
        unit.turn.index, unit.turn.speaker, unit.start, unit.end, unit.text, similarity, binder
    )


def _bound(claim: MemoryClaim, turns: Sequence[Turn]) -> Match | None:
    """The binder's match of the content in one of the agent's turns (best score)."""
    best: Match | None = None
    for turn in turns:
        b = bind(claim.content, turn.text)
        if b is None:
            continue
        if best is None or b.score > best.similarity:
            spans = sentence_spans(turn.text) or [(0, len(turn.text))]
            cs = max([s for s, _ in spans if s <= b.start] or [0])
            ce = min([e for _, e in spans if e >= b.end] or [len(turn.text)])
            best = Match(
                turn.index,
                turn.speaker,
                turn.start + b.start,
                turn.start + b.end,
                turn.text[b.start : b.end],
                float(b.score),
                b.match,
                turn.start + cs,
                turn.text[cs:ce],
            )
    return best


class MessageVectors:
    """The embedding function of one message's check: each distinct text (a claim, a
    unit of a turn) is embedded once, however many claims compare with it. The agent's
    1,000 turns of a 2,000-turn transcript hold some 3,000 units, and embedding them is
    nearly all of a check's time (``bench/memory_size.py``): embedded again for every
    claim, a message of three claims took three times as long as one.

    ``known`` are vectors computed before by the same embedding function (a stored
    transcript's unit vectors): they are used as they are, never embedded again.
    ``embedded`` lists the texts this check embedded itself, in order."""

    def __init__(self, embed: EmbedFn, known: Mapping[str, np.ndarray] | None = None) -> None:
        self.embed = embed
        self.vectors: dict[str, np.ndarray] = dict(known or {})
        self.embedded: list[str] = []

    def __call__(self, texts: Sequence[str]) -> np.ndarray:
        missing = [t for t in dict.fromkeys(texts) if t not in self.vectors]
        if missing:
            self.vectors.update(zip(missing, self.embed(missing), strict=True))
            self.embedded.extend(missing)
        return np.stack([self.vectors[t] for t in texts])


class MemoryVerifier:
    """Verifies claims with one judge and one embedding function (both injected)."""

    def __init__(self, *, judge: Judge, embed: EmbedFn, threshold: float = MATCH_THRESHOLD) -> None:
        self.judge = judge
        self.embed = embed
        self.threshold = threshold

    # -- public -----------------------------------------------------------------------
    def verify_message(
        self,
        message: str,
        transcript: Transcript | None,
        agent: str,
        *,
        vectors: MessageVectors | None = None,
    ) -> list[ClaimVerdict]:
        """One verdict per claim of ``message`` (``message_claims``: an undeclared one when
        it has none, and one for each memory-like sentence no marker covers). ``vectors``:
        the message's embedding function, given when it starts with known vectors (a
        stored transcript's units); by default an empty one over ``self.embed``."""
        claims = message_claims(message)
        # one message, one set of vectors: a unit is embedded once, not once per claim
        verifier = MemoryVerifier(
            judge=self.judge,
            embed=vectors if vectors is not None else MessageVectors(self.embed),
            threshold=self.threshold,
        )
        return [verifier.verify_claim(c, transcript, agent) for c in claims]

    def verify_claim(
        self, claim: MemoryClaim, transcript: Transcript | None, agent: str
    ) -> ClaimVerdict:
        if not claim.in_scope:
            return ClaimVerdict(
                claim,
                "inconclusive:insufficient",
                note=f"{claim.lane} claims are out of scope in v1 (no explicit memory marker)",
                reason="out_of_scope",
            )
        if transcript is None or not transcript.turns:
            return ClaimVerdict(
                claim, "inconclusive:insufficient", note="no transcript", reason="no_transcript"
            )
        own = transcript.turns_by(agent)
        if not own:
            return ClaimVerdict(
                claim,
                "inconclusive:insufficient",
                note=f"no turn by {agent!r} in the transcript",
                reason="agent_not_in_transcript",
            )
        verdict = self._decide(claim, transcript, own, agent)
        if verdict.reason == "out_of_scope":
            return verdict  # out of scope whatever turns are missing
        if not transcript.complete and not verdict.outcome.startswith("supported"):
            # Drift found in the turns we have is still drift detected: its categories
            # (and spans, conflicts, the judge's answer) stay with the verdict.
            return ClaimVerdict(
                claim,
                "inconclusive:insufficient",
                similarity=verdict.similarity,
                match=verdict.match,
                drift=verdict.drift,
                conflicts=verdict.conflicts,
                judge=verdict.judge,
                note=f"transcript coverage incomplete (would be {verdict.outcome})",
                drift_categories=verdict.drift_categories,
                reason="coverage_incomplete",
            )
        return verdict

    # -- steps ------------------------------------------------------------------------
    def _scored(self, claim: MemoryClaim, candidates: list[Unit]) -> list[tuple[float, Unit]]:
        if not candidates:
            return []
        vectors = self.embed([claim.content, *(u.text for u in candidates)])
        sims = vectors[1:] @ vectors[0]
        return sorted(
            ((float(s), u) for s, u in zip(sims, candidates, strict=True)),
            key=lambda pair: (-pair[0], pair[1].start),
        )

    def _decide(
        self, claim: MemoryClaim, transcript: Transcript, own: list[Turn], agent: str
    ) -> ClaimVerdict:
        key = speaker_key(agent)
        others = [t for t in transcript.turns if speaker_key(t.speaker) != key]
        bound = _bound(claim, own)
        scored = self._scored(claim, units(transcript, own))
        best_sim, best_unit = scored[0]
        if bound is not None and (bound.binder != "fuzzy" or bound.similarity >= EXACT_FUZZY_FLOOR):
            match = bound
        else:
            match = _match(best_unit, best_sim)
        similarity = max(best_sim, bound.similarity if bound else 0.0)

        def others_best() -> tuple[float, Unit | None]:
            # The other speakers' units are embedded only where their similarity decides
            # something: a "you said" claim, or one the agent's own turns do not match.
            other_scored = self._scored(claim, units(transcript, others))
            return other_scored[0] if other_scored else (0.0, None)

        if claim.actor == "addressee":
            return self._addressee(
                claim, match, similarity, lambda: others_best()[0], others, agent
            )

        own_verbatim = match.binder in ("exact", "normalized")
        other_bound = _bound(claim, others) if claim.actor == "self" and not own_verbatim else None
        said_by_other = other_bound is not None and other_bound.binder in ("exact", "normalized")
        if similarity < self.threshold or said_by_other:
            other_sim, other_unit = others_best()
            if claim.actor == "self" and (said_by_other or other_sim >= self.threshold):
                if said_by_other:
                    other = other_bound
                else:
                    assert other_unit is not None
                    other = _match(other_unit, other_sim)
                assert other is not None
                report = compare(claim.content, other.compared[1])
                shift = Finding(
                    "actor_shift",
                    (0, len(claim.content)),
                    (0, len(other.compared[1])),
                    f"said by {other.speaker}, not by {agent}",
                )
                return ClaimVerdict(
                    claim,
                    "unsupported:drift",
                    max(other_sim, other.similarity),
                    other,
                    _with_finding(report, shift, first=True),
                    drift_categories=("actor_shift",),
                    note=f"{other.speaker} said it, not {agent}",
                )
            drifted = _drifted_statement(claim, [unit for _, unit in scored])
            if drifted is not None:
                # The agent's statement is there, but for the words that drifted: the
                # seed's "transcript exists but differs materially", not "no match".
                found, report = drifted
                return ClaimVerdict(
                    claim,
                    "unsupported:drift",
                    found.similarity,
                    found,
                    report,
                    drift_categories=report.categories,
                    note=(
                        f"{agent}'s turn {found.turn} says it but for the drift "
                        f"(embedding similarity {round(best_sim, 4)})"
                    ),
                )
            return ClaimVerdict(
                claim,
                "unsupported:no_match",
                similarity,
                match,
                note=f"no turn of {agent} reaches similarity {self.threshold}",
            )
        report = compare(claim.content, match.compared[1])
        conflicts = self._conflicts(claim, match, report, scored, best_sim)
        if conflicts:
            return ClaimVerdict(
                claim,
                "inconclusive:conflict",
                similarity,
                match,
                report,
                conflicts,
                note="several statements of the agent match the claim and disagree",
                drift_categories=report.categories,
            )
        if report.categories:
            return ClaimVerdict(
                claim,
                "unsupported:drift",
                similarity,
                match,
                report,
                drift_categories=report.categories,
            )
        if report.near_verbatim or (
            match.binder in ("exact", "normalized", "fuzzy")
            and "synonym_substitution" not in report.non_material
        ):
            if match.context and match.context.strip() != match.quote.strip():
                # Words lifted verbatim from a longer sentence: the sentence may say the
                # opposite ("No, it is not true that the meeting is cancelled").
                result, judged = self._judge(claim, match.context)
                if result.label == "contradicted":
                    return self._judged_contradicted(claim, similarity, match, report, judged)
            return ClaimVerdict(claim, "supported:exact", similarity, match, report)
        if report.equivalent:
            # Only non-material differences (synonyms, tense, fillers), no material drift,
            # similarity above the threshold: semantically equivalent by the rubric.
            return ClaimVerdict(
                claim,
                "supported:paraphrase",
                similarity,
                match,
                report,
                note="only non-material differences: " + ", ".join(report.non_material),
            )
        # The judge reads the matched sentence(s) and the whole turn they belong to.
        turn_text = next(t.text for t in own if t.index == match.turn)
        result, judged = self._judge(claim, match.compared[1], turn_text)
        if result.label == "entailed":
            return ClaimVerdict(
                claim, "supported:paraphrase", similarity, match, report, judge=judged
            )
        if result.label == "contradicted":
            return self._judged_contradicted(claim, similarity, match, report, judged)
        return ClaimVerdict(
            claim,
            "unsupported:no_match",
            similarity,
            match,
            report,
            judge=judged,
            note="the judge did not entail the closest turn",
        )

    def _judge(self, claim: MemoryClaim, *spans: str) -> tuple[JudgeResult, dict[str, Any]]:
        item = JudgeItem(key="memory", claim=claim.content, spans=tuple(dict.fromkeys(spans)))
        result = judge_items(self.judge, [item])[0]
        judged = {
            "model": self.judge.model_id,
            "family": self.judge.family,
            "prompt_version": self.judge.prompt_version,
            "label": result.label,
            "confidence": round(float(result.confidence), 4),
        }
        return result, judged

    @staticmethod
    def _judged_contradicted(
        claim: MemoryClaim,
        similarity: float,
        match: Match,
        report: DriftReport,
        judged: dict[str, Any],
    ) -> ClaimVerdict:
        """Drift the rubric's other rules do not name (a negation, an antonym, another
        object): what was said changed. Classified as scope_shift (docs)."""
        changed = Finding(
            "scope_shift",
            (0, len(claim.content)),
            (0, len(match.compared[1])),
            "the judge found the claim contradicted by what was said",
        )
        report = _with_finding(report, changed)
        return ClaimVerdict(
            claim,
            "unsupported:drift",
            similarity,
            match,
            report,
            judge=judged,
            note="the judge found a contradiction",
            drift_categories=report.categories,
        )

    def _addressee(
        self,
        claim: MemoryClaim,
        match: Match,
        similarity: float,
        other_sim: Callable[[], float],
        others: list[Turn],
        agent: str,
    ) -> ClaimVerdict:
        """A "you said …" claim. The addressee's own words are out of scope (only the
        agent's memory is checked), whatever the agent said: a true quote of the user, a
        quote nobody made, one the agent echoed. Only the agent's own words credited to
        the addressee (the agent said it — its best unit reaches the threshold — and no
        other speaker said it as closely) are drift: ``actor_shift``."""
        other = _bound(claim, others)
        said_by_other = other is not None and other.binder in ("exact", "normalized")
        if similarity < self.threshold or said_by_other or other_sim() >= similarity:
            return ClaimVerdict(
                claim,
                "inconclusive:insufficient",
                note="a claim about the addressee's words is out of scope",
                reason="out_of_scope",
            )
        report = compare(claim.content, match.compared[1])
        shift = Finding(
            "actor_shift",
            None,
            (0, len(match.compared[1])),
            f"{agent} said it, the claim credits the addressee",
        )
        report = _with_finding(report, shift, first=True)
        return ClaimVerdict(
            claim,
            "unsupported:drift",
            similarity,
            match,
            report,
            drift_categories=report.categories,
        )

    def _conflicts(
        self,
        claim: MemoryClaim,
        match: Match,
        report: DriftReport,
        scored: list[tuple[float, Unit]],
        similarity: float,
    ) -> tuple[Match, ...]:
        """The other statements of the agent that match the claim about as well as the
        best match and disagree with it: one of the two supports the claim and the other
        differs from it materially (any drift category), and they differ materially from
        each other (either way round). A statement is a stretch of the agent's own turns
        that overlaps neither the best match nor a statement already looked at: another
        turn, or another sentence of the same turn ("…this week. Sorry, …next Monday.")."""
        floor = max(self.threshold, similarity - CONFLICT_MARGIN)
        best_material = bool(set(report.categories) & CONFLICT_CATEGORIES)
        start, text = match.compared
        taken = [(min(start, match.start), max(start + len(text), match.end))]
        found: list[Match] = []
        for sim, unit in scored:
            if sim < floor:
                break
            if any(unit.start < e and s < unit.end for s, e in taken):
                continue
            taken.append((unit.start, unit.end))
            other = compare(claim.content, unit.text)
            other_material = bool(set(other.categories) & CONFLICT_CATEGORIES)
            if best_material == other_material:
                continue
            # either way round: "this week" → "Friday 5pm" is precision added one way
            # and a changed timeframe the other
            between = {*compare(unit.text, text).categories, *compare(text, unit.text).categories}
            if between & CONFLICT_CATEGORIES:
                found.append(_match(unit, sim))
        return tuple(found)


def _residue(text: str, spans: Sequence[tuple[int, int] | None]) -> list[str]:
    """The canonical words of ``text`` outside ``spans`` (fillers dropped, tense and
    synonyms folded): what is left of a statement once its drifted words are cut out."""
    cut = [s for s in spans if s is not None]
    return [
        wording.canonical(t.text)
        for t in wording.drop_fillers(wording.tokens(text))
        if not any(s < t.end and t.start < e for s, e in cut)
    ]


def _drifted_statement(
    claim: MemoryClaim, own_units: Sequence[Unit]
) -> tuple[Match, DriftReport] | None:
    """The agent's unit that is the claim but for material drift, when MiniLM puts it
    below the threshold: a swapped deliverable is a swapped meaning to an embedding ("I
    will send the final report this week." against "I will send the draft this week.":
    cosine 0.28), yet the seed's own example of scope shift. Among the
    ``DRIFT_CANDIDATES`` units nearest in characters, the first whose drift report has
    material categories and whose words outside the drift spans are the claim's (at
    least ``DRIFT_RESIDUE_MIN_WORDS`` of them, a ``DRIFT_RESIDUE_FLOOR`` ratio) is the
    match; its similarity is the character similarity of claim and unit."""
    if not own_units:
        return None
    texts = [u.text for u in own_units]
    nearest = process.extract(
        claim.content, texts, scorer=fuzz.ratio, processor=str.lower, limit=DRIFT_CANDIDATES
    )
    for _, ratio, index in nearest:
        unit = own_units[index]
        report = compare(claim.content, unit.text)
        if not report.categories:
            continue
        claim_rest = _residue(claim.content, [f.claim_span for f in report.findings])
        unit_rest = _residue(unit.text, [f.source_span for f in report.findings])
        if min(len(claim_rest), len(unit_rest)) < DRIFT_RESIDUE_MIN_WORDS:
            continue
        matcher = difflib.SequenceMatcher(a=claim_rest, b=unit_rest, autojunk=False)
        if matcher.ratio() >= DRIFT_RESIDUE_FLOOR:
            return _match(unit, ratio / 100.0), report
    return None


def _with_finding(report: DriftReport, finding: Finding, *, first: bool = False) -> DriftReport:
    """``report`` with one more finding, after its own (or before them, ``first``)."""
    findings = (finding, *report.findings) if first else (*report.findings, finding)
    return DriftReport(findings, report.non_material, report.near_verbatim, report.equivalent)
