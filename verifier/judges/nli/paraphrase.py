"""More labelled pairs from real prose: positives that are not copies, and the negatives
that sit closest to them.

The first generator (``synthetic``) made entailed claims that were near-copies of a
sentence, so a model learned "entailed ≈ copied" (docs/spanproof-nli.md). These
rewrites change the wording the way a person restating a source does, while keeping what
the sentence asserts:

* entailed: an appositive, a non-restrictive relative clause, a trailing subordinate
  clause or one item of a list dropped; an attribution reframed ("X said that P" ↔
  "According to X, P" ↔ "P, X said"); a subordinate clause moved ("P because Q" ↔
  "Because Q, P"); a number written another way ("1,200" ↔ "1200", "40" ↔ "forty",
  "3 million" ↔ "3,000,000", "20%" ↔ "20 percent"); the definite description that opens
  the sentence ("The light …") replaced by the name it refers to in the title or the
  sentence before (the premise's context);
* contradicted: a number word changed to one that looks or sounds alike ("forty" →
  "fourteen"); the two parties of an asymmetric relation swapped ("A defeated B" →
  "B defeated A");
* neutral: a speculative attribution dropped ("X suggested that P" → "P"), the definite
  description replaced by another name of the document.

Each function takes a sentence of a document and returns the claim, or None when the
sentence offers nothing to rewrite. Pure Python, deterministic per seed, no Django.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator, Sequence

from verifier.judges.nli.synthetic import (
    CONTRADICTION,
    ENTAILMENT,
    MIN_CLAUSE_WORDS,
    NEUTRAL,
    TRANSFORMATIONS,
    Document,
    Pair,
    Sentence,
    Transformation,
    _end,
    _entities,
    _lower_first,
    usable_sentence,
)
from verifier.judges.nli.synthetic import SINGLE_SENTENCE_KINDS as SYNTHETIC_SINGLE_SENTENCE_KINDS

_APPOSITIVE = re.compile(
    r"^(?P<head>.*?\b[A-Z][\w'-]+(?: [A-Z][\w'-]+)*), (?P<app>(?:a|an|the|his|her|its|their) "
    r"[^,]{3,70}?), (?P<rest>[a-z].+)$"
)
_VERBISH = re.compile(r"\b(?:is|was|are|were|has|had|have|will|would|can|could)\b")
_FINITE = frozenset(
    [
        "is",
        "was",
        "are",
        "were",
        "has",
        "had",
        "have",
        "will",
        "would",
        "can",
        "could",
        "may",
        "might",
        "must",
        "shall",
        "should",
        "did",
        "does",
        "do",
        "said",
        "says",
        "became",
        "becomes",
        "remains",
        "remained",
        "led",
        "won",
        "made",
        "took",
        "gave",
        "went",
        "came",
        "began",
        "saw",
        "got",
        "left",
        "held",
        "ran",
        "grew",
        "rose",
        "fell",
        "kept",
        "brought",
        "built",
        "bought",
        "sold",
        "told",
        "wrote",
        "found",
        "thought",
        "knew",
        "sent",
        "spent",
        "paid",
        "met",
        "lost",
        "stood",
        "sat",
        "lay",
    ]
)
_SUBORDINATORS = frozenset(
    [
        "after",
        "although",
        "as",
        "because",
        "before",
        "but",
        "if",
        "once",
        "since",
        "so",
        "though",
        "unless",
        "until",
        "when",
        "whereas",
        "while",
        "and",
        "or",
        "yet",
    ]
)
_FUNCTION_OPENERS = frozenset(
    [
        "in",
        "on",
        "at",
        "for",
        "from",
        "with",
        "by",
        "of",
        "to",
        "during",
        "after",
        "before",
        "under",
        "over",
        "into",
    ]
)
_DETERMINERS = frozenset(
    ["the", "a", "an", "this", "that", "these", "those", "its", "his", "her", "their", "our", "my"]
)


def _looks_finite(word: str) -> bool:
    """A word that can be the finite verb after a subject: an auxiliary, a common
    irregular past, or a regular past / third-person form."""
    word = word.lower().strip(",.;:")
    return word in _FINITE or (len(word) > 3 and (word.endswith("ed") or word.endswith("es")))


def _balanced(text: str) -> bool:
    return text.count("(") == text.count(")") and text.count('"') % 2 == 0


def _first_word(text: str) -> str:
    return text.split(" ", 1)[0].lower().strip(",.;:")


def _lower_opening(text: str, doc: Document) -> str:
    """The first letter lower-cased when the first word is a determiner or an ordinary
    word (``_lower_first``), kept for names and acronyms."""
    if _first_word(text) in _DETERMINERS | _FUNCTION_OPENERS | _PRONOUNS - {"i"}:
        return text[0].lower() + text[1:]
    return _lower_first(text, doc)


_RELATIVE = re.compile(r", (?:which|who|whose|where) [^,]{3,90}?,(?= [a-z])")
_TRAILING_CLAUSE = re.compile(
    r"^(?P<main>.{25,}?), (?:because|although|though|while|whereas|since|after|before|"
    r"when|as|until|following|including|making|leading|resulting) [^.;]{3,}\.$"
)
_LIST = re.compile(
    r"(?<![Bb]etween )(?<![Aa]mong )(?<![Oo]f )\b(?P<a>[\w'-]+(?: [\w'-]+)?), "
    r"(?P<b>[\w'-]+(?: [\w'-]+)?),? and (?P<c>[\w'-]+(?: [\w'-]+)?)\b"
)
_ATTRIBUTION_VERBS = (
    "said|stated|reported|wrote|announced|noted|held|ruled|concluded|found|explained|"
    "confirmed|observed|showed|recorded"
)
_SPECULATIVE_VERBS = (
    "suggested|speculated|hypothesized|hypothesised|believed|proposed|argued|alleged|"
    "claimed|guessed|thought|suspected|theorized|theorised"
)
_SPEAKER = r"(?P<who>[A-Z][\w.'-]*(?: [\w.'-]+){0,3}?)"
_PRONOUNS = frozenset(["i", "we", "they", "he", "she", "it", "you"])
_ATTRIBUTION = re.compile(rf"^{_SPEAKER} (?P<verb>{_ATTRIBUTION_VERBS}) that (?P<p>.{{20,}})$")
_SPECULATION = re.compile(rf"^{_SPEAKER} (?P<verb>{_SPECULATIVE_VERBS}) that (?P<p>.{{20,}})$")
_ACCORDING = re.compile(r"^According to (?P<who>[^,]{3,60}), (?P<p>.{20,})$")
_SUBORDINATE_AFTER = re.compile(
    r"^(?P<main>[A-Z][^,;]{20,}?) (?P<conj>because|although|when|after|before|since|"
    r"unless|while) (?P<sub>[^,;]{12,})\.$"
)
_COORDINATED = re.compile(r"\b(?:and|but|or|yet|so|then)\b")
_SUBORDINATE_BEFORE = re.compile(
    r"^(?P<conj>Because|Although|When|After|Before|Since|Unless|While) (?P<sub>[^,;]{8,}), "
    r"(?P<main>[a-z][^;]{15,})\.$"
)
_DEFINITE_OPENING = re.compile(
    r"^(?:The|This) (?P<noun>[a-z]+)(?P<rest> (?:is|was|has|had|were|are|became|remains|"
    r"stands|opened|closed|served|sits|lies|[a-z]+ed)\b.+)$"
)
_ASYMMETRIC = re.compile(
    r"^(?P<a>[A-Z][\w'-]+(?: [A-Z][\w'-]+){0,2}) (?P<verb>defeated|beat|succeeded|replaced|"
    r"acquired|bought|preceded|followed|overtook|outsold|sued|hired|fired|employed|"
    r"trained|taught|invaded|conquered|annexed|absorbed) (?P<b>[A-Z][\w'-]+"
    r"(?: [A-Z][\w'-]+){0,2})\b(?P<rest>.*)$"
)

_SMALL = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
]
_TENS = ["twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
_SCALES = {"thousand": 1_000, "million": 1_000_000, "billion": 1_000_000_000}
# number words a reader confuses: the teens and the tens, neighbours
_LOOKALIKE = {
    **{_TENS[i]: _SMALL[i + 12] for i in range(1, 8)},  # thirty → thirteen, forty → fourteen …
    **{_SMALL[i + 12]: _TENS[i] for i in range(1, 8)},  # thirteen → thirty …
    "twenty": "twelve",
    "twelve": "twenty",
    "three": "thirteen",
    "four": "fourteen",
    "five": "fifteen",
    "six": "sixteen",
    "seven": "seventeen",
}
_PLAIN_NUMBER_WORD = re.compile(r"\b(" + "|".join(_SMALL[2:] + _TENS) + r")\b(?!-)")
_NUMBER_WORD = re.compile(r"\b(" + "|".join(sorted(_LOOKALIKE, key=len, reverse=True)) + r")\b")
_INT = re.compile(
    r"(?<![\w.,$£€])(?<!\d[-–])(\d{1,3}(?:,\d{3})+|\d{4,9}|\d{1,2})(?![\w.,]\d|\w|%|[-–]\d)"
)
_SCALED = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?) (thousand|million|billion)\b")
_PERCENT = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)(?: ?%| percent| per cent)")


def number_words(n: int) -> str | None:
    """0–99 as English words ("forty-two"); None above."""
    if 0 <= n < 20:
        return _SMALL[n]
    if 20 <= n < 100:
        tens, ones = divmod(n, 10)
        return _TENS[tens - 2] + (f"-{_SMALL[ones]}" if ones else "")
    return None


def _drop_nth(text: str, start: int, end: int) -> str:
    out = (text[:start] + text[end:]).replace("  ", " ")
    return out.replace(" ,", ",").replace(" .", ".")


# --- entailed ------------------------------------------------------------------------------


def drop_appositive(s: Sentence, rng: random.Random, corpus: Sequence[Document]) -> str | None:
    """ "Ada Lovelace, an English mathematician, wrote …" → "Ada Lovelace wrote …"."""
    match = _APPOSITIVE.match(s.text)
    if not match or _VERBISH.search(match.group("app")):
        return None
    if not _looks_finite(_first_word(match.group("rest"))):
        return None
    claim = f"{match.group('head')} {match.group('rest')}"
    return claim if len(claim.split()) >= MIN_CLAUSE_WORDS else None


def drop_relative_clause(s: Sentence, rng: random.Random, corpus: Sequence[Document]) -> str | None:
    """ "The tower, which was built in 1850, stands …" → "The tower stands …"."""
    match = _RELATIVE.search(s.text)
    if not match or not _looks_finite(_first_word(s.text[match.end() :].strip())):
        return None
    claim = _drop_nth(s.text, match.start(), match.end())
    return claim if len(claim.split()) >= MIN_CLAUSE_WORDS else None


def drop_trailing_clause(s: Sentence, rng: random.Random, corpus: Sequence[Document]) -> str | None:
    """ "The bridge closed in 1990, after the flood damaged it." → "The bridge closed in
    1990."."""
    match = _TRAILING_CLAUSE.match(s.text)
    if not match or len(match.group("main").split()) < MIN_CLAUSE_WORDS:
        return None
    main = match.group("main")
    if _first_word(main) in _SUBORDINATORS or not _balanced(main):
        return None
    if not any(_looks_finite(w) for w in main.split()[1:]):
        return None  # no verb left: the clause carried it
    return _end(match.group("main"))


