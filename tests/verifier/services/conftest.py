from __future__ import annotations

from collections.abc import Sequence

import pytest

from verifier.judges import JudgeItem, JudgeResult

CORAL = (
    "Cold-water corals grow in dark water far below the reach of sunlight. "
    "Unlike their tropical relatives, they host no symbiotic algae. "
    "Norway closed several reef areas to trawling in 1999. "
    "Growth of individual branches is slow, roughly 5 to 25 millimetres per year."
)
KELP = (
    "Giant kelp is among the fastest-growing organisms on Earth. "
    "Sea otters were hunted almost to extinction during the maritime fur trade."
)


class ScriptedJudge:
    """An external-model stand-in implementing the Judge protocol.

    Answers every item with ``label`` unless its claim text is in ``omit`` (then it
    leaves the item out, like a model that skips batch items). Records what it saw.
    """

    model_id = "scripted-judge-1"
    family = "scripted"
    prompt_version = 7

    def __init__(self, label: str = "entailed", confidence: float = 0.9, omit=()) -> None:
        self.label = label
        self.confidence = confidence
        self.omit = set(omit)
        self.seen: list[JudgeItem] = []

    def judge_batch(self, items: Sequence[JudgeItem]) -> list[JudgeResult]:
        self.seen.extend(items)
        return [
            JudgeResult(item.key, self.label, self.confidence, "scripted")
            for item in items
            if item.claim not in self.omit
        ]


@pytest.fixture
def coral(workspace):
    from tests.factories import make_source

    return make_source(workspace, ref="source:coral", text=CORAL)


@pytest.fixture
def kelp(workspace):
    from tests.factories import make_source

    return make_source(workspace, ref="source:kelp", text=KELP)
