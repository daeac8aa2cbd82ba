"""The Layer-2 judge interface: items, raw results, the protocol and its transport error.

A judge is asked one narrow question per item: does this bound span entail this claim?
``Judge.judge_batch`` returns the judge's *raw* answers; they are not trusted. The
coverage finalizer (``verifier.judges.coverage.judge_items``) turns them into exactly
one valid result per item, so an omitted or malformed answer can never become a pass.

No Django imports here: judges run in Celery workers, benches and plain tests.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, Protocol, get_args, runtime_checkable

JudgeLabel = Literal["entailed", "contradicted", "abstained", "coverage_gap"]

JUDGE_LABELS: frozenset[str] = frozenset(get_args(JudgeLabel))
# What a judge itself may answer; ``coverage_gap`` is only ever assigned by the finalizer.
ANSWER_LABELS: frozenset[str] = frozenset({"entailed", "contradicted", "abstained"})

MAX_SPANS_PER_ITEM = 3


@dataclass(frozen=True)
class JudgeItem:
    """One claim and up to ``MAX_SPANS_PER_ITEM`` spans bound to it (texts, not offsets).

    ``context`` is what a reader sees just before the span (the source title and the
    preceding sentence), so that a name given one sentence earlier is not "missing".
    It may resolve a reference; it is not evidence on its own."""

    key: str
    claim: str
    spans: tuple[str, ...]
    context: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.spans, tuple):
            object.__setattr__(self, "spans", tuple(self.spans))
        if len(self.spans) > MAX_SPANS_PER_ITEM:
            raise ValueError(
                f"JudgeItem {self.key!r} has {len(self.spans)} spans; "
                f"at most {MAX_SPANS_PER_ITEM} are allowed"
            )

    @property
    def has_evidence(self) -> bool:
        return any(span.strip() for span in self.spans)


def item_context(*, title: str, previous: str) -> str:
    """A ``JudgeItem.context``: the source title (as a sentence) and the sentence before
    the span, whichever are present."""
    title = title.strip()
    return " ".join(part for part in (f"{title}." if title else "", previous.strip()) if part)


@dataclass(frozen=True)
class JudgeResult:
    """One answer. ``confidence`` is the judge's confidence in ``label``, in [0, 1]."""

    key: str
    label: JudgeLabel
    confidence: float
    note: str


class JudgeTransportError(Exception):
    """The judge could not be reached or did not answer usably (timeout, HTTP error,
    a response body that is not the expected protocol at all)."""


class JudgeAnswerError(JudgeTransportError):
    """The judge answered, but the answer is not parseable as the expected JSON."""


@runtime_checkable
class Judge(Protocol):
    model_id: str
    family: str
    prompt_version: int

    def judge_batch(self, items: Sequence[JudgeItem]) -> list[JudgeResult]:
        """Raw answers for ``items``; may omit items or raise ``JudgeTransportError``."""
        ...
