"""Audit packs through the API: the workspace's public key, the standalone checker (the
exact ``check.py`` every pack carries, published outside any pack so an auditor need not
trust the copy inside one), a pack streamed for a scope (a filtered claim list, a source,
a trace, an ingest or verification job), and packs too large to stream made by a
background job. Exporting is reading: ``read`` scope, the job
included (its row is bookkeeping, like a retrieval's trace; docs/audit-pack.md)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, BinaryIO

from django.conf import settings
from django.http import FileResponse, HttpResponse, QueryDict, StreamingHttpResponse
from django.urls import reverse
from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
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

from verifier.api.authentication import ApiKeyUser
from verifier.api.claims import ClaimFilterSerializer
from verifier.api.errors import BODY_FIELD, ApiError
from verifier.api.negotiation import IgnoreFormatParam
from verifier.api.scoping import request_actor, request_workspace
from verifier.api.strict_input import StrictSerializer, ascii_integers, query_params_check
from verifier.audit_pack.scope import (
    CLAIM_FILTER_KEYS,
    SCOPE_KINDS,
    AuditPackError,
    PackScope,
    parse_scope,
)
from verifier.audit_pack.signing import SigningKeyUnavailable
from verifier.audit_pack.writer import checker_bytes, checker_sha256
from verifier.models import ApiScope, AuditPackJob, AuditPackJobStatus
from verifier.scoring.quality import QUALITY_CLASSES
from verifier.selectors.audit_pack import audit_pack_job_get
from verifier.selectors.text_search import SEARCH_MAX_CHARS, search_query_validator
from verifier.services.audit_pack import (
    audit_pack_file,
    audit_pack_job_create,
    audit_pack_stream,
    signing_key_ensure,
)
from verifier.states import StateReason

ZIP = "application/zip"
PYTHON = "text/x-python"
# The checker's SHA-256 (hex) on GET /connect/v1/audit-pack/checker.
CHECKER_SHA256_HEADER = "X-Spanproof-Checker-SHA256"
# Why a claim has its state, a filter of a pack's scope: one enum in the schema however
# many components name it (SPECTACULAR_SETTINGS' ENUM_NAME_OVERRIDES).
STATE_REASON_CHOICES = [r.value for r in StateReason]


# What each scope reads besides ``scope`` (``parse_scope``): another field is refused by
# name, not left out of the pack without a word (``?scope=trace&trace=…&state=supported``
# would export the whole trace, its caller believing it filtered).
SCOPE_READS: dict[str, tuple[str, ...]] = {
    "claims": CLAIM_FILTER_KEYS,
    "source": ("source",),
    "trace": ("trace",),
    "ingest_job": ("job",),
    "verification_job": ("job",),
}


@extend_schema_field(OpenApiTypes.UUID)
class TraceIdField(serializers.CharField):
    """A trace's id: a UUID, as ``parse_scope`` reads it (and says so when it is not)."""


@extend_schema_serializer(component_name="AuditPackScope")
class AuditPackScopeSerializer(ClaimFilterSerializer):
    """What a pack holds: ``scope`` (default ``claims``) and its argument. ``state``,
    ``source`` and ``job`` are the claim list's own fields (``GET /connect/v1/claims``:
    one rule for both); ``source`` is also a source pack's ref and ``job`` a job pack's
    id. What each scope needs (its argument, a trace's UUID, at most 200 characters) is
    ``parse_scope``'s rule, which the console and ``manage.py audit_pack`` share."""

    scope = serializers.ChoiceField(choices=list(SCOPE_KINDS), default="claims")
    reason = serializers.ChoiceField(choices=STATE_REASON_CHOICES, required=False)
    quality = serializers.ChoiceField(choices=list(QUALITY_CLASSES), required=False)
    # a search's cost grows with its length (verifier.selectors.text_search)
    q = serializers.CharField(
        required=False,
        max_length=SEARCH_MAX_CHARS,
        validators=[search_query_validator],
        help_text="Text the claims contain.",
    )
    trace = TraceIdField(required=False, help_text="Trace id (scope=trace).")


