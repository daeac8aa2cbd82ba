"""Names: ``entity_blockers``, for a claim name the span does not give.

Initials, demonyms, a surname for the full name and an organisation without its suffix
count as given; a capitalised first word counts as a missing name only when the span
names someone else instead.
"""

from __future__ import annotations

from verifier.judges.lexicon import (
    NUMBER_WORDS,
    ORDINAL_WORDS,
    SCOPE_MARKERS,
    SYNONYMS,
    concept,
    lemma,
)
from verifier.judges.signals.blocker import Blocker
from verifier.judges.signals.text_profile import TextProfile, compound_number
from verifier.text.negations import NEGATION_WORDS
from verifier.text.stopwords import STOPWORDS

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
# Words that say what kind of organisation a name is: "Halvorsen" names "Halvorsen
# Therapeutics".
ORGANISATION_SUFFIXES = frozenset(
    {"inc", "ltd", "llc", "plc", "corp", "corporation", "company", "co", "group", "holdings"}
    | {"therapeutics", "pharmaceuticals", "pharma", "technologies", "labs", "laboratories"}
    | {"systems", "industries", "partners", "gmbh", "ag", "sa"}
)
# Words before a surname that are no given name: "Mrs Pryde" is "Agnes Pryde".
HONORIFICS = frozenset(
    {"mr", "mrs", "ms", "miss", "mx", "dr", "sir", "dame", "lady", "lord", "prof"}
    | {"professor", "captain", "capt", "rev", "reverend", "saint", "st", "president"}
    | {"senator", "judge", "general", "king", "queen", "prince", "princess", "father"}
)
# Common nouns that come before a name ("Storm Harvey" is "Hurricane Harvey").
NAME_NOUNS = frozenset(
    {"storm", "hurricane", "typhoon", "cyclone", "tropical", "mount", "mt", "lake", "river"}
    | {"cape", "fort", "port", "bay", "county", "city", "lady", "uncle", "aunt", "cousin"}
)
# Common nouns that end names of things, not of people ("Yale University").
NAME_HEADS = frozenset(
    {"university", "college", "school", "institute", "records", "war", "river", "gallery"}
    | {"open", "tour", "awards", "award", "prize", "states", "party", "league", "cup"}
    | {"street", "road", "bridge", "park", "hall", "house", "church", "hospital", "museum"}
    | {"island", "islands", "mountains", "sea", "ocean", "day", "act", "festival", "bank"}
    | {"championship", "championships", "times", "post", "news", "press", "assembly"}
    | {"council", "committee", "ministry", "department", "agency", "service", "station"}
)
# Family relations: "after her brother drowned" is not "after her husband drowned".
KIN_WORDS = frozenset(
    {"husband", "wife", "widow", "widower", "brother", "sister", "son", "daughter", "father"}
    | {"mother", "uncle", "aunt", "nephew", "niece", "cousin", "grandfather", "grandmother"}
    | {"grandson", "granddaughter", "stepfather", "stepmother", "stepson", "stepdaughter"}
    | {"fiance", "fiancee", "partner", "twin", "parent", "child"}
)
# Adjectives of a place name ("Icelandic" for "Iceland", "Canadian" for "Canada").
DEMONYM_ENDINGS = ("ic", "ian", "an", "ish", "ese", "i")


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


def entity_blockers(
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
            first in NUMBER_WORDS or first in ORDINAL_WORDS or compound_number(first) is not None
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
            # "Albert Einstein" for "Einstein", but not "Margaret Pryde" for "Agnes Pryde"
            rival = _rival_given_name(entity, present, span)
            if rival:
                missing = " ".join(w for w, ok in zip(entity, present, strict=True) if not ok)
                note = f"entity_mismatch: '{missing}' not in span (the source names '{rival}')"
                out.append(Blocker("entity_mismatch", note, False))
            continue
        if present[0] and all(
            ok or w in ORGANISATION_SUFFIXES for w, ok in zip(entity, present, strict=True)
        ):
            continue  # "Halvorsen Therapeutics" for "Halvorsen"
        name = " ".join(w for w, ok in zip(entity, present, strict=True) if not ok)
        out.append(Blocker("entity_mismatch", f"entity_mismatch: '{name}' not in span", False))
    return out


def _rival_given_name(entity: tuple[str, ...], present: list[bool], span: TextProfile) -> str:
    """The span's name with the claim name's surname and another given name just before
    it ("agnes pryde" against the claim's "margaret pryde"); "" when there is none, when
    the claim's missing words are honorifics ("Mrs Pryde"), or when the span's word before
    the surname is a common noun of names ("Storm Harvey") or opens its sentence."""
    missing = [w for w, ok in zip(entity, present, strict=True) if not ok]
    if len(entity) != 2 or missing != [entity[0]] or entity[0] in HONORIFICS | NAME_NOUNS:
        return ""  # a person's name is a given name and a surname
    surname = entity[-1]
    if surname in NAME_HEADS or surname in ORGANISATION_SUFFIXES:
        return ""  # "United States", "Decca Records": not a person
    for k in range(1, len(span.lower)):
        given = span.lower[k - 1]
        if span.lower[k] != surname or given in entity:
            continue
        if given in HONORIFICS or given in NAME_NOUNS or not span.tokens[k - 1][:1].isupper():
            continue
        opens_sentence = k - 1 == 0 or (
            bool(span.sentence) and span.sentence[k - 2] != span.sentence[k - 1]
        )
        if not opens_sentence:
            return f"{given} {surname}"
    return ""


def kin_blockers(claim: TextProfile, span: TextProfile) -> list[Blocker]:
    """A family relation the span does not give, where it gives another ("after her
    brother drowned" / "after her husband drowned")."""
    claim_kin = {w for w in claim.lower if w in KIN_WORDS}
    span_kin = {w for w in span.lower if w in KIN_WORDS}
    missing = sorted(claim_kin - span_kin)
    rivals = sorted(span_kin - claim_kin)
    if missing and rivals:
        note = f"entity_mismatch: '{missing[0]}' not in span (the span says '{rivals[0]}')"
        return [Blocker("entity_mismatch", note, False)]
    return []
