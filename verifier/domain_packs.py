"""What may name a domain pack, written once for every door that makes one (a new
source through the API, an upload, an ingest job; a new pack chosen when a rule set is
activated).

A source's domain pack is fixed when the source is made and chooses the rule set and
policy its claims are scored under, so a pack name that only looks like another one
("gen\u200beral" with a zero-width space, "General" beside "general") would put claims
under other rules for good, with nothing on the page to tell them apart. Free of Django.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from verifier.untrusted_input import identifier_problem
from verifier.vocabulary import ALL_PACKS

MAX_DOMAIN_PACK_CHARS: Final = 64
DEFAULT_DOMAIN_PACK: Final = "general"
# The packs and refs of the sources the memory and RAG doors make (a transcript under
# ``transcript:<sha256[:16]>`` unless given a ref; a chunk under ``rag-chunk:<sha256[:16]>``).
MEMORY_DOMAIN_PACK: Final = "memory"
RAG_DOMAIN_PACK: Final = "rag"
TRANSCRIPT_REF_PREFIX: Final = "transcript:"
RAG_CHUNK_REF_PREFIX: Final = "rag-chunk:"


# The console's own words for "no pack" (``vocabulary.ALL_PACKS``, the default) and for
# the default pack, with the wordings pages used before it and their near variants: a
# new pack under one of these names would sit beside the words
# that mean every pack, or the default one, and read as them. Compared after case folding
# and with runs of blanks as one space (``_read_as``); "general" itself is the default
# pack, not a word for it, and stays a name.
_CONSOLE_WORDS: Final = frozenset(
    {
        "all",
        ALL_PACKS,
        f"{ALL_PACKS} (default)",
        "all domain packs",
        "all domain packs (default)",
        "every pack",
        "every domain pack",
        "any pack",
        "any domain pack",
        "no pack",
        "no domain pack",
        "none",
        "default",
        "(default)",
        "default pack",
        "default domain pack",
        "the default pack",
        "general pack",
        "general (default)",
        "inherited from all packs",
    }
)


def _read_as(name: str) -> str:
    """How ``name`` reads: case folded, with every run of blanks one space."""
    return " ".join(name.split()).casefold()


def domain_pack_problem(name: str, known: Iterable[str]) -> str | None:
    """Why ``name`` cannot name a new domain pack beside the ``known`` ones, or None.
    A name already known is always fine (it is that pack)."""
    known = [k for k in known if k]
    if name in known:
        return None
    if len(name) > MAX_DOMAIN_PACK_CHARS:
        return (
            f"A domain pack name has at most {MAX_DOMAIN_PACK_CHARS} characters; "
            f"the new one has {len(name):,}."
        )
    if name != name.strip():
        return "A domain pack name does not begin or end with a space."
    problem = identifier_problem(name)
    if problem is not None:
        return f"The new domain pack name {problem}: a pack name must read as what it is."
    if _read_as(name) in _CONSOLE_WORDS:
        return (
            f"“{name}” is how the console names all packs or the default one: a pack "
            "under that name would read as them. Choose a name that reads differently."
        )
    # the default pack is a name whether or not a source or rule set uses it yet
    same = sorted(
        k for k in {*known, DEFAULT_DOMAIN_PACK} if k != name and _read_as(k) == _read_as(name)
    )
    if same:
        return (
            f"“{name}” differs from the existing domain pack “{same[0]}” only in letter "
            f"case or spacing: choose “{same[0]}”, or a name that reads differently."
        )
    return None
