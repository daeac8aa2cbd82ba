from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema, extend_schema_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from verifier.api.envelopes import STATE_CHOICES, ClaimListItemSerializer
from verifier.api.pagination import IdCursorPagination
from verifier.api.scoping import request_workspace
from verifier.api.strict_input import list_filters, query_params_check
from verifier.selectors.envelopes import (
    claim_envelope_get,
    claim_envelope_list,
    claim_list_item,
)
from verifier.services.retrieval import claims_recheck_on_read


class ClaimFilterSerializer(serializers.Serializer[Any]):
    """The claim list's filters, one rule wherever a claim list is asked for: this list
    and an audit pack of one (``verifier.api.audit_pack``)."""

    state = serializers.ChoiceField(choices=STATE_CHOICES, required=False)
    # DRF's metaclass takes declared fields off the class; the stubs see Field's attribute.
    source = serializers.CharField(max_length=200, required=False, help_text="Source ref.")  # type: ignore[assignment]
    # at most a bigint, so an id out of range reads the same wherever a job is named
    job = serializers.IntegerField(
        min_value=1, max_value=2**63 - 1, required=False, help_text="Ingest job id."
    )


class ClaimListApi(APIView):
    """The workspace's claims as envelopes (read-time re-checked), cursor-paginated."""

    @extend_schema_serializer(component_name="ClaimFilter")
    class FilterSerializer(ClaimFilterSerializer):
        pass

    OutputSerializer = ClaimListItemSerializer
    pagination_class = IdCursorPagination

    @extend_schema(parameters=[FilterSerializer], responses=OutputSerializer(many=True))
    def get(self, request: Request) -> Response:
        workspace = request_workspace(request)
        filters = list_filters(request, self.FilterSerializer, self.pagination_class)
        qs = claim_envelope_list(
            workspace=workspace,
            state=filters.get("state"),
            source_ref=filters.get("source"),
            job_id=filters.get("job"),
        )
        paginator = self.pagination_class()
        page = paginator.paginate_queryset(qs, request, view=self) or []
        claims_recheck_on_read(claims=page)
        if filters.get("state"):  # one the re-check demoted is no longer of that state
            page = [c for c in page if c.state == filters["state"]]
        data = self.OutputSerializer([claim_list_item(claim=c) for c in page], many=True).data
        return paginator.get_paginated_response(data)


class ClaimGetApi(APIView):
    """One claim's verified-claim envelope (read-time re-checked)."""

    OutputSerializer = ClaimListItemSerializer

    @extend_schema(responses=OutputSerializer)
    def get(self, request: Request, claim_id: str) -> Response:
        query_params_check(request, ())
        claim = claim_envelope_get(workspace=request_workspace(request), public_id=claim_id)
        claims_recheck_on_read(claims=[claim])
        return Response(self.OutputSerializer(claim_list_item(claim=claim)).data)
