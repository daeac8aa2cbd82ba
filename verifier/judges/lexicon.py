"""Word lists for the heuristic judge: a light rule-based lemmatizer, synonym and antonym
tables and the scope/modality scale. Stopwords, negation cues, synonym groups and the
judge's token pattern live in the text layer (``verifier.text.stopwords``,
``verifier.text.negations``, ``verifier.text.synonyms``, ``verifier.text.words``).

Hand-written on purpose: no model or corpus download, deterministic, reviewable. The
tables are small; they only need to cover the paraphrases and distortions that matter
for entailment (hedges, quantifiers, polarity, common verb/noun synonyms).
"""

from __future__ import annotations

from functools import lru_cache

# The number tables live in the text layer; re-exported for the judge's readers.
from verifier.text.numbers import FRACTION_DENOMINATORS as FRACTION_DENOMINATORS
from verifier.text.numbers import FRACTION_DENOMINATORS_PLURAL as FRACTION_DENOMINATORS_PLURAL
from verifier.text.numbers import MAGNITUDE_WORDS as MAGNITUDE_WORDS
from verifier.text.numbers import NUMBER_WORDS as NUMBER_WORDS
from verifier.text.numbers import ORDINAL_WORDS as ORDINAL_WORDS
from verifier.text.synonyms import JUDGE_SYNONYM_GROUPS

IRREGULAR_LEMMAS: dict[str, str] = {
    "is": "be",
    "are": "be",
    "was": "be",
    "were": "be",
    "been": "be",
    "being": "be",
    "am": "be",
    "has": "have",
    "had": "have",
    "having": "have",
    "does": "do",
    "did": "do",
    "done": "do",
    "went": "go",
    "gone": "go",
    "goes": "go",
    "made": "make",
    "said": "say",
    "says": "say",
    "took": "take",
    "taken": "take",
    "gave": "give",
    "given": "give",
    "got": "get",
    "gotten": "get",
    "saw": "see",
    "seen": "see",
    "knew": "know",
    "known": "know",
    "thought": "think",
    "found": "find",
    "told": "tell",
    "became": "become",
    "began": "begin",
    "begun": "begin",
    "left": "leave",
    "felt": "feel",
    "brought": "bring",
    "bought": "buy",
    "held": "hold",
    "kept": "keep",
    "led": "lead",
    "meant": "mean",
    "slept": "sleep",
    "spoke": "speak",
    "spoken": "speak",
    "forgot": "forget",
    "forgotten": "forget",
    "came": "come",
    "shown": "show",
    "dug": "dig",
    "hung": "hang",
    "swam": "swim",
    "sank": "sink",
    "sunk": "sink",
    "shook": "shake",
    "woke": "wake",
    "woken": "wake",
    "wore": "wear",
    "worn": "wear",
    "froze": "freeze",
    "frozen": "freeze",
    "stole": "steal",
    "stolen": "steal",
    "broke": "break",
    "broken": "break",
    "threw": "throw",
    "thrown": "throw",
    "met": "meet",
    "paid": "pay",
    "ran": "run",
    "sold": "sell",
    "sent": "send",
    "built": "build",
    "spent": "spend",
    "stood": "stand",
    "understood": "understand",
    "won": "win",
    "wrote": "write",
    "written": "write",
    "grew": "grow",
    "grown": "grow",
    "rose": "rise",
    "risen": "rise",
    "fell": "fall",
    "fallen": "fall",
    "drew": "draw",
    "drawn": "draw",
    "chose": "choose",
    "chosen": "choose",
    "lost": "lose",
    "born": "bear",
    "bore": "bear",
    "died": "die",
    "dying": "die",
    "lay": "lie",
    "lain": "lie",
    "hid": "hide",
    "fought": "fight",
    "taught": "teach",
    "caught": "catch",
    "sought": "seek",
    "struck": "strike",
    "ate": "eat",
    "eaten": "eat",
    "drove": "drive",
    "driven": "drive",
    "flew": "fly",
    "flown": "fly",
    "men": "man",
    "women": "woman",
    "children": "child",
    "people": "person",
    "feet": "foot",
    "teeth": "tooth",
    "mice": "mouse",
    "data": "datum",
    "criteria": "criterion",
    "phenomena": "phenomenon",
    "better": "good",
    "best": "good",
    "worse": "bad",
    "worst": "bad",
    "more": "more",
    "less": "less",
    "least": "less",
    "fewer": "few",
    "species": "species",
    "series": "series",
    "news": "news",
    "its": "it",
    "us": "us",
    "has_": "have",
}