def drop_list_item(s: Sentence, rng: random.Random, corpus: Sequence[Document]) -> str | None:
    """ "… visited Paris, Rome and Vienna." → "… visited Paris and Vienna." (one item of a
    list of three or more; not after "between", "among" or "of", where a list is one
    thing)."""
    match = _LIST.search(s.text)
    if not match or match.start() == 0:
        return None
    cases = {match.group(k)[0].isupper() for k in ("a", "b", "c")}
    if len(cases) > 1:
        return None
    drop = rng.choice(("a", "b"))
    keep = [match.group(k) for k in ("a", "b", "c") if k != drop]
    joined = f"{keep[0]} and {keep[1]}"
    return s.text[: match.start()] + joined + s.text[match.end() :]


def reframe_attribution(s: Sentence, rng: random.Random, corpus: Sequence[Document]) -> str | None:
    """ "X said that P." ↔ "According to X, P." / "P, X said."."""
    match = _ATTRIBUTION.match(s.text)
    if match:
        who, p = match.group("who"), match.group("p").rstrip(".")
        if _first_word(who) in _SUBORDINATORS or not _balanced(p):
            return None
        # "The court held that P" → "According to the court, P" / "P, the court held"
        inner = _lower_opening(who, s.doc) if who != "I" else who
        if rng.random() < 0.5 and _first_word(who) not in _PRONOUNS:
            return f"According to {inner}, {p}."
        return f"{p[0].upper()}{p[1:]}, {inner} {match.group('verb')}."
    match = _ACCORDING.match(s.text)
    if match:
        p, who = match.group("p").rstrip("."), match.group("who")
        return f"{who[0].upper()}{who[1:]} reported that {_lower_first(p, s.doc)}."
    return None


