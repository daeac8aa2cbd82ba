from __future__ import annotations

from typing import Any

from django.conf import settings
from django.urls import reverse
from drf_spectacular.utils import (
    OpenApiResponse,
    extend_schema,
    extend_schema_field,
    extend_schema_serializer,
)
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from verifier.api.pagination import IdCursorPagination
from verifier.api.scoping import request_workspace
from verifier.api.strict_input import StrictSerializer, list_filters, query_values
from verifier.models import IngestJob, Source, SourceVersion
from verifier.selectors.sources import (
    SOURCE_KINDS,
    VERSIONS_LISTED,
    source_current_version,
    source_get,
    source_list_paged,
    source_version_get,
    source_versions_listed,
)
from verifier.services.ingest_create import source_upsert_queue_rebind


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


class SourceCurrentVersionSerializer(serializers.Serializer[Any]):
    number = serializers.IntegerField()
    sha256 = serializers.CharField()
    created_at = serializers.DateTimeField()


class SourceListItemSerializer(SourceSerializer):
    kind = serializers.ChoiceField(
        choices=SOURCE_KINDS,
        help_text="Which door writes its versions: document (sources, ingest, inline sources "
        "of claims/verify), transcript (memory) or rag_chunk (RAG audits).",
    )
    current_version = serializers.SerializerMethodField()
    created_at = serializers.DateTimeField(help_text="When the source was made.")
    updated_at = serializers.SerializerMethodField(
        help_text="When its current version was stored (null without a version)."
    )
    url = serializers.SerializerMethodField(help_text="The source and its text.")

    @extend_schema_field(SourceCurrentVersionSerializer(allow_null=True))
    def get_current_version(self, source: Source) -> dict[str, Any] | None:
        number = getattr(source, "current_number", None)
        if number is None:
            return None
        version = {
            "number": number,
            "sha256": getattr(source, "current_sha256", ""),
            "created_at": getattr(source, "current_created_at", None),
        }
        return dict(SourceCurrentVersionSerializer(version).data)

    @extend_schema_field(serializers.DateTimeField(allow_null=True))
    def get_updated_at(self, source: Source) -> str | None:
        stored = getattr(source, "current_created_at", None)
        return serializers.DateTimeField().to_representation(stored) if stored else None

    def get_url(self, source: Source) -> str:
        return reverse("api-source", kwargs={"ref": source.ref})


@extend_schema_serializer(component_name="SourceRebindJob")
class SourceRebindJobSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField(source="pk")
    status = serializers.CharField()
    url = serializers.SerializerMethodField(help_text="The job: GET it for its progress.")

    def get_url(self, job: IngestJob) -> str:
        return reverse("api-ingest-job", kwargs={"job_id": job.pk})


class SourceFilterSerializer(serializers.Serializer[Any]):
    kind = serializers.ChoiceField(
        choices=SOURCE_KINDS,
        required=False,
        help_text="Which sources: document (the default), transcript or rag_chunk.",
    )
    domain_pack = serializers.CharField(max_length=64, required=False)
    q = serializers.CharField(
        max_length=200,
        required=False,
        help_text="A prefix of the ref, or of the title in any letter case.",
    )


class SourceUpsertApi(APIView):
    """``POST``: create a source, or append a new immutable version when its text changed
    (identical text is a no-op that returns the current version); a new version queues
    an ingest job (``rebind_job``) that binds the source's earlier claims again where
    their words still are, judges and scores them, as re-ingesting does; until it has
    run they are unverified (stale_source). A source's domain pack is set when it is made: another
    one for an existing source is a 409 ``domain_pack_conflict`` and nothing is written.

    ``GET``: the workspace's sources, newest first, cursor-paginated: documents unless
    ``kind`` asks for memory transcripts or RAG chunks."""

    pagination_class = IdCursorPagination

    @extend_schema_serializer(component_name="SourceFilter")
    class FilterSerializer(SourceFilterSerializer):
        pass

    ListItemSerializer = SourceListItemSerializer

    @extend_schema(
        parameters=[FilterSerializer],
        responses=SourceListItemSerializer(many=True),
    )
    def get(self, request: Request) -> Response:
        workspace = request_workspace(request)
        filters = list_filters(request, self.FilterSerializer, self.pagination_class)
        qs = source_list_paged(
            workspace=workspace,
            kind=filters.get("kind", "document"),
            domain_pack=filters.get("domain_pack"),
            prefix=filters.get("q"),
        )
        paginator = self.pagination_class()
        page = paginator.paginate_queryset(qs, request, view=self) or []
        return paginator.get_paginated_response(self.ListItemSerializer(page, many=True).data)

    @extend_schema_serializer(component_name="SourceUpsertRequest")
    class InputSerializer(StrictSerializer):
        ref = serializers.CharField(max_length=200)
        text = serializers.CharField(
            trim_whitespace=False, max_length=settings.SOURCE_TEXT_MAX_CHARS
        )
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
        rebind_job = SourceRebindJobSerializer(
            allow_null=True,
            help_text="The ingest job that judges the source's earlier claims again in the "
            "new version (queued; GET its url for progress). Null when no version was added "
            "to an existing source.",
        )

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
        write = source_upsert_queue_rebind(
            workspace=workspace,
            door_name="sources API",
            actor=request.user,
            **data.validated_data,
        )
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
        asked = query_values(request, self.QuerySerializer)
        source = source_get(workspace=request_workspace(request), ref=ref)
        current = source_current_version(source=source)
        number = asked.get("version")
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
