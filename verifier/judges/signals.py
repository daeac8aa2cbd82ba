"""Lexical signals for the heuristic judge: pure functions over a claim and one span.

``profile(text)`` tokenizes once; ``compare(claim, span)`` returns the coverage of the
claim's content words by the span and every blocking signal found (negation/antonym
polarity, numbers, dates, units, named entities, scope and modality). No model here:
embedding similarity is added by ``verifier.judges.heuristic``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Final

from verifier.judges.lexicon import (
    APPROXIMATORS,
    ATTRIBUTION_LEMMAS,
    FRACTION_DENOMINATORS,
    FRACTION_DENOMINATORS_PLURAL,
    MAGNITUDE_WORDS,
    MONTHS,
    MULTIWORD_SYNONYMS,
    NUMBER_WORDS,
    ORDINAL_WORDS,
    PLAIN_LEVEL,
    REPORTING_LEMMAS,
    ROUGH_APPROXIMATORS,
    SCOPE_MARKERS,
    SCOPE_MAX_WORDS,
    STANCE_LEMMAS,
    STRONG_LEVEL,
    SYNONYMS,
    UNIT_CANONICAL,
    UNIT_IN_BASE,
    concept,
    is_antonym,
    lemma,
)
from verifier.text.hedges import QUANTITY_HEDGES
from verifier.text.negations import NEGATION_WORDS, NON_NEGATION_PHRASES
from verifier.text.stopwords import STOPWORDS
from verifier.text.words import JUDGE_TOKEN, strip_diacritics

ENTITY_CONNECTORS = frozenset({"of", "the", "de", "del", "da", "van", "von", "der", "la", "le"})
ROLE_PLURAL_ENDINGS = ("ors", "ists", "ians", "ials")  # "Investigators", "Officials"
PARTICLES = frozenset({"aside", "up", "out", "off", "down", "back", "away", "apart"})
# Words that open a sentence and are never names: adverbs, prepositions, conjunctions.
SENTENCE_OPENERS = frozenset(
    [
        "altogether",
        "although",
        "though",
        "despite",
        "overall",
        "together",
        "previously",
        "meanwhile",
        "however",
        "moreover",
        "furthermore",
        "additionally",
        "instead",
        "nevertheless",
        "nonetheless",
        "subsequently",
        "initially",
        "eventually",
        "finally",
        "later",
        "earlier",
        "currently",
        "today",
        "originally",
        "ultimately",
        "between",
        "during",
        "following",
        "owing",
        "because",
        "whereas",
        "unlike",
        "besides",
        "apart",
        "combined",
        "collectively",
        "including",
        "excluding",
        "like",
        "once",
        "since",
        "until",
        "unless",
        "whether",
        "while",
        "across",
        "along",
        "among",
        "amid",
        "within",
        "without",
        "beyond",
        "toward",
        "towards",
        "against",
    ]
)
HOLDING_BACK = frozenset(
    (verb, particle) for verb in ("hold", "holds", "held", "holding") for particle in ("off",)
) | frozenset((verb, "from") for verb in ("refrain", "refrains", "refrained", "refraining"))
UNTIL_REACH = 5  # tokens from "not" to the "until" that makes it "only then"
MODAL_AUXILIARIES = frozenset({"may", "might", "could", "can", "would", "should", "will", "must"})
MODAL_REACH = 3  # content words after a modal that it hedges
WEEKDAYS = frozenset({"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"})
NOT_ENTITIES = frozenset({"i"} | WEEKDAYS | MONTHS | set(UNIT_CANONICAL))
NOT_SUPERLATIVES = frozenset(
    [
        "forest",
        "interest",
        "harvest",
        "request",
        "protest",
        "suggest",
        "honest",
        "modest",
        "contest",
        "manifest",
        "arrest",
        "conquest",
        "digest",
        "invest",
        "behest",
        "earnest",
    ]
)
TIME_UNITS = frozenset(
    [
        "day",
        "days",
        "week",
        "weeks",
        "month",
        "months",
        "year",
        "years",
        "time",
        "times",
        "morning",
        "evening",
        "night",
        "hour",
        "decade",
        "season",
        "summer",
        "winter",
        "spring",
        "autumn",
    ]
)
CALENDAR_QUALIFIERS = frozenset({"calendar", "financial", "fiscal", "academic", "working"})
COMPARATIVE_HEADS = frozenset({"more", "less", "fewer", "greater"})
PREFIX_MATCH_MIN = 5  # shared prefix length for a stem-tolerant word match
REGION_BEFORE = 4  # tokens before the first aligned word that still govern it (negation)
REGION_AFTER = 2
# Clause structure of a span. A span clause (split at sentence ends, commas, semicolons,
# colons, dashes and brackets) is *relevant* when a greedy cover of the claim's aligned
# words picks it; hedges and negations in other clauses scope other propositions
# ("…1999, and some later surveys found…"). A short clause next to a relevant one in the
# same sentence is a *frame* that scopes the whole sentence ("Sleep, some argue, helps";
# "It is not true, as claimed, that…"): at most FRAME_MAX_CONTENT content words.
CLAUSE_BREAK_CHARS = frozenset(",;:()[]—–.!?\n")
SENTENCE_BREAK_CHARS = frozenset(".!?\n")
FRAME_MAX_CONTENT = 2
# A concessive clause qualifies its whole sentence ("X, although this is debated"):
# its evidence/consensus/modality hedges stay in force even when it shares no word with
# the claim. Quantifier and frequency words there scope that clause's own nouns.
CONCESSIVE_OPENERS = frozenset(
    {"although", "though", "but", "however", "yet", "whereas", "while", "albeit", "even"}
)
SENTENCE_WIDE_DIMENSIONS = frozenset({"evidence", "consensus", "modality"})
# "many/most/several/mainly" (quantifier levels 2-3) scope the words that follow them:
# they hedge the claim only when one of the next QUANTIFIED_WORDS content words is one
# the claim states ("most of the Icelandic sagas"), not when they count something the
# claim never mentions ("in many laboratory studies, people who sleep…"). Level-1
# quantifiers (some, few, partly) always hedge.
QUANTIFIED_WORDS = 2
# Span-initial subject pronouns stand for the claim's subject when the span goes on with
# the claim's own predicate ("It anchors…" for "Giant kelp anchors…").
SUBJECT_PRONOUNS = {"it": "thing", "he": "person", "she": "person", "they": "plural"}
PRONOUN_SUBJECT_MAX_WORDS = 4
PRONOUN_PREDICATE_GAP = 3  # tokens between the pronoun and the claim's first aligned word
# Relational function words are stopwords (no coverage) but flip polarity when the span
# region states the opposite one and not the claim's ("above" vs "below").
POLAR_FUNCTION_WORDS = {"above": "below", "below": "above", "before": "after", "after": "before"}
APPROX_TOLERANCE = 0.10  # "about 1,200" matches 1,150 … 1,250-ish
BOUND_COMPARISON_SIDES = {
    "more": "lower",
    "greater": "lower",
    "higher": "lower",
    "less": "upper",
    "fewer": "upper",
    "lower": "upper",
}  # "more than 40": 40 is the number's lower bound
BOUND_WORD_SIDES = {
    "over": "lower",
    "above": "lower",
    "exceeding": "lower",
    "under": "upper",
    "below": "upper",
}
BOUND_REACH = 2.0  # "more than 40" is read as 40 to 80, "fewer than 40" as 20 to 40
DERIVED_TERMS_MAX = 12  # span numbers read as the terms of a sum, difference or share
DECADE_PARTS = {"early": (0, 3), "mid": (3, 7), "late": (6, 9)}  # years into the decade
DECADE_TOKEN = re.compile(r"(early|mid|late)-(\d{3}0)s")  # "mid-1860s" as one token
DERIVED_TOLERANCE = 0.05  # an approximate claim's number against a derived value
RATIO_WORDS = frozenset({"times", "fold"})  # "four times higher"
# Words by which a claim announces a number it worked out from others; without one, a
# count that equals a sum or difference of two span numbers is a coincidence, not a
# reading ("3 goals" against 5 goals and 2 penalties).
ARITHMETIC_CUES = frozenset(
    [
        "more",
        "less",
        "fewer",
        "than",
        "higher",
        "lower",
        "above",
        "below",
        "after",
        "before",
        "later",
        "earlier",
        "over",
        "under",
        "altogether",
        "together",
        "total",
        "combined",
        "overall",
        "between",
        "difference",
        "gap",
        "times",
        "extra",
        "additional",
        "longer",
        "shorter",
        "bigger",
        "smaller",
        "larger",
        "greater",
        "lost",
        "lose",
        "loses",
        "shed",
    ]
)
ARITHMETIC_CONCEPTS = frozenset({concept("increase"), concept("decrease")})
# Negations that scope what follows them in their clause ("the shift did not proceed
# evenly": the shift is not negated, its proceeding evenly is). In the span they bear on
# the claim only when a claim-aligned word follows them before the clause or a contrast
# ends ("not as a single event but as a series"). Predicative cues ("unaffected",
# "false", "a myth") scope what came before and keep the region rule.
FORWARD_NEGATIONS = frozenset(
    {"not", "no", "never", "neither", "nor", "without", "n't", "cannot", "rather", "instead"}
    | {"yet"}  # "has yet to", the one use ``_negations`` reads as a negation
    | {"off", "from"}  # "hold off raising", "refrain from raising" (``HOLDING_BACK``)
    | {"zero", "lieu", "place"}  # "in lieu of", "in place of"
)  # not the pronouns: "fear nothing" negates what comes before
# "no more than", "no later than": bounds ("at most", "by"), not negations.
BOUND_COMPARATIVES = frozenset(
    {"more", "greater", "higher", "later", "earlier", "longer", "shorter", "larger", "bigger"}
)
LENGTH_OPENERS = frozenset({"up", "more", "less", "over", "under", "at", "about", "several"})
MULTIPLIER_WORDS = frozenset({"once", "twice", "thrice"})
ONLY_WORDS = frozenset({"only", "just", "merely", "simply", "solely"})  # "rather than just"
CONTRAST_WORDS = frozenset({"but", "instead", "rather", "whereas", "while"})
COPULAS = frozenset({"is", "are", "was", "were", "be", "been", "being", "become", "became"})
DETERMINERS = frozenset({"the", "its", "their", "his", "her", "our", "my", "your", "a", "an"})
# Markers with a physical sense before a preposition: "appeared in 1725" (showed up, not
# "seemed"), "settled on the grass" (came to rest, not "the question is settled").
PHYSICAL_SENSE_MARKERS = frozenset({"appear", "appears", "appeared", "settled"})
PHYSICAL_SENSE_NEXT = frozenset(
    {"in", "on", "at", "into", "onto", "near", "during", "before", "after", "from", "with"}
    | {"under", "as", "first", "over", "across", "along", "between", "within", "around"}
)
# A negated truth predicate refutes the proposition before it ("Claims that P are not
# supported"): it bears on the claim wherever the claim's words stand.
TRUTH_PREDICATES = frozenset(
    {"supported", "true", "correct", "accurate", "proven", "confirmed", "justified"}
    | {"valid", "founded", "borne", "case", "substantiated", "established"}
)
# Words that say what kind of organisation a name is: "Halvorsen" names "Halvorsen
# Therapeutics".
ORGANISATION_SUFFIXES = frozenset(
    {"inc", "ltd", "llc", "plc", "corp", "corporation", "company", "co", "group", "holdings"}
    | {"therapeutics", "pharmaceuticals", "pharma", "technologies", "labs", "laboratories"}
    | {"systems", "industries", "partners", "gmbh", "ag", "sa"}
)
# Adjectives of a place name ("Icelandic" for "Iceland", "Canadian" for "Canada").
DEMONYM_ENDINGS = ("ic", "ian", "an", "ish", "ese", "i")
ABILITY_MODALS = frozenset({"can", "could", "would"})  # "would not start": it did not
QUANTIFIED_AGREEMENT_GAP = 4  # "most researchers now agree": tokens from quantifier to verb
# Coordinated clauses state propositions of their own: never a frame ("…, and some of
# its features survive").
COORDINATORS = frozenset({"and", "or"})
CONJUNCT_MODALS = frozenset({"may", "might", "could", "can", "will", "would", "should", "must"})


# A claim item aligned to span positions: ("w", claim token index) for a content word,
# ("n", index into claim.numbers) for a number.
Aligned = tuple[str, int]


@dataclass(frozen=True)
class NumberMention:
    value: float
    raw: str
    unit: str
    approx: bool
    kind: str  # "number" | "year" | "ordinal" | "fraction" (a share: "one in three" 0.333)
    position: int
    width: int = 1  # tokens the mention spans ("one in three": 3)
    bound: str = ""  # "lower" ("more than 40", "at least 40"), "upper" ("fewer than 40")
    rough: bool = False  # said to be approximate ("about 40", "roughly 40"), not bounded


@dataclass(frozen=True)
class ScopeMarker:
    phrase: str
    dimension: str
    level: int
    position: int


@dataclass(frozen=True)
class TextProfile:
    text: str
    tokens: tuple[str, ...]
    lower: tuple[str, ...]
    lemmas: tuple[str, ...]
    concepts: tuple[str, ...]  # "" for tokens folded into a preceding multiword concept
    content: tuple[int, ...]  # positions of content words
    numbers: tuple[NumberMention, ...]
    months: tuple[tuple[str, int], ...]
    entities: tuple[tuple[str, ...], ...]  # lowercase token tuples
    negations: tuple[int, ...]
    scope: tuple[ScopeMarker, ...]
    clause: tuple[int, ...] = ()  # clause id per token
    sentence: tuple[int, ...] = ()  # sentence id per token
    concept_set: frozenset[str] = field(default=frozenset())
    lemma_set: frozenset[str] = field(default=frozenset())
    lower_set: frozenset[str] = field(default=frozenset())
    # each part of a hyphenated word, by concept ("laboratory-confirmed": "confirmed")
    part_concepts: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class Blocker:
    kind: str  # negation | antonym | number_mismatch | unit_mismatch | date_mismatch |
    #            number_unsupported | date_unsupported | entity_mismatch | scope
    note: str
    contradicts: bool  # True: the span entails the negation; False: not entailed only


@dataclass(frozen=True)
class Comparison:
    coverage: float
    content_words: int
    uncovered: tuple[str, ...]
    blockers: tuple[Blocker, ...]
    resolved: str = ""  # "'It' read as 'Giant kelp'" when a span pronoun stood for the subject


def _is_numeric(tok: str) -> bool:
    return tok[0].isdigit()


def _parse_number(tok: str) -> float | None:
    cleaned = tok.replace(",", "")
    if cleaned.count(".") > 1:
        return None
    try:
        return float(cleaned)
    except ValueError:
        return None


def _scope_markers(
    lower: tuple[str, ...], tokens: tuple[str, ...], clause: Sequence[int] = ()
) -> list[ScopeMarker]:
    found: list[ScopeMarker] = []
    i = 0
    n = len(lower)
    while i < n:
        matched = 0
        for width in range(min(SCOPE_MAX_WORDS, n - i), 0, -1):
            phrase = " ".join(lower[i : i + width])
            if phrase not in SCOPE_MARKERS:
                continue
            nxt = lower[i + width] if i + width < n else ""
            prev = lower[i - 1] if i else ""
            if phrase == "may" and ((tokens[i][0].isupper() and i > 0) or nxt[:1].isdigit()):
                break  # the month
            if phrase == "some" and nxt[:1].isdigit():
                break  # "some 5,000" is an approximator
            if phrase == "all" and (prev in {"at", "after"} or (nxt == "of" and prev == "of")):
                break
            if phrase == "all" and nxt == "but":
                break  # "all but £45,000": everything except, no universal
            if SCOPE_MARKERS[phrase][0] == "quantifier" and (
                prev in NEGATION_WORDS
                or (prev in DETERMINERS and i > 1 and lower[i - 2] in NEGATION_WORDS)
            ):
                break  # "not all", "not the whole": the negation, read by parity, says "some"
            if phrase == "each" and nxt == "other":
                break
            after = lower[i + width + 1] if i + width + 1 < n else ""
            if phrase in {"every", "each"} and (
                nxt in TIME_UNITS or (nxt in CALENDAR_QUALIFIERS and after in TIME_UNITS)
            ):
                break  # "every day", "each calendar year": a frequency ("daily", "per year")
            if phrase == "most" and (prev in DETERMINERS or prev in COPULAS or prev.endswith("'s")):
                break  # "the most detailed", "had been most frequent": superlatives
            if phrase in ABILITY_MODALS and _negated_next(lower, i + 1):
                break  # "could rise no further", "could not": inability, not a hedge
            if phrase in PHYSICAL_SENSE_MARKERS and (
                nxt in PHYSICAL_SENSE_NEXT or nxt[:1].isdigit()
            ):
                break
            dimension, level = SCOPE_MARKERS[phrase]
            if dimension == "frequency" and prev in {"less", "more", "as", "how"}:
                break  # "cutting hedges less often": a comparison, not a hedge
            ends_clause = bool(clause) and (i + width >= n or clause[i + width] != clause[i])
            if dimension in {"modality", "evidence"} and (
                prev == "than"
                or (prev == "as" and dimension == "modality")
                or (ends_clause and "than" in lower[max(0, i - 4) : i])
            ):
                break  # "cleaner than expected", "lower than the records indicated"
            found.append(ScopeMarker(phrase, dimension, level, i))
            matched = width
            break
        i += matched or 1
    # "most researchers agree": a majority, said by the quantifier; not a consensus
    found = [
        m
        for m in found
        if not (
            m.dimension == "consensus"
            and m.level >= STRONG_LEVEL
            and any(
                q.dimension == "quantifier"
                and q.level < STRONG_LEVEL
                and 0 < m.position - q.position <= QUANTIFIED_AGREEMENT_GAP
                for q in found
            )
        )
    ]
    for pos, tok in enumerate(lower):  # approximators before a number hedge the quantity
        nxt = lower[pos + 1] if pos + 1 < n else ""
        after = lower[pos + 2] if pos + 2 < n else ""
        if tok in QUANTITY_HEDGES and (
            nxt[:1].isdigit()
            or nxt in NUMBER_WORDS
            or (nxt in {"a", "an"} and after in FRACTION_DENOMINATORS)
        ):  # "about 40", "roughly a third"
            found.append(ScopeMarker(tok, "quantity", 2, pos))
        if (
            tok == "to"
            and pos > 0
            and lower[pos - 1] == "close"
            and (nxt[:1].isdigit() or nxt in NUMBER_WORDS)
        ):
            found.append(ScopeMarker("close to", "quantity", 2, pos))  # "close to six hours"
        if tok == "certain" and _determines_noun(lower, pos):
            found.append(ScopeMarker(tok, "quantifier", 1, pos))  # "certain deposits"
    return found


def _compound_number(tok: str) -> float | None:
    """The value of a tens word and a units word joined by a hyphen ("twenty-one": 21)."""
    tens, _, units = tok.partition("-")
    if not units or tens not in NUMBER_WORDS or units not in NUMBER_WORDS:
        return None
    if NUMBER_WORDS[tens] % 10 or not 20 <= NUMBER_WORDS[tens] <= 90:
        return None
    if not 1 <= NUMBER_WORDS[units] <= 9:
        return None
    return float(NUMBER_WORDS[tens] + NUMBER_WORDS[units])


def _zero_determiner(lower: tuple[str, ...], i: int) -> bool:
    """Whether "zero" reads as "no" ("zero recorded cases"), not a quantity ("zero
    degrees")."""
    nxt = lower[i + 1] if i + 1 < len(lower) else ""
    return nxt.isalpha() and nxt not in STOPWORDS and nxt not in UNIT_CANONICAL


def _negated_next(lower: tuple[str, ...], start: int) -> bool:
    """A negation in the two tokens from ``start`` ("could not", "could rise no")."""
    return any(
        lower[k] in NEGATION_WORDS or lower[k].endswith("n't")
        for k in range(start, min(start + 2, len(lower)))
    )


def _determines_noun(lower: tuple[str, ...], i: int) -> bool:
    """Whether the word at ``i`` is a determiner before a noun: "certain deposits" (=
    some), not "it is certain"."""
    nxt = lower[i + 1] if i + 1 < len(lower) else ""
    prev = lower[i - 1] if i else ""
    return (
        nxt.isalpha()
        and nxt not in STOPWORDS
        and prev not in {"is", "was", "are", "were", "be", "been", "not", "seems", "almost"}
    )


def _absence_length(lower: tuple[str, ...], k: int) -> bool:
    """Whether "absence of" goes on with a length of time ("of up to a week", "of
    three days"), not with what is absent."""
    nxt = lower[k] if k < len(lower) else ""
    return nxt in LENGTH_OPENERS or _small_count(nxt) is not None


def _negations(lower: tuple[str, ...]) -> list[int]:
    out: list[int] = []
    for i, tok in enumerate(lower):
        if not (tok in NEGATION_WORDS or tok.endswith(("n't", "n’t"))):
            continue
        nxt = lower[i + 1] if i + 1 < len(lower) else ""
        if (tok, nxt) in NON_NEGATION_PHRASES:
            continue
        if tok == "no" and nxt[:1].isdigit():
            continue  # "No. 7", "no 10": the number sign
        if tok == "nor" and out:
            continue  # "could not say who nor when", "neither A nor B": one negation
        if _forward(tok) and "until" in lower[i + 1 : i + 1 + UNTIL_REACH]:
            continue  # "was not called until afterwards" = "was called only afterwards"
        if tok in {"independent", "independently"} and nxt not in {"of", "from"}:
            continue  # "an independent review": not "does not depend on"
        if (
            tok == "no"
            and nxt in BOUND_COMPARATIVES
            and i + 2 < len(lower)
            and lower[i + 2] == "than"
        ):
            continue  # "no more than 52 hours" is "up to 52 hours": a bound, not a negation
        if tok == "absence" and (nxt != "of" or _absence_length(lower, i + 2)):
            continue  # "a sickness absence (of a week)": time off; "absence of X" negates X
        if tok in {"fail", "fails", "failed", "failing"} and "to" not in lower[i + 1 : i + 3]:
            continue  # "if the power fails": a breakdown (the antonym of "succeed"), not "did not"
        if tok == "no" and nxt in {"one"}:
            out.append(i)
            continue
        out.append(i)
    out.extend(
        i
        for i in range(len(lower) - 1)
        if (
            (lower[i], lower[i + 1]) in {("rather", "than"), ("instead", "of")}
            and (lower[i + 2] if i + 2 < len(lower) else "") not in ONLY_WORDS
        )
        or (lower[i] == "zero" and _zero_determiner(lower, i))
        or (
            lower[i] in {"off", "from"}
            and i
            and (lower[i - 1], lower[i]) in HOLDING_BACK
            and i + 1 < len(lower)
            and lower[i + 1].endswith("ing")
        )  # "would hold off raising the tier" = "would not raise it"
        or (
            lower[i] == "yet"
            and i
            and lower[i - 1] in {"has", "have", "had", "is", "are", "was", "were"}
            and lower[i + 1] == "to"
        )  # "demand has yet to recover" = "has not recovered"
        or (lower[i] in {"lieu", "place"} and i and lower[i - 1] == "in" and lower[i + 1] == "of")
    )  # "P rather than Q" / "P instead of Q" / "P in lieu of Q" = "P, not Q" ("rather
    # than just Q" = "not only Q": Q stands); "zero cases" = "no cases"
    return sorted(out)


def _small_count(tok: str) -> float | None:
    """A count written as digits or a word ("3", "three", "twenty-one"), else None."""
    if _is_numeric(tok):
        return _parse_number(tok)
    if tok in NUMBER_WORDS:
        return float(NUMBER_WORDS[tok])
    return _compound_number(tok)


def _approximated(lower: tuple[str, ...], i: int, words: AbstractSet[str] = APPROXIMATORS) -> bool:
    """Whether an approximator ("about", "roughly a") comes just before the number at ``i``."""
    return any(lower[k] in words for k in range(max(0, i - 2), i))


def _past_article(lower: tuple[str, ...], i: int) -> int:
    """Where a number's phrase starts: at the article of "a third", "an estimated"."""
    return i - 1 if i and lower[i - 1] in {"a", "an"} else i


def _bound(lower: tuple[str, ...], i: int) -> str:
    """Which side a bound before the number at ``i`` leaves open: "lower" for "more
    than", "over", "at least", "upwards of"; "upper" for "fewer than", "under", "at most",
    "up to", "no more than"; "" for none. An article or "one" opening a share is passed
    over ("more than a third", "fewer than one in ten")."""
    k = _past_article(lower, i)
    before = lower[max(0, k - 3) : k]
    last = before[-1] if before else ""
    pair = tuple(before[-2:])
    if last == "than" and len(before) >= 2:
        if len(before) == 3 and before[0] in {"no", "not"} and before[1] == "more":
            return "upper"  # "no more than 52 hours"
        return BOUND_COMPARISON_SIDES.get(before[-2], "")
    if pair in {("at", "least"), ("upwards", "of")}:
        return "lower"
    if pair in {("at", "most"), ("up", "to")}:
        return "upper"
    return BOUND_WORD_SIDES.get(last, "")


def _decade(lower: tuple[str, ...], i: int) -> tuple[float, str, int] | None:
    """A decade at ``i`` — (first year, how it is written, tokens taken): "1860s" (read
    as "1860" "s"), "the early 1900s", "mid-1860s"; else None. Which part of the decade
    the claim means is kept in the written form (``_decade_years``)."""
    part = ""
    tok = lower[i]
    if m := DECADE_TOKEN.fullmatch(tok):
        return float(m.group(2)), tok, 1
    if tok in DECADE_PARTS and i + 2 < len(lower) and lower[i + 2] == "s":
        part, i = tok, i + 1
    year = lower[i]
    if not (len(year) == 4 and year.isdigit() and year.endswith("0") and i + 1 < len(lower)):
        return None
    if lower[i + 1] != "s":
        return None
    written = f"{part}-{year}s" if part else f"{year}s"
    return float(year), written, 3 if part else 2


def _decade_years(m: NumberMention) -> tuple[float, float]:
    """The years a decade mention covers: all ten, or the part it names."""
    part = m.raw.partition("-")[0] if "-" in m.raw else ""
    lo, hi = DECADE_PARTS.get(part, (0, 9))
    return m.value + lo, m.value + hi


def _fraction(lower: tuple[str, ...], i: int) -> tuple[float, int] | None:
    """A share said in words at ``i`` and how many tokens it takes: "one in three",
    "a third", "two thirds", "three quarters". Not "half": "half of the tests" is as
    often arithmetic on the span's counts ("two of the four") or a duration ("a year and
    a half") as a share."""
    tok = lower[i]
    nxt = lower[i + 1] if i + 1 < len(lower) else ""
    prev = lower[i - 1] if i else ""
    if tok in FRACTION_DENOMINATORS and prev in {"a", "one"}:
        return 1 / FRACTION_DENOMINATORS[tok], 1  # "a third", "one quarter"
    count = _small_count(tok)
    if count is None or not nxt:
        return None
    if nxt in FRACTION_DENOMINATORS_PLURAL and 1 < count < FRACTION_DENOMINATORS_PLURAL[nxt]:
        return count / FRACTION_DENOMINATORS_PLURAL[nxt], 2  # "two thirds"
    if nxt == "in" and i + 2 < len(lower):
        whole = _small_count(lower[i + 2])
        if whole is not None and 0 < count < whole <= 100 and "," not in lower[i + 2]:
            return count / whole, 3  # "one in three", "2 in 5"
    return None


def _numbers(tokens: tuple[str, ...], lower: tuple[str, ...]) -> list[NumberMention]:
    out: list[NumberMention] = []
    n = len(lower)
    magnitude_of_previous = -1  # "three hundred years": "hundred" is part of 300
    taken_until = -1  # the last token of a share said in words ("one in three")
    for i, tok in enumerate(lower):
        value: float | None
        kind = "number"
        if i == magnitude_of_previous or i <= taken_until:
            continue
        share = _fraction(lower, i)
        if share is not None:
            value, width = share
            approx = _approximated(lower, i)
            out.append(
                NumberMention(value, tokens[i], "", approx, "fraction", i, width, _bound(lower, i))
            )
            taken_until = i + width - 1
            continue
        decade = _decade(lower, i)
        if decade is not None:
            value, raw, width = decade
            out.append(NumberMention(value, raw, "", False, "decade", i, width))
            taken_until = i + width - 1
            continue
        if _is_numeric(tok):
            value = _parse_number(tok)
            if value is None:
                continue
            if "," not in tok and "." not in tok and len(tok) == 4 and 1000 <= value <= 2100:
                kind = "year"
        elif tok == "zero" and _zero_determiner(lower, i):
            continue  # "zero recorded cases": a negation, not a quantity
        elif tok in NUMBER_WORDS and tok not in {"one", "half", "double"}:
            value = float(NUMBER_WORDS[tok])
            if tok in MULTIPLIER_WORDS:
                kind = "multiplier"  # "twice a week": compared only with a multiplier
        elif (compound := _compound_number(tok)) is not None:
            value = compound  # "twenty-one"
        elif (
            "-" in tok
            and (head := tok.partition("-")[0]) in NUMBER_WORDS
            and head not in {"one", "half", "double", "zero"}
            and (tail := tok.partition("-")[2]).isalpha()
        ):  # "a three-way tie", "a two-year ban": the number, with its unit if it is one
            value = float(NUMBER_WORDS[head])
            approx = _approximated(lower, i)
            unit = UNIT_CANONICAL.get(tail, "")
            out.append(NumberMention(value, tokens[i], unit, approx, kind, i, 1, _bound(lower, i)))
            continue
        elif tok in ORDINAL_WORDS:
            if i + 1 < n and _small_count(lower[i + 1]) is not None:
                continue  # "the first 16 weeks": which weeks, not a rank
            value, kind = float(ORDINAL_WORDS[tok]), "ordinal"
        else:
            continue
        j = i + 1
        if kind == "number" and j < n and lower[j] in MAGNITUDE_WORDS:
            value *= MAGNITUDE_WORDS[lower[j]]
            magnitude_of_previous = j
            j += 1
        unit = ""
        if j + 1 < n and f"{lower[j]} {lower[j + 1]}" in UNIT_CANONICAL:
            unit = UNIT_CANONICAL[f"{lower[j]} {lower[j + 1]}"]
        elif j < n and lower[j] in UNIT_CANONICAL and not (lower[j] == "m" and value >= 1e6):
            unit = UNIT_CANONICAL[lower[j]]
        elif i > 0 and lower[i - 1] in {"$", "€", "£"}:
            unit = UNIT_CANONICAL[lower[i - 1]]
        approx = _approximated(lower, i)
        out.append(NumberMention(value, tokens[i], unit, approx, kind, i, 1, _bound(lower, i)))
    return [replace(m, rough=_rough(lower, m.position)) for m in out]


def _rough(lower: tuple[str, ...], i: int) -> bool:
    """Whether the number at ``i`` is said to be approximate ("about 41", "roughly a
    fifth"), which ``_approximated``'s wider list (bounds, "at") does not tell apart."""
    return _approximated(lower, _past_article(lower, i), ROUGH_APPROXIMATORS)


def _entities(tokens: tuple[str, ...], lower: tuple[str, ...]) -> list[tuple[str, ...]]:
    out: list[tuple[str, ...]] = []
    i = 0
    n = len(tokens)
    while i < n:
        tok = tokens[i]
        if not (tok[0].isupper() and lower[i] not in STOPWORDS and lower[i] not in NOT_ENTITIES):
            i += 1
            continue
        j = i + 1
        while j < n and (
            tokens[j][0].isupper()
            or (
                lower[j] in ENTITY_CONNECTORS
                and j + 1 < n
                and tokens[j + 1][0].isupper()
                and lower[j + 1] not in STOPWORDS
            )
        ):
            j += 1
        words = tuple(w for w in lower[i:j] if w not in ENTITY_CONNECTORS)
        single_initial = i == 0 and j == 1 and not tok.isupper()
        scope_word = j == i + 1 and (lower[i] in SCOPE_MARKERS or lower[i] in NEGATION_WORDS)
        if words and not single_initial and not scope_word:
            out.append(words)
        i = j
    return out


def _fold(token: str) -> str:
    """Lowercase, drop a trailing period and the possessive ending ("company's"), and read
    a Latin letter with a diacritic as the letter ("Zoë" is "zoe", "café" is "cafe"), so
    that a name written with or without its accent is one word."""
    word = token.lower().rstrip(".") or token.lower()
    if not word.isascii():
        word = strip_diacritics(word)
    if word.endswith("'s") and len(word) > 3:
        return word[:-2]
    return word


def _clauses(text: str, starts: list[int], ends: list[int]) -> tuple[list[int], list[int]]:
    """Clause and sentence id of every token, from the punctuation between tokens."""
    clause: list[int] = []
    sentence: list[int] = []
    c = k = 0
    for i, start in enumerate(starts):
        if i:
            gap = text[ends[i - 1] : start]
            if any(ch in SENTENCE_BREAK_CHARS for ch in gap):
                k += 1
                c += 1
            elif any(ch in CLAUSE_BREAK_CHARS for ch in gap) or " - " in gap:
                c += 1
        clause.append(c)
        sentence.append(k)
    return clause, sentence


# First lemmas of the multi-word synonyms: most tokens start none of them.
_MULTIWORD_FIRST: Final = frozenset(group[0] for group in MULTIWORD_SYNONYMS)


def _split_modal_conjuncts(lower: tuple[str, ...], clause: list[int]) -> list[int]:
    """A conjunct opened by a modal is a clause of its own: "the rash appears within 30
    days and may grow to 30 cm" hedges the growing, not the appearing."""
    out = list(clause)
    for i in range(1, len(lower) - 1):
        if lower[i] in COORDINATORS | {"but"} and lower[i + 1] in CONJUNCT_MODALS:
            for k in range(i, len(out)):  # the coordinator opens it: never a frame
                out[k] += 1
    return out


@lru_cache(maxsize=8192)
def profile(text: str) -> TextProfile:
    plain = text.replace("’", "'")
    found = list(JUDGE_TOKEN.finditer(plain))
    tokens = tuple(m.group(0) for m in found)
    clause, sentence = _clauses(plain, [m.start() for m in found], [m.end() for m in found])
    lower = tuple(_fold(t) for t in tokens)
    clause = _split_modal_conjuncts(lower, clause)
    lemmas = tuple(lemma(t) for t in lower)
    concepts = [SYNONYMS.get(lem, lem) for lem in lemmas]
    for i in range(len(lower)):
        if lemmas[i] not in _MULTIWORD_FIRST:
            continue
        for group in MULTIWORD_SYNONYMS:
            width = len(group)
            if tuple(lemmas[i : i + width]) == group:
                concepts[i] = SYNONYMS[" ".join(group)]
                for k in range(i + 1, i + width):
                    concepts[k] = ""
                break
    scope = _scope_markers(lower, tokens, clause)
    scope_positions = {m.position for m in scope if " " not in m.phrase}
    negations = _negations(lower)
    numbers = _numbers(tokens, lower)
    number_positions = {m.position + k for m in numbers for k in range(m.width)} | {
        m.position + 1
        for m in numbers
        if m.position + 1 < len(lower) and lower[m.position + 1] in MAGNITUDE_WORDS
    }  # "three hundred": both words are the number
    months = tuple(
        (w, i)
        for i, w in enumerate(lower)
        if w in MONTHS and (w != "may" or (tokens[i][0].isupper() and i > 0))
    )
    phrase_words = {
        i
        for i, w in enumerate(lower)
        if (w in BOUND_COMPARATIVES and i and lower[i - 1] == "no")  # "no more than"
        or w in {"rather", "instead"}  # "rather than just", read as a phrase
        or (w in {"least", "most"} and i and lower[i - 1] == "at")  # "at least": a bound
    }
    content = tuple(
        i
        for i, w in enumerate(lower)
        if concepts[i]
        and i not in phrase_words
        and w not in STOPWORDS
        and w[0].isalpha()
        and len(w) > 1
        and i not in scope_positions
        and i not in number_positions
        and i not in negations
        and w not in MONTHS
    )
    return TextProfile(
        text=text,
        tokens=tokens,
        lower=lower,
        lemmas=lemmas,
        concepts=tuple(concepts),
        content=content,
        numbers=tuple(numbers),
        months=months,
        entities=tuple(_entities(tokens, lower)),
        negations=tuple(negations),
        scope=tuple(scope),
        clause=tuple(clause),
        sentence=tuple(sentence),
        concept_set=frozenset(c for c in concepts if c),
        lemma_set=frozenset(lemmas),
        lower_set=frozenset(lower),
        part_concepts={
            concept(part): i
            for i in reversed(content)
            if "-" in lower[i]
            for part in lower[i].split("-")
            if len(part) > 2 and part not in STOPWORDS
        },
    )


def _word_in(claim: TextProfile, i: int, span: TextProfile) -> bool:
    c = claim.concepts[i]
    if c in span.concept_set or claim.lemmas[i] in span.lemma_set or c in span.part_concepts:
        return True
    if len(c) >= PREFIX_MATCH_MIN:
        stem = c[:PREFIX_MATCH_MIN]
        return any(
            s.startswith(stem) and (c.startswith(s) or s.startswith(c)) for s in span.concept_set
        )
    return False


def _span_positions(claim: TextProfile, i: int, span: TextProfile) -> list[int]:
    """Span content positions that match claim word ``i`` (the rules of ``_word_in``)."""
    c, lem = claim.concepts[i], claim.lemmas[i]
    stem = c[:PREFIX_MATCH_MIN] if len(c) >= PREFIX_MATCH_MIN else None
    out = []
    for k in span.content:
        s = span.concepts[k]
        if (
            s == c
            or span.lemmas[k] == lem
            or (stem and s.startswith(stem) and (c.startswith(s) or s.startswith(c)))
        ):
            out.append(k)
    if not out and c in span.part_concepts:
        out.append(span.part_concepts[c])  # "confirmed" in "laboratory-confirmed"
    return out


def _same_value(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9)


def _in_base(m: NumberMention) -> tuple[str, float] | None:
    """A quantity in its base unit ("3 centuries" → 300 years); not an ordinal ("the
    19th century") nor a year."""
    base = UNIT_IN_BASE.get(m.unit) if m.kind == "number" else None
    return (base[0], m.value * base[1]) if base else None


def _within_bound(c: NumberMention, value: float) -> bool:
    """Whether ``value`` lies inside the claim's bound, and within ``BOUND_REACH`` of it
    ("more than 2,300" for 2,316; "fewer than one in ten" for 8.4 percent)."""
    if c.bound == "lower":
        return c.value <= value <= c.value * BOUND_REACH
    return c.value / BOUND_REACH <= value <= c.value


def _beyond_bound(c: NumberMention, s: NumberMention) -> bool:
    """A span number on the open side of the claim's bound, too far to match it ("more
    than 100" against 2,316), or a span bound that implies nothing either way: neither
    supports nor contradicts."""
    if not c.bound:
        return False
    if s.bound:
        return True
    return s.value > c.value if c.bound == "lower" else s.value < c.value


def _number_matches(c: NumberMention, s: NumberMention) -> bool:
    if c.kind == "decade" or s.kind == "decade":
        if c.kind != "decade" or s.kind not in {"decade", "year"}:
            return False  # a year is more than a decade says
        lo, hi = _decade_years(c)
        inner = _decade_years(s) if s.kind == "decade" else (s.value, s.value)
        return lo <= inner[0] and inner[1] <= hi
    if c.unit and s.unit and c.unit != s.unit:
        cb, sb = _in_base(c), _in_base(s)
        if cb is None or sb is None or cb[0] != sb[0]:
            return False
        return _same_value(cb[1], sb[1]) or _number_matches(
            replace(c, value=cb[1], unit=cb[0]), replace(s, value=sb[1], unit=sb[0])
        )
    if _same_value(c.value, s.value):
        return True
    if c.kind == "number" and c.unit == "percent" and _same_value(c.value, s.value * 100):
        return True
    if "fraction" in (c.kind, s.kind) and c.kind != s.kind:
        return _share_matches(c, s)
    if c.bound and c.kind != "ordinal":
        if s.bound == c.bound:  # "more than 2,000" from "more than 2,300"
            return s.value >= c.value if c.bound == "lower" else s.value <= c.value
        return not s.bound and _within_bound(c, s.value)
    if c.approx and c.kind != "ordinal" and max(abs(c.value), abs(s.value)) > 0:
        return abs(c.value - s.value) / max(abs(c.value), abs(s.value)) <= APPROX_TOLERANCE
    return False


def _share_and_percent(a: NumberMention, b: NumberMention) -> bool:
    """A share in words and a percentage: two statements of one proportion."""
    kinds = {(a.kind, a.unit), (b.kind, b.unit)}
    return kinds == {("fraction", ""), ("number", "percent")}


def _share_matches(c: NumberMention, s: NumberMention) -> bool:
    """A share in words against a percentage ("a third" / "33 percent", "two thirds" /
    "67 percent"): equal to the rounding of a whole percent, or within the approximation
    tolerance when either side approximates. ("Half" is no share here: ``_fraction``.)"""
    if not _share_and_percent(c, s):
        return False
    share, percent = (c, s) if c.kind == "fraction" else (s, c)
    a, b = share.value * 100, percent.value
    if c.bound:  # "fewer than one in ten" for 8.4 percent
        claimed, stated = (a, b) if c is share else (b, a)
        return not s.bound and _within_bound(replace(c, value=claimed), stated)
    if abs(a - b) <= 0.5:
        return True
    return (c.approx or s.approx) and abs(a - b) / max(a, b) <= APPROX_TOLERANCE


def _quantity(m: NumberMention) -> tuple[str, float] | None:
    """(unit, value) of a count or an amount, in its base unit where it has one; None
    for a year, a rank or a share."""
    if m.kind != "number":
        return None
    return _in_base(m) or (m.unit, m.value)


def _precision(c: NumberMention) -> float:
    """The step of the claim's last digit, in the number's own scale ("2.7 million": 0.1
    million; "230": 1)."""
    written = _parse_number(c.raw) if _is_numeric(c.raw) else None
    if not written:
        return 1.0
    decimals = len(c.raw.partition(".")[2]) if "." in c.raw else 0
    return 10.0**-decimals * (c.value / written)


def _derived_close(c: NumberMention, value: float, factor: float) -> bool:
    """Whether a value worked out from the span (in base units: ``factor`` turns the
    claim's number into them) is the claim's number, as precisely as the claim gives it."""
    claimed = c.value * factor
    if c.bound:
        return _within_bound(replace(c, value=claimed), value)
    if c.approx:
        return abs(value - claimed) <= DERIVED_TOLERANCE * abs(claimed)
    return abs(value - claimed) <= _precision(c) * factor / 2 + 1e-9


def _says_arithmetic(claim: TextProfile) -> bool:
    """Whether the claim announces a number it worked out: a comparison, a change, a
    total or a gap ("twelve more than", "together cost", "four years after")."""
    return bool(claim.lower_set & ARITHMETIC_CUES) or bool(
        {claim.concepts[i] for i in claim.content} & ARITHMETIC_CONCEPTS
    )


def _announced(c: NumberMention, claim: TextProfile) -> bool:
    """Whether the claim may state ``c`` as worked out: a share or a percentage always; a
    count only where the claim announces arithmetic, since otherwise a sum is more
    likely a coincidence ("3 goals" against 5 goals and 2 penalties)."""
    return not (c.kind == "number" and c.unit != "percent") or _says_arithmetic(claim)


def _derived(
    c: NumberMention,
    claim: TextProfile,
    span: TextProfile,
    stated: Sequence[NumberMention] = (),
) -> bool:
    """Whether the claim's number is worked out from two of the span's: a sum or a
    difference of two amounts in one unit ("twelve more than in 2022" from 53 and 41;
    "190 properties" from 163 homes and 27 premises), the years between two years ("four
    years after" from 1854 and 1858), a ratio ("more than four times" from 58.3 and 12.7
    percent) or a share of one count in another ("roughly a fifth" from 212 of 1,050).
    Only the first ``DERIVED_TERMS_MAX`` numbers of the span are read, and ``stated``: the
    claim's other numbers that the span supports ("53 took part, twelve more than the 41
    of 2022" where the span gives 34 and 19). Whether the claim may say so is
    ``_announced``'s question."""
    terms = (*span.numbers[:DERIVED_TERMS_MAX], *stated)
    pairs = [
        (a, b)
        for x, a in enumerate(terms)
        for b in terms[x + 1 :]
        if c.approx or c.bound or not (a.rough or b.rough)
    ]  # "about 41" less "about 30" is about 11, never "exactly 11"
    after = claim.lower[c.position + 1] if c.position + 1 < len(claim.lower) else ""
    if c.kind == "fraction" or (c.kind == "number" and c.unit == "percent"):
        share = c.value if c.kind == "fraction" else c.value / 100
        for a, b in pairs:
            qa, qb = _quantity(a), _quantity(b)
            if qa is None or qb is None or qa[0] != qb[0] or qa[0] == "percent":
                continue
            small, whole = sorted((qa[1], qb[1]))
            if (
                whole > 0
                and small > 0
                and _derived_close(replace(c, value=share), small / whole, 1.0)
            ):
                return True
        if c.kind == "fraction":
            return False
    if c.kind != "number":
        return False
    if after in RATIO_WORDS or c.raw.lower().endswith("-fold"):
        for a, b in pairs:
            qa, qb = _quantity(a), _quantity(b)
            if (
                qa
                and qb
                and qa[0] == qb[0]
                and min(qa[1], qb[1]) > 0
                and _derived_close(c, max(qa[1], qb[1]) / min(qa[1], qb[1]), 1.0)
            ):
                return True
        return False
    base = _in_base(c)
    unit, factor = (base[0], base[1] / c.value) if base and c.value else (c.unit, 1.0)
    if unit == "year":
        years = [m.value for m in terms if m.kind == "year" and (c.approx or not m.rough)]
        if any(
            _derived_close(c, abs(x - y), factor)
            for i, x in enumerate(years)
            for y in years[i + 1 :]
        ):
            return True
    for a, b in pairs:
        qa, qb = _quantity(a), _quantity(b)
        if qa is None or qb is None or qa[0] != qb[0] or (unit and qa[0] != unit):
            continue
        if _derived_close(c, qa[1] + qb[1], factor) or _derived_close(
            c, abs(qa[1] - qb[1]), factor
        ):
            return True
    return False


def _fmt(m: NumberMention, text: TextProfile) -> str:
    """A number as the text words it, with its unit ("412 metres", "$40", "3 million
    tonnes"); the unit's canonical name only where the words cannot be found."""
    if not m.unit or m.unit in m.raw:
        return m.raw
    start = m.position + m.width
    if m.position > 0 and text.lower[m.position - 1] in {"$", "€", "£"}:
        return f"{text.tokens[m.position - 1]}{m.raw}"
    for end in range(start, min(start + 3, len(text.lower))):
        one = text.lower[end]
        two = f"{text.lower[end - 1]} {one}" if end > start else ""
        if UNIT_CANONICAL.get(one) == m.unit or UNIT_CANONICAL.get(two) == m.unit:
            words = " ".join(text.tokens[start : end + 1])
            return f"{m.raw}{words}" if words == "%" else f"{m.raw} {words}"
    return f"{m.raw} {m.unit}"


def _supported_number(c: NumberMention, claim: TextProfile, span: TextProfile) -> bool:
    if any(_number_matches(c, s) for s in span.numbers):
        return True
    if c.unit == "percent" and _same_value(c.value, 50.0) and "half" in span.lower_set:
        return True  # "50 percent of it" for "half pay" ("half" is not read as a number)
    return _announced(c, claim) and _derived(c, claim, span)


def _adverbial_first(claim: TextProfile, c: NumberMention) -> bool:
    """ "first" said of when, not of a rank ("an anomaly first picked up by magnetometry"):
    the span need not state it. "The first French winner" is a rank, as strong as a
    superlative."""
    if c.kind != "ordinal" or c.raw.lower() != "first":
        return False
    prev = claim.lower[c.position - 1] if c.position else ""
    return prev not in DETERMINERS and not prev.endswith("'s")


def _number_blockers(claim: TextProfile, span: TextProfile) -> list[Blocker]:
    out: list[Blocker] = []
    supported = {c.position for c in claim.numbers if _supported_number(c, claim, span)}
    stated = [c for c in claim.numbers if c.position in supported]
    for c in claim.numbers:
        if c.position in supported:
            continue
        if _derived(c, claim, span, stated):
            if not _announced(c, claim):
                # a sum or difference the claim does not announce: no conflict, no support
                out.append(
                    Blocker("number_unsupported", f"number_unsupported: {_fmt(c, claim)}", False)
                )
            continue
        same_value = [s for s in span.numbers if _same_value(s.value, c.value)]
        if same_value and c.unit and same_value[0].unit:
            other = same_value[0]
            out.append(
                Blocker(
                    "unit_mismatch", f"unit_mismatch: {_fmt(c, claim)} vs {_fmt(other, span)}", True
                )
            )
            continue
        rivals = [
            s
            for s in span.numbers
            if (
                (s.kind == c.kind and s.unit == c.unit)
                or _share_and_percent(c, s)
                or (c.kind == "decade" and s.kind == "year")
            )
            and not _beyond_bound(c, s)
        ]
        if rivals:
            nearest = min(
                rivals, key=lambda s: abs(math.log1p(abs(s.value)) - math.log1p(abs(c.value)))
            )
            out.append(
                Blocker(
                    "number_mismatch",
                    f"number_mismatch: {_fmt(c, claim)} vs {_fmt(nearest, span)}",
                    True,
                )
            )
        elif not _adverbial_first(claim, c):
            out.append(
                Blocker("number_unsupported", f"number_unsupported: {_fmt(c, claim)}", False)
            )
    span_days = span.lower_set & WEEKDAYS
    for day in sorted(claim.lower_set & WEEKDAYS - span_days):
        if span_days:  # a claim's weekday the span lacks is no conflict on its own
            nearest_day = sorted(span_days)[0]
            out.append(Blocker("date_mismatch", f"date_mismatch: {day} vs {nearest_day}", True))
    span_months = {m for m, _ in span.months}
    for month, _ in claim.months:
        if month in span_months:
            continue
        if span_months:
            nearest_month = sorted(span_months)[0]
            out.append(Blocker("date_mismatch", f"date_mismatch: {month} vs {nearest_month}", True))
        else:
            out.append(Blocker("date_unsupported", f"date_unsupported: {month}", False))
    return out


def _adjective_of(adjective: str, place: str) -> bool:
    """Whether ``adjective`` is the adjective of the place name ``place`` ("icelandic" of
    "iceland", "canadian" of "canada", "italian" of "italy")."""
    if len(place) < 4 or adjective == place:
        return False
    stems = (place, place[:-1]) if place.endswith(("a", "e", "y")) else (place,)
    return any(
        adjective.startswith(stem) and adjective[len(stem) :] in DEMONYM_ENDINGS for stem in stems
    )


def _demonym_of(word: str, span: TextProfile) -> bool:
    """Whether ``word`` is the adjective of a place the span names ("icelandic")."""
    return any(_adjective_of(word, name) for entity in span.entities for name in entity)


def _place_of(word: str, span: TextProfile) -> bool:
    """Whether ``word`` names a place whose adjective the span uses ("india" for a span
    that says "Indian")."""
    return any(_adjective_of(adjective, word) for entity in span.entities for adjective in entity)


def _initials(words: tuple[str, ...]) -> str:
    return "".join(w[0] for w in words if w)


def _given_name(claim: TextProfile, span: TextProfile) -> bool:
    """Whether the claim opens with a first name before a surname the span gives
    ("Tomasz Weller acknowledged …" / "… Weller said"): the names check reads the two
    together. "Prefer IVF over HNSW" opens with no name: its second word is an acronym."""
    if len(claim.tokens) < 2 or not claim.tokens[1][:1].isupper() or claim.tokens[1].isupper():
        return False
    second = claim.lower[1]
    return second in span.lower_set and any(e[:2] == tuple(claim.lower[:2]) for e in claim.entities)


def _entity_blockers(
    claim: TextProfile,
    span: TextProfile,
    resolved: frozenset[str] = frozenset(),
    context_entities: tuple[tuple[str, ...], ...] = (),
) -> list[Blocker]:
    """``resolved``: claim words a span pronoun or the context stands for, never
    missing. ``context_entities``: names in the context, rivals of a missing first word
    ("Hume held …" where the sentence before names Kant)."""
    out: list[Blocker] = []
    if (
        claim.tokens
        and claim.tokens[0][0].isupper()
        and (claim.lower[0],) not in claim.entities
        and not _given_name(claim, span)
        and claim.lower[0] not in resolved
    ):
        # A sentence-initial word may be a name ("Einstein developed …"); it counts as a
        # missing entity only when it is absent and the span names someone else instead.
        first = claim.lower[0]
        participle_opener = (
            first.endswith(("ing", "ed"))
            and len(claim.lower) > 1
            and (claim.lower[1] in STOPWORDS or claim.lower[1] in PARTICLES)
            and not claim.tokens[1][:1].isupper()
        )  # "Scanning the sky …", "Born in Ohio, …", "Setting aside …": not a name
        common_word = (
            claim.lemmas[0] in SYNONYMS
            or first in SENTENCE_OPENERS
            or first.endswith(ROLE_PLURAL_ENDINGS)
        )  # "Work on the scheme …", "Despite …", "Investigators could not …": no name
        number_word = (
            first in NUMBER_WORDS or first in ORDINAL_WORDS or _compound_number(first) is not None
        )  # "Twenty-one of the …": a number, which the number check reads
        absent = (
            not participle_opener
            and not common_word
            and not number_word
            and not (
                first in span.lower_set
                or claim.lemmas[0] in span.lemma_set
                or claim.concepts[0] in span.concept_set
                or first in STOPWORDS
                or first in SCOPE_MARKERS
                or first in NEGATION_WORDS
            )
        )
        rivals = [e for e in (*span.entities, *context_entities) if not set(e) & claim.lower_set]
        if absent and rivals:
            out.append(
                Blocker(
                    "entity_mismatch",
                    f"entity_mismatch: '{first}' not in span (the source names "
                    f"'{' '.join(rivals[0])}')",
                    False,
                )
            )
    span_entity_initials = {
        _initials(e[a:b])
        for e in span.entities
        for a in range(len(e))
        for b in range(a + 2, len(e) + 1)
    }  # "CFO" for "Chief Financial Officer Raj Mehta"
    for entity in claim.entities:
        present = [
            w in resolved
            or w in span.lower_set
            or lemma(w) in span.lemma_set
            or concept(w) in span.concept_set
            or _demonym_of(w, span)
            or _place_of(w, span)
            for w in entity
        ]
        if all(present):
            continue
        if len(entity) == 1 and entity[0] in span_entity_initials:
            continue  # "UN" for "United Nations"
        if len(entity) > 1 and _initials(entity) in span.lower_set:
            continue  # "United Nations" for "UN"
        if len(entity) > 1 and present[-1] and sum(present) >= 1:
            continue  # "Albert Einstein" for "Einstein"
        if present[0] and all(
            ok or w in ORGANISATION_SUFFIXES for w, ok in zip(entity, present, strict=True)
        ):
            continue  # "Halvorsen Therapeutics" for "Halvorsen"
        name = " ".join(w for w, ok in zip(entity, present, strict=True) if not ok)
        out.append(Blocker("entity_mismatch", f"entity_mismatch: '{name}' not in span", False))
    return out


def _scope_blockers(claim: TextProfile, span_markers: Sequence[ScopeMarker]) -> list[Blocker]:
    """``span_markers``: the span's scope markers that govern the claim's region."""
    out: list[Blocker] = []
    claim_by_dim: dict[str, list[ScopeMarker]] = {}
    for m in claim.scope:
        claim_by_dim.setdefault(m.dimension, []).append(m)
    span_by_dim: dict[str, list[ScopeMarker]] = {}
    for m in span_markers:
        span_by_dim.setdefault(m.dimension, []).append(m)
    span_phrases = {m.phrase for m in span_markers}
    # Hedges the claim introduced itself (a paraphrase may move a hedge to another word).
    own_hedges = [m for m in claim.scope if m.level < PLAIN_LEVEL and m.phrase not in span_phrases]
    for dim, in_dim in span_by_dim.items():
        # A span may hedge two propositions at two levels ("is thought to have been
        # altered, so its sound may differ"): each claim marker needs one as strong in
        # the span, and the span's weakest hedge needs one as weak in the claim.
        weakest = min(in_dim, key=lambda m: m.level)
        span_strongest = max(in_dim, key=lambda m: m.level)
        claim_markers = claim_by_dim.get(dim, [])
        if claim_markers:
            strongest = max(claim_markers, key=lambda m: m.level)
            claim_weakest = min(claim_markers, key=lambda m: m.level)
            if strongest.level > span_strongest.level:
                out.append(
                    Blocker(
                        "scope",
                        f"scope: claim says '{strongest.phrase}', "
                        f"span says '{span_strongest.phrase}'",
                        False,
                    )
                )
            elif claim_weakest.level > weakest.level and not any(
                h.level <= weakest.level for h in own_hedges
            ):
                out.append(
                    Blocker(
                        "scope",
                        f"scope: claim says '{claim_weakest.phrase}', span says '{weakest.phrase}'",
                        False,
                    )
                )
        elif weakest.level < PLAIN_LEVEL and not any(h.level <= weakest.level for h in own_hedges):
            out.append(
                Blocker("scope", f"scope: span hedges '{weakest.phrase}', claim drops it", False)
            )
    for dim, claim_markers in claim_by_dim.items():
        if dim in span_by_dim:
            continue
        strong = [m for m in claim_markers if m.level >= STRONG_LEVEL]
        if strong:
            out.append(
                Blocker("scope", f"scope: claim says '{strong[0].phrase}', span does not", False)
            )
    return out


# Claim quantifiers that state a share, and the shares (as fractions) they admit.
SHARE_QUANTIFIERS: Final[Mapping[str, tuple[float, float]]] = {
    "most": (0.5, 1.0),
    "mostly": (0.5, 1.0),
    "majority": (0.5, 1.0),
    "almost all": (0.8, 1.0),
    "nearly all": (0.8, 1.0),
    "minority": (0.0, 0.5),
}


def _span_shares(span: TextProfile) -> list[tuple[float, NumberMention]]:
    """The span's proportions as fractions: percentages and shares said in words."""
    out = []
    for m in span.numbers:
        if m.unit == "percent" and 0 <= m.value <= 100:
            out.append((m.value / 100, m))
        elif m.kind == "fraction" and 0 <= m.value <= 1:
            out.append((m.value, m))
    return out


def _head_after(p: TextProfile, k: int) -> str:
    """The lemma of the first word from ``k`` on past "of" and articles ("most of the
    participants" → "participant"); "" when there is none."""
    while k < len(p.lower) and p.lower[k] in {"of", "the", "a", "an", "all", "its", "their"}:
        k += 1
    return p.lemmas[k] if k < len(p.lower) else ""


def _past_of(p: TextProfile, m: NumberMention) -> int:
    """Where the group a proportion is of begins: past the figure, its unit and "of"
    ("38 percent of participants"); past the end when no "of" follows."""
    k = m.position + m.width
    if k < len(p.lower) and p.lower[k] in {"percent", "%", "per"}:
        k += 2 if p.lower[k] == "per" else 1
    return k + 1 if k < len(p.lower) and p.lower[k] == "of" else len(p.lower)


def _share_quantifier_blockers(
    claim: TextProfile, span: TextProfile, span_markers: Sequence[ScopeMarker]
) -> list[Blocker]:
    """ "Most participants were women" from "38 percent of participants were women": a
    claim quantifier that states a share the span's own figure, of the same group, does
    not reach. Only when the span says no quantifier of its own and every proportion it
    gives of the claim's group ("38 percent of participants") falls outside the
    quantifier's range; the claim then waits for a reviewer."""
    if any(m.dimension == "quantifier" for m in span_markers):
        return []
    shares = _span_shares(span)
    if not shares:
        return []
    for m in claim.scope:
        bounds = SHARE_QUANTIFIERS.get(m.phrase)
        if m.dimension != "quantifier" or bounds is None:
            continue
        head = _head_after(claim, m.position + len(m.phrase.split()))
        of_head = [
            (v, f) for v, f in shares if head and _head_after(span, _past_of(span, f)) == head
        ]
        low, high = bounds
        if of_head and all(not (low < value <= high) for value, _ in of_head):
            figure = of_head[0][1]
            return [
                Blocker(
                    "scope",
                    f"scope: claim says '{m.phrase}', span says {_fmt(figure, span)}",
                    False,
                )
            ]
    return []


def _is_superlative(lower: tuple[str, ...], i: int) -> bool:
    word = lower[i]
    if word in {"best", "worst", "least"}:
        return True
    if not word.endswith("est") or len(word) < 6 or word in NOT_SUPERLATIVES:
        return False
    prev = lower[i - 1] if i else ""
    return prev in {"the", "its", "their", "his", "her", "our", "my", "your"} or prev.endswith("'s")


def _superlative_blockers(claim: TextProfile, span: TextProfile) -> list[Blocker]:
    """A superlative the span does not state ("the longest bridge") strengthens it."""
    span_superlatives = {
        span.concepts[k] for k in range(len(span.lower)) if _is_superlative(span.lower, k)
    }
    for i in range(len(claim.lower)):
        if (
            _is_superlative(claim.lower, i)
            and claim.lower[i] not in span.lower_set
            and claim.concepts[i] not in span_superlatives  # "the biggest" / "the largest"
        ):
            word = claim.tokens[i]
            return [Blocker("scope", f"scope: claim says '{word}', span does not", False)]
    return []


@dataclass(frozen=True)
class _Comparison:
    """One comparison within a clause: <left> … more/less <adj> (or <adj>-er) than <right>."""

    left: frozenset[str]  # concepts of the content words before the comparative
    right: frozenset[str]  # … after "than"
    head: str  # the comparative's concept ("more", "less", "high", …)
    positions: frozenset[int]  # the comparative's tokens


def _comparison_in(p: TextProfile) -> _Comparison | None:
    """The text's one comparison with "than", if it has exactly one and it compares two
    things (not a quantity: "more than 90 percent", "rather than", "other than")."""
    thans = [
        t
        for t, w in enumerate(p.lower)
        if w == "than" and t > 0 and p.lower[t - 1] not in {"rather", "other"}
    ]
    if len(thans) != 1:
        return None
    t = thans[0]
    nxt = p.lower[t + 1] if t + 1 < len(p.lower) else ""
    if not nxt or nxt[:1].isdigit() or nxt in NUMBER_WORDS:
        return None
    window = range(max(0, t - 3), t)
    heads = [k for k in window if p.lower[k] in COMPARATIVE_HEADS and p.clause[k] == p.clause[t]]
    if heads:
        start = heads[-1]
    elif p.lower[t - 1].endswith("er") and p.lower[t - 1] not in STOPWORDS:
        start = t - 1
    else:
        return None
    clause = p.clause[t]
    left = frozenset(p.concepts[i] for i in p.content if i < start and p.clause[i] == clause)
    right = frozenset(p.concepts[i] for i in p.content if i > t and p.clause[i] == clause)
    if not left or not right:
        return None
    return _Comparison(left, right, concept(p.lower[start]), frozenset(range(start, t)))


def _comparison(claim: TextProfile, span: TextProfile) -> tuple[str, frozenset[int]]:
    """How the claim's comparison relates to the span's: ``"reversed"`` (the two things
    swapped, the same comparative: a contradiction), ``"mirrored"`` (swapped with the
    opposite comparative: the same statement) or ``""``; and the claim's comparative
    positions."""
    c, s = _comparison_in(claim), _comparison_in(span)
    if c is None or s is None:
        return "", frozenset()
    swapped = bool(c.right & s.left) and bool(c.left & s.right) and not (c.right & s.right)
    if not swapped:
        return "", frozenset()
    if c.head == s.head:
        return "reversed", c.positions
    if is_antonym(c.head, s.head):
        return "mirrored", c.positions
    return "", frozenset()


def _opposed(claim: TextProfile, i: int, span: TextProfile, k: int) -> bool:
    """Antonyms, also as the differing part of hyphenated compounds ("slowest-growing"
    vs "fastest-growing")."""
    if is_antonym(claim.concepts[i], span.concepts[k]):
        return True
    a, b = claim.lower[i].split("-"), span.lower[k].split("-")
    if len(a) < 2 or len(a) != len(b):
        return False
    differ = [
        (concept(x), concept(y)) for x, y in zip(a, b, strict=True) if concept(x) != concept(y)
    ]
    return len(differ) == 1 and is_antonym(*differ[0])


def _bounds_number(p: TextProfile, k: int) -> bool:
    """Whether the word at ``k`` only bounds a number ("at least a 75% improvement",
    "more than four times"): no antonym of a comparative the other side states."""
    word = p.lower[k]
    if word in {"least", "most"}:
        return k > 0 and p.lower[k - 1] == "at"
    if word in BOUND_COMPARISON_SIDES and k + 1 < len(p.lower) and p.lower[k + 1] == "than":
        return any(m.position in (k + 2, k + 3) for m in p.numbers)
    return False


def _echoed(span: TextProfile, claim_of: Mapping[int, Sequence[int]]) -> set[int]:
    """Span positions whose claim words the span also states, in the same word, in a
    clause with no negation: a negation over them bears on another matter ("Kestrel did
    not repurchase any shares in the quarter" beside "repaid $50 million during the
    quarter"; "context that could never be recovered" beside "the recovery was commercial
    salvage")."""
    negated = {span.clause[k] for k in span.negations}
    positions: dict[int, set[int]] = {}
    for k, ids in claim_of.items():
        for i in ids:
            positions.setdefault(i, set()).add(k)
    return {
        k
        for k, ids in claim_of.items()
        if ids
        and span.clause[k] in negated
        and all(
            any(
                span.clause[q] != span.clause[k]
                and span.clause[q] not in negated
                and span.lemmas[q] == span.lemmas[k]
                for q in positions[i]
            )
            for i in ids
        )
    }


def _negation_bears(span: TextProfile, k: int, aligned: AbstractSet[int]) -> bool:
    """A forward-scoping span negation bears on the claim only when a claim-aligned word
    follows it in its clause before a contrast ("not X but Y", "Y rather than X")."""
    if not _forward(span.lower[k]):
        return True
    if any(w in TRUTH_PREDICATES for w in span.lower[k + 1 : k + 3]):
        return True
    return _first_aligned_after(span, k, aligned, passed_over=frozenset()) is not None


def _forward(word: str) -> bool:
    """A negation that scopes what follows it ("not", "never", "don't")."""
    return word in FORWARD_NEGATIONS or word.endswith("n't")


def _first_aligned_after(
    p: TextProfile,
    k: int,
    aligned: AbstractSet[int],
    passed_over: AbstractSet[str] = ATTRIBUTION_LEMMAS,
) -> int | None:
    """The first ``aligned`` position after the negation at ``k`` in its clause, before
    a contrast: the word the negation bears on. Aligned words whose lemma is in
    ``passed_over`` are read past ("cannot say whether": the negation bears on what is
    said)."""
    for j in range(k + 1, len(p.lower)):
        if p.clause[j] != p.clause[k] or p.lower[j] in CONTRAST_WORDS:
            return None
        if j in aligned and p.lemmas[j] not in passed_over:
            return j
    return None


def _negated_in_claim(claim: TextProfile, i: int) -> bool:
    """Whether a claim negation comes before the claim's word ``i`` in its clause."""
    return any(n < i and claim.clause[n] == claim.clause[i] for n in claim.negations)


def _polarity_blockers(
    claim: TextProfile,
    span: TextProfile,
    region: Sequence[int],
    unmatched: list[int],
    aligned: AbstractSet[int] = frozenset(),
    mirrored: AbstractSet[int] = frozenset(),
    relevant: AbstractSet[int] = frozenset(),
    claim_of: Mapping[int, Sequence[int]] | None = None,
) -> tuple[list[Blocker], int]:
    """Polarity conflict (if any) and how many unmatched claim words are span antonyms.

    ``region``: span token positions that govern the claim (see ``_claim_region``); a
    forward negation anywhere in a ``relevant`` clause bears too when the claim's words
    follow it ("It does not by itself determine how much the couriers are owed").
    ``aligned``: span positions matched by claim words; such a word is not also the
    antonym of another claim word ("From its opening until … was finished" / "When it
    opened"). ``mirrored``: claim comparatives of a comparison the span states the other
    way round ("less faithfully than northern speech" / "northern speech … more
    faithfully than"), which agree with the span's opposite comparative. ``claim_of``:
    for a span position, the claim words aligned to it.

    A forward negation on each side that bears on none of the words the two share is a
    paraphrase of one another ("do not lead to illness" / "don't make people ill"): the
    pair cancels. A span negation that bears on a shared word the claim states without
    a negation is a conflict even when both sides count the same negations ("are not
    routinely recommended … unless symptoms develop" / "are routinely recommended …
    even when no symptoms")."""
    region_lower = {span.lower[k]: k for k in region}
    flips: list[tuple[str, str]] = []
    for i in unmatched:
        if i in mirrored or _bounds_number(claim, i):
            continue
        for k in region:
            if k in aligned or _bounds_number(span, k):
                continue
            if span.concepts[k] and _opposed(claim, i, span, k):
                flips.append((claim.tokens[i], span.tokens[k]))
                break
    polar_flips = []
    for i, word in enumerate(claim.lower):
        opposite = POLAR_FUNCTION_WORDS.get(word)
        if opposite and word not in region_lower and opposite in region_lower:
            polar_flips.append((claim.tokens[i], span.tokens[region_lower[opposite]]))
    all_flips = flips + polar_flips
    region_set = set(region)
    claim_of = claim_of or {}
    bearing = set(aligned) - _echoed(span, claim_of)
    span_negs = [
        k
        for k in span.negations
        if (k in region_set or (_forward(span.lower[k]) and span.clause[k] in relevant))
        and _negation_bears(span, k, bearing)
    ]
    claim_negs = list(claim.negations)
    claim_aligned = {i for ids in claim_of.values() for i in ids}
    span_idle = [
        k
        for k in span.negations
        if _forward(span.lower[k])
        and (k in region_set or span.clause[k] in relevant)
        and k not in span_negs
    ]
    claim_idle = [
        i
        for i in claim_negs
        if _forward(claim.lower[i]) and _first_aligned_after(claim, i, claim_aligned) is None
    ]
    paired = claim_idle[: len(span_idle)]
    for i in paired:
        claim_negs.remove(i)
    # The same negation in the same words on both sides ("… and in those who had not (63
    # percent)"): a claim negation that bears on no word it shares with the span, where the
    # span says the same word after the same word, is the span's own, not a conflict.
    span_said = {(span.lower[k - 1], span.lower[k]) for k in span.negations if k > 0}
    for i in claim_idle[len(paired) :]:
        if i > 0 and (claim.lower[i - 1], claim.lower[i]) in span_said:
            claim_negs.remove(i)
    negation_mismatch = (len(claim_negs) % 2) != (len(span_negs) % 2)
    if not negation_mismatch and claim_negs and len(all_flips) % 2 == 0:
        for k in span_negs:
            if not _forward(span.lower[k]):
                continue
            target = _first_aligned_after(span, k, aligned)
            words = claim_of.get(target, ()) if target is not None else ()
            said = {claim.concepts[i] for i in words} - {""}
            same = [j for j, c in enumerate(claim.concepts) if c in said] or list(words)
            # a repeated word ("that increase … rather than a rise")
            if words and not any(_negated_in_claim(claim, i) for i in same):
                note = (
                    f"negation: span says '{span.tokens[k]}' of '{claim.tokens[words[0]]}', "
                    "claim does not"
                )
                return [Blocker("negation", note, True)], len(flips)
    antonym_flip = len(all_flips) % 2 == 1
    if negation_mismatch == antonym_flip:
        return [], len(flips)
    if antonym_flip:
        a, b = all_flips[0]
        return [Blocker("antonym", f"antonym: claim '{a}' vs span '{b}'", True)], len(flips)
    if len(span_negs) % 2:
        cue = span.tokens[span_negs[0]]
        note = f"negation: span says '{cue}', claim does not"
    else:
        note = f"negation: claim says '{claims_cue(claim, claim_negs)}', span does not"
    return [Blocker("negation", note, True)], len(flips)


def claims_cue(claim: TextProfile, negs: list[int]) -> str:
    return claim.tokens[negs[0]]


def _relevant_clauses(span: TextProfile, support: Mapping[Aligned, list[int]]) -> set[int]:
    """Greedy cover: clauses that state something of the claim nothing else already does.

    ``support`` maps each aligned claim item (word or number) to its span positions."""
    by_clause: dict[int, set[Aligned]] = {}
    for item, positions in support.items():
        for k in positions:
            by_clause.setdefault(span.clause[k], set()).add(item)
    chosen: set[int] = set()
    covered: set[Aligned] = set()
    while True:
        best = max(
            sorted(by_clause),
            key=lambda c: len(by_clause[c] - covered),
            default=None,
        )
        if best is None or not by_clause[best] - covered:
            return chosen
        chosen.add(best)
        covered |= by_clause[best]


def _clause_positions(span: TextProfile) -> dict[int, list[int]]:
    out: dict[int, list[int]] = {}
    for k, c in enumerate(span.clause):
        out.setdefault(c, []).append(k)
    return out


def _frames(span: TextProfile, relevant: set[int]) -> set[int]:
    """Short clauses in a sentence with a relevant clause: they scope the whole sentence."""
    sentences = {span.sentence[k] for k, c in enumerate(span.clause) if c in relevant}
    marker_positions = {m.position + j for m in span.scope for j in range(len(m.phrase.split()))}
    content_by_clause: dict[int, int] = {}
    for k in span.content:
        if k not in marker_positions:
            content_by_clause[span.clause[k]] = content_by_clause.get(span.clause[k], 0) + 1
    out = set()
    for c, positions in _clause_positions(span).items():
        if c in relevant or span.sentence[positions[0]] not in sentences:
            continue
        if span.lower[positions[0]] in COORDINATORS:
            continue
        if content_by_clause.get(c, 0) <= FRAME_MAX_CONTENT:
            out.add(c)
    return out


def _concessive(span: TextProfile, clause: int) -> bool:
    first = next(k for k, c in enumerate(span.clause) if c == clause)
    return span.lower[first] in CONCESSIVE_OPENERS


def _quantifies_claim(span: TextProfile, m: ScopeMarker, aligned: set[int]) -> bool:
    """A level 2-3 quantifier hedges the claim only if it counts a word the claim has."""
    end = m.position + len(m.phrase.split())
    following = [k for k in span.content if k >= end and span.clause[k] == span.clause[end - 1]]
    following = following[:QUANTIFIED_WORDS]
    return not following or any(k in aligned for k in following)


def _claim_states_hedged_number(claim: TextProfile, span: TextProfile, m: ScopeMarker) -> bool:
    """An approximator ("about 60 kilometres") hedges the number it precedes and nothing
    else: it bears on the claim only where the claim states that number. A claim that
    leaves the quantity out ("sent over a line between Washington and Baltimore") drops
    no hedge; one that states it as exact ("60 kilometres") does."""
    hedged = [s for s in span.numbers if s.position in (m.position + 1, m.position + 2)]
    if not hedged:
        quantity = next(
            (w for w in span.lower[m.position + 1 : m.position + 3] if w not in STOPWORDS), ""
        )  # "roughly half of that improvement": the claim must say "half"
        return not quantity or quantity in claim.lower_set
    return any(
        _same_value(c.value, s.value) or _number_matches(c, s)
        for c in claim.numbers
        for s in hedged
    )


def _markers_in_force(
    claim: TextProfile,
    span: TextProfile,
    relevant: set[int],
    frames: set[int],
    aligned: set[int],
    attributed: bool = False,
) -> list[ScopeMarker]:
    """The span's scope markers that bear on the claim. ``attributed``: the claim
    attributes its proposition itself ("Kant held that …"), so the span's attribution
    verbs ("proposed", "argued") are not hedges it dropped. An approximator bears on it
    only where the claim states the number it hedges."""
    scope = [
        m
        for m in span.scope
        if not (attributed and m.dimension == "evidence" and lemma(m.phrase) in ATTRIBUTION_LEMMAS)
        and (m.dimension != "quantity" or _claim_states_hedged_number(claim, span, m))
    ]
    if not relevant:
        return scope
    sentences = {span.sentence[k] for k, c in enumerate(span.clause) if c in relevant}
    out = []
    for m in scope:
        clause = span.clause[m.position]
        concession = (
            m.dimension in SENTENCE_WIDE_DIMENSIONS
            and span.sentence[m.position] in sentences
            and _concessive(span, clause)
        )
        if not (clause in relevant or clause in frames or concession):
            continue
        counts_other = m.dimension == "quantifier" and 1 < m.level < PLAIN_LEVEL
        # in a short neighbouring clause any quantifier counts that clause's own nouns
        # ("Some critics disliked it, but the film won …")
        in_frame_only = m.dimension == "quantifier" and clause not in relevant
        if (counts_other or in_frame_only) and not _quantifies_claim(span, m, aligned):
            continue
        if m.phrase in MODAL_AUXILIARIES and _governs_unsaid(span, m.position, aligned):
            continue
        out.append(m)
    return out


def _governs_unsaid(span: TextProfile, k: int, aligned: AbstractSet[int]) -> bool:
    """Whether the modal at ``k`` hedges only words the claim does not state: "should
    not be paying a premium of over six thousand pounds" hedges nothing of "Cllr
    Fenwick voted against". Its reach is the first ``MODAL_REACH`` content words after it
    in its clause ("not", "be", "have" passed over); a claim word among them, or a clause
    that ends first, keeps the hedge."""
    seen = 0
    for j in range(k + 1, len(span.lower)):
        if span.clause[j] != span.clause[k] or j in aligned:
            return False
        if span.lower[j] in STOPWORDS or span.lower[j] in NEGATION_WORDS:
            continue
        seen += 1
        if seen == MODAL_REACH:
            return True
    return False


# What "none of …" / "neither of …" picks out when it opens a clause about a group.
PARTITIVE_HEADS: Final = frozenset({"which", "whom", "them", "these", "those", "us"})


def _claim_region(
    span: TextProfile, relevant: set[int], frames: set[int], aligned: set[int]
) -> list[int]:
    """Span positions whose negations and antonyms bear on the claim: the relevant
    clauses around their aligned words (a few tokens before the first, after the last),
    plus the frames of their sentences. Nothing aligned: the whole span."""
    if not relevant:
        return list(range(len(span.lower)))
    region: set[int] = set()
    content = set(span.content)
    for c, positions in _clause_positions(span).items():
        if c in frames:
            region.update(positions)
        elif c in relevant:
            hits = [k for k in positions if k in aligned]
            lo = max(positions[0], min(hits) - REGION_BEFORE)
            # REGION_AFTER tokens after the last aligned word, or its REGION_AFTER content
            # words when articles and prepositions come first ("ended 2025 with a surplus")
            after = [k for k in positions if k > max(hits) and k in content][:REGION_AFTER]
            hi = min(positions[-1], max([max(hits) + REGION_AFTER, *after]))
            region.update(range(lo, hi + 1))
            # "none of which the investigators judged to be related": a negation that
            # picks out the members of a group scopes the whole clause after it.
            region.update(
                k
                for k in positions
                if k < lo
                and k in span.negations
                and tuple(span.lower[k + 1 : k + 2]) == ("of",)
                and k + 2 < len(span.lower)
                and span.lower[k + 2] in PARTITIVE_HEADS
            )
    return sorted(region)


def _pronoun_subject(
    claim: TextProfile, span: TextProfile, matched: list[int], support: Mapping[Aligned, list[int]]
) -> tuple[list[int], str]:
    """Claim subject words a span-initial pronoun stands for, and a note.

    Only when the span opens with a subject pronoun (no content word before it), the
    claim opens with at most PRONOUN_SUBJECT_MAX_WORDS uncovered words, the claim's next
    word is found right after the pronoun ("It anchors…" / "Giant kelp anchors…"), and
    the pronoun agrees (he/she: a named person; they: a plural; it: a singular)."""
    first_content = span.content[0] if span.content else len(span.lower)
    pronouns = [k for k in range(first_content) if span.lower[k] in SUBJECT_PRONOUNS]
    if not pronouns or not matched:
        return [], ""
    k0 = pronouns[0]
    head = min(matched)
    subject = [i for i in claim.content if i < head]
    if not subject or len(subject) > PRONOUN_SUBJECT_MAX_WORDS:
        return [], ""
    # A negation or a number in or before the subject ("No wall …", "In 1998 the wall
    # …") leaves it unclear what the pronoun stands for; one after it is the predicate's
    # ("The wall is 412 metres long" / "It is 412 metres long"), which the number and
    # polarity checks read as they read any other claim.
    if any(i <= subject[-1] for i in (*claim.negations, *(m.position for m in claim.numbers))):
        return [], ""
    if not any(k0 < k <= k0 + PRONOUN_PREDICATE_GAP for k in support.get(("w", head), [])):
        return [], ""
    kind = SUBJECT_PRONOUNS[span.lower[k0]]
    last = claim.lower[subject[-1]]
    named = any(set(claim.lower[i] for i in subject) & set(e) for e in claim.entities) or (
        subject[0] == 0 and any(claim.tokens[i][0].isupper() for i in subject[1:])
    )
    plural = last.endswith("s") and not last.endswith(("ss", "us", "is"))
    if kind == "person" and not named:
        return [], ""
    if kind == "plural" and not plural:
        return [], ""
    if kind == "thing" and plural:
        return [], ""
    words = " ".join(claim.tokens[subject[0] : subject[-1] + 1])
    return subject, f"'{span.tokens[k0]}' read as '{words}'"


def _attributes(profile_: TextProfile, verbs: frozenset[str] = ATTRIBUTION_LEMMAS) -> bool:
    """The text attributes a proposition ("X held that", "According to X", "put forward")."""
    return any(lem in verbs for lem in profile_.lemmas) or any(
        profile_.concepts[i] in verbs for i in profile_.content
    )


def _context_names(claim: TextProfile, context_text: str) -> frozenset[str]:
    """Words of the claim's names (entities, a capitalised first word) that the
    context — the source title and the sentence before the span — gives: a span that
    says "the light" or "he" may stand for them. Names only: support must still come
    from the span."""
    if not context_text.strip():
        return frozenset()
    context = profile(context_text)
    words = {w for entity in claim.entities for w in entity}
    if claim.tokens and claim.tokens[0][:1].isupper():
        words.add(claim.lower[0])
    return frozenset(
        w
        for w in words
        if w not in STOPWORDS and (w in context.lower_set or lemma(w) in context.lemma_set)
    )


def _question_blockers(span_text: str, span: TextProfile) -> list[Blocker]:
    """A span of one sentence that asks ("Are polar bear populations increasing?")
    states nothing: it entails neither the claim nor its negation."""
    if span.sentence and span.sentence[-1] == 0 and span_text.rstrip(" .\"'”’)").endswith("?"):
        return [Blocker("scope", "question: the span asks, it does not state", False)]
    return []


def compare(claim_text: str, span_text: str, context_text: str = "") -> Comparison:
    """How far ``span_text`` covers ``claim_text`` and what blocks it being entailed.
    ``context_text`` (title and the sentence before the span) may only supply names."""
    claim = profile(claim_text)
    span = profile(span_text)
    matched: list[int] = []
    unmatched: list[int] = []
    support: dict[Aligned, list[int]] = {}
    seen_concepts: set[str] = set()
    for i in claim.content:
        if claim.concepts[i] in seen_concepts:
            continue
        seen_concepts.add(claim.concepts[i])
        if _word_in(claim, i, span):
            matched.append(i)
            support[("w", i)] = _span_positions(claim, i, span)
        else:
            unmatched.append(i)
    for n, c in enumerate(claim.numbers):
        hits = [s.position for s in span.numbers if _number_matches(c, s)]
        if hits:
            support[("n", n)] = hits
    resolved_subject, resolved_note = _pronoun_subject(claim, span, matched, support)
    if resolved_subject:
        matched.extend(i for i in unmatched if i in resolved_subject)
        unmatched = [i for i in unmatched if i not in resolved_subject]
    named = _context_names(claim, context_text)
    from_context = [i for i in unmatched if claim.lower[i] in named]
    if from_context:
        matched.extend(from_context)
        unmatched = [i for i in unmatched if i not in from_context]
        words = " ".join(claim.tokens[i] for i in from_context)
        resolved_note = "; ".join(n for n in (resolved_note, f"'{words}' from the context") if n)
    attributed = _attributes(claim) or _attributes(claim, STANCE_LEMMAS)
    if _attributes(claim, REPORTING_LEMMAS) and _attributes(span, REPORTING_LEMMAS):
        reporting = [i for i in unmatched if claim.lemmas[i] in REPORTING_LEMMAS]
        matched.extend(reporting)
        unmatched = [i for i in unmatched if i not in reporting]
    aligned = {k for positions in support.values() for k in positions}
    relevant = _relevant_clauses(span, support)
    frames = _frames(span, relevant)
    region = _claim_region(span, relevant, frames, aligned)
    markers = _markers_in_force(claim, span, relevant, frames, aligned, attributed)
    relation, comparative = _comparison(claim, span)
    claim_of: dict[int, list[int]] = {}  # span position -> the claim words aligned to it
    for (kind, index), positions in support.items():
        at = claim.numbers[index].position if kind == "n" else index
        for k in positions:
            claim_of.setdefault(k, []).append(at)
    polarity, flipped = _polarity_blockers(
        claim,
        span,
        region,
        unmatched,
        aligned,
        mirrored=comparative if relation == "mirrored" else frozenset(),
        relevant=relevant,
        claim_of=claim_of,
    )
    if relation == "reversed":
        words = " ".join(claim.tokens[i] for i in sorted(comparative))
        note = f"comparison reversed: the span compares the other way round ('{words}')"
        polarity.append(Blocker("antonym", note, True))
    total = len(matched) + len(unmatched)
    # Antonyms are aligned words with opposite meaning: covered, and vetoed by polarity.
    coverage = (len(matched) + flipped) / total if total else 0.0
    resolved_words = frozenset(claim.lower[i] for i in resolved_subject) | named
    blockers = [
        *_question_blockers(span_text, span),
        *polarity,
        *_number_blockers(claim, span),
        *_scope_blockers(claim, markers),
        *_share_quantifier_blockers(claim, span, markers),
        *_superlative_blockers(claim, span),
        *_entity_blockers(
            claim,
            span,
            resolved_words,
            profile(context_text).entities if context_text.strip() else (),
        ),
    ]
    return Comparison(
        coverage=coverage,
        content_words=total,
        uncovered=tuple(claim.tokens[i] for i in unmatched),
        blockers=tuple(blockers),
        resolved=resolved_note,
    )
