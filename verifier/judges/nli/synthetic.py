"""Labelled premise/claim pairs generated from real prose (FactCC / MiniCheck style).

Each transformation takes one sentence of a document (with its neighbours) and returns a
claim whose relation to the premise is known by construction, or ``None`` when the
sentence offers nothing to transform:

* entailed: the sentence itself, its first clause, the sentence without a parenthesis or
  a leading adverbial, the adverbial moved to the end, one word swapped for a synonym,
  two adjacent sentences fused, a pronoun replaced by the name in the sentence before;
* contradicted: a negation flipped, a number or year changed, a named entity swapped for
  another one of the same document;
* neutral (not entailed): a detail from another document added, a hedge removed or a
  quantifier / certainty strengthened, another sentence of the same document that the
  premise does not contain.

Pure Python, deterministic for a given seed, no Django imports.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass

from verifier.text.stopwords import STOPWORDS
from verifier.text.synonyms import SYNTHETIC_SYNONYM_SWAPS

ENTAILMENT = "entailment"
NEUTRAL = "neutral"
CONTRADICTION = "contradiction"

MIN_SENTENCE_CHARS = 40
MAX_SENTENCE_CHARS = 320
MIN_SENTENCE_WORDS = 7
MIN_CLAUSE_WORDS = 5


@dataclass(frozen=True)
class Document:
    id: str
    sentences: tuple[str, ...]
    title: str = ""


@dataclass(frozen=True)
class Pair:
    """``span`` is the premise the claim is judged against; ``context`` the sentence
    before it (and the title), which a name may come from but support may not."""

    claim: str
    span: str
    context: str
    label: str
    kind: str
    doc_id: str


@dataclass(frozen=True)
class Sentence:
    doc: Document
    index: int

    @property
    def text(self) -> str:
        return self.doc.sentences[self.index]

    @property
    def previous(self) -> str:
        return self.doc.sentences[self.index - 1] if self.index > 0 else ""

    @property
    def next(self) -> str:
        i = self.index + 1
        return self.doc.sentences[i] if i < len(self.doc.sentences) else ""


_NUMBER = re.compile(r"(?<![\w.,])(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)(?![\w])")
_CAPITALIZED = re.compile(r"(?<=[a-z,;] )((?:[A-Z][a-z]+)(?: [A-Z][a-z]+){0,2})\b")
_PAREN = re.compile(r"\s*\([^()]{1,80}\)")
_LEADING_ADVERBIAL = re.compile(
    r"^((?:In|On|At|During|By|After|Before|Since|Until|Over|Across|Among|For|From|Within|"
    r"According to)\b[^,]{2,60}),\s+(.+)$"
)
_CLAUSE_BREAK = re.compile(r"(?:;\s+|,\s+(?:and|but|while|whereas|which|although)\s+|\s+—\s+)")
_PRONOUN_START = re.compile(r"^(He|She|They|It)\s")
_NAME_START = re.compile(r"^((?:[A-Z][a-z]+\.?\s){0,2}[A-Z][a-z]+)\s+[a-z]")
# "The new vaccine was ..." → "The new vaccine": a short subject before a verb-like word
_SUBJECT_START = re.compile(
    r"^((?:The|A|An|This|Its|Their)\s(?:[a-z\-]+\s){0,2}[a-z\-]+)\s+"
    r"(?:is|was|are|were|has|have|had|can|could|will|would|may|might|\w+ed|\w+s)\b"
)
_DEFINITE_START = re.compile(r"^(The|This|These)\s([a-z\-]+)\s")

# Copula / auxiliary negation: (affirmative, negative). Applied in either direction.
_NEGATIONS: tuple[tuple[str, str], ...] = (
    (" is ", " is not "),
    (" are ", " are not "),
    (" was ", " was not "),
    (" were ", " were not "),
    (" can ", " cannot "),
    (" will ", " will not "),
    (" has been ", " has not been "),
    (" have been ", " have not been "),
    (" does ", " does not "),
    (" did ", " did not "),
    (" could ", " could not "),
    (" should ", " should not "),
)
_NEGATION_REMOVALS: tuple[tuple[str, str], ...] = (
    (" did not ", " did "),
    (" does not ", " does "),
    (" do not ", " do "),
    (" no longer ", " still "),
    (" never ", " always "),
    (" cannot ", " can "),
    (" not ", " "),
)

# Hedge → absolute: the claim says more than the premise (not entailed, not refuted).
_STRENGTHENINGS: tuple[tuple[str, str], ...] = (
    (" may ", " will "),
    (" might ", " will "),
    (" could ", " will "),
    (" suggests ", " proves "),
    (" suggest ", " prove "),
    (" suggested ", " proved "),
    (" indicates ", " proves "),
    (" indicate ", " prove "),
    (" some ", " all "),
    (" Some ", " All "),
    (" several ", " all "),
    (" many ", " all "),
    (" Many ", " All "),
    (" most ", " all "),
    (" often ", " always "),
    (" usually ", " always "),
    (" sometimes ", " always "),
    (" frequently ", " always "),
    (" tend to ", " always "),
    (" tends to ", " always "),
    (" likely ", " certain "),
    (" possibly ", " definitely "),
    (" probably ", " definitely "),
    (" partly ", " entirely "),
    (" partially ", " entirely "),
    (" associated with ", " caused by "),
    (" linked to ", " caused by "),
)
# "about 40" → "exactly 40": an approximate quantity made exact
_APPROXIMATE_NUMBER = re.compile(
    r"\b(?:about|approximately|nearly|almost|roughly|around|up to|at least|more than|over)"
    r"\s+(?=\d)"
)


_ADDED_DETAIL_JOINERS = (", and ", ", while ", ", after ")


def usable_sentence(text: str) -> bool:
    """A sentence worth transforming: prose of a sensible length, not a heading or a
    fragment of a line-broken web page."""
    text = text.strip()
    if not MIN_SENTENCE_CHARS <= len(text) <= MAX_SENTENCE_CHARS:
        return False
    if not text[0].isupper() or text[-1] not in ".!?\"'”)":
        return False
    if text.startswith(("#", "*", "|", "-", "http")) or "http" in text:
        return False
    words = text.split()
    if len(words) < MIN_SENTENCE_WORDS:
        return False
    letters = sum(ch.isalpha() for ch in text)
    return letters >= 0.6 * len(text)


def _end(text: str) -> str:
    text = text.strip().rstrip(",;:")
    return text if text.endswith((".", "!", "?")) else text + "."


def _lower_first(text: str, doc: Document | None = None) -> str:
    """Lower-case the first letter unless the first word is a name or an acronym: written
    capitalized in mid-sentence somewhere in ``doc``, or all capitals."""
    first = text.split(" ", 1)[0]
    if not first[:1].isupper() or (len(first) > 1 and first.isupper()):
        return text
    if doc is not None and any(f" {first}" in t[1:] for t in doc.sentences):
        return text
    return text[0].lower() + text[1:]


def _swap_once(text: str, table: Sequence[tuple[str, str]], rng: random.Random) -> str | None:
    padded = f" {text} "
    options = [(a, b) for a, b in table if a in padded]
    if not options:
        return None
    a, b = rng.choice(options)
    return padded.replace(a, b, 1).strip()


# --- entailed ------------------------------------------------------------------------------


def keep_sentence(s: Sentence, rng: random.Random, corpus: Sequence[Document]) -> str | None:
    return s.text


def first_clause(s: Sentence, rng: random.Random, corpus: Sequence[Document]) -> str | None:
    parts = _CLAUSE_BREAK.split(s.text, maxsplit=1)
    if len(parts) < 2 or len(parts[0].split()) < MIN_CLAUSE_WORDS:
        return None
    return _end(parts[0])


def drop_parenthesis(s: Sentence, rng: random.Random, corpus: Sequence[Document]) -> str | None:
    dropped = _PAREN.sub("", s.text)
    return dropped if dropped != s.text and len(dropped.split()) >= MIN_CLAUSE_WORDS else None


def drop_leading_adverbial(
    s: Sentence, rng: random.Random, corpus: Sequence[Document]
) -> str | None:
    match = _LEADING_ADVERBIAL.match(s.text)
    if not match or len(match.group(2).split()) < MIN_CLAUSE_WORDS:
        return None
    rest = match.group(2)
    return rest[0].upper() + rest[1:]


def move_adverbial(s: Sentence, rng: random.Random, corpus: Sequence[Document]) -> str | None:
    match = _LEADING_ADVERBIAL.match(s.text)
    if not match or not s.text.endswith("."):
        return None
    adverbial, rest = match.group(1), match.group(2)
    rest = rest[0].upper() + rest[1:]
    return f"{rest[:-1]} {adverbial[0].lower()}{adverbial[1:]}."


def synonym_swap(s: Sentence, rng: random.Random, corpus: Sequence[Document]) -> str | None:
    return _swap_once(s.text, SYNTHETIC_SYNONYM_SWAPS, rng)


def fuse_adjacent(s: Sentence, rng: random.Random, corpus: Sequence[Document]) -> str | None:
    if not usable_sentence(s.next) or len(s.text) + len(s.next) > MAX_SENTENCE_CHARS:
        return None
    first = s.text.rstrip(".!?")
    return f"{first}, and {_lower_first(s.next, s.doc)}"


def _referent(previous: str, pronoun: str) -> str | None:
    """The subject of the sentence before, as a pronoun at the start of this one would
    refer to it: a name for He/She, a name or a short noun phrase for It/They."""
    name = _NAME_START.match(previous)
    first = name.group(1).split()[0] if name else ""
    if name and first.lower() not in STOPWORDS and first not in _NOT_ENTITIES:
        return name.group(1) if pronoun in {"He", "She", "It"} else None
    subject = _SUBJECT_START.match(previous)
    if subject and pronoun in {"It", "They"}:
        return subject.group(1)
    return None


def name_for_pronoun(s: Sentence, rng: random.Random, corpus: Sequence[Document]) -> str | None:
    """ "She published …" after "Ada Lovelace wrote …" → "Ada Lovelace published …": the
    premise (with its context) still entails it."""
    pronoun = _PRONOUN_START.match(s.text)
    if not pronoun:
        return None
    referent = _referent(s.previous, pronoun.group(1))
    if referent is None:
        return None
    return referent + s.text[len(pronoun.group(1)) :]


def wrong_referent(s: Sentence, rng: random.Random, corpus: Sequence[Document]) -> str | None:
    """The same, with another name of the document in place of the pronoun: the premise
    says it of someone else."""
    pronoun = _PRONOUN_START.match(s.text)
    if not pronoun or _referent(s.previous, pronoun.group(1)) is None:
        return None
    right = _referent(s.previous, pronoun.group(1))
    names = sorted(
        {e for t in s.doc.sentences for e in _entities(t) if e != right and e not in s.previous}
    )
    if not names:
        return None
    return rng.choice(names) + s.text[len(pronoun.group(1)) :]


# --- contradicted --------------------------------------------------------------------------


def flip_negation(s: Sentence, rng: random.Random, corpus: Sequence[Document]) -> str | None:
    padded = f" {s.text} "
    removals = [(a, b) for a, b in _NEGATION_REMOVALS if a in padded]
    if removals:
        a, b = removals[0]
        return padded.replace(a, b, 1).strip()
    return _swap_once(s.text, _NEGATIONS, rng)


def _changed_number(token: str, rng: random.Random) -> str:
    plain = token.replace(",", "")
    if "." in plain:
        value = float(plain)
        return f"{value * rng.choice((0.5, 1.5, 2.0, 3.0)) + rng.choice((0.1, 0.3)):.1f}"
    value = int(plain)
    if 1800 <= value <= 2100 and "," not in token:  # a year
        return str(value + rng.choice((-7, -3, -2, 2, 3, 5, 9)))
    if value <= 10:
        return str(value + rng.choice((1, 2, 3, 5)))
    changed = int(value * rng.choice((0.4, 0.6, 1.5, 2, 3)))
    changed = changed if changed != value else value + 1
    return f"{changed:,}" if "," in token else str(changed)


def change_number(s: Sentence, rng: random.Random, corpus: Sequence[Document]) -> str | None:
    matches = list(_NUMBER.finditer(s.text))
    if not matches:
        return None
    m = rng.choice(matches)
    return s.text[: m.start()] + _changed_number(m.group(0), rng) + s.text[m.end() :]


_NOT_ENTITIES = frozenset(
    [
        "January",
        "February",
        "March",
        "April",
        "May",
        "June",
        "July",
        "August",
        "September",
        "October",
        "November",
        "December",
        "Monday",
        "Tuesday",
        "Wednesday",
        "Thursday",
        "Friday",
        "Saturday",
        "Sunday",
        "The",
        "This",
        "That",
        "These",
        "Those",
    ]
)


def _entities(text: str) -> list[str]:
    found = (m.group(1) for m in _CAPITALIZED.finditer(text))
    return [e for e in found if e.split()[0] not in _NOT_ENTITIES]


def swap_entity(s: Sentence, rng: random.Random, corpus: Sequence[Document]) -> str | None:
    mine = _entities(s.text)
    if not mine:
        return None
    target = rng.choice(mine)
    others = sorted(
        {e for t in s.doc.sentences for e in _entities(t) if e != target and e not in s.text}
    )
    others = [e for e in others if len(e.split()) == len(target.split())] or others
    if not others:
        return None
    return re.sub(rf"\b{re.escape(target)}\b", rng.choice(others), s.text, count=1)


# --- neutral -------------------------------------------------------------------------------


def strengthen(s: Sentence, rng: random.Random, corpus: Sequence[Document]) -> str | None:
    swapped = _swap_once(s.text, _STRENGTHENINGS, rng)
    if swapped is None or rng.random() < 0.3:
        exact = _APPROXIMATE_NUMBER.sub("exactly ", s.text, count=1)
        return exact if exact != s.text else swapped
    return swapped


def add_detail(s: Sentence, rng: random.Random, corpus: Sequence[Document]) -> str | None:
    other = corpus[rng.randrange(len(corpus))]
    if other.id == s.doc.id:
        return None
    clauses = [
        first_clause(Sentence(other, i), rng, corpus) or t
        for i, t in enumerate(other.sentences)
        if usable_sentence(t)
    ]
    clauses = [c for c in clauses if len(c) <= 160]
    if not clauses:
        return None
    detail = rng.choice(clauses).rstrip(".!?\"'”")
    base = s.text.rstrip(".!?\"'”")
    return f"{base}{rng.choice(_ADDED_DETAIL_JOINERS)}{_lower_first(detail, other)}."


def other_sentence(s: Sentence, rng: random.Random, corpus: Sequence[Document]) -> str | None:
    """A sentence of the same document outside the premise: on topic, not stated there."""
    far = [
        t
        for i, t in enumerate(s.doc.sentences)
        if abs(i - s.index) > 2 and usable_sentence(t) and t not in (s.text, s.previous)
    ]
    if not far:
        return None
    premise_words = set(s.text.lower().split())
    candidate = rng.choice(far)
    words = candidate.lower().split()
    overlap = sum(w in premise_words for w in words) / len(words)
    return candidate if overlap < 0.6 else None


Transformation = Callable[[Sentence, random.Random, Sequence[Document]], str | None]

TRANSFORMATIONS: dict[str, tuple[str, Transformation, float]] = {
    # name: (label, function, relative weight)
    "keep_sentence": (ENTAILMENT, keep_sentence, 0.5),
    "first_clause": (ENTAILMENT, first_clause, 1.0),
    "drop_parenthesis": (ENTAILMENT, drop_parenthesis, 0.5),
    "drop_leading_adverbial": (ENTAILMENT, drop_leading_adverbial, 0.7),
    "move_adverbial": (ENTAILMENT, move_adverbial, 0.7),
    "synonym_swap": (ENTAILMENT, synonym_swap, 1.2),
    "fuse_adjacent": (ENTAILMENT, fuse_adjacent, 0.6),
    "name_for_pronoun": (ENTAILMENT, name_for_pronoun, 1.0),
    "wrong_referent": (CONTRADICTION, wrong_referent, 0.0),  # only in reference_pairs
    "flip_negation": (CONTRADICTION, flip_negation, 1.0),
    "change_number": (CONTRADICTION, change_number, 1.0),
    "swap_entity": (CONTRADICTION, swap_entity, 1.0),
    "strengthen": (NEUTRAL, strengthen, 1.2),
    "add_detail": (NEUTRAL, add_detail, 1.0),
    "other_sentence": (NEUTRAL, other_sentence, 1.0),
}


# claims made with what only the context says (a name): their span is the sentence alone
SINGLE_SENTENCE_KINDS = frozenset({"name_for_pronoun", "wrong_referent"})


def _premise(
    s: Sentence,
    kind: str,
    rng: random.Random,
    single_sentence_kinds: frozenset[str] = SINGLE_SENTENCE_KINDS,
) -> tuple[str, str]:
    """(span, context). A fused claim needs both sentences in the span; otherwise the
    span is the sentence, sometimes with its successor, and the context the one before."""
    title = s.doc.title.strip()
    context = " ".join(p for p in (title + "." if title else "", s.previous) if p)
    if kind == "fuse_adjacent":
        return f"{s.text} {s.next}", context
    if kind not in single_sentence_kinds and usable_sentence(s.next) and rng.random() < 0.3:
        return f"{s.text} {s.next}", context
    return s.text, context


def generate_pairs(
    documents: Sequence[Document],
    *,
    seed: int,
    per_sentence: int = 1,
    transformations: Mapping[str, tuple[str, Transformation, float]] | None = None,
    single_sentence_kinds: frozenset[str] = SINGLE_SENTENCE_KINDS,
) -> Iterator[Pair]:
    """Up to ``per_sentence`` pairs for every usable sentence of ``documents``, each made
    by a transformation drawn by weight among those that apply (``transformations``, by
    default this module's). A rewrite that changed nothing counts only as
    ``keep_sentence``. Same seed, same pairs."""
    table = TRANSFORMATIONS if transformations is None else transformations
    rng = random.Random(seed)
    names = list(table)
    weights = [table[n][2] for n in names]
    for doc in documents:
        for index, text in enumerate(doc.sentences):
            if not usable_sentence(text):
                continue
            sentence = Sentence(doc, index)
            made = 0
            for name in rng.choices(names, weights=weights, k=len(names) * 2):
                if made >= per_sentence:
                    break
                label, transform, _ = table[name]
                claim = transform(sentence, rng, documents)
                if not claim or claim.strip() == "":
                    continue
                if name != "keep_sentence" and claim.strip() == text.strip():
                    continue
                span, context = _premise(sentence, name, rng, single_sentence_kinds)
                yield Pair(claim.strip(), span, context, label, name, doc.id)
                made += 1


def reference_pairs(documents: Sequence[Document], *, seed: int) -> Iterator[Pair]:
    """For every sentence that opens with a pronoun whose referent the sentence before
    names: the referent put in (entailed, given the context) and, half the time, another
    name of the document put in (contradicted). Claims that need the context to be read."""
    rng = random.Random(seed)
    for doc in documents:
        for index, text in enumerate(doc.sentences):
            if not usable_sentence(text):
                continue
            sentence = Sentence(doc, index)
            for name in ("name_for_pronoun", "wrong_referent"):
                if name == "wrong_referent" and rng.random() < 0.5:
                    continue
                label, transform, _ = TRANSFORMATIONS[name]
                claim = transform(sentence, rng, documents)
                if claim:
                    span, context = _premise(sentence, name, rng)
                    yield Pair(claim.strip(), span, context, label, name, doc.id)