# Antonym pairs between synonym-group heads / lemmas. Symmetric.
ANTONYM_PAIRS: tuple[tuple[str, str], ...] = (
    ("increase", "decrease"),
    ("awake", "asleep"),
    ("awake", "sleep"),
    ("more", "less"),
    ("more", "few"),
    ("high", "low"),
    ("warm", "cool"),
    ("gain", "loss"),
    ("deficit", "surplus"),
    ("profit", "loss"),
    ("positive", "negative"),
    ("true", "false"),
    ("accept", "reject"),
    ("approve", "reject"),
    ("approve", "veto"),
    ("help", "oppose"),
    ("allow", "forbid"),
    ("allow", "prohibit"),
    ("allow", "ban"),
    ("allow", "prevent"),
    ("success", "failure"),
    ("succeed", "fail"),
    ("win", "lose"),
    ("before", "after"),
    ("above", "below"),
    ("majority", "minority"),
    ("strong", "weak"),
    ("include", "exclude"),
    ("alive", "dead"),
    ("big", "small"),
    ("begin", "end"),
    ("fast", "slow"),
    ("rich", "poor"),
    ("safe", "dangerous"),
    ("early", "late"),
    ("first", "last"),
    ("old", "young"),
    ("old", "new"),
    ("ancient", "modern"),
    ("north", "south"),
    ("east", "west"),
    ("male", "female"),
    ("agree", "disagree"),
    ("agree", "refuse"),
    ("accept", "refuse"),
    ("love", "hate"),
    ("good", "bad"),
    ("easy", "hard"),
    ("present", "absent"),
    ("wet", "dry"),
    ("heavy", "light"),
    ("long", "short"),
    ("maximum", "minimum"),
    ("rise", "sink"),
    ("open", "close"),
    ("public", "private"),
    ("urban", "rural"),
    ("domestic", "foreign"),
    ("internal", "external"),
    ("natural", "human"),
    ("natural", "artificial"),
    ("cause", "prevent"),
    ("benefit", "harm"),
    ("improve", "worsen"),
    ("strengthen", "weaken"),
    ("expand", "contract"),
    ("accelerate", "slow"),
    ("amateur", "professional"),
    ("legal", "illegal"),
    ("win", "defeat"),
    ("support", "oppose"),
    ("confirm", "deny"),
    ("confirm", "refute"),
    ("higher", "lower"),
    ("larger", "smaller"),
    ("deep", "shallow"),
    ("thick", "thin"),
    ("wide", "narrow"),
    ("tall", "short"),
    ("warmer", "cooler"),
)

ANTONYM_PREFIXES: tuple[str, ...] = ("un", "in", "im", "il", "ir", "dis", "non", "non-")

