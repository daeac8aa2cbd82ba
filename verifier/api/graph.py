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
from verifier.services.graph_query import GRAPH_OPERATIONS, MAX_PATH_HOPS, graph_query
from verifier.services.retrieval import DEPTH_HOPS

# "from" is a Python keyword, so the edge serializer is built with type().
EdgeSerializer = type(
    "EdgeSerializer",
    (serializers.Serializer,),
    {
        "from": serializers.CharField(help_text="Claim id the relation starts at."),
        "to": serializers.CharField(help_text="Claim id the relation points to."),
        "type": serializers.CharField(help_text="supports, contradicts or elaborates."),
        "confidence": serializers.FloatField(),
    },
)


class GraphQueryApi(APIView):
    """Graph operations over verified claims; nodes carry envelopes, edges carry the
    relation type and confidence. Same policy, re-check and trace rules as retrieve."""

    # A query sent as a body: reading.
    required_scopes = {"POST": ApiScope.READ}

    @extend_schema_serializer(component_name="GraphRequest")
    # A door of seed 000: read as DRF reads (unknown keys ignored), like /worker/verify,
    # so a client written to the seed keeps working (docs/api.md, "Conventions").
    class InputSerializer(serializers.Serializer[Any]):
        operation = serializers.ChoiceField(choices=list(GRAPH_OPERATIONS))
        query = serializers.CharField(max_length=4000, required=False, allow_blank=True)
        claim_ids = serializers.ListField(
            child=serializers.CharField(max_length=40), required=False, max_length=100
        )
        from_ref = serializers.CharField(
            max_length=300, required=False, allow_blank=True, help_text="Claim id or entity."
        )
        to_ref = serializers.CharField(
            max_length=300, required=False, allow_blank=True, help_text="Claim id or entity."
        )
        depth = serializers.ChoiceField(choices=list(DEPTH_HOPS), required=False)
        max_claims = serializers.IntegerField(min_value=1, max_value=500, default=20)
        max_hops = serializers.IntegerField(min_value=1, max_value=MAX_PATH_HOPS, default=4)
        max_paths = serializers.IntegerField(min_value=1, max_value=50, default=5)
        require_verified = serializers.BooleanField(default=False)
        verification_policy = VerificationPolicySerializer(required=False)
        domain_pack = serializers.CharField(max_length=64, required=False, allow_blank=True)

    @extend_schema_serializer(component_name="GraphResponse")
    class OutputSerializer(serializers.Serializer[Any]):
        @extend_schema_serializer(component_name="GraphNode")
        class NodeSerializer(serializers.Serializer[Any]):
            id = serializers.CharField()
            envelope = EnvelopeSerializer()

        @extend_schema_serializer(component_name="GraphSummary")
        class SummarySerializer(serializers.Serializer[Any]):
            nodes = serializers.IntegerField()
            edges = serializers.IntegerField()
            edge_types = serializers.DictField(child=serializers.IntegerField())
            states = serializers.DictField(child=serializers.IntegerField())
            sources = serializers.ListField(child=serializers.CharField())

        request_id = serializers.CharField()
        trace_id = serializers.UUIDField()
        operation = serializers.CharField()
        nodes = NodeSerializer(many=True)
        edges = EdgeSerializer(many=True)
        paths = serializers.ListField(child=EdgeSerializer(many=True), required=False)
        summary = SummarySerializer(required=False)
        context_block = serializers.CharField(allow_blank=True)
        metadata = RetrievalMetadataSerializer()

    @extend_schema(request=InputSerializer, responses=OutputSerializer)
    def post(self, request: Request) -> Response:
        workspace = request_workspace(request)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        result = graph_query(workspace=workspace, **data.validated_data)
        return Response(self.OutputSerializer(result).data)