def move_subordinate_clause(
    s: Sentence, rng: random.Random, corpus: Sequence[Document]
) -> str | None:
    """ "P because Q." ↔ "Because Q, P."."""
    match = _SUBORDINATE_AFTER.match(s.text)
    if match:
        main = match.group("main")
        if _COORDINATED.search(main) or _first_word(main) in _SUBORDINATORS:
            return None  # the clause may attach to the second half only
        if any(w in _SUBORDINATORS for w in match.group("sub").lower().split()):
            return None
        main = _lower_opening(main, s.doc)
        return f"{match.group('conj').capitalize()} {match.group('sub')}, {main}."
    match = _SUBORDINATE_BEFORE.match(s.text)
    if match:
        main, sub = match.group("main"), match.group("sub")
        if _first_word(main) in _SUBORDINATORS or len(sub.split()) > 14:
            return None
        if any(w in _SUBORDINATORS for w in sub.lower().split()):
            return None
        return f"{main[0].upper()}{main[1:]} {match.group('conj').lower()} {sub}."
    return None


def _reformatted_number(text: str, rng: random.Random) -> str | None:
    options: list[tuple[int, int, str]] = []
    for m in _SCALED.finditer(text):
        value = float(m.group(1)) * _SCALES[m.group(2)]
        if value == int(value):
            options.append((m.start(), m.end(), f"{int(value):,}"))
    for m in _PERCENT.finditer(text):
        written = m.group(0)
        options.append((m.start(), m.end(), m.group(1) + ("%" if "per" in written else " percent")))
    for m in _INT.finditer(text):
        token = m.group(1)
        value = int(token.replace(",", ""))
        if "," in token:
            options.append((m.start(), m.end(), str(value)))
        elif value >= 10_000:
            options.append((m.start(), m.end(), f"{value:,}"))
        elif value < 100 and (words := number_words(value)) is not None and value > 1:
            options.append((m.start(), m.end(), words))
    for m in _PLAIN_NUMBER_WORD.finditer(text):
        word = m.group(1)
        value = _SMALL.index(word) if word in _SMALL else 20 + 10 * _TENS.index(word)
        options.append((m.start(), m.end(), str(value)))
    if not options:
        return None
    start, end, new = rng.choice(options)
    return text[:start] + new + text[end:]