# Scope and modality. Each marker: (dimension, level). Level 1-3 hedge the statement,
# level 4 is a plain assertion (the implicit level of an unhedged claim), level 5
# strengthens it beyond a plain assertion. A claim is overstated when, in some dimension,
# its level is above the span's.
PLAIN_LEVEL = 4
STRONG_LEVEL = 5
SCOPE_MARKERS: dict[str, tuple[str, int]] = {
    # quantifier
    "some": ("quantifier", 1),
    "a few": ("quantifier", 1),
    "few": ("quantifier", 1),
    "several": ("quantifier", 2),
    "partly": ("quantifier", 1),
    "partially": ("quantifier", 1),
    # "X contributed to Y" says X is one cause among others: "partly" by another word
    "contribute": ("quantifier", 1),
    "contributes": ("quantifier", 1),
    "contributed": ("quantifier", 1),
    "contributing": ("quantifier", 1),
    "in part": ("quantifier", 1),
    "somewhat": ("quantifier", 1),
    "many": ("quantifier", 2),
    "numerous": ("quantifier", 2),
    "a number of": ("quantifier", 2),
    "most": ("quantifier", 3),
    "mostly": ("quantifier", 3),
    "majority": ("quantifier", 3),
    "largely": ("quantifier", 3),
    "mainly": ("quantifier", 3),
    "the bulk": ("quantifier", 3),  # "the bulk of", "the bulk, though not all, of"
    "primarily": ("quantifier", 3),
    "predominantly": ("quantifier", 3),
    "almost all": ("quantifier", 3),
    "nearly all": ("quantifier", 3),
    "widely": ("quantifier", 3),
    "all": ("quantifier", 5),
    "every": ("quantifier", 5),
    "each": ("quantifier", 5),
    "entire": ("quantifier", 5),
    "entirely": ("quantifier", 5),
    "whole": ("quantifier", 5),
    "completely": ("quantifier", 5),
    "totally": ("quantifier", 5),
    "fully": ("quantifier", 5),
    "wholly": ("quantifier", 5),
    "universally": ("quantifier", 5),
    # not "none": "none of the changes were reversed" is "the changes were not reversed",
    # read by negation parity
    "only": ("quantifier", 5),
    "solely": ("quantifier", 5),
    "exclusively": ("quantifier", 5),
    "sole": ("quantifier", 5),
    "everyone": ("quantifier", 5),
    "everything": ("quantifier", 5),
    "everywhere": ("quantifier", 5),
    # frequency
    "sometimes": ("frequency", 1),
    "occasionally": ("frequency", 1),
    "at times": ("frequency", 1),
    "rarely": ("frequency", 1),
    "seldom": ("frequency", 1),
    "tend": ("frequency", 1),
    "tends": ("frequency", 1),
    "tended": ("frequency", 1),
    "often": ("frequency", 2),
    "frequently": ("frequency", 2),
    "commonly": ("frequency", 2),
    "usually": ("frequency", 3),
    "generally": ("frequency", 3),
    "typically": ("frequency", 3),
    "normally": ("frequency", 3),
    "as a rule": ("frequency", 3),
    "always": ("frequency", 5),
    "invariably": ("frequency", 5),
    # not "never": "never powered on again" is "did not power on again", read by
    # negation parity (a claim's "never" against a span's "rarely" is still a negation)
    "without exception": ("frequency", 5),
    "constantly": ("frequency", 5),
    "consistently": ("frequency", 5),
    # modality
    "may": ("modality", 1),
    "might": ("modality", 1),
    "could": ("modality", 1),
    "can": ("modality", 1),
    "possibly": ("modality", 1),
    "possible": ("modality", 1),
    "perhaps": ("modality", 1),
    "maybe": ("modality", 1),
    "potentially": ("modality", 1),
    "potential": ("modality", 1),
    "conceivably": ("modality", 1),
    "would": ("modality", 1),
    "appear": ("modality", 1),
    "appears": ("modality", 1),
    "appeared": ("modality", 1),
    "seem": ("modality", 1),
    "seems": ("modality", 1),
    "seemed": ("modality", 1),
    "apparently": ("modality", 1),
    "reportedly": ("modality", 1),
    # "a fee reported to be £2.3 million": hearsay, as "reportedly"
    "reported to be": ("modality", 1),
    "reported to have": ("modality", 1),
    "said to be": ("modality", 1),
    "said to have": ("modality", 1),
    "alleged to be": ("modality", 1),
    "alleged to have": ("modality", 1),
    "rumoured to be": ("modality", 1),
    "rumored to be": ("modality", 1),
    "allegedly": ("modality", 1),
    "likely": ("modality", 2),
    "probably": ("modality", 2),
    "probable": ("modality", 2),
    "unlikely": ("modality", 1),
    "expected": ("modality", 2),
    "anticipated": ("modality", 2),
    "forecast": ("modality", 2),
    "forecasts": ("modality", 2),
    # an intention is not a deed ("plans to file" / "has filed")
    "plans to": ("modality", 1),
    "plan to": ("modality", 1),
    "planned to": ("modality", 1),
    "planning to": ("modality", 1),
    "intends to": ("modality", 1),
    "intend to": ("modality", 1),
    "should": ("modality", 2),
    "believed": ("modality", 2),
    "thought": ("modality", 2),
    "estimated": ("quantity", 2),
    "projected": ("modality", 1),
    "predicted": ("modality", 1),
    "suspected": ("modality", 1),
    "could be": ("modality", 1),
    "must": ("modality", 5),
    "certainly": ("modality", 5),
    "definitely": ("modality", 5),
    "definitively": ("modality", 5),
    "undoubtedly": ("modality", 5),
    "unquestionably": ("modality", 5),
    "indisputably": ("modality", 5),
    "undeniably": ("modality", 5),
    "surely": ("modality", 5),
    "inevitably": ("modality", 5),
    "guaranteed": ("modality", 5),
    "guarantees": ("modality", 5),
    "will": ("modality", 4),
    "beyond doubt": ("modality", 5),
    "no doubt": ("modality", 5),
    "clearly": ("modality", 5),
    "obviously": ("modality", 5),
    "certain to": ("modality", 5),
    # evidence
    "suggest": ("evidence", 1),
    "suggests": ("evidence", 1),
    "suggested": ("evidence", 1),
    "suggesting": ("evidence", 1),
    "indicate": ("evidence", 1),
    "indicates": ("evidence", 1),
    "indicated": ("evidence", 1),
    "hint": ("evidence", 1),
    "hints": ("evidence", 1),
    "imply": ("evidence", 1),
    "implies": ("evidence", 1),
    "associated": ("evidence", 1),
    "linked": ("evidence", 1),
    "correlated": ("evidence", 1),
    "correlates": ("evidence", 1),
    "hypothesis": ("evidence", 1),
    "hypothesized": ("evidence", 1),
    "theory": ("evidence", 1),
    "preliminary": ("evidence", 1),
    "limited": ("evidence", 1),
    "some evidence": ("evidence", 1),
    "in his experience": ("evidence", 1),
    "in her experience": ("evidence", 1),
    "in their experience": ("evidence", 1),
    "in my experience": ("evidence", 1),
    "anecdotal": ("evidence", 1),
    "claimed": ("evidence", 1),
    "argue": ("evidence", 1),
    "argued": ("evidence", 1),
    "argues": ("evidence", 1),
    "proposed": ("evidence", 1),
    "speculated": ("evidence", 1),
    "believe": ("evidence", 2),
    "believes": ("evidence", 2),
    "think": ("evidence", 2),
    "thinks": ("evidence", 2),
    "proves": ("evidence", 5),
    "prove": ("evidence", 5),
    "proved": ("evidence", 5),
    "proven": ("evidence", 5),
    "proof": ("evidence", 5),
    "conclusively": ("evidence", 5),
    "conclusive": ("evidence", 5),
    "irrefutably": ("evidence", 5),
    "irrefutable": ("evidence", 5),
    "demonstrated": ("evidence", 4),
    "demonstrates": ("evidence", 4),
    "established": ("evidence", 4),
    # consensus
    # "debate" alone is usually the noun ("after a long debate"); as a verb it opens an
    # open question.
    "debate whether": ("consensus", 1),
    "debate how": ("consensus", 1),
    "debate if": ("consensus", 1),
    "debate the extent": ("consensus", 1),
    "debated": ("consensus", 1),
    "disputed": ("consensus", 1),
    "controversial": ("consensus", 1),
    "contested": ("consensus", 1),
    "unclear": ("consensus", 1),
    "uncertain": ("consensus", 1),
    "unresolved": ("consensus", 1),
    "open question": ("consensus", 1),
    "questioned": ("consensus", 1),
    "some scientists": ("consensus", 1),
    "some researchers": ("consensus", 1),
    "some experts": ("consensus", 1),
    "according to some": ("consensus", 1),
    "agree": ("consensus", 5),
    "agrees": ("consensus", 5),
    "agreed": ("consensus", 5),
    "consensus": ("consensus", 5),
    "settled": ("consensus", 5),
    "undisputed": ("consensus", 5),
    "universally accepted": ("consensus", 5),
    "widely accepted": ("consensus", 5),
    "unanimous": ("consensus", 5),
    "unanimously": ("consensus", 5),
}
SCOPE_MAX_WORDS = max(len(m.split()) for m in SCOPE_MARKERS)

