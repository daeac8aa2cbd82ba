"""``GET /connect/v1/activity``: the workspace's activity log — who changed members, API
keys, webhooks, rule sets and calibrators, and when (``verifier.services.activity``)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema, extend_schema_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from verifier.api.pagination import IdCursorPagination
from verifier.api.scoping import request_workspace
from verifier.api.strict_input import list_filters
from verifier.models import ActivityAction, WorkspaceEvent


@extend_schema_serializer(component_name="ActivityActor")
class ActorSerializer(serializers.Serializer[Any]):
    kind = serializers.ChoiceField(choices=["api_key", "member"])
    name = serializers.CharField(help_text="The API key's name, or the member's username.")
    key_prefix = serializers.CharField(
        required=False, help_text="An API key's first characters (never the key)."
    )


@extend_schema_serializer(component_name="ActivityEvent")
class EventSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    created_at = serializers.DateTimeField()
    action = serializers.ChoiceField(choices=ActivityAction.values)
    action_label = serializers.CharField(source="get_action_display")
    target = serializers.CharField(help_text="What the change was about, as it read then.")
    details = serializers.DictField(help_text="The change's particulars (by action).")
    actor = ActorSerializer(allow_null=True, help_text="Null: a command or a task.")


class ActivityListApi(APIView):
    """The workspace's activity log, newest first (cursor-paginated); ``action`` narrows
    it to one kind of change."""

    @extend_schema_serializer(component_name="ActivityFilter")
    class FilterSerializer(serializers.Serializer[Any]):
        action = serializers.ChoiceField(choices=ActivityAction.values, required=False)

    pagination_class = IdCursorPagination

    @extend_schema(parameters=[FilterSerializer], responses=EventSerializer(many=True))
    def get(self, request: Request) -> Response:
        workspace = request_workspace(request)
        filters = list_filters(request, self.FilterSerializer, self.pagination_class)
        events = WorkspaceEvent.objects.filter(workspace=workspace)
        if action := filters.get("action"):
            events = events.filter(action=action)
        paginator = self.pagination_class()
        page = paginator.paginate_queryset(events, request, view=self) or []
        return paginator.get_paginated_response(EventSerializer(page, many=True).data)
