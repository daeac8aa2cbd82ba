"""``POST /connect/v1/claims/verify``: claims an application already has, each checked
against the source it cites; parse → call one service → serialize."""

from __future__ import annotations

import math
from typing import Any

from django.conf import settings
from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiResponse,
    extend_schema,
    extend_schema_serializer,
)
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from verifier import vocabulary
from verifier.api.envelopes import STATE_CHOICES, VERDICT_CHOICES, JudgeSerializer
from verifier.api.scoping import request_workspace
from verifier.api.shapes import ShapeSerializer
from verifier.api.strict_input import StrictSerializer, query_params_check
from verifier.models import VerificationJob
from verifier.selectors.claim_verification import (
    verification_job_get,
    verification_job_trace,
    verification_results,
)
from verifier.services.claim_verification import (
    INLINE_MAX_CLAIMS,
    MAX_CLAIMS_PER_BATCH,
    ClaimSubmission,
    SourceSubmission,
    claims_submit_and_verify,
    verification_job_create,
)

# What one inline claim is budgeted to cost when deciding whether ``wait`` allows an
# inline answer (measured: ~100 claims/s with the heuristic judge on 2 cores; a
# conservative 20/s leaves room for a slower judge).
INLINE_CLAIMS_PER_SECOND = 20
DEFAULT_WAIT_SECONDS = 30


class VerifiedSpanSerializer(ShapeSerializer):
    quote = serializers.CharField()
    start = serializers.IntegerField()
    end = serializers.IntegerField()
    match = serializers.CharField(
        help_text="How the quote was found. " + vocabulary.header_note("match")
    )
    score = serializers.FloatField(
        allow_null=True,
        help_text="A fuzzy match's similarity of quote and span, 0.85 to 1 (to 4 decimals); "
        "null for exact and normalized matches and for evidence search.",
    )
    occurrences = serializers.IntegerField(
        allow_null=True,
        help_text="How many times the quote occurs in the source version the way it matched, "
        "counted up to 100; the first is bound, so more than 1 means the quote alone does "
        "not say which passage it meant. Null for fuzzy matches and evidence search.",
    )
    bound_by = serializers.CharField()
    source_version = serializers.IntegerField()
    source_hash = serializers.CharField()
    permalink = serializers.CharField(help_text="The source version page, span highlighted.")


class ClaimErrorSerializer(ShapeSerializer):
    code = serializers.CharField()
    message = serializers.CharField()


# One row of ``verification_results``: ``index``, ``status`` and ``error`` or ``reused``
# with the keys of ``claim_result``, declared here field by field (an undeclared key is
# an error; ``tests/verifier/api/test_claims_verify.py`` holds the two equal).
@extend_schema_serializer(component_name="ClaimVerifyResult")
class ResultSerializer(ShapeSerializer):
    index = serializers.IntegerField(help_text="Position of the claim in the request.")
    status = serializers.ChoiceField(choices=["verified", "pending", "error"])
    error = ClaimErrorSerializer(required=False, allow_null=True)
    claim_id = serializers.CharField(required=False)
    external_id = serializers.CharField(
        required=False, allow_null=True, help_text="As the request gave it; null when none."
    )
    reused = serializers.BooleanField(
        required=False,
        help_text="Already stored under this external id, by an earlier call or by an "
        "earlier item of this one (false only on the item that stored the claim): its stored "
        "result, not verified again unless its cited source changed since (stored "
        "unverified / stale_source).",
    )
    text = serializers.CharField(required=False)
    # DRF's metaclass takes declared fields off the class; the stubs see Field's attribute.
    source = serializers.CharField(required=False, help_text="The cited source's ref.")  # type: ignore[assignment]
    state = serializers.ChoiceField(choices=STATE_CHOICES, required=False)
    reason = serializers.CharField(required=False)
    reason_text = serializers.CharField(
        required=False,
        help_text="The reason in words, as the claim's envelope gives it; for a quote not "
        "bound, followed by where the quote is when it is in an earlier version of the "
        "cited source or in another source.",
    )
    verdict = serializers.ChoiceField(
        choices=VERDICT_CHOICES,
        required=False,
        allow_null=True,
        help_text="What the latest verdict answered; null when no judge was asked (nothing "
        "was bound: the claim's envelope has no judge either). "
        + vocabulary.header_note("verdict"),
    )
    confidence = serializers.FloatField(
        required=False,
        allow_null=True,
        help_text="How sure that verdict is of its answer, 0 to 1; null when it gave none "
        "(abstained, coverage_gap, withdrawn), as in the claim's envelope.",
    )
    verdict_id = serializers.IntegerField(
        required=False, allow_null=True, help_text="Null with `verdict`."
    )
    judge_model = serializers.CharField(
        required=False, allow_null=True, help_text="Null with `verdict`."
    )
    judge = JudgeSerializer(
        required=False,
        allow_null=True,
        help_text="The verdict the state rests on, exactly as the claim's envelope gives "
        "it (`calibrator` included: the reviewer calibrator that answered, or null); null "
        "with `verdict`.",
    )
    quality = serializers.CharField(required=False, allow_null=True)
    misattributed_to = serializers.ListField(
        child=serializers.CharField(),
        required=False,
        help_text="Refs of other sources whose current version holds the quote of a claim "
        "that bound nothing (at most 3).",
    )
    span = VerifiedSpanSerializer(required=False, allow_null=True)
    permalink = serializers.CharField(required=False, help_text="The claim's audit page.")
    metadata = serializers.JSONField(required=False)


class VerificationJobSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField(source="pk")
    status = serializers.CharField()
    policy = serializers.CharField(
        allow_null=True,
        help_text="The policy the request named; null when it named none (each claim's "
        "domain pack is then scored under the policy its active rule set was activated with).",
    )
    total = serializers.IntegerField(help_text="Claims to verify (per-claim errors excluded).")
    done = serializers.IntegerField()
    error = serializers.CharField()
    created_at = serializers.DateTimeField()
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)
    url = serializers.SerializerMethodField()

    def get_url(self, job: VerificationJob) -> str:
        return f"/connect/v1/claims/verify/jobs/{job.pk}"

    def to_representation(self, instance: VerificationJob) -> dict[str, Any]:
        data = super().to_representation(instance)
        # stored blank when the request named none; the job's trace records it as null too
        data["policy"] = data["policy"] or None
        return data


def _summary(results: list[dict[str, Any]]) -> dict[str, Any]:
    states: dict[str, int] = {}
    for row in results:
        if row["status"] == "verified":
            states[row["state"]] = states.get(row["state"], 0) + 1
    return {
        "claims": len(results),
        "verified": sum(1 for r in results if r["status"] == "verified"),
        "pending": sum(1 for r in results if r["status"] == "pending"),
        "errors": sum(1 for r in results if r["status"] == "error"),
        "states": dict(sorted(states.items())),
    }


