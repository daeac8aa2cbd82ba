"""Decompose an answer into atomic claims with their citation markers (pure Python).

Citation markers (``[c1]``, ``[c1, c2]``, ``[c1][c2]``) are found first and blanked out
(same length, so offsets never move); sentences are cut on the blanked text; a marker
that sits between sentences ("... RAM. [c1] IVF ...") belongs to the sentence before it.

Each sentence is one candidate claim and may also be split at conjunctions into atomic
claims: at ``;`` and at ``and`` / ``but`` / ``while`` / ``whereas`` / ``yet`` when what
follows is a predicate sharing the subject ("... outperforms IVF and is the only index")
or a clause of its own ("..., but it is RAM-heavy"). Conjunctions inside a subordinate
clause ("when memory is tight or the corpus exceeds RAM and ...") never split. A
predicate atom is judged with the subject prefixed ("HNSW is the only index ...") while
its ``span`` stays verbatim answer text, trimmed of markers and end punctuation.

A sentence that asserts nothing — a question ("Would you like to know more?"), a
greeting, an offer or a closing ("Let me know if ...", ``is_non_assertion``) — is not a
claim and is left out, unless it carries a citation marker (then the answer presents it
as backed, and it is audited like any other sentence).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from verifier.judges.lexicon import NUMBER_WORDS as LEXICON_NUMBER_WORDS
from verifier.text.sentences import sentence_spans
from verifier.text.words import CLAIM_TOKEN

_ID = r"[A-Za-z0-9][A-Za-z0-9_.:#/\-]{0,99}"
MARKER_RE = re.compile(rf"\[\s*({_ID}(?:\s*[,;]\s*{_ID})*)\s*\]")
_CONJUNCTION_RE = re.compile(
    r"\s*;\s*|,?\s+\b(?:and|but|while|whereas|yet)\b\s+|,\s+(?:and\s+)?(?:so|then)\s+"
)
_BULLET_RE = re.compile(r"^(?:[-*\u2022]|\d{1,3}[.)])\s+")
_TRAILING = " \t\r\n.!?;:,"

AUXILIARIES = frozenset(
    [
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "has",
        "have",
        "had",
        "can",
        "could",
        "will",
        "would",
        "may",
        "might",
        "must",
        "shall",
        "should",
        "does",
        "do",
        "did",
        "remains",
        "remain",
        "became",
        "becomes",
        "seems",
        "seem",
        "appears",
        "appear",
    ]
)
SUBORDINATORS = frozenset(
    [
        "when",
        "if",
        "unless",
        "because",
        "although",
        "though",
        "since",
        "whether",
        "where",
        "whenever",
        "wherever",
        "once",
        "until",
        "between",
        "both",
        "either",
        "neither",
    ]
)
CLAUSE_STARTERS = frozenset(
    [
        "it",
        "they",
        "he",
        "she",
        "we",
        "i",
        "you",
        "this",
        "these",
        "those",
        "there",
        "the",
        "a",
        "an",
        "its",
        "their",
        "his",
        "her",
        "our",
    ]
)
ADVERBS = frozenset(
    [
        "always",
        "never",
        "also",
        "often",
        "usually",
        "sometimes",
        "still",
        "only",
        "just",
        "already",
        "generally",
        "typically",
        "rarely",
        "mostly",
        "largely",
        "mainly",
        "now",
        "then",
        "currently",
        "reportedly",
    ]
)
# Words ending in -s/-ed that are rarely verbs in an answer's predicate position.
NOT_VERBS = frozenset(
    [
        "its",
        "this",
        "has",
        "was",
        "is",
        "does",
        "less",
        "unless",
        "across",
        "bias",
        "news",
        "series",
    ]
)
MIN_ATOM_WORDS = 2
# Words after which the next word is a noun, not a verb: determiners, possessives,
# prepositions and numbers ("for twenty-six years", "her sons", "of the results").
NOUN_LEADERS = frozenset(
    [
        "the",
        "a",
        "an",
        "this",
        "these",
        "those",
        "its",
        "their",
        "his",
        "her",
        "our",
        "my",
        "your",
        "every",
        "some",
        "many",
        "several",
        "few",
        "no",
        "any",
        "other",
        "another",
        "for",
        "of",
        "in",
        "on",
        "at",
        "by",
        "with",
        "from",
        "to",
        "into",
        "over",
        "under",
        "about",
        "after",
        "before",
        "during",
        "through",
    ]
)
NUMBER_WORDS = frozenset(LEXICON_NUMBER_WORDS) | frozenset(
    ["hundreds", "thousand", "thousands", "million", "millions", "billion", "billions", "dozens"]
)
# A clause's subject when no verb of it is recognised ("She kept the light ...": "kept"
# is an irregular past the suffix rules miss).
PERSONAL_PRONOUNS = frozenset(["i", "you", "he", "she", "it", "we", "they"])


# Sentences that frame an answer rather than state anything about the world ("Here's a
# concise summary of the passage:", "I hope this helps!", "Hello!", "Let me know if you
# need more.", "I can tell you more about its history."). They are not claims: they are
# never audited, so they never reach the review queue and never make an answer unfaithful.
_FRAMING_RE = re.compile(
    r"""^(?:
        (?:here(?:'s|’s|\s+is|\s+are)|below\s+is|below\s+are|the\s+following\s+is)\b
            .{0,80}\b(?:summary|overview|answer|breakdown|list|explanation|rundown|recap|
            passage|points?|details|response|version|key\s+\w+)\b[^.!?]{0,40}
        | (?:in\s+summary|to\s+summari[sz]e|in\s+short|in\s+conclusion|overall)\s*[:,]?\s*$
        | (?:sure|certainly|of\s+course|absolutely|great\s+question|good\s+question)\b[^.!?]{0,40}
        | (?:i\s+)?hope\s+(?:this|that|it)\s+helps\b.*
        | (?:let\s+me\s+know|feel\s+free\s+to|(?:do\s+not|don't|don’t)\s+hesitate\s+to)\b.*
        | (?:as\s+an\s+ai)\b.*
        | (?:hi|hello|hey|greetings|good\s+(?:morning|afternoon|evening|day))
            (?:\s+(?:there|everyone|all))?
        | (?:thanks|thank\s+you)(?:\s+(?:so|very)\s+much)?(?:\s+for\s+[^.!?]{0,50})?
        | (?:i|we)(?:'d|’d|\s+would)\s+be\s+(?:happy|glad|delighted)\s+to\b.*
        | (?:happy|glad)\s+to\s+help\b.*
        | (?:if\s+you(?:'d|’d|\s+would)\s+like[^,.!?]{0,40},\s*)?
            (?:i|we)\s+(?:can|could)\s+(?:also\s+)?(?:tell\s+you|explain|share|elaborate|
            go\s+into|say\s+more|help\s+(?:you|with))\b.*
        | if\s+you\s+have\s+(?:any\s+)?(?:other\s+|more\s+|further\s+)?questions?\b.*
    )[.!?:]*$""",
    re.IGNORECASE | re.VERBOSE,
)


def is_answer_framing(text: str) -> bool:
    """Whether a sentence only frames the answer ("Here's a concise summary of the
    passage", a greeting, an offer to say more) and states nothing a source could
    support or contradict."""
    return bool(_FRAMING_RE.match(" ".join(text.split())))


def is_question(text: str) -> bool:
    """Whether a sentence is a question ("Would you like to know more?"): it asks, it
    asserts nothing a chunk could back."""
    return text.rstrip().rstrip("\"'”’)]").endswith("?")


def is_non_assertion(text: str) -> bool:
    """A question, or a sentence that only frames the answer (``is_answer_framing``)."""
    return is_question(text) or is_answer_framing(text)


@dataclass(frozen=True)
class Marker:
    start: int
    end: int
    ids: tuple[str, ...]


@dataclass(frozen=True)
class AnswerClaim:
    """One claim: ``span`` is ``answer[start:end]``; ``text`` is what the judge reads."""

    span: str
    start: int
    end: int
    text: str
    cited: tuple[str, ...]
    sentence: int


@dataclass(frozen=True)
class AnswerSentence:
    index: int
    whole: AnswerClaim
    atoms: tuple[AnswerClaim, ...]  # ``(whole,)`` when the sentence does not split

    @property
    def splits(self) -> bool:
        return len(self.atoms) > 1


def find_markers(answer: str) -> list[Marker]:
    out = []
    for m in MARKER_RE.finditer(answer):
        ids = tuple(dict.fromkeys(p.strip() for p in re.split(r"[,;]", m.group(1)) if p.strip()))
        out.append(Marker(m.start(), m.end(), ids))
    return out


def _blank(answer: str, markers: list[Marker]) -> str:
    chars = list(answer)
    for marker in markers:
        chars[marker.start : marker.end] = " " * (marker.end - marker.start)
    return "".join(chars)


def _trim(masked: str, start: int, end: int) -> tuple[int, int]:
    segment = masked[start:end]
    bullet = _BULLET_RE.match(segment.lstrip())
    lead = len(segment) - len(segment.lstrip()) + (bullet.end() if bullet else 0)
    body = masked[start + lead : end].rstrip(_TRAILING)
    return start + lead, start + lead + len(body)


def _words(text: str) -> list[re.Match[str]]:
    return list(CLAIM_TOKEN.finditer(text))


def _verbish(word: str) -> bool:
    w = word.lower()
    if w in AUXILIARIES:
        return True
    return (
        w.isalpha()
        and word[:1].islower()
        and len(w) > 3
        and w not in NOT_VERBS
        and (w.endswith(("es", "ed")) or (w.endswith("s") and not w.endswith("ss")))
    )


def _number(word: str) -> bool:
    """A figure ("26", "1,200") or a number word ("twenty-six", "hundred")."""
    w = word.lower()
    return w[:1].isdigit() or all(part in NUMBER_WORDS for part in w.split("-"))


def _after_noun_leader(words: list[re.Match[str]], i: int) -> bool:
    """Whether ``words[i]`` follows a determiner, a preposition or a number: a noun
    ("for twenty-six years", "her sons"), whatever its suffix."""
    before = words[i - 1].group()
    return before.lower() in NOUN_LEADERS or _number(before)


def _subject(text: str) -> str:
    """The words before the first verb of a clause ("HNSW" in "HNSW always outperforms");
    when no verb is recognised, a leading personal pronoun ("She kept the light …")."""
    words = _words(text)
    for i, m in enumerate(words[1:], start=1):
        if words[i].group().lower() in ADVERBS:
            continue
        if _verbish(m.group()) and not _after_noun_leader(words, i):
            kept = [w for w in words[:i] if w.group().lower() not in ADVERBS]
            return text[kept[0].start() : kept[-1].end()] if kept else ""
    if words and words[0].group().lower() in PERSONAL_PRONOUNS:
        return words[0].group()
    return ""


def _right_kind(rest: str) -> str | None:
    """'predicate' (shares the subject), 'clause' (has its own), or None (no split)."""
    words = [m.group() for m in _words(rest)]
    if len(words) < MIN_ATOM_WORDS:
        return None
    first = words[0].lower()
    if first in ADVERBS and len(words) > 2:
        first, words = words[1].lower(), words[1:]
    if first in AUXILIARIES or (_verbish(words[0]) and words[1].lower() not in AUXILIARIES):
        return "predicate"
    starts_clause = first in CLAUSE_STARTERS or words[0][:1].isupper()
    if starts_clause and any(_verbish(w) for w in words[1:6]):
        return "clause"
    return None


def _joins_a_name(text: str, left: int, right: int) -> bool:
    before = _words(text[:left])
    after = _words(text[right:])
    return bool(
        before
        and after
        and before[-1].group()[:1].isupper()
        and after[0].group()[:1].isupper()
        and "," not in text[left:right]
        and len(before) > 1
        and before[-2].group()[:1].isupper()
    )


def _split(masked: str, start: int, end: int) -> list[tuple[int, int, str]]:
    """Atom ranges ``(start, end, kind)`` of one sentence; kind 'first'/'predicate'/'clause'."""
    text = masked[start:end]
    cuts: list[tuple[int, int, str]] = []
    for m in _CONJUNCTION_RE.finditer(text):
        before = {w.group().lower() for w in _words(text[: m.start()])}
        if before & SUBORDINATORS:
            break
        if _joins_a_name(text, m.start(), m.end()):
            continue  # "European Coal and Steel Community", "Johnson and Johnson"
        kind = "clause" if ";" in m.group() else _right_kind(text[m.end() :])
        left_words = _words(text[cuts[-1][1] if cuts else 0 : m.start()])
        if kind is None or len(left_words) < MIN_ATOM_WORDS:
            continue
        cuts.append((m.start(), m.end(), kind))
    atoms: list[tuple[int, int, str]] = []
    prev, prev_kind = 0, "first"
    for cut_start, cut_end, kind in cuts:
        atoms.append((start + prev, start + cut_start, prev_kind))
        prev, prev_kind = cut_end, kind
    atoms.append((start + prev, end, prev_kind))
    return atoms


def _claim_text(masked: str, start: int, end: int, prefix: str = "") -> str:
    body = " ".join(masked[start:end].split())
    return f"{prefix} {body}".strip() if prefix else body


def _markers_in(markers: list[Marker], start: int, end: int) -> tuple[str, ...]:
    ids: dict[str, None] = {}
    for marker in markers:
        if start <= marker.start < end:
            ids.update(dict.fromkeys(marker.ids))
    return tuple(ids)


def decompose(answer: str) -> list[AnswerSentence]:
    """Sentences of ``answer`` with their candidate atomic claims, in reading order."""
    markers = find_markers(answer)
    masked = _blank(answer, markers)
    spans = sentence_spans(masked)
    # A sentence owns the markers from its start up to the next sentence's start.
    bounds = [s for s, _ in spans[1:]] + [len(answer)] if spans else []
    sentences: list[AnswerSentence] = []
    for (s_start, s_end), owned_end in zip(spans, bounds, strict=True):
        start, end = _trim(masked, s_start, s_end)
        if end <= start or not _words(masked[start:end]):
            continue
        if is_non_assertion(masked[start:s_end]) and not _markers_in(markers, s_start, owned_end):
            continue
        colon = masked.find(":", start, end)
        if colon > start and is_answer_framing(masked[start : colon + 1]):
            # "Here's a summary of the passage: HNSW is fast" — the claim is after the colon.
            start = colon + 1
            while start < end and masked[start].isspace():
                start += 1
            if not _words(masked[start:end]):
                continue
        index = len(sentences)
        own_from = s_start if sentences else 0
        sentence_cites = _markers_in(markers, own_from, owned_end)
        whole = AnswerClaim(
            answer[start:end], start, end, _claim_text(masked, start, end), sentence_cites, index
        )
        ranges = _split(masked, start, end)
        if len(ranges) == 1:
            sentences.append(AnswerSentence(index, whole, (whole,)))
            continue
        subject = _subject(masked[ranges[0][0] : ranges[0][1]])
        atoms: list[AnswerClaim] = []
        carry: tuple[str, ...] = ()
        # Backwards: an uncited atom is covered by the next marker ("A and B [c1]").
        for i in range(len(ranges) - 1, -1, -1):
            a_start, a_end = _trim(masked, ranges[i][0], ranges[i][1])
            nxt = ranges[i + 1][0] if i + 1 < len(ranges) else owned_end
            carry = _markers_in(markers, a_start, nxt) or carry
            prefix = subject if ranges[i][2] == "predicate" else ""
            text = _claim_text(masked, a_start, a_end, prefix)
            atoms.insert(0, AnswerClaim(answer[a_start:a_end], a_start, a_end, text, carry, index))
        sentences.append(AnswerSentence(index, whole, tuple(atoms)))
    return sentences
