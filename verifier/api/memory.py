"""Memory-claim verifier (seed 002): import transcripts, verify an agent's "I said X",
per-agent stats."""

from __future__ import annotations

from typing import Any

from django.urls import reverse
from drf_spectacular.utils import (
    OpenApiResponse,
    extend_schema,
    extend_schema_field,
    extend_schema_serializer,
)
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from verifier.api.errors import ApiError
from verifier.api.scoping import request_actor, request_workspace
from verifier.api.strict_input import StrictSerializer, query_params_check
from verifier.memory import DRIFT_CATEGORIES, INSUFFICIENT_REASONS, NON_MATERIAL, OUTCOMES
from verifier.models import MemoryTranscript
from verifier.selectors.memory import memory_agent_stats, memory_transcript_get
from verifier.services.memory import (
    MAX_CLAIMS_PER_MESSAGE,
    MAX_MESSAGE_CHARS,
    memory_transcript_import,
    memory_verify,
)

_TURN = {
    "type": "object",
    "properties": {
        "speaker": {"type": "string"},
        "text": {"type": "string"},
        "timestamp": {"oneOf": [{"type": "string"}, {"type": "number"}]},
        "idx": {"type": "integer", "minimum": 0},
    },
    "required": ["speaker", "text"],
    "additionalProperties": False,
}


@extend_schema_field(
    {
        "oneOf": [
            {"type": "string", "description": "JSONL (one turn per line) or JSON text."},
            {"type": "array", "items": _TURN},
            {
                "type": "object",
                "properties": {
                    "turns": {"type": "array", "items": _TURN},
                    "complete": {"type": "boolean"},
                },
                "required": ["turns"],
            },
        ]
    }
)
class TranscriptField(serializers.Field[Any, Any, Any, Any]):
    """JSON/JSONL text, an array of turns, or ``{"turns": [...], "complete": bool}``."""

    def to_internal_value(self, data: Any) -> Any:
        if not isinstance(data, str | list | dict):
            raise serializers.ValidationError("Must be JSON/JSONL text, an array or an object.")
        return data

    def to_representation(self, value: Any) -> Any:
        return value


class TranscriptSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    ref = serializers.CharField(source="source.ref")
    version = serializers.IntegerField(source="version.number")
    sha256 = serializers.CharField(source="version.sha256")
    complete = serializers.BooleanField()
    turns = serializers.SerializerMethodField()

    def get_turns(self, row: MemoryTranscript) -> int:
        return len(row.turns)


class MemoryTranscriptImportApi(APIView):
    """Store a transcript (turns with speaker, timestamp and text) as a hashed source
    version with turn offsets. Importing the same turns again is a no-op."""

    @extend_schema_serializer(component_name="MemoryTranscriptImportRequest")
    class InputSerializer(StrictSerializer):
        transcript = TranscriptField()
        ref = serializers.CharField(max_length=200, required=False, allow_blank=True)
        title = serializers.CharField(max_length=300, required=False, allow_blank=True)

    @extend_schema(
        request=InputSerializer,
        responses={
            201: TranscriptSerializer,
            200: TranscriptSerializer,
            409: OpenApiResponse(description="ref_in_use: the ref names a document source"),
        },
    )
    def post(self, request: Request) -> Response:
        workspace = request_workspace(request)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values = data.validated_data
        write = memory_transcript_import(
            workspace=workspace,
            data=values["transcript"],
            ref=values.get("ref", ""),
            title=values.get("title", ""),
            actor=request_actor(request),
        )
        return Response(
            TranscriptSerializer(write.transcript).data,
            status=status.HTTP_201_CREATED if write.created else status.HTTP_200_OK,
        )


class DriftSpanSerializer(serializers.Serializer[Any]):
    category = serializers.ChoiceField(choices=list(DRIFT_CATEGORIES))
    claim_span = serializers.ListField(child=serializers.IntegerField(), allow_null=True)
    source_span = serializers.ListField(child=serializers.IntegerField(), allow_null=True)
    note = serializers.CharField()


class MatchSerializer(serializers.Serializer[Any]):
    turn = serializers.IntegerField()
    speaker = serializers.CharField()
    start = serializers.IntegerField(help_text="Offset in the transcript version text.")
    end = serializers.IntegerField()
    quote = serializers.CharField()
    similarity = serializers.FloatField()
    binder = serializers.CharField(allow_blank=True)
    context_start = serializers.IntegerField()
    context_end = serializers.IntegerField()


class MemoryClaimResultSerializer(serializers.Serializer[Any]):
    check_id = serializers.IntegerField()
    claim_id = serializers.CharField(allow_null=True)
    claim = serializers.CharField()
    claim_start = serializers.IntegerField(help_text="Offset in the message.")
    claim_end = serializers.IntegerField()
    claim_type = serializers.ChoiceField(
        choices=["verbatim", "summarized", "implicit", "undeclared"]
    )
    actor = serializers.ChoiceField(choices=["self", "addressee"])
    outcome = serializers.ChoiceField(choices=list(OUTCOMES))
    drift_categories = serializers.ListField(
        child=serializers.ChoiceField(choices=list(DRIFT_CATEGORIES))
    )
    similarity = serializers.FloatField(allow_null=True)
    match = MatchSerializer(allow_null=True)
    drift_spans = DriftSpanSerializer(many=True)
    non_material = serializers.ListField(child=serializers.ChoiceField(choices=list(NON_MATERIAL)))
    conflicts = MatchSerializer(many=True)
    judge = serializers.DictField(allow_null=True)
    note = serializers.CharField(allow_blank=True)
    reason = serializers.ChoiceField(
        choices=["", *INSUFFICIENT_REASONS],
        allow_blank=True,
        help_text="Why an `inconclusive:insufficient` claim could not be checked "
        "(out_of_scope, no_transcript, agent_not_in_transcript, coverage_incomplete); "
        "empty on every other outcome.",
    )


