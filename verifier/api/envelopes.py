"""Serializers shared by the Connect API: the verified-claim envelope (seed 000).

``EnvelopeSerializer`` declares exactly the keys that ``claim_envelope``
(``verifier.selectors.envelopes``) builds — a ``ShapeSerializer``: an undeclared key is
an error, and ``tests/verifier/api/test_envelope.py`` holds the two equal — for the
claims API, the graph and, as its schema, the retrieve (which answers the built dict as
it is)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from verifier import vocabulary
from verifier.api.shapes import ShapeSerializer
from verifier.models import ClaimStateChoices, MatchKind
from verifier.retrieval_ranking import DEFAULT_INCLUDE

STATE_CHOICES = [s.value for s in ClaimStateChoices]
# What a judge answered: the envelope's ``judge.verdict`` and a claims/verify row's
# ``verdict``, one enum in the schema (SPECTACULAR_SETTINGS' ENUM_NAME_OVERRIDES).
VERDICT_CHOICES = vocabulary.choices("verdict")


class ApiKeyAuthenticationScheme(OpenApiAuthenticationExtension):
    """Documents ``Authorization: Bearer <key>`` (per-workspace API keys) in the schema."""

    target_class = "verifier.api.authentication.ApiKeyAuthentication"
    name = "apiKey"

    def get_security_definition(self, auto_schema: AutoSchema) -> dict[str, str]:
        return {"type": "http", "scheme": "bearer", "description": "Per-workspace API key."}


class ClaimRefSerializer(ShapeSerializer):
    id = serializers.CharField()
    text = serializers.CharField()


class EvidenceSerializer(ShapeSerializer):
    quote = serializers.CharField()
    offsets = serializers.ListField(
        child=serializers.IntegerField(min_value=0),
        min_length=2,
        max_length=2,
        help_text="Half-open [start, end) code-point offsets in the bound source version.",
    )
    source_ref = serializers.CharField()
    source_hash = serializers.CharField(help_text="SHA-256 hex of the bound version's text.")
    match = serializers.ChoiceField(
        choices=[m.value for m in MatchKind],
        help_text="How the quote was found. " + vocabulary.header_note("match"),
    )


class JudgeCalibratorRefSerializer(ShapeSerializer):
    id = serializers.IntegerField(help_text="The calibrator's id (GET /connect/v1/calibrators).")
    version = serializers.IntegerField(help_text="Its version, per workspace and judge model.")


class JudgeSerializer(ShapeSerializer):
    model = serializers.CharField()
    prompt_version = serializers.IntegerField()
    verdict = serializers.ChoiceField(
        choices=VERDICT_CHOICES,
        help_text="What the judge answered. " + vocabulary.header_note("verdict"),
    )
    confidence = serializers.FloatField(
        allow_null=True,
        min_value=0,
        max_value=1,
        help_text="How sure the judge is of its answer, 0 to 1 (the console shows it as a "
        "percentage); null when the verdict gave no answer (abstained, coverage_gap, "
        "withdrawn).",
    )
    at = serializers.CharField(help_text="ISO-8601 UTC with milliseconds, e.g. …T12:04:11.000Z")
    calibrator = JudgeCalibratorRefSerializer(
        allow_null=True,
        help_text="The workspace's reviewer calibrator that gave this answer (the claim's "
        "state rests on it; `model` is the judge it calibrates, whose own answer came "
        "first); null when the judge itself or a person answered.",
    )


class EnvelopeSerializer(ShapeSerializer):
    """The verified-claim envelope. ``judge`` is omitted when the claim was never judged;
    ``trace_ref`` only when a trace served it; ``evidence`` is empty when nothing is bound."""

    claim = ClaimRefSerializer()
    state = serializers.ChoiceField(
        choices=STATE_CHOICES, help_text="The claim's state. " + vocabulary.header_note("state")
    )
    evidence = EvidenceSerializer(many=True)
    judge = JudgeSerializer(required=False)
    citation = serializers.CharField(allow_blank=True)
    trace_ref = serializers.CharField(required=False)
    trust_score = serializers.IntegerField(min_value=0, max_value=100)


class ClaimListItemSerializer(EnvelopeSerializer):
    """A claim of ``GET /connect/v1/claims`` (and ``/claims/{id}``): its envelope, and why
    it has its state (``verifier.selectors.envelopes.claim_list_item``)."""

    reason = serializers.CharField(
        help_text="Why the claim has its state. " + vocabulary.header_note("reason")
    )
    reason_text = serializers.CharField(help_text="The reason in words.")
    exclusion_reason = serializers.CharField(
        allow_null=True,
        help_text="Why a person excluded the claim, in their words; null unless excluded.",
    )
    submitted_quote = serializers.CharField(
        allow_null=True,
        help_text="The quote the claim was submitted with, when the evidence's quote is not "
        "it character for character (a normalized or fuzzy match, or nothing bound); null "
        "when it came with no quote or the evidence is exactly it.",
    )


@extend_schema_field(
    # the states it takes, as ``validate_include`` holds them (its message lists them all)
    {"type": "array", "items": {"type": "string", "enum": STATE_CHOICES}}
)
class StateListField(serializers.ListField):
    pass


class VerificationPolicySerializer(serializers.Serializer[Any]):
    include = StateListField(
        child=serializers.CharField(max_length=16),
        required=False,
        allow_empty=False,
        max_length=len(STATE_CHOICES),
        help_text=(
            f"States served, any of {STATE_CHOICES}; default every state but excluded "
            f"{list(DEFAULT_INCLUDE)} (each claim's envelope says its state; "
            "require_verified serves supported ones only)."
        ),
    )
    min_trust_score = serializers.IntegerField(min_value=0, max_value=100, required=False)
    exclude_flagged = serializers.BooleanField(required=False, default=True)

    def validate_include(self, value: list[str]) -> list[str]:
        unknown = sorted(set(value) - set(STATE_CHOICES))
        if unknown:
            raise serializers.ValidationError(f"Unknown states {unknown}; use {STATE_CHOICES}.")
        return value


class RetrievalMetadataSerializer(ShapeSerializer):
    verification_summary = serializers.DictField(child=serializers.IntegerField())
    retrieval_degraded_code = serializers.CharField(allow_null=True)
    verification_policy = serializers.DictField()
    depth = serializers.CharField()
    considered = serializers.IntegerField()
    excluded = serializers.DictField(child=serializers.IntegerField())
    demoted = serializers.IntegerField()
