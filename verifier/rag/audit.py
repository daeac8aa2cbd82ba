"""The RAG answer audit: every claim against every chunk, then one verdict (pure core).

Per claim, each chunk's best window (``evidence.best_window``) goes to the judge on its
own; the ``SINGLE_CANDIDATES`` windows covering most of the claim are judged. A claim no
single chunk entails is also judged against a greedy multi-chunk cover (each chunk adds
words the others lack, so none is padded in). A sentence one chunk entails as a whole
stays one claim; otherwise its atomic claims (``decompose``) are judged one by one.

On top of the judge's labels this module adds the RAG-specific analysis the seed asks
for: ``partial`` (the best chunk backs most of the claim's words but not all — the note
names what is missing), named over-claims (``overclaims``), citation errors, and the
preference-foil reading ("prefer X over Y" when a chunk says "X is preferred" and Y is an
alternative the chunks discuss). Two rules keep the answer's verdict from resting on
where a fact sits: a claim stating a number no chunk states (``invented_numbers``, read
from the judge's number blockers) is ``unsupported``, however much else of it a chunk
backs; and a claim citing an id no chunk has is at best ``partial`` (listed in the
answer's ``unknown_citations``). A claim the judge gave no answer on (a coverage gap:
unreachable, failed, malformed) is no finding about the chunks: ``unsupported``, noted
"not judged: …" with why, listed in the answer's ``not_judged``. docs/rag-audit.md has
the rules in full.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from verifier.judges import Judge, JudgeItem, JudgeResult, judge_items
from verifier.judges.signals import Blocker, compare, profile
from verifier.rag.chunks import Chunk, validate_answer
from verifier.rag.claim_audit import ClaimAudit
from verifier.rag.decompose import AnswerClaim, AnswerSentence, decompose
from verifier.rag.entities import substitution
from verifier.rag.evidence import (
    ChunkWindows,
    Window,
    best_window,
    chunk_windows,
    content_words,
    greedy_cover,
)
from verifier.rag.fix import suggested_fix
from verifier.rag.overclaims import find_overclaims
from verifier.text.sentences import sentence_spans

SINGLE_CANDIDATES = 6  # chunks judged per claim, by coverage of the claim's words
# a supported claim: other passages judged too, as well covering as an entailing one, so
# that ``supported_by`` names every chunk that supports it (repeated passages are free)
SUPPORT_EXTRA_JUDGED = 24
PARTIAL_MIN_COVERAGE = 0.5  # best chunk backs at least this share of the claim's words
PARTIAL_MIN_WORDS = 2
CONTRADICTION_MIN_CONFIDENCE = 0.5
SUBSTITUTION_MIN_COVERAGE = 0.6  # the chunk talks about the same thing, names another
SUBSTITUTION_CONFIDENCE = 0.75
FOIL_RE = re.compile(
    r"\s+(?:over|rather than|instead of)\s+(?:the\s+)?([A-Z][\w\-]*(?:\s+[A-Z][\w\-]*)*)"
)
PREFERENCE_RE = re.compile(r"\b(?:prefer\w*|favou?r\w*|choose|chosen|recommend\w*)\b", re.I)
_SPAN_SUFFIX = re.compile(r"\s*\(spans? [\d+]+\)$")

# blockers that say the chunk states a different value for what the claim shares with it
VALUE_CONFLICTS = frozenset({"number_mismatch", "unit_mismatch", "date_mismatch"})
# blockers that say a text does not state one of the claim's numbers ("60 percent")
NUMBER_NOT_STATED = frozenset({"number_unsupported", "number_mismatch", "unit_mismatch"})
VERDICT_RANK = {"supported": 0, "partial": 1, "unsupported": 2, "contradicted": 2}
# A claim the judge gave no answer on (its results are coverage gaps: a transport error,
# a malformed answer, a crash, an omission) is not judged: ``unsupported`` (it has not
# earned ``supported``), its note starting with this, never a finding about the chunks.
NOT_JUDGED = "not judged"
GAP_LABEL = "coverage_gap"


@dataclass
class Assessment:
    """What the judge said about one claim: per chunk, the combination, the foil reading."""

    claim: AnswerClaim
    windows: list[Window] = field(default_factory=list)  # judged, best coverage first
    results: dict[str, JudgeResult] = field(default_factory=dict)  # chunk id -> result
    combo: list[Window] = field(default_factory=list)
    combo_result: JudgeResult | None = None
    foil: str = ""
    foil_results: dict[str, JudgeResult] = field(default_factory=dict)

    def entailing(self) -> list[Window]:
        return [
            w
            for w in self.windows
            if self.results[w.chunk_id].label == "entailed"
            and not [o for o in find_overclaims(self.claim.text, w.quote) if o.kind == "absolute"]
            and substitution(self.claim.text, w.quote) is None
        ]

    def gaps(self) -> list[tuple[str, JudgeResult]]:
        """(chunk id, or "combo", "foil <id>") of each judge call on this claim that gave
        no answer (a coverage gap), in the order the chunks were judged."""
        out = [(w.chunk_id, self.results[w.chunk_id]) for w in self.windows]
        if self.combo_result is not None:
            out.append(("combo", self.combo_result))
        out += [(f"foil {cid}", r) for cid, r in self.foil_results.items()]
        return [(where, r) for where, r in out if r.label == GAP_LABEL]

    def contradicting(self) -> list[tuple[Window, float, str]]:
        """(window, confidence, note) of each chunk that disagrees with the claim."""
        out = []
        for w in self.windows:
            result = self.results[w.chunk_id]
            swapped = substitution(self.claim.text, w.quote)
            if result.label == "contradicted" and result.confidence >= CONTRADICTION_MIN_CONFIDENCE:
                out.append((w, result.confidence, clean_note(result.note)))
            elif swapped and w.coverage >= SUBSTITUTION_MIN_COVERAGE:
                note = f"entity substitution: claim says '{swapped[0]}', chunk says '{swapped[1]}'"
                out.append((w, SUBSTITUTION_CONFIDENCE, note))
        return out


@dataclass(frozen=True)
class AuditResult:
    answer: str
    chunks: tuple[Chunk, ...]
    sentences: tuple[AnswerSentence, ...]
    claims: tuple[ClaimAudit, ...]
    verdict: str  # faithful | partial | unfaithful
    suggested_fix: str | None
    judge_model: str
    judge_family: str
    prompt_version: int

    @property
    def unsupported(self) -> list[str]:
        return [c.claim.span for c in self.claims if c.verdict != "supported"]

    @property
    def unknown_citations(self) -> list[str]:
        """The ids the answer cites that are not among the chunks, in reading order."""
        return list(dict.fromkeys(cid for c in self.claims for cid in c.unknown_cited))

    @property
    def faithful(self) -> bool:
        return self.verdict == "faithful"

    @property
    def not_judged(self) -> list[str]:
        """The spans of the claims the judge gave no answer on (``unsupported``, unread)."""
        return [c.claim.span for c in self.claims if c.label == GAP_LABEL]

    @property
    def note(self) -> str:
        """Says how many claims the judge gave no answer on ("" when none)."""
        unread = len(self.not_judged)
        if not unread:
            return ""
        return (
            f"the judge gave no answer for {unread} of {len(self.claims)} claims: they are "
            "unsupported because they were not judged, not because the chunks fail to back "
            "them (each claim's note says why)"
        )

    def as_dict(self) -> dict[str, object]:
        out: dict[str, object] = {
            "claims": [c.as_dict() for c in self.claims],
            "unsupported": self.unsupported,
            "unknown_citations": self.unknown_citations,
            "verdict": self.verdict,
        }
        if self.suggested_fix:
            out["suggested_fix"] = self.suggested_fix
        if self.not_judged:
            out["not_judged"] = self.not_judged
            out["note"] = self.note
        return out


def claim_not_judged(claim: Mapping[str, object]) -> bool:
    """Whether a stored claim of an audit (``ClaimAudit.as_dict``) was not judged."""
    return str(claim.get("note") or "").startswith(f"{NOT_JUDGED}:")


def clean_note(note: str) -> str:
    return _SPAN_SUFFIX.sub("", note or "").strip()


def _foil(claim: AnswerClaim, chunks: Sequence[Chunk]) -> tuple[str, str]:
    """(claim text without its preference foil, the foil) when the foil is an
    alternative some chunk discusses; else ("", "")."""
    match = FOIL_RE.search(claim.text)
    if not match or not PREFERENCE_RE.search(claim.text[: match.start()]):
        return "", ""
    foil = match.group(1)
    pattern = re.compile(rf"\b{re.escape(foil)}\b", re.I)
    if not any(pattern.search(c.text) for c in chunks):
        return "", ""
    return claim.text[: match.start()] + claim.text[match.end() :], match.group(0).strip()


def assess(
    claims: Sequence[AnswerClaim],
    chunks: Sequence[Chunk],
    judge: Judge,
    *,
    combos: Sequence[bool],
    batch_size: int | None = None,
    windows_of: Mapping[str, ChunkWindows] | None = None,
) -> list[Assessment]:
    """Judge each claim against its best chunks; then, where no chunk entails it, the
    multi-chunk cover and the foil reading (if ``combos`` allows it for that claim).
    ``windows_of``: each chunk's ``chunk_windows`` by id, when already built."""
    if windows_of is None:
        windows_of = {chunk.id: chunk_windows(chunk.text) for chunk in chunks}
    out = [Assessment(claim) for claim in claims]
    items: list[JudgeItem] = []
    ranked_of: list[list[Window]] = []
    for ci, a in enumerate(out):
        windows = [best_window(a.claim.text, chunk, windows_of[chunk.id]) for chunk in chunks]
        cited = set(a.claim.cited)
        ranked = sorted(
            (w for w in windows if w.coverage > 0),
            key=lambda w: (-w.coverage, w.chunk_id not in cited, len(w.quote)),
        )
        ranked_of.append(ranked)
        a.windows = ranked[:SINGLE_CANDIDATES]
        items += [JudgeItem(f"{ci}|{w.chunk_id}", a.claim.text, (w.quote,)) for w in a.windows]
    for result in judge_items(judge, items, batch_size=batch_size) if items else []:
        index, chunk_id = result.key.split("|", 1)
        out[int(index)].results[chunk_id] = result
    _judge_other_supporters(out, ranked_of, judge, batch_size)

    second: list[JudgeItem] = []
    for ci, a in enumerate(out):
        if not combos[ci] or a.entailing():
            continue
        a.combo = greedy_cover(a.claim.text, a.windows)
        if len(a.combo) > 1:
            second.append(JudgeItem(f"{ci}|combo", a.claim.text, tuple(w.quote for w in a.combo)))
        stripped, a.foil = _foil(a.claim, chunks)
        if stripped:
            by_id = {c.id: c for c in chunks}
            for w in a.windows[:3]:
                window = best_window(stripped, by_id[w.chunk_id], windows_of[w.chunk_id])
                second.append(JudgeItem(f"{ci}|foil|{w.chunk_id}", stripped, (window.quote,)))
    for result in judge_items(judge, second, batch_size=batch_size) if second else []:
        index, rest = result.key.split("|", 1)
        a = out[int(index)]
        if rest == "combo":
            a.combo_result = result
        else:
            a.foil_results[rest.split("|", 1)[1]] = result
    return out


