"""Layer-2 entailment judges: "does this bound span entail this claim?"

Public API: the types in ``base``, the coverage finalizer ``judge_items`` and
``build_judge``. Import-safe without Django.
"""

from verifier.judges.base import (
    MAX_SPANS_PER_ITEM,
    Judge,
    JudgeAnswerError,
    JudgeItem,
    JudgeLabel,
    JudgeResult,
    JudgeTransportError,
)
from verifier.judges.coverage import judge_items
from verifier.judges.registry import JudgeConfigError, build_judge, judge_config_from_env

__all__ = [
    "MAX_SPANS_PER_ITEM",
    "Judge",
    "JudgeAnswerError",
    "JudgeConfigError",
    "JudgeItem",
    "JudgeLabel",
    "JudgeResult",
    "JudgeTransportError",
    "build_judge",
    "judge_config_from_env",
    "judge_items",
]
