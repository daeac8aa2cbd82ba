"""Seed 002 — memory claims: an agent's "I said X" checked against its own transcript.

Pure Python, no Django: ``transcript`` (parse and render turns), ``detection`` (lanes),
``drift`` (the material-drift rubric and non-material differences), ``verify`` (match to
the agent's own turns, six outcomes) and ``metrics`` (per-agent rates, Wilson intervals).
"""

from verifier.memory.detection import (
    IN_SCOPE,
    MemoryClaim,
    detect_claims,
    message_claims,
    undeclared,
)
from verifier.memory.drift import DRIFT_CATEGORIES, DriftReport, Finding, compare
from verifier.memory.metrics import (
    MIN_CLAIMS_FOR_RATES,
    OUTCOMES,
    agent_stats,
    wilson_interval,
)
from verifier.memory.transcript import (
    Transcript,
    TranscriptInputError,
    Turn,
    parse_transcript,
    render,
    speaker_key,
)
from verifier.memory.verify import (
    INSUFFICIENT_REASONS,
    MATCH_THRESHOLD,
    ClaimVerdict,
    Match,
    MemoryVerifier,
    MessageVectors,
    units,
)
from verifier.memory.wording import NON_MATERIAL

__all__ = [
    "DRIFT_CATEGORIES",
    "INSUFFICIENT_REASONS",
    "IN_SCOPE",
    "MATCH_THRESHOLD",
    "MIN_CLAIMS_FOR_RATES",
    "NON_MATERIAL",
    "OUTCOMES",
    "ClaimVerdict",
    "DriftReport",
    "Finding",
    "Match",
    "MemoryClaim",
    "MemoryVerifier",
    "MessageVectors",
    "Transcript",
    "TranscriptInputError",
    "Turn",
    "agent_stats",
    "compare",
    "detect_claims",
    "message_claims",
    "parse_transcript",
    "render",
    "speaker_key",
    "undeclared",
    "units",
    "wilson_interval",
]