def _judge_other_supporters(
    out: Sequence[Assessment],
    ranked_of: Sequence[Sequence[Window]],
    judge: Judge,
    batch_size: int | None,
) -> None:
    """Seed 003: ``supported_by`` lists *every* chunk id that supports a claim. A claim a
    judged chunk entails (and none contradicts: it is ``contradicted`` whatever else the
    chunks say) is also judged against the chunks past ``SINGLE_CANDIDATES``
    whose best window covers its words as well as the least-covering entailing one; a
    window whose words were judged
    already (the same passage in several chunks) takes that answer without a call, and
    at most ``SUPPORT_EXTRA_JUDGED`` new passages are judged per claim."""
    items: list[JudgeItem] = []
    same_as: dict[tuple[int, str], str] = {}  # (claim, chunk) -> the chunk judged alike
    for ci, a in enumerate(out):
        entailing = a.entailing()
        if not entailing or a.contradicting():
            continue  # not supported, or contradicted whatever else the chunks say
        floor = min(w.coverage for w in entailing)
        rest = [w for w in ranked_of[ci][SINGLE_CANDIDATES:] if w.coverage >= floor]
        judged = {w.quote: w.chunk_id for w in a.windows}
        added = 0
        for w in rest:
            if w.quote in judged:
                same_as[(ci, w.chunk_id)] = judged[w.quote]
            elif added < SUPPORT_EXTRA_JUDGED:
                judged[w.quote] = w.chunk_id
                items.append(JudgeItem(f"{ci}|{w.chunk_id}", a.claim.text, (w.quote,)))
                added += 1
            else:
                continue
            a.windows.append(w)
    for result in judge_items(judge, items, batch_size=batch_size) if items else []:
        index, chunk_id = result.key.split("|", 1)
        out[int(index)].results[chunk_id] = result
    for (ci, chunk_id), alike in same_as.items():
        out[ci].results[chunk_id] = replace(out[ci].results[alike], key=f"{ci}|{chunk_id}")


