"""``GET /connect/v1/relations``: the relations between claims the relate stage found,
with how each was verified (seed 004, docs/relation-verification.md): what an
application reads before it trusts graph expansion (``POST /connect/v1/graph`` follows
accepted relations only)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema, extend_schema_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from verifier import vocabulary
from verifier.api.pagination import IdCursorPagination
from verifier.api.scoping import request_workspace
from verifier.api.strict_input import list_filters
from verifier.models import ClaimRelation, RelationKind, RelationVerification
from verifier.selectors.relation_verification import relation_list


@extend_schema_serializer(component_name="RelationEnd")
class RelationEndSerializer(serializers.Serializer[Any]):
    id = serializers.CharField(source="public_id", help_text="The claim's public id.")
    text = serializers.CharField()
    state = serializers.CharField()


@extend_schema_serializer(component_name="Relation")
class RelationSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField(source="pk")
    kind = serializers.ChoiceField(choices=RelationKind.values)
    from_claim = RelationEndSerializer()
    to_claim = RelationEndSerializer()
    confidence = serializers.FloatField(help_text="The relate stage's confidence, 0 to 1.")
    verification = serializers.ChoiceField(
        choices=RelationVerification.values,
        help_text="accepted relations feed graph expansion; pending and rejected do not.",
    )
    verification_level = serializers.CharField(
        help_text="The check that decided it; empty while pending. "
        + vocabulary.header_note("level")
    )
    verification_score = serializers.FloatField(
        allow_null=True, help_text="The SR-MKG topological score, when it was computed."
    )
    needs_review = serializers.BooleanField(
        help_text="A reviewer is asked to look (rejected, or accepted past the VoG cap)."
    )
    reviewed_at = serializers.DateTimeField(allow_null=True)
    created_at = serializers.DateTimeField()


class RelationListApi(APIView):
    """The workspace's relations, newest first (cursor-paginated), each with its two
    claims and how it was verified; narrowed by ``verification``, ``kind``,
    ``needs_review`` and ``claim`` (a claim's public id: its relations, either end)."""

    @extend_schema_serializer(component_name="RelationFilter")
    class FilterSerializer(serializers.Serializer[Any]):
        verification = serializers.ChoiceField(choices=RelationVerification.values, required=False)
        kind = serializers.ChoiceField(choices=RelationKind.values, required=False)
        needs_review = serializers.BooleanField(required=False, allow_null=True, default=None)
        claim = serializers.CharField(max_length=64, required=False)

    OutputSerializer = RelationSerializer
    pagination_class = IdCursorPagination

    @extend_schema(parameters=[FilterSerializer], responses=OutputSerializer(many=True))
    def get(self, request: Request) -> Response:
        filters = list_filters(request, self.FilterSerializer, self.pagination_class)
        rows = relation_list(
            workspace=request_workspace(request),
            verification=filters.get("verification"),
            kind=filters.get("kind"),
            needs_review=filters.get("needs_review"),
            claim=filters.get("claim"),
        )
        paginator = self.pagination_class()
        page: list[ClaimRelation] = paginator.paginate_queryset(rows, request, view=self) or []
        return paginator.get_paginated_response(self.OutputSerializer(page, many=True).data)
