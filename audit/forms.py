"""The rule-set tuning form: weights, passing thresholds and policy thresholds."""

from __future__ import annotations

from dataclasses import replace
from typing import Any, TypedDict, cast

from django import forms

from verifier.scoring.rulesets import (
    DIMENSIONS,
    POLICY_NAMES,
    RuleSetDefinition,
    validate_definition,
)
from verifier.vocabulary import label


class _Bounds(TypedDict):
    min_value: float
    max_value: float


UNIT: _Bounds = {"min_value": 0.0, "max_value": 1.0}
UNIT_WIDGET = {"step": "0.01", "min": "0", "max": "1", "inputmode": "decimal"}


def _unit_field(label: str) -> forms.FloatField:
    return forms.FloatField(label=label, widget=forms.NumberInput(attrs=UNIT_WIDGET), **UNIT)


def _title(key: str) -> str:
    return label("dimension", key)  # the one vocabulary's words, as on the Rules page


class RuleSetForm(forms.Form):
    """Edits a copy of ``base``; ``definition()`` gives the validated result."""

    name = forms.CharField(max_length=100)
    # as long as a reviewer's note; it is shown in the version history and the activity log
    note = forms.CharField(
        required=False, max_length=2000, widget=forms.Textarea(attrs={"rows": 2})
    )
    default_policy = forms.ChoiceField(choices=[(p, label("policy", p)) for p in POLICY_NAMES])
    # One of the workspace's packs ("" = all packs): a preview never makes a pack.
    domain_pack = forms.ChoiceField(
        required=False,
        choices=[("", "all packs")],
        help_text="Domain pack to preview and activate for.",
    )
    policy = forms.ChoiceField(
        choices=[(p, label("policy", p)) for p in POLICY_NAMES],
        help_text="Policy to preview and activate.",
    )

    def __init__(
        self, *args: Any, base: RuleSetDefinition, packs: list[str] | None = None, **kwargs: Any
    ) -> None:
        self.base = base
        super().__init__(*args, **kwargs)
        for key in DIMENSIONS:
            self.fields[f"weight_{key}"] = _unit_field(f"{_title(key)} weight")
            self.fields[f"threshold_{key}"] = _unit_field(f"{_title(key)} passing threshold")
        for name in POLICY_NAMES:
            words = label("policy", name)
            self.fields[f"{name}_min_overall_score"] = _unit_field(f"{words}: supported at ≥")
            self.fields[f"{name}_weak_threshold"] = _unit_field(f"{words}: weak at ≥")
        cast(forms.ChoiceField, self.fields["domain_pack"]).choices = [
            (p, p or "all packs") for p in packs or [""]
        ]
        if not self.is_bound:
            self.initial = {**self.initial_from(base), **self.initial}

    @staticmethod
    def initial_from(d: RuleSetDefinition) -> dict[str, Any]:
        data: dict[str, Any] = {
            "name": d.name,
            "default_policy": d.default_policy,
            "policy": d.default_policy,
        }
        for dim in d.dimensions:
            data[f"weight_{dim.key}"] = dim.weight
            data[f"threshold_{dim.key}"] = dim.passing_threshold
        for pol in d.policies:
            data[f"{pol.name}_min_overall_score"] = pol.min_overall_score
            data[f"{pol.name}_weak_threshold"] = pol.weak_threshold
        return data

    def weight_total(self) -> float:
        """The sum of the dimension weights as entered (unparseable ones count 0)."""
        total = 0.0
        for key in DIMENSIONS:
            raw = self[f"weight_{key}"].value()
            try:
                total += float(raw)
            except (TypeError, ValueError):
                continue
        return round(total, 4)

    def weight_total_ok(self) -> bool:
        return abs(self.weight_total() - 1.0) < 1e-6

    def dimension_rows(self) -> list[tuple[str, Any, Any]]:
        return [
            (_title(key), self[f"weight_{key}"], self[f"threshold_{key}"]) for key in DIMENSIONS
        ]

    def first_weight(self) -> forms.BoundField:
        """The first weight's field: where "weights sum to …, not 1" links to."""
        return self[f"weight_{DIMENSIONS[0]}"]

    def invalid_fields(self) -> list[forms.BoundField]:
        """The fields with an error, in the form's order (the error summary links them)."""
        return [field for field in self if field.errors]

    def policy_rows(self) -> list[tuple[str, Any, Any]]:
        return [
            (name, self[f"{name}_min_overall_score"], self[f"{name}_weak_threshold"])
            for name in POLICY_NAMES
        ]

    def _build(self, data: dict[str, Any]) -> RuleSetDefinition:
        dims = tuple(
            replace(
                dim,
                weight=data[f"weight_{dim.key}"],
                passing_threshold=data[f"threshold_{dim.key}"],
            )
            for dim in self.base.dimensions
        )
        pols = tuple(
            replace(
                pol,
                min_overall_score=data[f"{pol.name}_min_overall_score"],
                weak_threshold=data[f"{pol.name}_weak_threshold"],
            )
            for pol in self.base.policies
        )
        return replace(
            self.base,
            name=data["name"].strip(),
            display_name="" if data["name"].strip() != self.base.name else self.base.display_name,
            dimensions=dims,
            policies=pols,
            default_policy=data["default_policy"],
        )

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if self.errors:
            return data
        for name in POLICY_NAMES:
            # said beside the field in the form's words, not as the validator's field names
            supported, weak = data[f"{name}_min_overall_score"], data[f"{name}_weak_threshold"]
            if weak > supported:
                self.add_error(
                    f"{name}_weak_threshold",
                    f"Above “supported at ≥” ({supported:g}): a claim cannot be weak at a "
                    "higher score than supported.",
                )
        if self.errors:
            return data
        definition = self._build(data)
        for message in validate_definition(definition):
            self.add_error(None, message)
        if not self.errors:
            self._definition = definition
        return data

    def definition(self) -> RuleSetDefinition:
        return self._definition