def reformat_number(s: Sentence, rng: random.Random, corpus: Sequence[Document]) -> str | None:
    """The same quantity written another way: "1,200" ↔ "1200", "40" ↔ "forty", "3
    million" → "3,000,000", "20%" ↔ "20 percent". Years are left alone (four digits
    without a comma are neither grouped nor spelled)."""
    return _reformatted_number(s.text, rng)


def _title_name(s: Sentence) -> str | None:
    title = s.doc.title.strip()
    return title if title and len(title.split()) <= 6 and title[0].isupper() else None


def name_for_description(s: Sentence, rng: random.Random, corpus: Sequence[Document]) -> str | None:
    """ "The light was automated in 1987." in a document titled "Tarn Point Light" →
    "Tarn Point Light was automated in 1987." (the name comes from the premise's
    context)."""
    match = _DEFINITE_OPENING.match(s.text)
    name = _title_name(s)
    if not match or name is None:
        return None
    if match.group("noun").lower() not in name.lower().split():
        return None
    return name + match.group("rest")


# --- contradicted / neutral ----------------------------------------------------------------


def lookalike_number(s: Sentence, rng: random.Random, corpus: Sequence[Document]) -> str | None:
    """ "forty nautical miles" → "fourteen nautical miles"."""
    matches = list(_NUMBER_WORD.finditer(s.text))
    if not matches:
        return None
    m = rng.choice(matches)
    word = m.group(1)
    swapped = _LOOKALIKE[word.lower()]
    return s.text[: m.start()] + swapped + s.text[m.end() :]