MONTHS: frozenset[str] = frozenset(
    [
        "january",
        "february",
        "march",
        "april",
        "may",
        "june",
        "july",
        "august",
        "september",
        "october",
        "november",
        "december",
    ]
)
# Words that say a number is approximate ("about 41", "roughly a fifth").
ROUGH_APPROXIMATORS: frozenset[str] = frozenset(
    {
        "about",
        "approximately",
        "around",
        "roughly",
        "nearly",
        "almost",
        "circa",
        "some",
        "estimated",
    }
)
# Words before a number that make it inexact for matching: the approximators, and the
# words of bounds ("more than", "up to", "at least") and of "close to". A bare "to" or
# "at" is none: "dredged to 16 metres" and "at 16 knots" state the number exactly.
APPROXIMATORS: frozenset[str] = ROUGH_APPROXIMATORS | frozenset(
    ["close", "over", "under", "more", "than", "less", "up", "least", "most"]
)
UNIT_CANONICAL: dict[str, str] = {
    "%": "percent",
    "percent": "percent",
    "per cent": "percent",
    "percentage": "percent",
    "km": "km",
    "kilometre": "km",
    "kilometres": "km",
    "kilometer": "km",
    "kilometers": "km",
    "mi": "mile",
    "mile": "mile",
    "miles": "mile",
    "m": "metre",
    "metre": "metre",
    "metres": "metre",
    "meter": "metre",
    "meters": "metre",
    "cm": "cm",
    "centimetre": "cm",
    "centimetres": "cm",
    "centimeter": "cm",
    "centimeters": "cm",
    "mm": "mm",
    "millimetre": "mm",
    "millimetres": "mm",
    "millimeter": "mm",
    "millimeters": "mm",
    "ft": "foot",
    "feet": "foot",
    "foot": "foot",
    "kg": "kg",
    "kilogram": "kg",
    "kilograms": "kg",
    "lb": "pound",
    "lbs": "pound",
    "pounds": "pound",
    "t": "tonne",
    "ton": "tonne",
    "tons": "tonne",
    "tonne": "tonne",
    "tonnes": "tonne",
    "gigatonne": "gigatonne",
    "gigatonnes": "gigatonne",
    "gt": "gigatonne",
    "degree": "degree",
    "degrees": "degree",
    "°c": "celsius",
    "celsius": "celsius",
    "°f": "fahrenheit",
    "fahrenheit": "fahrenheit",
    "ppm": "ppm",
    "year": "year",
    "years": "year",
    "month": "month",
    "months": "month",
    "day": "day",
    "days": "day",
    "hour": "hour",
    "hours": "hour",
    "minute": "minute",
    "minutes": "minute",
    "$": "dollar",
    "dollar": "dollar",
    "dollars": "dollar",
    "usd": "dollar",
    "cent": "cent",
    "cents": "cent",
    "€": "euro",
    "euro": "euro",
    "euros": "euro",
    "£": "pound_sterling",
    "century": "century",
    "centuries": "century",
    "decade": "decade",
    "decades": "decade",
}