def _citation_note(claim: AnswerClaim, supported_by: Sequence[str], known: set[str]) -> str:
    notes = []
    unknown = [c for c in claim.cited if c not in known]
    if unknown:
        notes.append(f"cites {', '.join(unknown)}, which is not among the chunks")
    cited = [c for c in claim.cited if c in known]
    if supported_by and cited and not set(cited) & set(supported_by):
        notes.append(
            f"citation error: cites {', '.join(cited)}, but only "
            f"{', '.join(supported_by)} supports it"
        )
    elif supported_by and cited:
        extra = [c for c in cited if c not in supported_by]
        if extra:
            notes.append(f"citation error: {', '.join(extra)} is cited but does not support it")
    elif cited and not supported_by:
        notes.append(f"the cited {', '.join(cited)} does not back it")
    return "; ".join(notes)


def _join(*parts: str) -> str:
    return "; ".join(p for p in parts if p)


def decide(
    a: Assessment, chunks: Mapping[str, Chunk], order: dict[str, int], chunk_words: set[str]
) -> ClaimAudit:
    """One claim's verdict, supporting chunks, note and evidence from its assessment.

    A claim that cites an id no chunk has is at best ``partial``: whatever chunk backs its
    facts, the source it names for them does not exist (the note says which chunk does
    back it, ``unknown_cited`` lists the missing ids)."""
    audit = _decide(a, chunks, order, chunk_words)
    unknown = tuple(c for c in a.claim.cited if c not in chunks)
    if _unjudged(a, audit):
        return _not_judged(a, unknown)
    if not unknown:
        return audit
    audit = replace(audit, unknown_cited=unknown)
    if audit.verdict != "supported":
        return audit
    backed = f"backed by {', '.join(audit.supported_by)}, but its citation is not"
    return replace(audit, verdict="partial", note=_join(backed, audit.note))