def swap_roles(s: Sentence, rng: random.Random, corpus: Sequence[Document]) -> str | None:
    """ "Rome defeated Carthage in 146 BC." → "Carthage defeated Rome in 146 BC."."""
    match = _ASYMMETRIC.match(s.text)
    if not match or match.group("a") == match.group("b"):
        return None
    return f"{match.group('b')} {match.group('verb')} {match.group('a')}{match.group('rest')}"


def drop_speculative_attribution(
    s: Sentence, rng: random.Random, corpus: Sequence[Document]
) -> str | None:
    """ "Some historians suggested that P." → "P.": the source reports a view, the claim
    states it as fact."""
    match = _SPECULATION.match(s.text)
    if not match:
        return None
    p = match.group("p")
    return p[0].upper() + p[1:]


def wrong_name_for_description(
    s: Sentence, rng: random.Random, corpus: Sequence[Document]
) -> str | None:
    """As ``name_for_description``, with another name of the document: the premise says
    it of something else."""
    if name_for_description(s, rng, corpus) is None:
        return None
    match = _DEFINITE_OPENING.match(s.text)
    assert match is not None
    title = s.doc.title.strip()
    names = sorted(
        {e for t in s.doc.sentences for e in _entities(t)} - {title} - set(_entities(s.previous))
    )
    names = [n for n in names if n.lower() not in title.lower()]
    if not names:
        return None
    return rng.choice(names) + match.group("rest")


TRANSFORMATIONS_V2: dict[str, tuple[str, Transformation, float]] = {
    "drop_appositive": (ENTAILMENT, drop_appositive, 1.0),
    "drop_relative_clause": (ENTAILMENT, drop_relative_clause, 1.0),
    "drop_trailing_clause": (ENTAILMENT, drop_trailing_clause, 1.0),
    "drop_list_item": (ENTAILMENT, drop_list_item, 0.8),
    "reframe_attribution": (ENTAILMENT, reframe_attribution, 1.2),
    "move_subordinate_clause": (ENTAILMENT, move_subordinate_clause, 1.0),
    "reformat_number": (ENTAILMENT, reformat_number, 0.5),
    "name_for_description": (ENTAILMENT, name_for_description, 1.5),
    "lookalike_number": (CONTRADICTION, lookalike_number, 1.0),
    "swap_roles": (CONTRADICTION, swap_roles, 1.0),
    "drop_speculative_attribution": (NEUTRAL, drop_speculative_attribution, 1.2),
    "wrong_name_for_description": (NEUTRAL, wrong_name_for_description, 1.0),
}
# the premise of these must be the sentence alone: what they test comes from the context
SINGLE_SENTENCE_KINDS = SYNTHETIC_SINGLE_SENTENCE_KINDS | {
    "name_for_description",
    "wrong_name_for_description",
}
# every transformation the cross-encoder's training set draws from, with near-copies
# (``keep_sentence``) weighted down
ALL_TRANSFORMATIONS: dict[str, tuple[str, Transformation, float]] = {
    **{
        name: (label, fn, weight * (0.3 if name == "keep_sentence" else 1.0))
        for name, (label, fn, weight) in TRANSFORMATIONS.items()
    },
    **TRANSFORMATIONS_V2,
}


