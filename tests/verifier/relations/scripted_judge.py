"""A judge that answers from a script: stands in for an external LLM endpoint whose
answers the tests choose (the project's own heuristic judge is exercised separately)."""

from __future__ import annotations

from collections.abc import Sequence

from verifier.judges.base import JudgeItem, JudgeResult, JudgeTransportError


class ScriptedJudge:
    model_id = "scripted"
    family = "scripted"
    prompt_version = 1

    def __init__(self, answers: dict[str, tuple[str, float]] | None = None, *, down=False):
        self.answers = answers or {}
        self.down = down
        self.asked: list[JudgeItem] = []

    def judge_batch(self, items: Sequence[JudgeItem]) -> list[JudgeResult]:
        self.asked.extend(items)
        if self.down:
            raise JudgeTransportError("connection refused")
        return [
            JudgeResult(
                key=i.key, label=self.answers[i.key][0], confidence=self.answers[i.key][1], note=""
            )  # type: ignore[arg-type]
            for i in items
            if i.key in self.answers
        ]
