from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_serializer
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from verifier.api.scoping import request_workspace
from verifier.api.strict_input import StrictSerializer, query_params_check
from verifier.models import SourceVersion
from verifier.selectors.sources import (
    VERSIONS_LISTED,
    source_current_version,
    source_get,
    source_version_get,
    source_versions_listed,
)
from verifier.services.sources import source_upsert


class SourceVersionSerializer(serializers.Serializer[Any]):
    number = serializers.IntegerField()
    sha256 = serializers.CharField()
    length = serializers.SerializerMethodField()
    created_at = serializers.DateTimeField()

    def get_length(self, version: SourceVersion) -> int:
        # a listed version carries its length without its text (``source_versions_listed``)
        counted = getattr(version, "text_length", None)
        return counted if counted is not None else len(version.text)


class SourceSerializer(serializers.Serializer[Any]):
    ref = serializers.CharField()
    title = serializers.CharField()
    citation = serializers.CharField(allow_blank=True)
    domain_pack = serializers.CharField(allow_blank=True)


class SourceUpsertApi(APIView):
    """Create a source, or append a new immutable version when its text changed
    (identical text is a no-op that returns the current version). A source's domain pack
    is set when it is made: another one for an existing source is a 409
    ``domain_pack_conflict`` and nothing is written."""

    @extend_schema_serializer(component_name="SourceUpsertRequest")
    class InputSerializer(StrictSerializer):
        ref = serializers.CharField(max_length=200)
        text = serializers.CharField(trim_whitespace=False, max_length=5_000_000)
        title = serializers.CharField(max_length=300, required=False, allow_blank=True)
        citation = serializers.CharField(max_length=500, required=False, allow_blank=True)
        domain_pack = serializers.CharField(
            max_length=64,
            required=False,
            allow_blank=True,
            help_text="Set when the source is made (default general); an existing source's "
            "cannot change (409 domain_pack_conflict).",
        )

    @extend_schema_serializer(component_name="SourceUpsertResponse")
    class OutputSerializer(serializers.Serializer[Any]):
        # DRF's metaclass takes declared fields off the class; the stubs see Field's attribute.
        source = SourceSerializer()  # type: ignore[assignment]
        version = SourceVersionSerializer()
        created_source = serializers.BooleanField()
        created_version = serializers.BooleanField()

    @extend_schema(
        request=InputSerializer,
        responses={
            200: OutputSerializer,
            201: OutputSerializer,
            409: OpenApiResponse(
                description="domain_pack_conflict, or ref_in_use: the ref names a memory "
                "transcript or a RAG chunk"
            ),
        },
    )
    def post(self, request: Request) -> Response:
        workspace = request_workspace(request)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        write = source_upsert(workspace=workspace, **data.validated_data)
        return Response(
            self.OutputSerializer(write).data,
            status=status.HTTP_201_CREATED if write.created_version else status.HTTP_200_OK,
        )


class SourceGetApi(APIView):
    """A source and the exact text of its current version (or of the version ``?version=N``
    asks for), so anyone can check a quote at its offsets and hash the text to the recorded
    SHA-256."""

    class QuerySerializer(serializers.Serializer[Any]):
        version = serializers.IntegerField(
            required=False,
            min_value=1,
            max_value=2**31 - 1,
            help_text="The number of the version whose text to answer; default the current one.",
        )

    @extend_schema_serializer(component_name="SourceDetail")
    class OutputSerializer(SourceSerializer):
        current_version = SourceVersionSerializer(allow_null=True)
        text = serializers.CharField(
            allow_null=True,
            help_text="The exact text of the current version, or of the version asked for.",
        )
        text_version = serializers.IntegerField(
            allow_null=True, help_text="The number of the version `text` is the text of."
        )
        versions = SourceVersionSerializer(
            many=True,
            help_text=f"The newest {VERSIONS_LISTED} versions (all of them when there are "
            "fewer), oldest first, without their text.",
        )
        versions_total = serializers.IntegerField(help_text="How many versions it has in all.")

    @extend_schema(parameters=[QuerySerializer], responses=OutputSerializer)
    def get(self, request: Request, ref: str) -> Response:
        query_params_check(request, ("version",))
        asked = self.QuerySerializer(data=request.query_params)
        asked.is_valid(raise_exception=True)
        source = source_get(workspace=request_workspace(request), ref=ref)
        current = source_current_version(source=source)
        number = asked.validated_data.get("version")
        shown = current if number is None else source_version_get(source=source, number=number)
        versions, versions_total = source_versions_listed(source=source)
        payload = {
            "ref": source.ref,
            "title": source.title,
            "citation": source.citation,
            "domain_pack": source.domain_pack,
            "current_version": current,
            "text": shown.text if shown else None,
            "text_version": shown.number if shown else None,
            "versions": versions,
            "versions_total": versions_total,
        }
        return Response(self.OutputSerializer(payload).data)
