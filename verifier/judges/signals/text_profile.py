"""What the judge reads of one text, once: ``profile(text)`` and its ``TextProfile``.

Tokens, lowercase forms, lemmas and concepts (a multi-word synonym folded into its first
word), content words, clause and sentence ids, and the readers behind them: numbers
(``NumberMention``: counts, years, ordinals, decades and shares said in words, with their
units, bounds and approximators), names, negations and scope markers (``ScopeMarker``).
The word lists these readers use live here, as do the few that other modules of the
package use too (``WEEKDAYS``, ``DETERMINERS``, ``COORDINATORS``, ``BOUND_COMPARISON_SIDES``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Final

from verifier.judges.lexicon import (
    APPROXIMATORS,
    FRACTION_DENOMINATORS,
    FRACTION_DENOMINATORS_PLURAL,
    MAGNITUDE_WORDS,
    MONTHS,
    MULTIWORD_SYNONYMS,
    NUMBER_WORDS,
    ORDINAL_WORDS,
    ROUGH_APPROXIMATORS,
    SCOPE_MARKERS,
    SCOPE_MAX_WORDS,
    STRONG_LEVEL,
    SYNONYMS,
    UNIT_CANONICAL,
    concept,
    lemma,
)
from verifier.text.hedges import QUANTITY_HEDGES
from verifier.text.negations import NEGATION_WORDS, NON_NEGATION_PHRASES
from verifier.text.stopwords import STOPWORDS
from verifier.text.words import JUDGE_TOKEN, strip_diacritics

ENTITY_CONNECTORS = frozenset({"of", "the", "de", "del", "da", "van", "von", "der", "la", "le"})
HOLDING_BACK = frozenset(
    (verb, particle) for verb in ("hold", "holds", "held", "holding") for particle in ("off",)
) | frozenset((verb, "from") for verb in ("refrain", "refrains", "refrained", "refraining"))
UNTIL_REACH = 5  # tokens from "not" to the "until" that makes it "only then"
WEEKDAYS = frozenset({"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"})
NOT_ENTITIES = frozenset({"i"} | WEEKDAYS | MONTHS | set(UNIT_CANONICAL))
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
# Where clauses and sentences break between tokens (``_clauses``); which clauses bear
# on the claim is for ``regions`` to say.
CLAUSE_BREAK_CHARS = frozenset(",;:()[]—–.!?\n")
SENTENCE_BREAK_CHARS = frozenset(".!?\n")
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
DECADE_PARTS = {"early": (0, 3), "mid": (3, 7), "late": (6, 9)}  # years into the decade
DECADE_TOKEN = re.compile(r"(early|mid|late)-(\d{3}0)s")  # "mid-1860s" as one token
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
COPULAS = frozenset({"is", "are", "was", "were", "be", "been", "being", "become", "became"})
DETERMINERS = frozenset({"the", "its", "their", "his", "her", "our", "my", "your", "a", "an"})
# Markers with a physical sense before a preposition: "appeared in 1725" (showed up, not
# "seemed"), "settled on the grass" (came to rest, not "the question is settled").
PHYSICAL_SENSE_MARKERS = frozenset({"appear", "appears", "appeared", "settled"})
PHYSICAL_SENSE_NEXT = frozenset(
    {"in", "on", "at", "into", "onto", "near", "during", "before", "after", "from", "with"}
    | {"under", "as", "first", "over", "across", "along", "between", "within", "around"}
)
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


def is_numeric(tok: str) -> bool:
    return tok[0].isdigit()


def parse_number(tok: str) -> float | None:
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


def compound_number(tok: str) -> float | None:
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


def forward(word: str) -> bool:
    """A negation that scopes what follows it ("not", "never", "don't")."""
    return word in FORWARD_NEGATIONS or word.endswith("n't")


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
        if forward(tok) and "until" in lower[i + 1 : i + 1 + UNTIL_REACH]:
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
    if is_numeric(tok):
        return parse_number(tok)
    if tok in NUMBER_WORDS:
        return float(NUMBER_WORDS[tok])
    return compound_number(tok)


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
    the claim means is kept in the written form (``decade_years``)."""
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


def decade_years(m: NumberMention) -> tuple[float, float]:
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


def _numbers(
    tokens: tuple[str, ...], lower: tuple[str, ...], dashed: AbstractSet[int] = frozenset()
) -> list[NumberMention]:
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
        if is_numeric(tok):
            value = parse_number(tok)
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
        elif (compound := compound_number(tok)) is not None:
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
    ranged = _range_units(out, lower, dashed)
    return [replace(m, rough=_rough(lower, m.position)) for m in ranged]


RANGE_JOINERS = frozenset({"to", "-", "–", "—", "or"})


def _range_units(
    mentions: list[NumberMention], lower: tuple[str, ...], dashed: AbstractSet[int]
) -> list[NumberMention]:
    """The first number of a range takes the unit said after the second ("two to three
    metres", "between 2 and 3 metres", "4 or 5 days"): it is a quantity of that unit, not a
    bare number that any "2 years" matches. ``dashed``: the tokens a dash joins to the next
    ("2-3 metres", "2 – 3 metres"), which are no range without it ("61 (110 cm)")."""
    out = list(mentions)
    for k in range(len(out) - 1):
        a, b = out[k], out[k + 1]
        if a.unit or not b.unit or a.kind != "number" or b.kind != "number":
            continue
        after = a.position + a.width
        if b.position == after and after - 1 in dashed:  # "2-3 metres": no dash token
            out[k] = replace(a, unit=b.unit)
            continue
        if b.position != after + 1:
            continue
        joiner = lower[after]
        between = joiner == "and" and a.position > 0 and lower[a.position - 1] == "between"
        if joiner in RANGE_JOINERS or between:
            out[k] = replace(a, unit=b.unit)
    return out


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
    dashed = frozenset(
        k
        for k in range(len(found) - 1)
        if plain[found[k].end() : found[k + 1].start()].strip() in {"-", "–", "—"}
    )
    numbers = _numbers(tokens, lower, dashed)
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
