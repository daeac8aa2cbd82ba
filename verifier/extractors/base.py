"""The extractor interface: free text in, declarative claims with verbatim quotes out.

No Django imports. The quote is the claim's text exactly as it appears in the input, so
Layer-1 binding can find it at exact offsets; ``text`` is the tidied claim.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, runtime_checkable

# The longest claim text, whichever door it comes through (claims/verify, /worker/verify,
# an extractor): a "sentence" longer than this is a passage with no sentence ends, not
# one claim a reviewer could decide.
MAX_CLAIM_CHARS = 2000


@dataclass(frozen=True)
class ExtractedClaim:
    text: str
    quote: str


@runtime_checkable
class Extractor(Protocol):
    model_id: str
    family: str

    def extract(self, text: str) -> list[ExtractedClaim]: ...


def check_families(judge_family: str, extractor_family: str) -> str | None:
    """An error message when the judge would grade its own extractor's work, else None.

    Families are compared case-insensitively, ignoring surrounding whitespace; an empty
    family is an error too because it cannot be checked."""
    judge = (judge_family or "").strip().lower()
    extractor = (extractor_family or "").strip().lower()
    if not judge or not extractor:
        return (
            "judge and extractor must both declare a model family "
            f"(judge={judge_family!r}, extractor={extractor_family!r})"
        )
    if judge == extractor:
        return (
            f"judge and extractor share the model family {judge_family!r}; the system "
            "that writes claims must not grade its own work — configure a judge from a "
            "different family"
        )
    return None