# Units one can be written in the other: (base unit, factor). "three centuries" is
# "three hundred years", "5 km" is "5,000 metres".
UNIT_IN_BASE: dict[str, tuple[str, float]] = {
    "mm": ("metre", 1e-3),
    "cm": ("metre", 1e-2),
    "metre": ("metre", 1.0),
    "km": ("metre", 1e3),
    "kg": ("kg", 1.0),
    "dollar": ("dollar", 1.0),
    "cent": ("dollar", 0.01),
    "tonne": ("kg", 1e3),
    "gigatonne": ("kg", 1e12),
    "minute": ("minute", 1.0),
    "hour": ("minute", 60.0),
    "year": ("year", 1.0),
    "decade": ("year", 10.0),
    "century": ("year", 100.0),
}

_SUFFIX_RULES: tuple[tuple[str, str, int], ...] = (
    # (suffix, replacement, minimum stem length left)
    ("ational", "ate", 3),
    ("ization", "ize", 3),
    ("isation", "ize", 3),
    ("fulness", "ful", 3),
    ("ousness", "ous", 3),
    ("iveness", "ive", 3),
    ("ements", "e", 4),
    ("ement", "e", 4),
    ("ments", "", 4),
    ("ment", "", 4),
    ("ations", "ate", 3),
    ("ation", "ate", 3),
    ("nesses", "", 4),
    ("ness", "", 4),
    ("ingly", "", 4),
    ("edly", "", 4),
    ("ities", "ity", 3),
    ("ically", "ic", 3),
    ("ally", "al", 3),
    ("ily", "y", 3),
    ("ies", "y", 3),
    ("ied", "y", 3),
    ("sses", "ss", 2),
    ("xes", "x", 2),
    ("ches", "ch", 2),
    ("shes", "sh", 2),
    ("zes", "z", 2),
    ("ing", "", 3),
    ("ed", "", 3),
    ("ly", "", 4),
    ("er", "", 4),
    ("est", "", 4),
    ("es", "e", 3),
    ("s", "", 3),
)
_NO_STRIP_ENDINGS: tuple[str, ...] = ("ss", "us", "is", "ous", "ics")
_VOWELS = set("aeiou")


