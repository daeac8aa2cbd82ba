"""POST /worker/verify — verify one free-text claim against the workspace's corpus
(seed 001). Same Bearer API-key auth as /connect/v1."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from drf_spectacular.utils import extend_schema, extend_schema_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from verifier.api.scoping import request_actor, request_workspace
from verifier.claim_worker.config import TRUST_POLICY_MODES
from verifier.domain_packs import DEFAULT_DOMAIN_PACK
from verifier.extractors.base import MAX_CLAIM_CHARS
from verifier.services.claim_worker_request import (
    MAX_JOB_ID_CHARS,
    TOP_K_DEFAULT,
    TOP_K_MAX,
    TOP_K_MIN,
)
from verifier.services.claim_worker_verify import worker_verify


@extend_schema_serializer(component_name="WorkerEvidenceItem")
class WorkerEvidenceSerializer(serializers.Serializer[Any]):
    """One top evidence item: always a bound span of a hashed source version."""

    id = serializers.CharField(help_text="A claim's id, or sentence:<version>:<start>-<end>.")
    kind = serializers.ChoiceField(choices=["claim", "source_sentence"])
    text = serializers.CharField()
    quote = serializers.CharField()
    start = serializers.IntegerField()
    end = serializers.IntegerField()
    source_hash = serializers.CharField()
    match = serializers.CharField()
    source_id = serializers.IntegerField()
    source_ref = serializers.CharField()
    source_title = serializers.CharField(allow_blank=True)
    source_version_id = serializers.IntegerField()
    source_domain = serializers.CharField()
    verification_state = serializers.CharField(
        allow_null=True, help_text="A claim item's state; null for a source sentence."
    )
    ranking_score = serializers.FloatField()
    stance = serializers.ChoiceField(choices=["supports", "contradicts", "neutral"])
    stances = serializers.ListField(
        child=serializers.DictField(), help_text="Per subclaim: subclaim_index, label, confidence."
    )
    signals = serializers.DictField(help_text="The ranking signals and adjustments.")


# The body docs/worker-verify.md describes (``worker_response`` and ``verdict_package``
# build it; tests/verifier/api/test_openapi_schema.py holds the keys equal).
@extend_schema_serializer(component_name="WorkerVerifyResponse")
class WorkerVerifyResponseSerializer(serializers.Serializer[Any]):
    job_id = serializers.CharField()
    room_id = serializers.CharField(allow_blank=True)
    # DRF's metaclass takes declared fields off the class; the stubs see Field's attribute.
    source = serializers.CharField(allow_blank=True)  # type: ignore[assignment]
    domain = serializers.CharField()
    claim = serializers.CharField()
    status = serializers.ChoiceField(choices=["completed", "completed_from_cache"])
    cache = serializers.DictField(help_text="reason (the gate that decided), age_seconds.")
    verdict = serializers.CharField(
        help_text="TRUE, FALSE, PARTIALLY_TRUE, UNVERIFIABLE, ... (seed 001)."
    )
    verdict_confidence = serializers.FloatField()
    confidence = serializers.FloatField(help_text="The same value as verdict_confidence.")
    truthfulness_percent = serializers.FloatField()
    numeric_support = serializers.FloatField(allow_null=True)
    evidence_quality_percent = serializers.FloatField()
    claim_breakdown = serializers.ListField(child=serializers.DictField())
    evidence_map = serializers.ListField(child=serializers.DictField())
    proposed_verdict = serializers.CharField()
    reconciliation_reasons = serializers.ListField(child=serializers.CharField())
    claim_strictness = serializers.FloatField()
    analysis_counts = serializers.DictField()
    evidence = WorkerEvidenceSerializer(many=True)
    top_ranking_score = serializers.FloatField()
    avg_ranking_score = serializers.FloatField()
    trust_policy_mode = serializers.ChoiceField(choices=list(TRUST_POLICY_MODES))
    trust_metric_value = serializers.FloatField()
    trust_threshold_met = serializers.BooleanField()
    trust_route = serializers.CharField()
    trust_verdict_state = serializers.CharField()
    coverage = serializers.FloatField()
    diversity = serializers.FloatField()
    agreement = serializers.FloatField()
    trust_post_adaptive = serializers.FloatField()
    trust_post_fixed = serializers.FloatField()
    data_source = serializers.CharField(help_text="vdb, kg, vdb+kg or none.")
    used_web_search = serializers.BooleanField()
    web_expansion = serializers.DictField()
    vdb_signal_count = serializers.IntegerField()
    kg_signal_count = serializers.IntegerField()
    candidates_considered = serializers.IntegerField()
    sentence_candidates = serializers.IntegerField()
    candidates_ranked = serializers.IntegerField()
    chunk_prefilter = serializers.DictField()
    retrieval_degraded = serializers.BooleanField()
    judge = serializers.DictField(help_text="model_id, family.")
    stored_claim_id = serializers.CharField(
        allow_null=True, help_text="The stored claim; null when no evidence was found."
    )
    timing_ms = serializers.DictField()
    trace_id = serializers.CharField()


class WorkerVerifyApi(APIView):
    """Retrieve (pgvector + knowledge graph), rank, judge each item's stance toward each
    subclaim, compute adaptive trust and return the verdict package with diagnostics.

    The request is read as seed 001 defines it, leniently: a field it does not name is
    ignored (unlike the Connect API's bodies, which refuse one), and an optional field
    sent as ``null`` (as a client serializes one it leaves unset) or a blank ``domain``
    takes its default, as the field left out does."""

    @extend_schema_serializer(component_name="WorkerVerifyRequest")
    class InputSerializer(serializers.Serializer[Any]):
        # The seed's optional fields (``room_id``, ``source``) and those with a default
        # (``domain``, ``top_k``) and the trust policy mode: null reads as not given.
        NULL_MEANS_DEFAULT = ("room_id", "source", "domain", "top_k", "trust_policy_mode")

        job_id = serializers.CharField(max_length=MAX_JOB_ID_CHARS)
        claim = serializers.CharField(max_length=MAX_CLAIM_CHARS)
        room_id = serializers.CharField(
            required=False, allow_blank=True, allow_null=True, default="", max_length=200
        )
        # DRF's metaclass takes declared fields off the class; the stubs see Field's attribute.
        source = serializers.CharField(  # type: ignore[assignment]
            required=False, allow_blank=True, allow_null=True, default="", max_length=500
        )
        domain = serializers.CharField(
            required=False,
            allow_blank=True,
            allow_null=True,
            default=DEFAULT_DOMAIN_PACK,
            max_length=64,
            help_text=f"Blank or null: {DEFAULT_DOMAIN_PACK} (every source).",
        )
        top_k = serializers.IntegerField(
            required=False, default=TOP_K_DEFAULT, min_value=TOP_K_MIN, max_value=TOP_K_MAX
        )
        # the adaptive trust policy's mode; absent: settings.SPANPROOF_WORKER_TRUST_POLICY_MODE
        trust_policy_mode = serializers.ChoiceField(
            choices=list(TRUST_POLICY_MODES), required=False, allow_null=True
        )

        def to_internal_value(self, data: Any) -> dict[str, Any]:
            if isinstance(data, Mapping):
                data = {
                    key: value
                    for key, value in data.items()
                    if not (value is None and key in self.NULL_MEANS_DEFAULT)
                }
            return dict(super().to_internal_value(data))

        def validate_domain(self, value: str) -> str:
            return value or DEFAULT_DOMAIN_PACK

    @extend_schema(request=InputSerializer, responses={200: WorkerVerifyResponseSerializer})
    def post(self, request: Request) -> Response:
        workspace = request_workspace(request)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        result = worker_verify(
            workspace=workspace, actor=request_actor(request), **data.validated_data
        )
        return Response(result)
