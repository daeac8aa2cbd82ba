"""Which claims the review queue holds and how its reasons are named (no queries).

The queue's states, its reasons in risk order (the reason chips) and the reasons that
count as another one in the queue. The queue's filters and its selectors both read them.

The default queue is the unverified and contradicted claims that no reviewer has decided:
a claim whose state rests on a reviewer's decision (``HUMAN_DECISION_REASONS``) leaves
it, and is still found under its state (the state filter, the claim list).
"""

from __future__ import annotations

from verifier.states import QUEUE_REASON_RISK_ORDER, QUEUE_STATES, StateReason

QUEUE_STATE_VALUES: tuple[str, ...] = tuple(sorted(s.value for s in QUEUE_STATES))
# The reasons of a state a reviewer decided: out of the default queue.
HUMAN_DECISION_REASONS: tuple[str, ...] = (
    StateReason.HUMAN_CONTRADICTED.value,
    StateReason.HUMAN_SUPPORTED.value,
)
# The queue reasons in risk order, as shown on the reason chips.
QUEUE_REASON_VALUES: tuple[str, ...] = tuple(r.value for r in QUEUE_REASON_RISK_ORDER)
# Reasons that count as another reason in the queue (a reviewer's contradiction).
REASON_ALIASES: dict[str, tuple[str, ...]] = {
    StateReason.CONTRADICTED.value: (
        StateReason.CONTRADICTED.value,
        StateReason.HUMAN_CONTRADICTED.value,
    ),
}


def reason_values(reason: str) -> tuple[str, ...]:
    return REASON_ALIASES.get(reason, (reason,))