class ClaimVerifyApi(APIView):
    """Verify claims an application already has: each claim is bound to a span of the
    source it cites (its ``quote`` when given, else evidence search in that source only),
    judged, given one of the five states, and stored with origin ``api``.

    Up to 1,000 claims a call. Batches of up to 100 claims answer inline (200) when
    ``wait`` allows; larger ones, or ``wait: 0``, answer 202 with a job to poll at
    ``job.url`` (a ``verification.completed`` webhook fires when it ends). A claim with
    an ``external_id`` already stored (same text and source, and the same ``quote`` or
    none) is not stored again: its stored result comes back with ``reused: true``; the
    same ``external_id`` twice in one batch is stored once, by its first item, and the
    later items read ``reused: true``.
    Problems of one claim (unknown source, empty text, over 2,000 characters, external
    id used for another text, source or quote) are
    that claim's ``error`` and do not fail the batch. A batch none of whose claims can
    be verified answers 200 with an error row each when it is verified inline; as a job
    it is refused as a whole (400 ``no_claim_accepted``, ``details.errors`` one per
    claim), so no job "succeeds" with nothing verified.
    """

    @extend_schema_serializer(
        component_name="ClaimVerifyRequest",
        examples=[
            OpenApiExample(
                "Two claims, one with a quote, against a source sent inline",
                value={
                    "sources": [
                        {
                            "ref": "source:press-release-7",
                            "title": "Press release 7",
                            "text": "The bridge opened in 1932. It carries six lanes.",
                        }
                    ],
                    "claims": [
                        {
                            "text": "The bridge opened in 1932.",
                            "source": "source:press-release-7",
                            "quote": "The bridge opened in 1932.",
                            "external_id": "answer-41/claim-1",
                        },
                        {"text": "The bridge has eight lanes.", "source": "source:press-release-7"},
                    ],
                    "policy": "strict",
                },
                request_only=True,
            )
        ],
    )
    class InputSerializer(StrictSerializer):
        class VerifyClaimInput(serializers.Serializer[Any]):
            # Length and emptiness are checked per claim by the service, so one bad
            # claim does not fail the batch.
            text = serializers.CharField(allow_blank=True, trim_whitespace=False)
            # DRF's metaclass takes declared fields off the class; the stubs see Field's attribute.
            source = serializers.CharField(  # type: ignore[assignment]
                max_length=200,
                help_text="The cited source's ref, as GET /connect/v1/sources lists it (a "
                "ref, never an id).",
            )
            quote = serializers.CharField(
                required=False,
                allow_blank=True,
                allow_null=True,
                trim_whitespace=False,
                max_length=20_000,
                help_text="The span the application believes supports the claim.",
            )
            external_id = serializers.CharField(
                required=False, allow_blank=True, max_length=200, default=""
            )
            metadata = serializers.DictField(required=False, default=dict)

        class VerifySourceInput(serializers.Serializer[Any]):
            ref = serializers.CharField(max_length=200)
            title = serializers.CharField(max_length=300, required=False, allow_blank=True)
            text = serializers.CharField(
                trim_whitespace=False, max_length=settings.SOURCE_TEXT_MAX_CHARS
            )

        # many=True builds a ListSerializer, which takes max_length; the stubs check the
        # arguments against the child serializer's own.
        claims = VerifyClaimInput(many=True, allow_empty=False, max_length=MAX_CLAIMS_PER_BATCH)  # type: ignore[call-arg]
        # as many as an ingest job takes: 20,000 small ones held a web thread for a minute
        sources = VerifySourceInput(  # type: ignore[call-arg]
            many=True, required=False, default=list, max_length=MAX_CLAIMS_PER_BATCH
        )
        policy = serializers.CharField(
            max_length=64,
            required=False,
            allow_blank=True,
            default="",
            help_text="A policy of the active rule set (e.g. strict, balanced, lenient).",
        )
        wait = serializers.FloatField(
            min_value=0,
            max_value=300,
            required=False,
            default=DEFAULT_WAIT_SECONDS,
            help_text="Seconds you will wait for an inline answer; 0 always gives a job.",
        )

    @extend_schema_serializer(component_name="ClaimVerifyResponse")
    class OutputSerializer(serializers.Serializer[Any]):
        job = VerificationJobSerializer(allow_null=True)
        summary = serializers.JSONField()
        results = ResultSerializer(many=True)
        trace_id = serializers.CharField(
            allow_null=True,
            help_text="The call's trace (GET /connect/v1/traces/{id}): an inline answer's "
            "at once; a job's once it has ended (null while it runs).",
        )

    @extend_schema(
        request=InputSerializer,
        responses={
            200: OutputSerializer,
            202: OutputSerializer,
            400: OpenApiResponse(
                description="invalid_request, unknown_field, unknown_policy, "
                "duplicate_source_ref, a source's invalid_ref / invalid_title; "
                "no_claim_accepted: a batch sent as a job (wait 0, or over 100 claims) none "
                "of whose claims can be verified (inline, such a batch answers 200 with "
                "an error row per claim)"
            ),
            409: OpenApiResponse(
                description="ref_in_use or domain_pack_conflict: an inline source's ref names "
                "a transcript or RAG chunk, or a source of another domain pack"
            ),
        },
    )
    def post(self, request: Request) -> Response:
        workspace = request_workspace(request)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values = data.validated_data
        claims = [
            ClaimSubmission(
                text=c["text"],
                source=c["source"],
                quote=c.get("quote"),
                external_id=c.get("external_id", ""),
                metadata=c.get("metadata") or {},
            )
            for c in values["claims"]
        ]
        sources = [SourceSubmission(**s) for s in values["sources"]]
        wait = values["wait"]
        inline = (
            wait > 0
            and len(claims) <= INLINE_MAX_CLAIMS
            and math.ceil(len(claims) / INLINE_CLAIMS_PER_SECOND) <= max(wait, 1)
        )
        arguments = {
            "workspace": workspace,
            "claims": claims,
            "sources": sources,
            "policy": values["policy"],
            "actor": request.user,
        }
        if inline:
            batch = claims_submit_and_verify(**arguments)
            items = [item.as_job_item() for item in batch.items]
            job = None
            trace_id = batch.trace_id
        else:
            job = verification_job_create(**arguments)
            items = job.items
            trace_id = None  # recorded when the job ends: its GET names it then
        results = verification_results(workspace=workspace, items=items)
        payload = {
            "job": VerificationJobSerializer(job).data if job is not None else None,
            "summary": _summary(results),
            "results": ResultSerializer(results, many=True).data,
            "trace_id": str(trace_id) if trace_id is not None else None,
        }
        return Response(payload, status=status.HTTP_200_OK if inline else status.HTTP_202_ACCEPTED)


class ClaimVerifyJobGetApi(APIView):
    """A background verification job: progress, and every claim's result so far (claims
    not verified yet read ``pending``)."""

    OutputSerializer = ClaimVerifyApi.OutputSerializer

    @extend_schema(responses=OutputSerializer)
    def get(self, request: Request, job_id: int) -> Response:
        query_params_check(request, ())
        workspace = request_workspace(request)
        job = verification_job_get(workspace=workspace, job_id=job_id)
        results = verification_results(workspace=workspace, items=job.items)
        trace_id = verification_job_trace(job=job)
        payload = {
            "job": VerificationJobSerializer(job).data,
            "summary": _summary(results),
            "results": ResultSerializer(results, many=True).data,
            "trace_id": str(trace_id) if trace_id is not None else None,
        }
        return Response(payload)