def _restore(stem: str) -> str:
    """Undo consonant doubling (stopp → stop) after -ed/-ing stripping."""
    if len(stem) >= 4 and stem[-1] == stem[-2] and stem[-1] not in "lsz" + "".join(_VOWELS):
        return stem[:-1]
    return stem


@lru_cache(maxsize=65536)
def lemma(word: str) -> str:
    """A light, deterministic lemma/stem. Consistent on both sides is all that matters."""
    w = word.lower()
    w = IRREGULAR_LEMMAS.get(w, w)
    if len(w) <= 3 or not w.isalpha():
        return w
    if w.endswith(_NO_STRIP_ENDINGS):
        return w
    for suffix, replacement, min_left in _SUFFIX_RULES:
        if w.endswith(suffix) and len(w) - len(suffix) >= min_left:
            stem = w[: len(w) - len(suffix)] + replacement
            if suffix in ("ing", "ed", "est"):
                stem = _restore(stem)
                # "caused" → "caus" vs "cause" → "cause": drop a trailing e everywhere below
            return stem.rstrip("e") if len(stem) > 3 else stem
    return w.rstrip("e") if len(w) > 3 else w


def _inflections(word: str) -> tuple[str, ...]:
    """Regular inflections of a one-word member, whose light lemma may differ from the
    member's own ("remember" → "rememb", "remembered" → "remember")."""
    if " " in word or not word.isalpha() or len(word) < 4:
        return ()
    consonant_y = word.endswith("y") and word[-2] not in _VOWELS
    if word.endswith(("s", "x", "z", "ch", "sh")):
        plural = word + "es"
    elif consonant_y:
        plural = word[:-1] + "ies"
    else:
        plural = word + "s"
    if word.endswith("e"):
        past, gerund = word + "d", (word if word.endswith("ee") else word[:-1]) + "ing"
    elif consonant_y:
        past, gerund = word[:-1] + "ied", word + "ing"
    else:
        past, gerund = word + "ed", word + "ing"
    return plural, past, gerund


def _build_synonyms() -> dict[str, str]:
    table: dict[str, str] = {}
    for group in JUDGE_SYNONYM_GROUPS:
        # a head that is already a member of an earlier group joins that group
        # ("large", "major" after "big", "large", …; "employee" lemmatizes to "employ")
        head = table.get(canonical_phrase(group[0]), canonical_phrase(group[0]))
        for member in group:
            table.setdefault(canonical_phrase(member), head)
    for group in JUDGE_SYNONYM_GROUPS:  # then their inflections, never over a member
        head = table[canonical_phrase(group[0])]
        for member in group:
            for form in _inflections(member):
                key = lemma(form)
                if len(key) >= 4 and key[:3] == member[:3]:  # never a short, other word
                    table.setdefault(key, head)
    return table


def canonical_phrase(phrase: str) -> str:
    return " ".join(lemma(part) for part in phrase.split())


