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

MAX_DOMAIN_PACK_CHARS: Final = 64
DEFAULT_DOMAIN_PACK: Final = "general"
# The packs and refs of the sources the memory and RAG doors make (a transcript under
# ``transcript:<sha256[:16]>`` unless given a ref; a chunk under ``rag-chunk:<sha256[:16]>``).
MEMORY_DOMAIN_PACK: Final = "memory"
RAG_DOMAIN_PACK: Final = "rag"
TRANSCRIPT_REF_PREFIX: Final = "transcript:"
RAG_CHUNK_REF_PREFIX: Final = "rag-chunk:"


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
    same = sorted(k for k in known if k.casefold() == name.casefold())
    if same:
        return (
            f"“{name}” differs from the existing domain pack “{same[0]}” only in letter "
            f"case: choose “{same[0]}”, or a name that reads differently."
        )
    return None