def _unjudged(a: Assessment, audit: ClaimAudit) -> bool:
    """Whether ``audit`` rests on judge calls that gave no answer: the claim is not
    ``supported`` (no answer entailed it) and some call on it was a coverage gap, unless
    it is ``contradicted`` by a chunk the judge did answer on (that is a finding)."""
    if audit.verdict == "supported" or not a.gaps():
        return False
    if audit.verdict == "contradicted" and audit.evidence:
        result = a.results.get(audit.evidence[0].chunk_id)
        return result is None or result.label == GAP_LABEL
    return True


def _not_judged(a: Assessment, unknown: Sequence[str]) -> ClaimAudit:
    """The claim the judge gave no answer on: ``unsupported``, its note saying so and why
    (the first gap's note: "transport_error: http 503"); no chunk is said to back it or
    not. The closest passage stays its evidence (the stored claim binds it, so it can be
    judged again), its label is the gap's."""
    gaps = a.gaps()
    answered = len(gaps) < len(a.windows) + (a.combo_result is not None) + len(a.foil_results)
    where = [
        "the chunks together" if w == "combo" else w for w, _ in gaps if not w.startswith("foil ")
    ]
    on = f" on {', '.join(where)}" if answered and where else ""
    note = _join(
        f"{NOT_JUDGED}: the judge gave no answer{on} ({clean_note(gaps[0][1].note)})",
        f"cites {', '.join(unknown)}, which is not among the chunks" if unknown else "",
    )
    evidence = tuple(w for w in a.windows[:1])
    return ClaimAudit(
        a.claim, "unsupported", (), note, evidence, GAP_LABEL, 0.0, unknown_cited=tuple(unknown)
    )