@extend_schema_serializer(component_name="AuditPackJobRequest")
class AuditPackJobRequestSerializer(AuditPackScopeSerializer, StrictSerializer):
    """A job's body: the same fields, ``scope`` required (``{"scope": "claims"}`` for
    every claim), each of its JSON type, and no field the API does not know (a misspelt
    filter would otherwise widen the pack without a word): the API's one strict rule
    (``verifier.api.strict_input``)."""

    scope = serializers.ChoiceField(choices=list(SCOPE_KINDS))


def pack_scope(serializer_class: type[AuditPackScopeSerializer], data: Any) -> PackScope:
    """The scope ``data`` (query parameters or a JSON body) names, or ``invalid_scope``
    (400) naming the first field in the wrong: not an object, a value of the wrong type
    or not one of the allowed ones, a missing or unknown field."""
    if not isinstance(data, Mapping):
        raise AuditPackError(
            "invalid_scope",
            f"The body must be a JSON object (the pack's scope and its argument), "
            f"not {type(data).__name__ if data is not None else 'null'}.",
            {"field": BODY_FIELD},
        )
    serializer = serializer_class(data=data)
    if isinstance(data, QueryDict):  # a body's job is a JSON number (StrictSerializer)
        try:
            ascii_integers(data, serializer.fields)  # ``?job=١`` is no job 1
        except ApiError as exc:
            field = exc.details["field"]
            said = "A valid integer (ASCII digits) is required."
            raise AuditPackError(
                "invalid_scope", f"{field}: {said}", {"field": field, "errors": {field: [said]}}
            ) from None
    if not serializer.is_valid():
        errors = {key: [str(m) for m in messages] for key, messages in serializer.errors.items()}
        field, messages = next(iter(errors.items()))
        raise AuditPackError(
            "invalid_scope", f"{field}: {' '.join(messages)}", {"field": field, "errors": errors}
        )
    kind = serializer.validated_data["scope"]
    reads = SCOPE_READS[kind]
    for key in serializer.validated_data:
        if key != "scope" and key not in reads:
            what = kind.replace("_", " ")
            article = "An" if what[0] in "aeiou" else "A"
            raise AuditPackError(
                "invalid_scope",
                f"{article} {what} pack does not read {key!r} (it reads "
                f"{', '.join(reads)}); leave it out.",
                {"field": key},
            )
    return parse_scope({key: str(value) for key, value in serializer.validated_data.items()})


def exported_by(request: Request) -> dict[str, str]:
    """Who asked, as the pack records it: the console member's role or the API key's
    scope, never a name."""
    if isinstance(request.user, ApiKeyUser):
        return {"api_key_scope": str(request.user.api_key.scope)}
    membership = getattr(request._request, "membership", None)
    return {"role": str(membership.role)} if membership is not None else {}


def pack_filename(slug: str) -> str:
    return f"audit-pack-{slug}-{timezone.now():%Y%m%dT%H%M%SZ}.zip"


def signing_key_error(exc: SigningKeyUnavailable) -> ApiError:
    """The server cannot sign: its SECRET_KEY changed without SECRET_KEY_FALLBACKS. A
    503 that says so, not a 500 (an operator can fix it; the client can retry)."""
    return ApiError(
        "signing_key_unavailable",
        f"{exc} Set SECRET_KEY_FALLBACKS to the secret the key was sealed with.",
        status_code=status.HTTP_503_SERVICE_UNAVAILABLE,
    )


