"""Which claims the review queue holds and how its reasons are named (no queries).

The queue's states, its reasons in risk order (the reason chips, in the order in force:
``verifier.state_policy.queue_reason_order``) and the reasons that count as another one
in the queue. The queue's filters and its selectors both read them.

The default queue is the unverified and contradicted claims that no reviewer has decided:
a claim whose state rests on a reviewer's decision (``HUMAN_DECISION_REASONS``) leaves
it, and is still found under its state (the state filter, the claim list).
"""

from __future__ import annotations

from verifier.state_policy import queue_reason_order
from verifier.states import HUMAN_DECISION_REASONS as DECIDED
from verifier.states import QUEUE_STATES

QUEUE_STATE_VALUES: tuple[str, ...] = tuple(sorted(s.value for s in QUEUE_STATES))
# The reasons of a state a reviewer decided (supported, contradicted, not stated by the
# source): out of the default queue.
HUMAN_DECISION_REASONS: tuple[str, ...] = tuple(reason.value for reason in DECIDED)


def queue_reason_values() -> tuple[str, ...]:
    """The queue reasons in risk order, as shown on the reason chips."""
    return queue_reason_order()
