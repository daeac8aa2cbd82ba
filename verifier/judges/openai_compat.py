"""A judge behind any OpenAI-compatible ``/chat/completions`` endpoint (vLLM, Ollama,
llama.cpp server, hosted APIs).

The model is asked for strict JSON ``{"results": [{"key", "label", "confidence",
"note"}]}``. Answers are parsed defensively (code fences stripped, the outermost JSON
object extracted) but not validated here beyond shape: ``judge_items`` turns unknown
labels, bad confidences, duplicates and omissions into coverage gaps. A note's NUL and
lone surrogates (which PostgreSQL cannot store) are escaped. A response that is
not the protocol at all raises ``JudgeTransportError`` (the whole batch becomes a gap).

Optional self-consistency: ``samples=k`` asks for k answers (``n=k``, topped up with
single requests for servers that ignore ``n``); per item a strict majority of the k
labels wins with the mean confidence of the majority, otherwise the item is
``abstained`` / ``self_consistency_disagreement``.
"""

from __future__ import annotations

import contextlib
import json
import math
from collections import Counter
from collections.abc import Sequence
from typing import Unpack

from verifier.chat_completions import (
    ChatCompletionsModel,
    ChatModelOptions,
    ChatUnavailable,
    load_json_answer,
)
from verifier.judges.base import (
    ANSWER_LABELS,
    JudgeAnswerError,
    JudgeItem,
    JudgeResult,
    JudgeTransportError,
)
from verifier.untrusted_input import printable

PROMPT_VERSION = 1
DEFAULT_BATCH_SIZE = 10
MIN_BATCH_SIZE = 1
MAX_BATCH_SIZE = 25
MAX_SAMPLES = 9
SAMPLING_TEMPERATURE = 0.7
NOTE_DISAGREEMENT = "self_consistency_disagreement"

SYSTEM_PROMPT = """You are an entailment judge. For each item you get a CLAIM and one or \
more SPANS quoted from a source. Decide only whether the spans, read literally, entail the \
claim. Use no outside knowledge.

Labels:
- "entailed": the spans state everything the claim says (paraphrase is fine).
- "contradicted": the spans state the opposite of the claim or a conflicting fact \
(negation, different number, date, unit, name).
- "abstained": anything else, including partial support, missing details, and claims \
that overstate the spans: a hedge removed ("may", "some", "suggests", "tends to", "in \
his experience") or a quantifier or certainty strengthened ("all", "always", "proves", \
"every", "only", "scientists agree").

Answer with JSON only, no prose, exactly:
{"results": [{"key": "<item key>", "label": "entailed|contradicted|abstained", \
"confidence": <number 0..1>, "note": "<short reason naming the decisive words>"}]}
Return exactly one result per item key."""


def clamp_batch_size(value: int | None) -> int:
    if not value:
        return DEFAULT_BATCH_SIZE
    return max(MIN_BATCH_SIZE, min(MAX_BATCH_SIZE, int(value)))


def build_user_prompt(items: Sequence[JudgeItem]) -> str:
    payload = [{"key": it.key, "claim": it.claim, "spans": list(it.spans)} for it in items]
    return "Judge these items:\n" + json.dumps({"items": payload}, ensure_ascii=False)


def parse_answer(content: str) -> list[JudgeResult]:
    """Raw results from one completion's text. Raises ``ValueError`` if unusable."""
    data = load_json_answer(content)
    if isinstance(data, list):
        entries = data
    elif isinstance(data, dict) and isinstance(data.get("results"), list):
        entries = data["results"]
    else:
        raise ValueError("answer has no 'results' list")
    results = []
    for entry in entries:
        if not isinstance(entry, dict) or not isinstance(entry.get("key"), str | int):
            continue  # unattributable: the item stays omitted and is re-asked
        confidence = entry.get("confidence")
        if isinstance(confidence, str):
            with contextlib.suppress(ValueError):
                confidence = float(confidence)
        label = entry.get("label")
        results.append(
            JudgeResult(
                key=str(entry["key"]),
                label=label.strip().lower() if isinstance(label, str) else label,  # type: ignore[arg-type]
                confidence=confidence,  # type: ignore[arg-type]
                # the note is stored with the verdict: NUL and lone surrogates escaped
                note=printable(str(entry.get("note") or "")),
            )
        )
    return results


