"""Which output of a sequence-classification model means what.

A model's ``config.json`` names its outputs (``id2label``): ``{0: "entailment", 1:
"neutral", 2: "contradiction"}`` for most NLI models, other orders for others, and
``LABEL_0`` / ``LABEL_1`` for models that never named them (MiniCheck). Each output is
read as one of three roles — ``entailed``, ``neutral`` (not entailed, not refuted) or
``contradicted`` — from its name, unless the operator says otherwise
(``SPANPROOF_JUDGE_LABELS``: ``"0=contradicted,1=entailed,2=neutral"`` or the JSON
object ``{"0": "contradicted", ...}``). A model with a single output is read as a
probability of ``entailed`` (sigmoid), as Vectara's HHEM scores consistency.

Pure: no Django, no model loading.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

Role = Literal["entailed", "neutral", "contradicted"]
ROLES: tuple[Role, ...] = ("entailed", "neutral", "contradicted")

# Names seen in public NLI / fact-checking models, folded to lower case, non-letters
# dropped. Checked before the loose word rules below (``not_entailment`` contains
# "entailment").
_EXACT: dict[str, Role] = {
    "entailment": "entailed",
    "entailed": "entailed",
    "entails": "entailed",
    "entail": "entailed",
    "supported": "entailed",
    "support": "entailed",
    "supports": "entailed",
    "consistent": "entailed",
    "faithful": "entailed",
    "factual": "entailed",
    "yes": "entailed",
    "true": "entailed",
    "neutral": "neutral",
    "notentailment": "neutral",
    "notentailed": "neutral",
    "nonentailment": "neutral",
    "unsupported": "neutral",
    "notsupported": "neutral",
    "notenoughinfo": "neutral",
    "nei": "neutral",
    "noinfo": "neutral",
    "inconsistent": "neutral",
    "hallucinated": "neutral",
    "unverifiable": "neutral",
    "no": "neutral",
    "false": "neutral",
    "contradiction": "contradicted",
    "contradicted": "contradicted",
    "contradicts": "contradicted",
    "contradict": "contradicted",
    "refutes": "contradicted",
    "refuted": "contradicted",
    "refute": "contradicted",
}
_NOT_LETTERS = re.compile(r"[^a-z]+")


class LabelMappingError(ValueError):
    """The model's outputs cannot be read as entailed / neutral / contradicted."""


@dataclass(frozen=True)
class LabelMap:
    """Output index → role, for a model with ``size`` outputs. ``size`` 1: a single
    logit read as the probability of ``entailed``."""

    roles: tuple[Role, ...]

    @property
    def size(self) -> int:
        return len(self.roles)

    def index(self, role: Role) -> int | None:
        return self.roles.index(role) if role in self.roles else None

    def describe(self) -> str:
        return ", ".join(f"{i}={role}" for i, role in enumerate(self.roles))


def role_of(name: str) -> Role | None:
    """The role a label name stands for, or None when the name says nothing."""
    folded = _NOT_LETTERS.sub("", name.lower())
    return _EXACT.get(folded)


def parse_override(text: str) -> dict[int, Role]:
    """``"0=contradicted,1=entailed"`` or ``{"0": "contradicted", "1": "entailed"}`` →
    {index: role}. Each value may be a role or any label name ``role_of`` knows."""
    text = text.strip()
    if not text:
        return {}
    pairs: list[tuple[str, str]]
    if text.startswith("{"):
        try:
            loaded = json.loads(text)
        except ValueError as exc:
            raise LabelMappingError(f"label mapping is not valid JSON: {exc}") from None
        if not isinstance(loaded, dict):
            raise LabelMappingError("label mapping JSON must be an object")
        pairs = [(str(k), str(v)) for k, v in loaded.items()]
    else:
        pairs = []
        for part in text.split(","):
            key, sep, value = part.partition("=")
            if not sep:
                raise LabelMappingError(f"label mapping entry {part.strip()!r} is not index=role")
            pairs.append((key.strip(), value.strip()))
    out: dict[int, Role] = {}
    for key, value in pairs:
        try:
            index = int(key)
        except ValueError:
            raise LabelMappingError(f"label mapping index {key!r} is not a number") from None
        role = role_of(value)
        if role is None:
            raise LabelMappingError(
                f"label mapping value {value!r} is not one of entailed, neutral, contradicted"
            )
        out[index] = role
    return out


def label_map(id2label: Mapping[Any, str], num_labels: int, override: str = "") -> LabelMap:
    """The roles of a model's ``num_labels`` outputs: from ``override`` where given,
    else from the names in ``id2label``. Raises :class:`LabelMappingError` when an output
    has no role or no output means ``entailed``."""
    if num_labels < 1:
        raise LabelMappingError("the model has no outputs")
    chosen = parse_override(override)
    if num_labels == 1:
        if chosen and chosen.get(0, "entailed") != "entailed":
            raise LabelMappingError("a single-output model is read as P(entailed) only")
        return LabelMap(("entailed",))
    names = {int(k): str(v) for k, v in id2label.items()}
    roles: list[Role] = []
    for index in range(num_labels):
        role = chosen.get(index) or role_of(names.get(index, ""))
        if role is None:
            raise LabelMappingError(
                f"output {index} is labelled {names.get(index, '')!r}, which names no role; "
                "set SPANPROOF_JUDGE_LABELS, e.g. '0=neutral,1=entailed'"
            )
        roles.append(role)
    if unknown := set(chosen) - set(range(num_labels)):
        raise LabelMappingError(f"label mapping names outputs the model lacks: {sorted(unknown)}")
    if "entailed" not in roles:
        raise LabelMappingError("no output of the model means entailed")
    if roles.count("entailed") > 1:
        raise LabelMappingError("more than one output means entailed")
    return LabelMap(tuple(roles))
