"""``Blocker``: one signal that stops a span entailing a claim, and whether the span
entails the claim's negation instead.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Blocker:
    kind: str  # negation | antonym | number_mismatch | unit_mismatch | date_mismatch |
    #            number_unsupported | date_unsupported | entity_mismatch | scope
    note: str
    contradicts: bool  # True: the span entails the negation; False: not entailed only