class MemoryVerifyApi(APIView):
    """Verify the explicit memory claims of an agent's message against that agent's own
    earlier turns. Give the transcript inline (it is imported) or a stored
    ``transcript_id``; one of them is required (400 ``no_transcript`` without, nothing
    stored)."""

    @extend_schema_serializer(component_name="MemoryVerifyRequest")
    class InputSerializer(StrictSerializer):
        agent = serializers.CharField(max_length=100, help_text="The agent's speaker name.")
        message = serializers.CharField(
            trim_whitespace=False,
            help_text=f"The agent's message: at most {MAX_MESSAGE_CHARS} characters "
            f"(400 `invalid_message`) and {MAX_CLAIMS_PER_MESSAGE} claims (400 "
            "`too_many_claims`, `details.field` `message`, `details.limit`); refused "
            "before any work, nothing stored.",
        )
        transcript = TranscriptField(required=False)
        transcript_id = serializers.IntegerField(required=False, min_value=1, max_value=2**63 - 1)

        def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
            if "transcript" in attrs and "transcript_id" in attrs:
                raise serializers.ValidationError(
                    {"transcript_id": "Give `transcript` or `transcript_id`, not both."}
                )
            return attrs

    @extend_schema_serializer(component_name="MemoryVerifyResponse")
    class OutputSerializer(serializers.Serializer[Any]):
        agent = serializers.CharField()
        transcript = TranscriptSerializer(allow_null=True)
        claims = MemoryClaimResultSerializer(many=True)
        trace_id = serializers.CharField(
            allow_null=True, help_text="The check's trace (GET /connect/v1/traces/{id})."
        )

    @extend_schema(
        request=InputSerializer,
        responses={
            200: OutputSerializer,
            400: OpenApiResponse(
                description="Bad input, `details.field` naming it; nothing stored. Among "
                f"others: `too_many_claims` when `message` makes more than "
                f"{MAX_CLAIMS_PER_MESSAGE} claims (`details.limit`), `no_transcript`, "
                "`invalid_message`."
            ),
            404: OpenApiResponse(
                description="not_found: no transcript with that `transcript_id` in this "
                "workspace; nothing is stored."
            ),
        },
    )
    def post(self, request: Request) -> Response:
        workspace = request_workspace(request)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values = data.validated_data
        transcript = None
        if "transcript_id" in values:
            transcript = memory_transcript_get(
                workspace=workspace, transcript_id=values["transcript_id"]
            )
        write = memory_verify(
            workspace=workspace,
            agent=values["agent"],
            message=values["message"],
            transcript=transcript,
            transcript_data=values.get("transcript"),
            actor=request_actor(request),
        )
        claims = [{"check_id": c.pk, **c.result} for c in write.checks]
        response = Response(
            {
                "agent": write.checks[0].agent if write.checks else values["agent"],
                "transcript": TranscriptSerializer(write.transcript).data
                if write.transcript
                else None,
                "claims": claims,
                "trace_id": str(write.trace_id) if write.trace_id else None,
            }
        )
        if write.checks:
            response["Location"] = reverse("memory:check", args=[write.checks[0].pk])
        return response


class RateSerializer(serializers.Serializer[Any]):
    value = serializers.FloatField()
    ci95 = serializers.ListField(child=serializers.FloatField(), min_length=2, max_length=2)
    count = serializers.IntegerField()


class MemoryAgentStatsApi(APIView):
    """Seed-002 aggregates for one agent: drift_rate, support_rate and coverage_rate with
    95% Wilson intervals, only from 10 evaluated claims on (else ``null`` and a note)."""

    @extend_schema_serializer(component_name="MemoryAgentStats")
    class OutputSerializer(serializers.Serializer[Any]):
        agent = serializers.CharField()
        evaluated_claims = serializers.IntegerField()
        out_of_scope_claims = serializers.IntegerField()
        claim_types = serializers.DictField(child=serializers.IntegerField())
        outcomes = serializers.DictField(child=serializers.IntegerField())
        min_claims_for_rates = serializers.IntegerField()
        drift_rate = RateSerializer(allow_null=True)
        support_rate = RateSerializer(allow_null=True)
        coverage_rate = RateSerializer(allow_null=True)
        note = serializers.CharField(allow_blank=True)

    @extend_schema(responses=OutputSerializer)
    def get(self, request: Request, agent_id: str) -> Response:
        query_params_check(request, ())
        stats = memory_agent_stats(workspace=request_workspace(request), agent=agent_id)
        if stats is None:
            raise ApiError(
                "not_found",
                "No memory checks for this agent in this workspace.",
                status_code=status.HTTP_404_NOT_FOUND,
            )
        return Response(stats)
