"""System checks: the judge's model family must differ from the extractor's; the
worker's tuning variables must be valid; the queue's risk order names known reasons."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.checks import Error, register


@register()
def judge_and_extractor_families_differ(app_configs: Any = None, **kwargs: Any) -> list[Error]:
    from verifier.engine import configured_families

    judge_family, extractor_family = configured_families(settings)
    if judge_family and judge_family == extractor_family:
        return [
            Error(
                f"The judge and the extractor are both of model family {judge_family!r}: "
                "the system that writes claims must never grade its own work.",
                hint="Set SPANPROOF_JUDGE_FAMILY / SPANPROOF_EXTRACTOR_FAMILY (or the models) "
                "so that the two families differ.",
                id="spanproof.E001",
            )
        ]
    return []


@register()
def worker_tuning_valid(app_configs: Any = None, **kwargs: Any) -> list[Error]:
    """The /worker/verify tuning variables (env, seed names) parse and lie in range, so a
    typo fails at start-up rather than as a 500 on the first verification."""
    from verifier.claim_worker.config import TRUST_POLICY_MODES, TuningError, tuning_from

    try:
        tuning_from(dict(getattr(settings, "SPANPROOF_WORKER_TUNING", {}) or {}))
    except TuningError as exc:
        return [
            Error(
                str(exc),
                hint=(
                    "Fix or unset the environment variable"
                    " (defaults: verifier/claim_worker/config.py)."
                ),
                id="spanproof.E002",
            )
        ]
    mode = getattr(settings, "SPANPROOF_WORKER_TRUST_POLICY_MODE", "adaptive")
    if mode not in TRUST_POLICY_MODES:
        return [
            Error(
                f"SPANPROOF_WORKER_TRUST_POLICY_MODE is {mode!r}, not one of "
                f"{', '.join(TRUST_POLICY_MODES)}.",
                hint="Fix or unset the environment variable (default: adaptive).",
                id="spanproof.E002",
            )
        ]
    return []


@register()
def queue_reason_order_valid(app_configs: Any = None, **kwargs: Any) -> list[Error]:
    """SPANPROOF_QUEUE_REASON_RISK_ORDER names known state reasons, each once: a typo
    would rank nothing and leave its reason's filter empty."""
    from verifier.state_policy import queue_reason_order, queue_reason_order_errors

    return [
        Error(
            f"SPANPROOF_QUEUE_REASON_RISK_ORDER: {message}",
            hint="List state reason codes (verifier.states.StateReason), riskiest first.",
            id="spanproof.E003",
        )
        for message in queue_reason_order_errors(queue_reason_order())
    ]
