from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema, extend_schema_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from verifier.api.envelopes import (
    EnvelopeSerializer,
    RetrievalMetadataSerializer,
    VerificationPolicySerializer,
)
from verifier.api.scoping import request_workspace
from verifier.models import ApiScope
from verifier.services.retrieval import DEPTH_HOPS, context_retrieve


class ContextRetrieveApi(APIView):
    """Verified context for a query: one envelope per served claim, a per-state summary
    (after read-time re-check demotions) and a provenance trace."""

    # A query sent as a body: reading, though it records a provenance trace.
    required_scopes = {"POST": ApiScope.READ}

    @extend_schema_serializer(component_name="RetrieveRequest")
    # A door of seed 000: read as DRF reads (unknown keys ignored), like /worker/verify,
    # so a client written to the seed keeps working (docs/api.md, "Conventions").
    class InputSerializer(serializers.Serializer[Any]):
        query = serializers.CharField(max_length=4000, trim_whitespace=True)
        depth = serializers.ChoiceField(choices=list(DEPTH_HOPS), default="quick")
        max_claims = serializers.IntegerField(min_value=1, max_value=500, default=20)
        require_verified = serializers.BooleanField(default=False)
        verification_policy = VerificationPolicySerializer(required=False)
        seed_claim_id = serializers.CharField(max_length=40, required=False, allow_blank=True)
        domain_pack = serializers.CharField(max_length=64, required=False, allow_blank=True)

    @extend_schema_serializer(component_name="RetrieveResponse")
    class OutputSerializer(serializers.Serializer[Any]):
        request_id = serializers.CharField()
        trace_id = serializers.UUIDField()
        context_block = serializers.CharField(allow_blank=True)
        verified_claims = EnvelopeSerializer(many=True)
        metadata = RetrievalMetadataSerializer()

    @extend_schema(request=InputSerializer, responses=OutputSerializer)
    def post(self, request: Request) -> Response:
        workspace = request_workspace(request)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        result = context_retrieve(workspace=workspace, **data.validated_data)
        # ``result`` is already the documented shape (``OutputSerializer`` describes it
        # for the schema; a test holds the two equal), so it is not serialized again.
        return Response(result)