def _decide(
    a: Assessment, chunks: Mapping[str, Chunk], order: dict[str, int], chunk_words: set[str]
) -> ClaimAudit:
    known = set(chunks)
    claim = a.claim
    entailing = sorted(a.entailing(), key=lambda w: order[w.chunk_id])
    contradicting = a.contradicting()
    if contradicting:
        w, confidence, why = contradicting[0]
        ids = tuple(x.chunk_id for x in entailing)
        conflict = f"{', '.join(ids)} supports it, but " if ids else ""
        note = f"{conflict}contradicted by {w.chunk_id}: {why}"
        citation = _citation_note(claim, ids, known) if ids else ""
        return ClaimAudit(
            claim,
            "contradicted",
            ids,
            _join(note, citation),
            (w, *entailing),
            "contradicted",
            confidence,
        )
    support: list[Window] = entailing
    confidence, extra = 0.0, ""
    if entailing:
        confidence = max(a.results[w.chunk_id].confidence for w in entailing)
    elif a.combo_result is not None and a.combo_result.label == "entailed":
        support = sorted(a.combo, key=lambda w: order[w.chunk_id])
        confidence, extra = a.combo_result.confidence, "supported only by the chunks together"
    else:
        foil_ok = [cid for cid, r in a.foil_results.items() if r.label == "entailed"]
        if foil_ok:
            support = [w for w in a.windows if w.chunk_id in foil_ok]
            confidence = max(a.foil_results[cid].confidence for cid in foil_ok)
            extra = f"'{a.foil}' read as the alternative the chunks discuss"
    if support:
        ids = tuple(w.chunk_id for w in support)
        return ClaimAudit(
            claim,
            "supported",
            ids,
            _join(extra, _citation_note(claim, ids, known)),
            tuple(support),
            "entailed",
            confidence,
        )
    return _not_supported(a, chunks, chunk_words)


def _unstated_numbers(blockers: Sequence[Blocker]) -> list[str]:
    """The claim's numbers that a comparison's blockers say the text does not state
    ("number_unsupported: 60 percent", "unit_mismatch: 2 years vs 2 metre"), as the
    blockers write them."""
    out = []
    for b in blockers:
        if b.kind in NUMBER_NOT_STATED and ":" in b.note:
            out.append(b.note.split(":", 1)[1].split(" vs ", 1)[0].strip())
    return out


def invented_numbers(claim_text: str, texts: Sequence[str]) -> list[str]:
    """The claim's numbers that no sentence of ``texts`` states (in the judge's reading
    of a number: the same value, within an approximation, in another unit, or worked out
    from the sentence's own numbers)."""
    numbers = _unstated_numbers(compare(claim_text, "").blockers)
    for text in texts:
        for start, end in sentence_spans(text) or [(0, len(text))]:
            if not numbers:
                return numbers
            sentence = text[start:end]
            if not profile(sentence).numbers:
                continue
            unstated = set(_unstated_numbers(compare(claim_text, sentence).blockers))
            numbers = [n for n in numbers if n in unstated]
    return numbers


def _invented_note(numbers: Sequence[str]) -> str:
    if len(numbers) == 1:
        return f"invented number: {numbers[0]} — no chunk states it"
    return f"invented numbers: {', '.join(numbers)} — no chunk states them"


