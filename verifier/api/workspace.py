from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema, extend_schema_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from verifier.api.scoping import request_workspace
from verifier.api.strict_input import query_params_check


class WorkspaceGetApi(APIView):
    """The workspace the caller's key (or console session) is scoped to."""

    @extend_schema_serializer(component_name="Workspace")
    class OutputSerializer(serializers.Serializer[Any]):
        slug = serializers.CharField()
        name = serializers.CharField()

    @extend_schema(responses=OutputSerializer)
    def get(self, request: Request) -> Response:
        query_params_check(request, ())
        workspace = request_workspace(request)
        return Response(self.OutputSerializer(workspace).data)
