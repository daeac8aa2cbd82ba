"""POST /worker/verify — verify one free-text claim against the workspace's corpus
(seed 001). Same Bearer API-key auth as /connect/v1."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema, extend_schema_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from verifier.api.scoping import request_actor, request_workspace
from verifier.claim_worker.config import TRUST_POLICY_MODES
from verifier.services.claim_worker_request import (
    MAX_CLAIM_CHARS,
    MAX_JOB_ID_CHARS,
    TOP_K_DEFAULT,
    TOP_K_MAX,
    TOP_K_MIN,
)
from verifier.services.claim_worker_verify import worker_verify


class WorkerVerifyApi(APIView):
    """Retrieve (pgvector + knowledge graph), rank, judge each item's stance toward each
    subclaim, compute adaptive trust and return the verdict package with diagnostics."""

    @extend_schema_serializer(component_name="WorkerVerifyRequest")
    class InputSerializer(serializers.Serializer[Any]):
        job_id = serializers.CharField(max_length=MAX_JOB_ID_CHARS)
        claim = serializers.CharField(max_length=MAX_CLAIM_CHARS)
        room_id = serializers.CharField(
            required=False, allow_blank=True, default="", max_length=200
        )
        # DRF's metaclass takes declared fields off the class; the stubs see Field's attribute.
        source = serializers.CharField(required=False, allow_blank=True, default="", max_length=500)  # type: ignore[assignment]
        domain = serializers.CharField(required=False, default="general", max_length=64)
        top_k = serializers.IntegerField(
            required=False, default=TOP_K_DEFAULT, min_value=TOP_K_MIN, max_value=TOP_K_MAX
        )
        # the adaptive trust policy's mode; absent: settings.SPANPROOF_WORKER_TRUST_POLICY_MODE
        trust_policy_mode = serializers.ChoiceField(
            choices=list(TRUST_POLICY_MODES), required=False
        )

    @extend_schema(request=InputSerializer, responses={200: dict})
    def post(self, request: Request) -> Response:
        workspace = request_workspace(request)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        result = worker_verify(
            workspace=workspace, actor=request_actor(request), **data.validated_data
        )
        return Response(result)