_KIND_NOUNS = [
    "Light",
    "Lighthouse",
    "Bridge",
    "Company",
    "Corporation",
    "University",
    "College",
    "School",
    "River",
    "Lake",
    "Church",
    "Cathedral",
    "Hospital",
    "Station",
    "Museum",
    "Park",
    "Tower",
    "House",
    "Hotel",
    "Island",
    "Building",
    "Festival",
    "Party",
    "Council",
    "Club",
    "Team",
    "Band",
    "Court",
    "Board",
    "Committee",
    "Agency",
    "Airport",
    "Stadium",
    "Library",
    "Castle",
    "Dam",
    "Act",
    "Treaty",
    "Award",
    "Prize",
    "Theatre",
    "Theater",
    "Center",
    "Centre",
    "Fund",
    "Foundation",
    "Institute",
    "Society",
    "Association",
    "Union",
    "League",
    "Cup",
    "Series",
    "Road",
    "Street",
    "Square",
    "Mountain",
    "Valley",
    "Forest",
    "Canal",
    "Railway",
    "Airline",
    "Bank",
    "Group",
    "Project",
    "Programme",
    "Program",
    "Mission",
    "Study",
    "Trial",
    "Survey",
    "Hall",
    "Palace",
    "Temple",
    "Fort",
    "Port",
    "Harbour",
    "Harbor",
    "Village",
    "City",
    "County",
    "District",
    "Province",
    "Army",
    "Navy",
    "Ministry",
    "Department",
    "Office",
    "Service",
    "Network",
    "Channel",
    "Magazine",
    "Journal",
    "Album",
    "Film",
    "Show",
    "Championship",
    "Tournament",
    "Orchestra",
    "Choir",
    "Index",
    "Plan",
]
_NAMED = re.compile(
    r"(?:(?<=^)|(?<=[a-z,;] ))(?P<the>[Tt]he )?(?P<name>(?:[A-Z][\w'&.-]+ ){1,4}(?P<noun>"
    + "|".join(_KIND_NOUNS)
    + r"))\b(?![\w'-])(?! [A-Z])"
)


def _named_mention(text: str) -> re.Match[str] | None:
    """The first mention of a name whose last word says what it is ("the Tarn Point
    Light", "Waltham Forest Council")."""
    for match in _NAMED.finditer(text):
        if _first_word(match.group("name")) not in _DETERMINERS | _FUNCTION_OPENERS:
            return match
    return None


def description_pairs(documents: Sequence[Document], *, seed: int) -> Iterator[Pair]:
    """The "Tarn Point Light" case, built from any sentence that opens with a name whose
    last word says what it is ("Tarn Point Light was automated in 1987."): the span
    calls it by that word ("The light was automated in 1987.") while the context — the
    title, as a source page would have it — gives the name; the claim uses the name
    (entailed). Half the time a second pair claims it of another name of the same kind
    found elsewhere in the corpus (neutral: the source says it of something else)."""
    rng = random.Random(seed)
    by_noun: dict[str, set[str]] = {}
    found: list[tuple[Document, int, re.Match[str]]] = []
    for doc in documents:
        for index, text in enumerate(doc.sentences):
            if not usable_sentence(text):
                continue
            match = _named_mention(text)
            if match:
                by_noun.setdefault(match.group("noun"), set()).add(match.group("name"))
                found.append((doc, index, match))
    for doc, index, match in found:
        text, name, noun = doc.sentences[index], match.group("name"), match.group("noun")
        the = "The" if match.start() == 0 else "the"
        before, after = text[: match.start()], text[match.end() :]
        span = f"{before}{the} {noun.lower()}{after}"
        previous = doc.sentences[index - 1] if index > 0 else ""
        context = " ".join(p for p in (f"{name}.", previous if name not in previous else "") if p)
        yield Pair(text, span, context, ENTAILMENT, "name_from_title", doc.id)
        others = sorted(by_noun[noun] - {name})
        if others and rng.random() < 0.5:
            other = rng.choice(others)
            claim = f"{before}{match.group('the') or ''}{other}{after}"
            yield Pair(claim, span, context, NEUTRAL, "other_name_from_title", doc.id)