class AuditPackPublicKeyApi(APIView):
    """The workspace's Ed25519 public key, to pin when checking its packs
    (``python3 check.py PACK --public-key HEX``), and the SHA-256 of the checker this
    server ships, to compare a pack's ``check.py`` with. Made on first use."""

    class OutputSerializer(serializers.Serializer[Any]):
        workspace = serializers.CharField(source="workspace.slug")
        algorithm = serializers.CharField()
        public_key = serializers.CharField(help_text="32 bytes, hex.")
        key_id = serializers.SerializerMethodField()
        created_at = serializers.DateTimeField()
        checker_sha256 = serializers.SerializerMethodField(
            help_text="SHA-256 (hex) of the standalone checker this server ships "
            "(GET /connect/v1/audit-pack/checker): a pack's check.py should hash to it."
        )

        def get_key_id(self, key: Any) -> str:
            from verifier.audit_pack.check import key_id

            return key_id(bytes.fromhex(key.public_key))

        def get_checker_sha256(self, key: Any) -> str:
            return checker_sha256()

    @extend_schema(responses=OutputSerializer)
    def get(self, request: Request) -> Response:
        query_params_check(request, ())
        key = signing_key_ensure(workspace=request_workspace(request))
        return Response(self.OutputSerializer(key).data)


class AuditPackCheckerApi(APIView):
    """The standalone checker, ``check.py``: the exact bytes every pack carries, served
    outside any pack (whoever could change a pack could change the copy inside it), with
    its SHA-256 in the ``X-Spanproof-Checker-SHA256`` header."""

    @extend_schema(
        responses={
            (200, PYTHON): OpenApiResponse(
                OpenApiTypes.STR,
                description="check.py (UTF-8); its SHA-256 (hex) in the "
                f"{CHECKER_SHA256_HEADER} header, the same as the public key's "
                "checker_sha256.",
            ),
            400: OpenApiResponse(description="unknown_field"),
        },
    )
    def get(self, request: Request) -> HttpResponse:
        query_params_check(request, ())
        response = HttpResponse(checker_bytes(), content_type=f"{PYTHON}; charset=utf-8")
        response[CHECKER_SHA256_HEADER] = checker_sha256()
        response["Content-Disposition"] = 'attachment; filename="check.py"'
        return response


class AuditPackDownloadApi(APIView):
    """A signed audit pack (zip) of the scope, streamed as it is written; at most
    ``SPANPROOF_AUDIT_PACK_DIRECT_MAX_CLAIMS`` claims (a larger one: a job)."""

    content_negotiation_class = IgnoreFormatParam

    @extend_schema(
        parameters=[AuditPackScopeSerializer],
        responses={
            (200, ZIP): OpenApiResponse(OpenApiTypes.BINARY),
            400: OpenApiResponse(
                description="invalid_scope, pack_too_large, unknown_field, duplicate_field"
            ),
            404: OpenApiResponse(description="no such source, trace or job"),
            503: OpenApiResponse(description="signing_key_unavailable"),
        },
    )
    def get(self, request: Request) -> StreamingHttpResponse:
        workspace = request_workspace(request)
        query_params_check(request, AuditPackScopeSerializer().fields)
        try:
            stream = audit_pack_stream(
                workspace=workspace,
                scope=pack_scope(AuditPackScopeSerializer, request.query_params),
                exported_by=exported_by(request),
                max_claims=settings.SPANPROOF_AUDIT_PACK_DIRECT_MAX_CLAIMS,
            )
        except SigningKeyUnavailable as exc:
            raise signing_key_error(exc) from None
        response = StreamingHttpResponse(stream, content_type=ZIP)
        response["Content-Disposition"] = f'attachment; filename="{pack_filename(workspace.slug)}"'
        response["Cache-Control"] = "no-store"
        return response


class AuditPackJobSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    status = serializers.ChoiceField(choices=AuditPackJobStatus.choices)
    # The fields the job was made with, each of its JSON type as a job's body sends it
    # (``job`` an integer id, as every job read gives one), not the strings it is kept as.
    scope = AuditPackScopeSerializer(
        help_text="The pack's scope and its argument, as a job's body names them."
    )
    total = serializers.IntegerField()
    done = serializers.IntegerField()
    percent = serializers.IntegerField()
    error = serializers.CharField(allow_blank=True)
    size = serializers.IntegerField(allow_null=True)
    sha256 = serializers.CharField(allow_blank=True)
    key_id = serializers.CharField(allow_blank=True)
    created_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)
    download = serializers.SerializerMethodField()

    def get_download(self, job: AuditPackJob) -> str | None:
        if job.status != AuditPackJobStatus.SUCCEEDED or not job_archive_present(job):
            return None  # not made yet, or its archive is gone (export again)
        return reverse("api-audit-pack-job-download", kwargs={"job_id": job.pk})


class AuditPackJobCreateApi(APIView):
    """Start a background export of the scope (body: ``scope`` and its argument, the
    download's query parameters as a JSON object); poll the job for its progress."""

    # Exporting is reading (docs/audit-pack.md): the job row is bookkeeping, like a trace.
    required_scopes = {"POST": ApiScope.READ}

    @extend_schema(
        request=AuditPackJobRequestSerializer,
        responses={
            202: AuditPackJobSerializer,
            400: OpenApiResponse(description="invalid_scope, unknown_field"),
            404: OpenApiResponse(description="no such source, trace or job"),
        },
    )
    def post(self, request: Request) -> Response:
        job = audit_pack_job_create(
            workspace=request_workspace(request),
            scope=pack_scope(AuditPackJobRequestSerializer, request.data),
            actor=request_actor(request),
            exported_by=exported_by(request),
        )
        job.refresh_from_db()
        return Response(AuditPackJobSerializer(job).data, status=status.HTTP_202_ACCEPTED)


class AuditPackJobGetApi(APIView):
    """An audit-pack job: its status and progress, and its download once it succeeded."""

    @extend_schema(responses=AuditPackJobSerializer)
    def get(self, request: Request, job_id: int) -> Response:
        query_params_check(request, ())
        job = audit_pack_job_get(workspace=request_workspace(request), job_id=job_id)
        return Response(AuditPackJobSerializer(job).data)


def job_archive_present(job: AuditPackJob) -> bool:
    """Whether the archive a succeeded job wrote is still where it wrote it."""
    return audit_pack_file(job).is_file()


def job_archive_open(job: AuditPackJob) -> BinaryIO:
    """The archive a succeeded job wrote, open; a 410 ``pack_missing`` when it is no
    longer there (moved or deleted from ``SPANPROOF_AUDIT_PACK_DIR``, or a web process
    that does not see the workers' folder): the pack has to be exported again."""
    try:
        return audit_pack_file(job).open("rb")
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        raise ApiError(
            "pack_missing",
            f"The archive of audit-pack job {job.pk} ({job.file_name}) is no longer on the "
            "server: it was moved or deleted. Export the pack again.",
            status_code=status.HTTP_410_GONE,
            details={"job": job.pk, "file_name": job.file_name},
        ) from None


class AuditPackJobDownloadApi(APIView):
    """The pack a job made (zip); 410 ``pack_missing`` when its archive is gone."""

    content_negotiation_class = IgnoreFormatParam

    @extend_schema(
        responses={
            (200, ZIP): OpenApiResponse(OpenApiTypes.BINARY),
            409: OpenApiResponse(description="pack_not_ready"),
            410: OpenApiResponse(description="pack_missing: the archive is gone; export again"),
        }
    )
    def get(self, request: Request, job_id: int) -> FileResponse:
        query_params_check(request, ())
        workspace = request_workspace(request)
        job = audit_pack_job_get(workspace=workspace, job_id=job_id)
        if job.status != AuditPackJobStatus.SUCCEEDED:
            raise ApiError(
                "pack_not_ready",
                f"The pack is not ready: the job is {job.status}.",
                status_code=status.HTTP_409_CONFLICT,
                details={"status": job.status, "done": job.done, "total": job.total},
            )
        return FileResponse(
            job_archive_open(job),
            as_attachment=True,
            filename=job.file_name,
            content_type=ZIP,
        )