SYNONYMS: dict[str, str] = _build_synonyms()
MULTIWORD_SYNONYMS: tuple[tuple[str, ...], ...] = tuple(
    sorted({tuple(k.split()) for k in SYNONYMS if " " in k}, key=len, reverse=True)
)


def concept(word: str) -> str:
    """Lemma, then synonym-group head."""
    lem = lemma(word)
    return SYNONYMS.get(lem, lem)


def _build_antonyms() -> dict[str, frozenset[str]]:
    table: dict[str, set[str]] = {}
    for a, b in ANTONYM_PAIRS:
        ca, cb = concept(a), concept(b)
        if ca == cb:
            continue
        table.setdefault(ca, set()).add(cb)
        table.setdefault(cb, set()).add(ca)
    return {k: frozenset(v) for k, v in table.items()}


ANTONYMS: dict[str, frozenset[str]] = _build_antonyms()


# Words that begin with a negating prefix's letters and negate nothing ("inside" is not
# "not side"), as concepts.
LOOKS_PREFIXED: frozenset[str] = frozenset(
    concept(w)
    for w in [
        "inside",
        "insight",
        "income",
        "inland",
        "input",
        "index",
        "invest",
        "inform",
    ]
)


@lru_cache(maxsize=1 << 16)
def is_antonym(a: str, b: str) -> bool:
    """``a`` and ``b`` are concepts (see ``concept``)."""
    if b in ANTONYMS.get(a, frozenset()):
        return True
    if a in LOOKS_PREFIXED or b in LOOKS_PREFIXED:
        return False
    return any(
        (len(a) > 3 or len(b) > 3)
        and (b in (prefix + a, lemma(prefix + a)) or a in (prefix + b, lemma(prefix + b)))
        for prefix in ANTONYM_PREFIXES
    )  # "used" ("use") / "unused" ("unus")


# Verbs that attribute a proposition to someone ("Kant held that …", "…, proposed by
# the court", "According to the records, …", "the records indicate …"). When the claim
# attributes too, the span's own attribution verb is not a hedge the claim dropped, and
# the claim's verb is matched by any of the span's.
_ATTRIBUTION_VERBS = """
    hold held holds argue argued argues maintain maintained maintains propose proposed
    proposes suggest suggested suggests claim claimed claims contend contended contends
    assert asserted asserts believe believed believes think thought thinks write wrote
    writes written say said says state stated states teach taught teaches posit posited
    posits insist insisted insists theorize theorized theorizes hypothesize hypothesized
    speculate speculated conclude concluded concludes indicate indicated indicates
    according
"""
ATTRIBUTION_LEMMAS: frozenset[str] = frozenset(lemma(w) for w in _ATTRIBUTION_VERBS.split())
# Verbs that give someone's stance on a proposition without framing it as the claim's
# own assertion ("Callis was among those who criticised lattice girders as liable to
# fatigue"): a claim that uses one attributes, so the span's "argued" is not a hedge it
# dropped. Not matched against the span's verbs as the attribution verbs are.
STANCE_LEMMAS: frozenset[str] = frozenset(
    lemma(w)
    for w in [
        "criticise",
        "criticised",
        "criticises",
        "criticize",
        "criticized",
        "criticizes",
        "warn",
        "warned",
        "warns",
        "caution",
        "cautioned",
        "cautions",
        "acknowledge",
        "acknowledged",
        "acknowledges",
        "admit",
        "admitted",
        "admits",
        "concede",
        "conceded",
        "concedes",
        "describe",
        "described",
        "describes",
        "dismiss",
        "dismissed",
        "dismisses",
        "praise",
        "praised",
        "praises",
        "complain",
        "complained",
        "complains",
        "allege",
        "alleged",
        "alleges",
    ]
)
# Verbs that report without framing a proposition the claim then asserts: "the ministry
# reported that …" matches the span's "said that", but "the gain reported by X" is a
# participle, so it never excuses a hedge of the span.
REPORTING_LEMMAS: frozenset[str] = ATTRIBUTION_LEMMAS | frozenset(
    lemma(w) for w in ["report", "reported", "reports", "announce", "announced", "announces"]
)
