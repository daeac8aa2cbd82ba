"""The state policy in force and the review queue's risk order, read from settings.

``verifier.states`` holds the built-in risk order (``QUEUE_REASON_RISK_ORDER``); a
deployment (or a test) may reorder or extend it with
``settings.SPANPROOF_QUEUE_REASON_RISK_ORDER``, a list of state reason codes, riskiest
first. Everything that ranks a reason reads it here: the state writer (which stores the
rank beside the reason), the queue's reason filter and chips, and the state function
through the policy.
"""

from __future__ import annotations

from dataclasses import replace

from django.conf import settings

from verifier.states import (
    DEFAULT_POLICY,
    QUEUE_REASON_RISK_ORDER,
    StatePolicy,
    StateReason,
    queue_risk_rank,
)


def queue_reason_order() -> tuple[str, ...]:
    """The queue's reasons, riskiest first (the setting, else the built-in order)."""
    configured = getattr(settings, "SPANPROOF_QUEUE_REASON_RISK_ORDER", None)
    if not configured:
        return tuple(r.value for r in QUEUE_REASON_RISK_ORDER)
    return tuple(str(r) for r in configured)


def state_policy() -> StatePolicy:
    """The state policy the writer resolves states with (the default one, with the risk
    order in force)."""
    order = queue_reason_order()
    if order == DEFAULT_POLICY.risk_order:
        return DEFAULT_POLICY
    return replace(DEFAULT_POLICY, risk_order=order)


def queue_rank(reason: StateReason | str) -> int:
    """The queue rank the state writer stores with ``reason`` (0 is riskiest)."""
    return queue_risk_rank(reason, queue_reason_order())


def queue_rank_default() -> int:
    """The rank of a new claim (its reason is ``not_judged`` until the writer moves it)."""
    return queue_rank(StateReason.NOT_JUDGED)


def queue_reason_order_errors(order: tuple[str, ...]) -> list[str]:
    """What is wrong with a configured order: unknown reasons, repeats."""
    known = {r.value for r in StateReason}
    errors = [f"unknown state reason {code!r}" for code in order if code not in known]
    repeated = sorted({code for code in order if order.count(code) > 1})
    errors += [f"{code!r} is listed more than once" for code in repeated]
    return errors