def _not_supported(a: Assessment, chunks: Mapping[str, Chunk], chunk_words: set[str]) -> ClaimAudit:
    claim = a.claim
    known = set(chunks)
    best = a.windows[0] if a.windows else None
    citation = _citation_note(claim, (), known)
    # A number no chunk states is an invented fact, however much else of the claim the
    # chunks back: the claim is unsupported, as the same fact would be as a sentence of
    # its own, and the note names the number. (The chunks nearest the claim first: the
    # search stops once every number is found.)
    nearest = list(dict.fromkeys(w.chunk_id for w in a.windows))
    ordered = [*nearest, *(cid for cid in chunks if cid not in nearest)]
    invented = invented_numbers(claim.text, [chunks[cid].text for cid in ordered])
    if best is None:
        note = _join(
            "no chunk backs it: no chunk shares its content words",
            _invented_note(invented) if invented else "",
            citation,
        )
        return ClaimAudit(claim, "unsupported", (), note, (), "abstained", 0.0)
    comparison = best.comparison
    matched = comparison.content_words - len(comparison.uncovered)
    overclaims = tuple(find_overclaims(claim.text, best.quote))
    over = "; ".join(
        o.describe("no chunk" if o.word and o.word not in chunk_words else best.chunk_id)
        for o in overclaims
    )
    missing = ", ".join(f"'{w}'" for w in comparison.uncovered)
    result = a.results.get(best.chunk_id)
    judge_note = clean_note(result.note) if result else ""
    confidence = result.confidence if result else 0.0
    conflict = next((b for b in comparison.blockers if b.kind in VALUE_CONFLICTS), None)
    if conflict is not None and matched >= PARTIAL_MIN_WORDS:
        # the part the chunk does back states another number, unit or date: whatever
        # else the claim adds, what it shares with the chunk is contradicted
        note = _join(f"contradicted by {best.chunk_id}: {conflict.note}", citation)
        return ClaimAudit(
            claim,
            "contradicted",
            (),
            note,
            (best,),
            "contradicted",
            confidence,
            overclaims,
            comparison.uncovered,
        )
    numbers = _invented_note(invented) if invented else ""
    if comparison.coverage >= PARTIAL_MIN_COVERAGE and matched >= PARTIAL_MIN_WORDS:
        # the cited chunk that partly backs it is named as such, never also as a chunk
        # that "does not back it"
        others = tuple(c for c in claim.cited if c != best.chunk_id)
        note = _join(
            f"partly backed by {best.chunk_id}",
            numbers,
            f"not backed: {missing}" if missing else "",
            over,
            "" if over or missing or numbers else f"judge: {judge_note}",
            _citation_note(replace(claim, cited=others), (), known),
        )
        return ClaimAudit(
            claim,
            "unsupported" if invented else "partial",
            (),
            note,
            (best,),
            "abstained",
            confidence,
            overclaims,
            comparison.uncovered,
        )
    closest = (
        f"closest is {best.chunk_id}, which backs {matched} of its "
        f"{comparison.content_words} content words"
    )
    note = _join(f"no chunk backs it ({closest})", numbers, over, citation)
    return ClaimAudit(
        claim,
        "unsupported",
        (),
        note,
        (),
        "abstained",
        confidence,
        overclaims,
        comparison.uncovered,
    )


def overall_verdict(verdicts: Sequence[str]) -> str:
    if any(v in ("unsupported", "contradicted") for v in verdicts):
        return "unfaithful"
    if any(v == "partial" for v in verdicts):
        return "partial"
    return "faithful"


def audit_answer(
    answer: str, chunks: Sequence[Chunk], *, judge: Judge, batch_size: int | None = None
) -> AuditResult:
    """Audit ``answer`` against ``chunks`` (parsed with ``parse_chunks``)."""
    validate_answer(answer)
    sentences = [
        s for s in decompose(answer) if any(content_words(t.text) for t in (s.whole, *s.atoms))
    ]
    # every claim reads every chunk's windows: profiled once, kept for this audit only
    windows_of = {chunk.id: chunk_windows(chunk.text) for chunk in chunks}
    wholes = assess(
        [s.whole for s in sentences],
        chunks,
        judge,
        combos=[not s.splits for s in sentences],
        batch_size=batch_size,
        windows_of=windows_of,
    )
    pending = [
        atom
        for s, a in zip(sentences, wholes, strict=True)
        if s.splits and not a.entailing()
        for atom in s.atoms
        if content_words(atom.text)
    ]
    atoms = assess(
        pending,
        chunks,
        judge,
        combos=[True] * len(pending),
        batch_size=batch_size,
        windows_of=windows_of,
    )
    by_sentence: dict[int, list[Assessment]] = {}
    for a in atoms:
        by_sentence.setdefault(a.claim.sentence, []).append(a)
    by_id = {c.id: c for c in chunks}
    order = {c.id: i for i, c in enumerate(chunks)}
    chunk_words = {w.lower() for c in chunks for w in re.findall(r"[A-Za-z]+", c.text)}
    audits: list[ClaimAudit] = []
    for s, a in zip(sentences, wholes, strict=True):
        for item in by_sentence.get(s.index, [a]):
            audits.append(decide(item, by_id, order, chunk_words))
    verdict = overall_verdict([c.verdict for c in audits])
    # no claim judged: there is nothing the chunks were found to back or not to rewrite to
    unread = all(c.label == GAP_LABEL for c in audits)
    fix = None if verdict == "faithful" or unread else suggested_fix(audits, chunks)
    return AuditResult(
        answer=answer,
        chunks=tuple(chunks),
        sentences=tuple(sentences),
        claims=tuple(audits),
        verdict=verdict,
        suggested_fix=fix,
        judge_model=str(judge.model_id),
        judge_family=str(judge.family),
        prompt_version=int(judge.prompt_version),
    )