def _valid(result: JudgeResult) -> bool:
    c = result.confidence
    return (
        result.label in ANSWER_LABELS
        and isinstance(c, int | float)
        and not isinstance(c, bool)
        and not math.isnan(c)
        and 0.0 <= c <= 1.0
    )


def aggregate_samples(
    samples: Sequence[list[JudgeResult]], keys: Sequence[str]
) -> list[JudgeResult]:
    """Strict-majority vote per key over k samples. Invalid or duplicated answers are not
    votes; an item answered validly by nobody passes its first raw answer through (so the
    finalizer reports why) or stays omitted."""
    k = len(samples)
    out: list[JudgeResult] = []
    for key in keys:
        votes: list[JudgeResult] = []
        invalid: list[JudgeResult] = []
        for sample in samples:
            mine = [r for r in sample if r.key == key]
            if len(mine) == 1 and _valid(mine[0]):
                votes.append(mine[0])
            elif mine:
                invalid.extend(mine)
        if not votes:
            if invalid:
                out.append(invalid[0])
            continue
        counts = Counter(v.label for v in votes)
        label, count = counts.most_common(1)[0]
        if count * 2 > k:
            chosen = [v for v in votes if v.label == label]
            confidence = sum(v.confidence for v in chosen) / len(chosen)
            note = f"{chosen[0].note} [{count}/{k} samples]".strip()
            out.append(JudgeResult(key, label, round(confidence, 4), note))
        else:
            tally = ", ".join(f"{lab} {n}" for lab, n in sorted(counts.items()))
            out.append(
                JudgeResult(key, "abstained", round(count / k, 4), f"{NOTE_DISAGREEMENT}: {tally}")
            )
    return out


class OpenAICompatibleJudge(ChatCompletionsModel):
    prompt_version = PROMPT_VERSION

    def __init__(
        self,
        *,
        base_url: str,
        model: str,
        batch_size: int | None = None,
        samples: int = 1,
        temperature: float | None = None,
        **options: Unpack[ChatModelOptions],
    ) -> None:
        super().__init__(base_url=base_url, model=model, **options)
        self.batch_size = clamp_batch_size(batch_size)
        self.samples = max(1, min(MAX_SAMPLES, int(samples or 1)))
        if temperature is None:
            temperature = 0.0 if self.samples == 1 else SAMPLING_TEMPERATURE
        self.temperature = float(temperature)

    # -- transport -------------------------------------------------------------------
    def _post(self, items: Sequence[JudgeItem], n: int) -> list[str]:
        try:
            return self._client.complete(
                system=SYSTEM_PROMPT,
                user=build_user_prompt(items),
                temperature=self.temperature,
                n=n,
            )
        except ChatUnavailable as exc:
            raise JudgeTransportError(str(exc)) from exc

    def _completions(self, items: Sequence[JudgeItem]) -> list[str]:
        contents = self._post(items, self.samples)
        while len(contents) < self.samples:  # servers that ignore ``n``
            contents.extend(self._post(items, 1))
        return contents[: self.samples]

    # -- Judge protocol --------------------------------------------------------------
    def judge_batch(self, items: Sequence[JudgeItem]) -> list[JudgeResult]:
        if not items:
            return []
        parsed: list[list[JudgeResult]] = []
        errors: list[str] = []
        for content in self._completions(items):
            try:
                parsed.append(parse_answer(content))
            except ValueError as exc:
                errors.append(str(exc))
                parsed.append([])  # one bad sample is a non-vote
        if len(errors) == len(parsed):
            raise JudgeAnswerError(errors[0])
        if self.samples == 1:
            return parsed[0]
        return aggregate_samples(parsed, [it.key for it in items])
