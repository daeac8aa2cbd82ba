from __future__ import annotations

import json
from typing import Any

from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_serializer,
)
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from verifier.api.negotiation import IgnoreFormatParam
from verifier.api.scoping import request_workspace
from verifier.api.strict_input import query_params_check, query_values
from verifier.selectors.traces import trace_get

EXPORT_FORMATS = ("json",)


class TraceOutputSerializer(serializers.Serializer[Any]):
    trace_id = serializers.UUIDField()
    operation = serializers.CharField()
    query = serializers.CharField(allow_blank=True)
    domain_pack = serializers.CharField(allow_blank=True)
    created_at = serializers.DateTimeField()
    document = serializers.JSONField(help_text="The versioned trace document.")


class TraceGetApi(APIView):
    """The provenance trace of one retrieve/graph call (kept 90 days)."""

    OutputSerializer = TraceOutputSerializer

    @extend_schema(responses=OutputSerializer)
    def get(self, request: Request, trace_id: str) -> Response:
        query_params_check(request, ())
        trace = trace_get(workspace=request_workspace(request), trace_id=trace_id)
        return Response(self.OutputSerializer(trace).data)


class TraceExportApi(APIView):
    """Download the trace as an attachment for audit files. Only ``format=json``."""

    content_negotiation_class = IgnoreFormatParam

    @extend_schema_serializer(component_name="TraceExportParams")
    class InputSerializer(serializers.Serializer[Any]):
        format = serializers.ChoiceField(
            choices=list(EXPORT_FORMATS),
            required=False,
            default="json",
            error_messages={
                "invalid_choice": (
                    f'"{{input}}" is not a format the export makes; supported: '
                    f"{', '.join(EXPORT_FORMATS)}."
                )
            },
        )

    @extend_schema(
        parameters=[
            OpenApiParameter("format", OpenApiTypes.STR, enum=list(EXPORT_FORMATS), default="json")
        ],
        responses={(200, "application/json"): OpenApiResponse(OpenApiTypes.OBJECT)},
    )
    def get(self, request: Request, trace_id: str) -> HttpResponse:
        # A format the export does not make is a 400 invalid_request naming ``format`` in
        # ``details.field``, as every other query parameter's bad value is.
        query_values(request, self.InputSerializer)
        workspace = request_workspace(request)
        trace = trace_get(workspace=workspace, trace_id=trace_id)
        body = json.dumps(TraceOutputSerializer(trace).data, indent=2, ensure_ascii=False)
        response = HttpResponse(body, content_type="application/json; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="trace-{trace.trace_id}.json"'
        return response
