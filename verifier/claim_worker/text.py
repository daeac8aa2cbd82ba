"""Lexical features of a claim and a candidate text: content tokens, entities, numbers,
anchors, cue words (uncertainty, reporting, absolute quantifiers, comparatives)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from verifier.judges.lexicon import MONTHS
from verifier.text.hedges import ABSOLUTE_QUANTIFIERS, UNCERTAINTY_CUES
from verifier.text.negations import NEGATIVE_WORDS
from verifier.text.stopwords import RETRIEVAL_STOPWORDS
from verifier.text.words import LATIN_WORD_OR_FIGURE, NAME_WITH_CONNECTORS

_NUMBER = re.compile(r"\d+(?:[.,]\d+)*%?")

REPORTING_CUES = frozenset(
    [
        "said",
        "says",
        "claimed",
        "claims",
        "claim",
        "stated",
        "states",
        "announced",
        "reported",
        "reports",
        "according",
        "argued",
        "argues",
        "alleged",
        "believes",
        "believe",
        "believed",
        "thinks",
        "think",
        "told",
        "asserted",
    ]
)
BELIEF_CUES = REPORTING_CUES | frozenset({"opinion", "view", "belief", "thought"})
_COMPARATIVE = re.compile(
    r"\b(?:more|less|fewer|greater|larger|smaller|higher|lower|better|worse|bigger)\b"
    r"|\b\w+er\s+than\b|\bthan\b",
    re.IGNORECASE,
)


def words(text: str) -> list[str]:
    return [w.lower().replace("’", "'") for w in LATIN_WORD_OR_FIGURE.findall(text)]


# Words that put a month after them ("in May", "from May to", "early May").
_BEFORE_MONTH = frozenset(
    [
        "in",
        "from",
        "since",
        "until",
        "till",
        "through",
        "during",
        "early",
        "late",
        "mid",
        "by",
        "before",
        "after",
        "between",
    ]
)
# Words that join two months into a range ("May to September", "April or May").
_MONTH_RANGE = frozenset(["to", "through", "until", "till", "and", "or"])
_SENTENCE_END = (".", "!", "?", "“", '"', ":", ";")


def _is_month_may(tokens: list[str], i: int, at_sentence_start: bool, clause_end: bool) -> bool:
    """Whether the word "may" at ``tokens[i]`` (as written) is the month, not the modal:
    capitalised mid-sentence ("from May", "Ferry Runs In May"), next to a day or a year
    ("May 2020", "May 3", "3 may."), after a word that leads a month ("in may", "from may
    to"), or one end of a range of months ("may to september", "April or may")."""
    prev = tokens[i - 1].lower() if i > 0 and not at_sentence_start else ""
    nxt = tokens[i + 1].lower() if i + 1 < len(tokens) else ""
    after = tokens[i + 2].lower() if i + 2 < len(tokens) else ""
    before = tokens[i - 2].lower() if i > 1 and not at_sentence_start else ""
    return (
        (tokens[i] == "May" and not at_sentence_start)
        or nxt[:1].isdigit()
        or (prev.isdigit() and 1 <= int(prev) <= 31 and clause_end)  # not "table 3 may be"
        or prev in _BEFORE_MONTH
        or (nxt in _MONTH_RANGE and after in MONTHS)
        or (prev in _MONTH_RANGE and before in MONTHS)
    )


def cue_words(text: str) -> set[str]:
    """The lower-cased words of ``text`` as cue words are read: the month "May" is not
    the hedge "may"."""
    found: set[str] = set()
    matches = list(LATIN_WORD_OR_FIGURE.finditer(text))
    tokens = [m.group() for m in matches]
    for i, m in enumerate(matches):
        word = tokens[i].lower().replace("’", "'")
        if word == "may":
            start = text[: m.start()].rstrip()
            at_start = not start or start.endswith(_SENTENCE_END)
            rest = text[m.end() :].lstrip()
            clause_end = not rest or rest[0] in ".,;:!?)"
            if _is_month_may(tokens, i, at_start, clause_end):
                continue
        found.add(word)
    return found


def content_tokens(text: str) -> frozenset[str]:
    """Lower-cased words of 3+ letters that are not stopwords, plus every number."""
    return frozenset(
        w for w in words(text) if (w[0].isdigit() or (len(w) >= 3 and w not in RETRIEVAL_STOPWORDS))
    )


def numbers(text: str) -> frozenset[str]:
    return frozenset(m.group().replace(",", "") for m in _NUMBER.finditer(text))


def entities(text: str) -> tuple[str, ...]:
    """Capitalised names (lower-cased), leading stopwords dropped; a sentence's first word
    counts only as part of a longer name. In reading order, no repeats."""
    found: dict[str, None] = {}
    for m in NAME_WITH_CONNECTORS.finditer(text):
        parts = m.group().split()
        at_start = m.start() == 0 or text[: m.start()].rstrip()[-1:] in {".", "!", "?", "“", '"'}
        while parts and parts[0].lower() in RETRIEVAL_STOPWORDS:
            parts = parts[1:]
            at_start = False
        if not parts or (at_start and len(parts) == 1):
            continue
        found[" ".join(p.lower() for p in parts)] = None
    return tuple(found)


def recall(wanted: frozenset[str] | set[str], present: frozenset[str] | set[str]) -> float:
    """Share of ``wanted`` found in ``present`` (0 when nothing is wanted)."""
    return len(wanted & present) / len(wanted) if wanted else 0.0


def entity_tokens(names: tuple[str, ...]) -> frozenset[str]:
    return frozenset(t for name in names for t in content_tokens(name))


@dataclass(frozen=True)
class ClaimFeatures:
    text: str
    tokens: frozenset[str]
    entities: tuple[str, ...]
    numbers: frozenset[str]
    anchors: frozenset[str]  # entity tokens and numbers: what evidence must mention
    subject: frozenset[str]  # tokens of the first entity (else the first content word)
    object: frozenset[str]  # the last number, else the last entity after the subject
    focus: frozenset[str]  # content tokens that are not entity tokens (the predicate)
    uncertain: bool
    belief: bool
    absolute: bool
    comparative: bool
    negated: bool


def claim_features(text: str) -> ClaimFeatures:
    tokens = content_tokens(text)
    names = entities(text)
    nums = numbers(text)
    name_tokens = entity_tokens(names)
    ordered = [w for w in words(text) if w in tokens]
    subject = content_tokens(names[0]) if names else frozenset(ordered[:1])
    obj: frozenset[str] = frozenset()
    if nums:
        last = [m.group().replace(",", "") for m in _NUMBER.finditer(text)][-1]
        obj = frozenset({last})
    elif len(names) >= 2:
        obj = content_tokens(names[-1]) - subject
    all_words = set(words(text))
    cues = cue_words(text)
    return ClaimFeatures(
        text=text,
        tokens=tokens,
        entities=names,
        numbers=nums,
        anchors=name_tokens | nums,
        subject=subject,
        object=obj,
        focus=tokens - name_tokens - nums,
        uncertain=bool(cues & UNCERTAINTY_CUES),
        belief=bool(all_words & BELIEF_CUES),
        absolute=bool(all_words & ABSOLUTE_QUANTIFIERS),
        comparative=bool(_COMPARATIVE.search(text)),
        negated=bool(all_words & NEGATIVE_WORDS),
    )


def has_negation(text: str) -> bool:
    """A negating word ("not", "never", "no", …) or an n't contraction."""
    found = set(words(text))
    return bool(found & NEGATIVE_WORDS) or any(w.endswith(("n't", "n’t")) for w in found)


def has_uncertainty(text: str) -> bool:
    """An uncertainty cue ("may", "likely", "reportedly", …); the month "May" is none."""
    return bool(cue_words(text) & UNCERTAINTY_CUES)


def has_reporting(text: str) -> bool:
    lowered = set(words(text))
    return bool(lowered & REPORTING_CUES)


def claim_strictness(features: ClaimFeatures) -> float:
    """How exacting the claim is, in [0, 1]: numbers, absolute quantifiers, comparatives,
    several named entities and negation each demand more of the evidence."""
    score = 0.0
    score += 0.35 if features.numbers else 0.0
    score += 0.30 if features.absolute else 0.0
    score += 0.20 if features.comparative else 0.0
    score += 0.10 if len(features.entities) >= 2 else 0.0
    score += 0.05 if features.negated else 0.0
    return min(1.0, score)
