"""The decision every probability-reading judge makes, written once: ``entailed`` when
P(entailed) reaches its threshold (confidence = that probability), else ``contradicted``
when P(contradicted) reaches its own, else ``abstained`` with confidence 1 − P(entailed).
No Django imports."""

from __future__ import annotations

from verifier.judges.base import JudgeResult


def decide_by_thresholds(
    key: str,
    *,
    p_entailed: float,
    p_contradicted: float,
    entail_threshold: float,
    contradict_threshold: float,
    where: str,
    detail: str = "",
) -> JudgeResult:
    """``where`` names the reading that decided ("span 1"); ``detail`` is appended to the
    note of an answer that is not ``entailed`` (the weak words, say)."""
    if p_entailed >= entail_threshold:
        return JudgeResult(
            key, "entailed", round(p_entailed, 4), f"entailed: p={p_entailed:.2f} ({where})"
        )
    if p_contradicted >= contradict_threshold:
        return JudgeResult(
            key,
            "contradicted",
            round(p_contradicted, 4),
            f"contradicted: p={p_contradicted:.2f} ({where}){detail}",
        )
    return JudgeResult(
        key,
        "abstained",
        round(1.0 - p_entailed, 4),
        f"not_entailed: p(entailed)={p_entailed:.2f}, p(contradicted)={p_contradicted:.2f}"
        f" ({where}){detail}",
    )
