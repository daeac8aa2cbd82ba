"""Versioned verification rule sets: six weighted dimensions and named policies.

A rule set is public configuration (``GET /connect/v1/verification-rules``): each
dimension has a weight, a passing threshold, a description and the prompt template
an LLM judge receives; each policy sets the overall pass and weak-claim thresholds.
Pure Python, no Django: storage goes through :func:`to_dict` / :func:`from_dict`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Final, Literal

from verifier.errors import ApplicationError

DIMENSIONS: Final[tuple[str, ...]] = (
    "logical_structure",
    "evidence_grounding",
    "counterargument_coverage",
    "scope_calibration",
    "assumption_transparency",
    "internal_consistency",
)
POLICY_NAMES: Final[tuple[str, ...]] = ("strict", "balanced", "lenient")
WEIGHT_TOLERANCE: Final = 1e-6

Classification = Literal["supported", "weak", "unsupported"]

# Offline or model-backed scorer: (claim, evidence passages) -> score in [0, 1] per
# dimension key. Implementations live with the judges, not here.
DimensionScorer = Callable[[str, Sequence[str]], Mapping[str, float]]


@dataclass(frozen=True)
class Dimension:
    key: str
    weight: float
    description: str
    prompt_template: str
    passing_threshold: float

    def render_prompt(self, claim: str, evidence: Sequence[str]) -> str:
        """The judge prompt, with evidence passages numbered ``[1]``, ``[2]``, …"""
        passages = "\n".join(f"[{i}] {text}" for i, text in enumerate(evidence, start=1))
        return self.prompt_template.format(claim=claim, evidence=passages or "(no evidence)")


@dataclass(frozen=True)
class Policy:
    name: str
    min_overall_score: float
    weak_threshold: float


@dataclass(frozen=True)
class RuleSetDefinition:
    name: str
    version: int
    dimensions: tuple[Dimension, ...]
    policies: tuple[Policy, ...]
    default_policy: str
    display_name: str = ""

    def dimension(self, key: str) -> Dimension:
        for dim in self.dimensions:
            if dim.key == key:
                return dim
        raise KeyError(key)

    def policy(self, name: str | None = None) -> Policy:
        wanted = self.default_policy if name is None else name
        for pol in self.policies:
            if pol.name == wanted:
                return pol
        raise KeyError(wanted)


_RESPONSE_FORMAT = (
    "Judge only the evidence shown; do not use outside knowledge.\n"
    "Answer with JSON only: "
    '{{"score": <number from 0 to 1>, "rationale": "<one sentence>"}}'
)


def _template(question: str, scale: str) -> str:
    return (
        f"{question}\n\n"
        "Claim:\n{claim}\n\n"
        "Evidence:\n{evidence}\n\n"
        f"Scoring: {scale}\n"
        f"{_RESPONSE_FORMAT}"
    )


CORE_V1: Final = RuleSetDefinition(
    name="Core v1",
    display_name="Restormel Core v1",
    version=1,
    default_policy="balanced",
    dimensions=(
        Dimension(
            key="logical_structure",
            weight=0.25,
            passing_threshold=0.6,
            description=(
                "The claim follows from the evidence by a valid chain of reasoning: no "
                "non-sequiturs, no reversed causation, no conclusion stronger than its premises."
            ),
            prompt_template=_template(
                "Does the claim follow from the evidence through valid reasoning?",
                "1 = follows directly and validly; 0.5 = follows only with a missing step; "
                "0 = does not follow, or the reasoning is invalid.",
            ),
        ),
        Dimension(
            key="evidence_grounding",
            weight=0.20,
            passing_threshold=0.6,
            description=(
                "Every factual element of the claim (who, what, when, how much) is stated in "
                "the quoted evidence, not merely suggested by it or found elsewhere."
            ),
            prompt_template=_template(
                "Is every factual element of the claim stated in the evidence?",
                "1 = every element is stated; 0.5 = some elements are stated, others only "
                "implied; 0 = the evidence does not state the claim.",
            ),
        ),
        Dimension(
            key="counterargument_coverage",
            weight=0.20,
            passing_threshold=0.55,
            description=(
                "Qualifications, exceptions or opposing points that the evidence itself raises "
                "are preserved in the claim rather than dropped."
            ),
            prompt_template=_template(
                "Does the claim keep the qualifications, exceptions and opposing points that "
                "the evidence raises?",
                "1 = all are kept, or the evidence raises none; 0.5 = some are dropped; "
                "0 = the claim drops a qualification that changes its meaning.",
            ),
        ),
        Dimension(
            key="scope_calibration",
            weight=0.15,
            passing_threshold=0.55,
            description=(
                "The claim's generality and certainty match the evidence: no 'all' where the "
                "source says 'some', no 'proves' where it says 'suggests'."
            ),
            prompt_template=_template(
                "Do the claim's scope and certainty match the evidence (quantifiers, hedges, "
                "time frame, population)?",
                "1 = scope and certainty match; 0.5 = somewhat overstated or understated; "
                "0 = generalises or asserts far beyond the evidence.",
            ),
        ),
        Dimension(
            key="assumption_transparency",
            weight=0.10,
            passing_threshold=0.5,
            description=(
                "Any assumption the claim needs beyond the evidence is stated, not smuggled in."
            ),
            prompt_template=_template(
                "Does the claim rely on assumptions that are neither in the evidence nor "
                "stated in the claim?",
                "1 = no unstated assumptions; 0.5 = a minor unstated assumption; "
                "0 = depends on an unstated assumption the evidence does not support.",
            ),
        ),
        Dimension(
            key="internal_consistency",
            weight=0.10,
            passing_threshold=0.5,
            description=(
                "The claim does not contradict itself or the evidence it cites, and its "
                "terms keep one meaning throughout."
            ),
            prompt_template=_template(
                "Is the claim consistent with itself and with the evidence it cites?",
                "1 = fully consistent; 0.5 = a term shifts meaning or a tension is left "
                "unresolved; 0 = the claim contradicts itself or the evidence.",
            ),
        ),
    ),
    policies=(
        Policy("strict", min_overall_score=0.75, weak_threshold=0.60),
        Policy("balanced", min_overall_score=0.60, weak_threshold=0.45),
        Policy("lenient", min_overall_score=0.45, weak_threshold=0.30),
    ),
)

BUILT_IN_RULE_SETS: Final[Mapping[str, RuleSetDefinition]] = MappingProxyType(
    {CORE_V1.name: CORE_V1}
)


# --- validation ------------------------------------------------------------------


def _unit(value: object) -> bool:
    return (
        isinstance(value, int | float)
        and not isinstance(value, bool)
        and math.isfinite(value)
        and 0.0 <= value <= 1.0
    )


def validate_definition(d: RuleSetDefinition) -> list[str]:
    """Every problem with a rule set, as human-readable messages; empty when valid."""
    errors: list[str] = []
    if not d.name.strip():
        errors.append("name must not be empty")
    if isinstance(d.version, bool) or not isinstance(d.version, int) or d.version < 1:
        errors.append("version must be a positive integer")

    keys = [dim.key for dim in d.dimensions]
    for key in DIMENSIONS:
        if keys.count(key) != 1:
            errors.append(f"dimension {key!r} must appear exactly once (found {keys.count(key)})")
    for key in sorted(set(keys) - set(DIMENSIONS)):
        errors.append(f"unknown dimension {key!r}")
    for dim in d.dimensions:
        if not _unit(dim.weight):
            errors.append(f"dimension {dim.key!r}: weight {dim.weight!r} not in [0, 1]")
        if not _unit(dim.passing_threshold):
            errors.append(
                f"dimension {dim.key!r}: passing_threshold {dim.passing_threshold!r} not in [0, 1]"
            )
        try:
            dim.render_prompt("claim", ["evidence"])
        except (KeyError, IndexError, ValueError) as exc:
            errors.append(f"dimension {dim.key!r}: prompt_template does not render: {exc!r}")
        else:
            for slot in ("{claim}", "{evidence}"):
                if slot not in dim.prompt_template:
                    errors.append(f"dimension {dim.key!r}: prompt_template lacks {slot}")
    if all(_unit(dim.weight) for dim in d.dimensions):
        total = math.fsum(dim.weight for dim in d.dimensions)
        if abs(total - 1.0) > WEIGHT_TOLERANCE:
            # Rounded: 0.45 + 1.2 reads "1.65", not the float's "1.6500000000000001".
            errors.append(f"weights sum to {round(total, 6):g}, not 1")

    names = [pol.name for pol in d.policies]
    for name in POLICY_NAMES:
        if name not in names:
            errors.append(f"policy {name!r} is missing")
    for name in sorted({n for n in names if names.count(n) > 1}):
        errors.append(f"policy {name!r} is defined more than once")
    for pol in d.policies:
        ok_values = True
        for field_name in ("min_overall_score", "weak_threshold"):
            value = getattr(pol, field_name)
            if not _unit(value):
                ok_values = False
                errors.append(f"policy {pol.name!r}: {field_name} {value!r} not in [0, 1]")
        if ok_values and pol.weak_threshold > pol.min_overall_score:
            errors.append(f"policy {pol.name!r}: weak_threshold exceeds min_overall_score")
    if d.default_policy not in names:
        errors.append(f"default_policy {d.default_policy!r} is not a defined policy")
    return errors


class InvalidRuleSet(ApplicationError, ValueError):
    """Every error found in a rule set; ``errors`` lists them, the message joins them."""

    def __init__(self, errors: Sequence[str]) -> None:
        self.errors = list(errors)
        super().__init__("invalid_rule_set", "; ".join(self.errors), {"errors": self.errors})


def _require_valid(d: RuleSetDefinition) -> RuleSetDefinition:
    errors = validate_definition(d)
    if errors:
        raise InvalidRuleSet(errors)
    return d


# --- storage ---------------------------------------------------------------------


def to_dict(d: RuleSetDefinition) -> dict[str, Any]:
    """JSON-safe form, dimensions in order; :func:`from_dict` reverses it exactly."""
    return {
        "name": d.name,
        "display_name": d.display_name,
        "version": d.version,
        "default_policy": d.default_policy,
        "dimensions": [
            {
                "key": dim.key,
                "weight": dim.weight,
                "passing_threshold": dim.passing_threshold,
                "description": dim.description,
                "prompt_template": dim.prompt_template,
            }
            for dim in d.dimensions
        ],
        "policies": [
            {
                "name": pol.name,
                "min_overall_score": pol.min_overall_score,
                "weak_threshold": pol.weak_threshold,
            }
            for pol in d.policies
        ],
    }


def from_dict(data: Mapping[str, Any]) -> RuleSetDefinition:
    """Build and validate a rule set; raises :class:`InvalidRuleSet` with every error."""
    try:
        d = RuleSetDefinition(
            name=str(data["name"]),
            display_name=str(data.get("display_name", "")),
            version=data["version"],
            default_policy=str(data["default_policy"]),
            dimensions=tuple(
                Dimension(
                    key=str(item["key"]),
                    weight=item["weight"],
                    passing_threshold=item["passing_threshold"],
                    description=str(item.get("description", "")),
                    prompt_template=str(item["prompt_template"]),
                )
                for item in data["dimensions"]
            ),
            policies=tuple(
                Policy(
                    name=str(item["name"]),
                    min_overall_score=item["min_overall_score"],
                    weak_threshold=item["weak_threshold"],
                )
                for item in data["policies"]
            ),
        )
    except (KeyError, TypeError) as exc:
        raise InvalidRuleSet([f"malformed rule set: missing or wrong field {exc}"]) from exc
    return _require_valid(d)


# --- scoring ---------------------------------------------------------------------


def _checked_scores(d: RuleSetDefinition, scores: Mapping[str, float]) -> None:
    keys = {dim.key for dim in d.dimensions}
    errors = [f"missing score for {k!r}" for k in DIMENSIONS if k in keys and k not in scores]
    errors += [f"unknown dimension {k!r}" for k in sorted(set(scores) - keys)]
    errors += [f"score for {k!r}: {v!r} not in [0, 1]" for k, v in scores.items() if not _unit(v)]
    if errors:
        raise ValueError("; ".join(errors))


def overall_score(d: RuleSetDefinition, scores: Mapping[str, float]) -> float:
    """Weighted sum of the six dimension scores (each in [0, 1])."""
    _checked_scores(d, scores)
    return math.fsum(dim.weight * scores[dim.key] for dim in d.dimensions)


def classify(
    d: RuleSetDefinition, scores: Mapping[str, float], policy_name: str | None = None
) -> Classification:
    """``supported`` at or above the policy's minimum, ``weak`` at or above its weak
    threshold, else ``unsupported``. ``policy_name=None`` uses the default policy."""
    policy = d.policy(policy_name)
    # Round away float noise (0.1 + 0.2 style) so a score exactly on a threshold
    # classifies the same way however the weighted sum was accumulated.
    score = round(overall_score(d, scores), 9)
    if score >= policy.min_overall_score:
        return "supported"
    if score >= policy.weak_threshold:
        return "weak"
    return "unsupported"
