"""Numbers, dates and units: whether the span states each of the claim's numbers.

The same value, within the claim's bound or approximation, in another unit, or worked
out from two of the span's own (a sum, a difference, a ratio, a share);
``number_blockers`` for the numbers it does not state, and for weekdays and months.
``claim_states_hedged_number``: whether a span approximator bears on the claim.
``other_fact``: a span about another fact (framed by another year or date, or about
another numbered thing: "Pier 4" for "Pier 3"), whose numbers neither support nor
contradict the claim's.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace

from verifier.judges.lexicon import (
    IRREGULAR_LEMMAS,
    MAGNITUDE_WORDS,
    MONTHS,
    NUMBER_WORDS,
    UNIT_CANONICAL,
    UNIT_IN_BASE,
    concept,
)
from verifier.judges.signals.blocker import Blocker
from verifier.judges.signals.text_profile import (
    DETERMINERS,
    WEEKDAYS,
    NumberMention,
    ScopeMarker,
    TextProfile,
    decade_years,
    is_numeric,
    parse_number,
)
from verifier.text.stopwords import STOPWORDS

APPROX_TOLERANCE = 0.10  # "about 1,200" matches 1,150 … 1,250-ish
BOUND_REACH = 2.0  # "more than 40" is read as 40 to 80, "fewer than 40" as 20 to 40
DERIVED_TERMS_MAX = 12  # span numbers read as the terms of a sum, difference or share
DERIVED_TOLERANCE = 0.05  # an approximate claim's number against a derived value
RATIO_WORDS = frozenset({"times", "fold"})  # "four times higher"
# Verbs that multiply: "roughly tripled the range" is not "roughly doubled" it.
MULTIPLYING_VERBS = {
    "halved": 0.5,
    "halve": 0.5,
    "halving": 0.5,
    "doubled": 2.0,
    "double": 2.0,
    "doubling": 2.0,
    "tripled": 3.0,
    "triple": 3.0,
    "tripling": 3.0,
    "trebled": 3.0,
    "quadrupled": 4.0,
    "quadruple": 4.0,
    "quadrupling": 4.0,
}
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
# Prepositions that attach a year to a statement as its time frame ("revenue in 2022",
# "during 2023", "the budget for 2024"), when what precedes them is no verb.
FRAME_PREPOSITIONS = frozenset({"in", "on", "for", "during", "throughout", "of"})
COPULA_WORDS = frozenset({"is", "are", "was", "were", "be", "been", "being"})


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


def number_matches(c: NumberMention, s: NumberMention) -> bool:
    if c.kind == "decade" or s.kind == "decade":
        if c.kind != "decade" or s.kind not in {"decade", "year"}:
            return False  # a year is more than a decade says
        lo, hi = decade_years(c)
        inner = decade_years(s) if s.kind == "decade" else (s.value, s.value)
        return lo <= inner[0] and inner[1] <= hi
    if c.unit and s.unit and c.unit != s.unit:
        cb, sb = _in_base(c), _in_base(s)
        if cb is None or sb is None or cb[0] != sb[0]:
            return False
        return _same_value(cb[1], sb[1]) or number_matches(
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
    written = parse_number(c.raw) if is_numeric(c.raw) else None
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


def fmt(m: NumberMention, text: TextProfile) -> str:
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
    if any(number_matches(c, s) for s in span.numbers):
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


def _verb_like(word: str) -> bool:
    """A word read as a verb form ("opened", "built", "was", "rising"): what follows it
    dates or places what it says, rather than selecting which fact."""
    return (
        word in COPULA_WORDS
        or (len(word) > 4 and word.endswith(("ed", "ing")) and not word.endswith("eed"))
        or (word in IRREGULAR_LEMMAS and IRREGULAR_LEMMAS[word] != word)
    )


def _opens_sentence(text: TextProfile, i: int) -> bool:
    """Whether token ``i`` is the first of its sentence."""
    return i == 0 or (bool(text.sentence) and text.sentence[i - 1] != text.sentence[i])


def _date_start(text: TextProfile, year: NumberMention) -> tuple[int, int | None, int | None]:
    """Where the date of ``year`` starts, and the positions of its month and its day
    where it has them: "March 2023", "March 5, 2023" and "5 March 2023"."""
    i, lower = year.position, text.lower

    def day(k: int) -> bool:
        return k >= 0 and lower[k].isdigit() and 1 <= int(lower[k]) <= 31

    if i >= 1 and lower[i - 1] in MONTHS:
        return (i - 2, i - 1, i - 2) if day(i - 2) else (i - 1, i - 1, None)
    if i >= 2 and lower[i - 2] in MONTHS and day(i - 1):
        return i - 2, i - 2, i - 1
    return i, None, None


def _same_date(a: TextProfile, x: NumberMention, b: TextProfile, y: NumberMention) -> bool:
    """Whether two dates may be one: the same year, and the same month and day where
    both give them ("March 2022" and "2022" may; "March 2022" and "April 2022" not)."""
    if not number_matches(x, y):
        return False
    _, xm, xd = _date_start(a, x)
    _, ym, yd = _date_start(b, y)
    if xm is not None and ym is not None and a.lower[xm] != b.lower[ym]:
        return False
    return xd is None or yd is None or a.lower[xd] == b.lower[yd]


def time_frames(text: TextProfile) -> list[NumberMention]:
    """The years (with a month or a day: dates) that frame a statement of the text: which
    fact it states, not the fact. A year frames a sentence that states a quantity
    besides it ("Acme's revenue in 2022 was 5 million", "In 2023 the population was
    7,000", "5 million euros in 2022", "the 2022 revenue") when a frame preposition opens
    the sentence before it, or follows a word that is no verb, or when it qualifies the
    noun after it. A year after a verb ("opened in 1932", "was built in 1900") dates an
    event: when it happened is the fact, no frame; so is a year in a sentence with no
    other quantity ("The bridge opened in 1925")."""
    out = []
    lower = text.lower
    for year in text.numbers:
        if year.kind != "year" or year.bound or year.approx:
            continue
        start, _, day = _date_start(text, year)
        sentence = text.sentence[year.position] if text.sentence else 0
        quantities = [
            m
            for m in text.numbers
            if m.kind in {"number", "fraction"}
            and m.position != day
            and (not text.sentence or text.sentence[m.position] == sentence)
        ]
        if not quantities:
            continue
        prep = start - 1
        if prep >= 0 and lower[prep] in FRAME_PREPOSITIONS:
            before = lower[prep - 1] if prep >= 1 else ""
            if _opens_sentence(text, prep) or not _verb_like(before):
                out.append(year)
            continue
        after = lower[year.position + 1] if year.position + 1 < len(lower) else ""
        if (
            start == year.position
            and after.isalpha()
            and after not in STOPWORDS
            and after not in MONTHS
            and not _verb_like(after)
            and (prep < 0 or lower[prep] not in {"since", "until", "by", "from", "to", "before"})
        ):
            out.append(year)  # "the 2022 revenue", "Acme's 2023 results"
    return out


def numbered_subjects(text: TextProfile) -> list[tuple[str, NumberMention]]:
    """Things that open a sentence named by a word and a number ("Pier 3 was built in
    1903", "The Route 66 …"): the number says which thing, not how many. The word is
    capitalised and no unit, month or number word; the number a bare whole number that
    nothing but a stopword follows."""
    out = []
    lower, tokens = text.lower, text.tokens
    for m in text.numbers:
        i = m.position
        if m.kind != "number" or m.unit or m.approx or m.bound or not m.raw.isdigit() or i < 1:
            continue
        label = i - 1
        opening = _opens_sentence(text, label) or (
            lower[label - 1] in DETERMINERS and _opens_sentence(text, label - 1)
        )  # "Pier 3 was …", "The Pier 3 …"
        word = lower[label]
        nxt = lower[i + 1] if i + 1 < len(lower) else ""
        if (
            opening
            and tokens[label][:1].isupper()
            and word.isalpha()
            and word not in STOPWORDS
            and word not in MONTHS
            and word not in UNIT_CANONICAL
            and word not in NUMBER_WORDS
            and word not in MAGNITUDE_WORDS
            and (not nxt or nxt in STOPWORDS)
        ):
            out.append((word, m))
    return out


def other_fact(claim: TextProfile, span: TextProfile) -> Blocker | None:
    """A span about another fact than the claim's: one framed by another year than the
    claim's ("Acme's revenue in 2023 …" for "… in 2022"), or about another thing of a
    numbered series ("Pier 4 …" for "Pier 3 …"). Its numbers state that other fact, so
    none of them contradicts the claim, nor supports it: not entailed (abstain), with a
    note that says so. The same year with another amount still contradicts, and so does
    another year for when an event happened ("opened in 1932" for "opened in 1925": no
    frame, ``time_frames``)."""
    return _another_subject(claim, span) or _another_year(claim, span)


def _another_subject(claim: TextProfile, span: TextProfile) -> Blocker | None:
    """The span is about another thing of the claim's numbered series ("Pier 4")."""
    theirs = numbered_subjects(span)
    for word, c in numbered_subjects(claim):
        same_word = [s for w, s in theirs if w == word]
        if same_word and not any(_same_value(s.value, c.value) for s in same_word):
            s = same_word[0]
            named = f"{span.tokens[s.position - 1]} {s.raw}"
            return Blocker(
                "number_unsupported",
                f"number_unsupported: {fmt(c, claim)} vs {fmt(s, span)}, "
                f"the span is about another numbered subject ({named})",
                False,
            )
    return None


def _another_year(claim: TextProfile, span: TextProfile) -> Blocker | None:
    """The claim's statement is framed by a year the span does not state, and the span's
    by another ("revenue in 2023" for "revenue in 2022")."""
    frames = time_frames(claim)
    if not frames:
        return None
    theirs = time_frames(span)
    if not theirs:
        return None
    framing = {s.position for s in theirs}
    for c in frames:
        for s in span.numbers:
            stated = s.kind in {"year", "decade"} and number_matches(c, s)
            if stated and (s.position not in framing or _same_date(claim, c, span, s)):
                return None  # the span states the claim's time
    c, s = frames[0], theirs[0]
    other = "date" if number_matches(c, s) else "year"
    return Blocker(
        "number_unsupported",
        f"number_unsupported: {fmt(c, claim)} vs {_date_words(span, s)}, "
        f"the span is about another {other}",
        False,
    )


def _date_words(text: TextProfile, year: NumberMention) -> str:
    """A date as the text words it ("March 5 2023", "2023"); the claim's year alone
    leads a note, as every number note words it (``rag.audit`` reads it back)."""
    start, _, _ = _date_start(text, year)
    return " ".join(text.tokens[start : year.position + 1])


def number_blockers(claim: TextProfile, span: TextProfile) -> list[Blocker]:
    out: list[Blocker] = []
    supported = {c.position for c in claim.numbers if _supported_number(c, claim, span)}
    stated = [c for c in claim.numbers if c.position in supported]
    elsewhere = other_fact(claim, span)
    if elsewhere is not None:
        # about another year or another numbered thing: the claim's numbers the span
        # does not state are unsupported, none contradicted ("5 million" for "7 million")
        said = elsewhere.note.split(":", 1)[1].split(" vs ", 1)[0].strip()
        out.append(elsewhere)
        for c in claim.numbers:
            if c.position not in supported and fmt(c, claim) != said:
                note = f"number_unsupported: {fmt(c, claim)}"
                out.append(Blocker("number_unsupported", note, False))
        claim_months = {m for m, _ in claim.months} - {m for m, _ in span.months}
        for month in sorted(claim_months):
            out.append(Blocker("date_unsupported", f"date_unsupported: {month}", False))
        return out
    for c in claim.numbers:
        if c.position in supported:
            continue
        if _derived(c, claim, span, stated):
            if not _announced(c, claim):
                # a sum or difference the claim does not announce: no conflict, no support
                out.append(
                    Blocker("number_unsupported", f"number_unsupported: {fmt(c, claim)}", False)
                )
            continue
        same_value = [s for s in span.numbers if _same_value(s.value, c.value)]
        if same_value and c.unit and same_value[0].unit:
            other = same_value[0]
            out.append(
                Blocker(
                    "unit_mismatch", f"unit_mismatch: {fmt(c, claim)} vs {fmt(other, span)}", True
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
                    f"number_mismatch: {fmt(c, claim)} vs {fmt(nearest, span)}",
                    True,
                )
            )
        elif not _adverbial_first(claim, c):
            out.append(Blocker("number_unsupported", f"number_unsupported: {fmt(c, claim)}", False))
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


def claim_states_hedged_number(claim: TextProfile, span: TextProfile, m: ScopeMarker) -> bool:
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
        _same_value(c.value, s.value) or number_matches(c, s) for c in claim.numbers for s in hedged
    )


def multiplier_blockers(claim: TextProfile, span: TextProfile) -> list[Blocker]:
    """The claim multiplies by another factor than the span does ("tripled" / "doubled")."""
    claim_factors = {MULTIPLYING_VERBS[w]: w for w in claim.lower if w in MULTIPLYING_VERBS}
    span_factors = {MULTIPLYING_VERBS[w]: w for w in span.lower if w in MULTIPLYING_VERBS}
    if not claim_factors or not span_factors or set(claim_factors) & set(span_factors):
        return []
    c, s = min(claim_factors.items()), min(span_factors.items())
    return [Blocker("number_mismatch", f"number_mismatch: '{c[1]}' vs '{s[1]}'", False)]
