"""POST /connect/v1/rag/audit — audit a RAG answer against its id-keyed chunks (seed 003)."""

from __future__ import annotations

from typing import Any

from django.urls import reverse
from drf_spectacular.utils import extend_schema, extend_schema_field, extend_schema_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from verifier.api.scoping import request_actor, request_workspace
from verifier.api.strict_input import StrictSerializer
from verifier.services.rag_audit import rag_audit_run


@extend_schema_field(
    {
        "oneOf": [
            {"type": "string", "description": 'JSONL: one {"id", "text"} object per line.'},
            {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {"id": {"type": "string"}, "text": {"type": "string"}},
                    "required": ["id", "text"],
                },
            },
        ]
    }
)
class ChunksField(serializers.Field[Any, Any, Any, Any]):
    """JSONL text, or a JSON array of {"id", "text"} objects; parsed by the service."""

    def to_internal_value(self, data: Any) -> str | list[Any]:
        if not isinstance(data, str | list):
            raise serializers.ValidationError("Must be JSONL text or an array of {id, text}.")
        return data

    def to_representation(self, value: Any) -> Any:
        return value


@extend_schema_serializer(component_name="RagEvidence")
class EvidenceSerializer(serializers.Serializer[Any]):
    chunk_id = serializers.CharField()
    quote = serializers.CharField()
    start = serializers.IntegerField()
    end = serializers.IntegerField()
    match = serializers.ChoiceField(choices=["exact", "normalized", "fuzzy"])


class AuditedClaimSerializer(serializers.Serializer[Any]):
    span = serializers.CharField()
    supported_by = serializers.ListField(child=serializers.CharField())
    verdict = serializers.ChoiceField(
        choices=["supported", "partial", "unsupported", "contradicted"]
    )
    note = serializers.CharField(required=False)
    evidence = EvidenceSerializer(many=True)


class RagAuditApi(APIView):
    """Decompose the answer into atomic claims, bind and judge each against every chunk,
    and return the seed's audit document (plus ``unknown_citations``). Only the chunks
    count as evidence; questions, greetings and offers assert nothing and are not
    audited. The stored audit is linked from the ``Location`` header (docs/rag-audit.md).
    Besides each size limit, the answer's characters times its chunks may be at most
    2,000,000 and times the chunks' characters at most 10^10 (``400 audit_too_large``):
    the audit's time grows with both."""

    @extend_schema_serializer(component_name="RagAuditRequest")
    class InputSerializer(StrictSerializer):
        answer = serializers.CharField(trim_whitespace=False, allow_blank=True)
        chunks = ChunksField()

    @extend_schema_serializer(component_name="RagAuditResponse")
    class OutputSerializer(serializers.Serializer[Any]):
        claims = AuditedClaimSerializer(many=True)
        unsupported = serializers.ListField(
            child=serializers.CharField(),
            help_text="The verbatim spans of the claims that did not earn `supported`.",
        )
        unknown_citations = serializers.ListField(
            child=serializers.CharField(),
            help_text=(
                "The chunk ids the answer cites that are not among `chunks`, in reading "
                "order (empty when every citation names a chunk). A claim that cites one "
                "is at best `partial`, so such an answer is never `faithful`."
            ),
        )
        verdict = serializers.ChoiceField(
            choices=["faithful", "partial", "unfaithful"],
            help_text=(
                "The worst claim verdict: `unfaithful` if any claim is `unsupported` or "
                "`contradicted`, `partial` if any is `partial`, else `faithful`."
            ),
        )
        suggested_fix = serializers.CharField(
            required=False,
            help_text=(
                "Present unless `faithful`: the answer rewritten to what the chunks back "
                "(supported claims kept and re-cited, over-claims softened, partly backed "
                "claims restated in the chunk's words, the rest dropped), or, when no claim "
                "is backed, the advice to drop it with what the cited chunks state."
            ),
        )
        not_judged = serializers.ListField(
            child=serializers.CharField(),
            required=False,
            help_text=(
                "Present only when the judge gave no answer on some claims (unreachable, "
                "failed, a malformed answer: coverage gaps): their verbatim spans. Each is "
                "`unsupported` (it has not earned `supported`) with a note starting `not "
                "judged:` that says why; it is no finding about the chunks. As claims/verify, "
                "a judge outage is answered claim by claim (200), not as an error."
            ),
        )
        note = serializers.CharField(
            required=False,
            help_text="With `not_judged`: how many claims the judge gave no answer on.",
        )
        trace_id = serializers.CharField(
            allow_null=True, help_text="The audit's trace (GET /connect/v1/traces/{id})."
        )

    @extend_schema(request=InputSerializer, responses={200: OutputSerializer})
    def post(self, request: Request) -> Response:
        workspace = request_workspace(request)
        # a body over DATA_UPLOAD_MAX_MEMORY_SIZE raises RequestDataTooBig here, which the
        # API's exception handler answers as 400 payload_too_large
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        write = rag_audit_run(
            workspace=workspace, actor=request_actor(request), **data.validated_data
        )
        trace_id = str(write.trace_id) if write.trace_id else None
        response = Response({**write.result.as_dict(), "trace_id": trace_id})
        response["Location"] = reverse("audit-rag:detail", args=[write.audit.pk])
        return response
