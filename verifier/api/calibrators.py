"""``GET /connect/v1/calibrators``: the workspace's reviewer calibrators with their
cross-validated figures (docs/learning-from-reviewers.md)."""

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
from verifier.engine import get_judge
from verifier.judges.reviewer_calibrator import OVERRULE_LABELS, may_overrule, overrule_figures
from verifier.models import CalibratorStatus, JudgeCalibrator
from verifier.selectors.calibrators import calibrator_list, calibrator_use_refusal


@extend_schema_serializer(component_name="CalibratorSide")
class SideSerializer(serializers.Serializer[Any]):
    threshold = serializers.FloatField(
        allow_null=True, help_text="P(supported) at or above (supported) / at or below."
    )
    precision = serializers.FloatField(allow_null=True)
    recall = serializers.FloatField(allow_null=True)


@extend_schema_serializer(component_name="CalibratorOverrule")
class OverruleSerializer(serializers.Serializer[Any]):
    judge_decided = serializers.IntegerField(
        allow_null=True, help_text="Decisions, out of fold, where the judge decided this answer."
    )
    disagreed = serializers.IntegerField(
        allow_null=True, help_text="Of those, where the calibrator decided the other way."
    )
    sided_with_calibrator = serializers.IntegerField(
        allow_null=True, help_text="Of those, where the reviewers sided with the calibrator."
    )
    precision = serializers.FloatField(allow_null=True)
    may_overrule = serializers.BooleanField(
        help_text="Whether it sends a claim the judge decided so back to the queue."
    )


@extend_schema_serializer(component_name="CalibratorCurvePoint")
class CurvePointSerializer(serializers.Serializer[Any]):
    abstention = serializers.FloatField(allow_null=True)
    entailed_precision = serializers.FloatField(allow_null=True)


class CalibratorSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    judge_model = serializers.CharField()
    judge_prompt_version = serializers.IntegerField(
        help_text="The judge's reading it learned from; used only while the judge reads so."
    )
    version = serializers.IntegerField()
    status = serializers.ChoiceField(choices=CalibratorStatus.values)
    training_size = serializers.IntegerField(help_text="Human decisions it learned from.")
    supported_decisions = serializers.IntegerField()
    contradicted_decisions = serializers.IntegerField()
    floor = serializers.FloatField(help_text="Precision floor its thresholds were chosen for.")
    cv_roc_auc = serializers.FloatField()
    supported = SideSerializer(help_text="Cross-validated, on its decisions.")
    contradicted = SideSerializer()
    judge_alone = CurvePointSerializer(help_text="The judge alone on the same decisions.")
    with_calibrator = CurvePointSerializer()
    overrule_entailed = OverruleSerializer(
        help_text="Overruling the judge's decided entailed (null figures: not measured)."
    )
    overrule_contradicted = OverruleSerializer()
    can_decide = serializers.BooleanField(
        help_text=(
            "Its supported precision reaches the floor in force and, for the configured "
            "judge, it learned from the judge's present reading."
        )
    )
    refusal = serializers.CharField(allow_blank=True, help_text="Why it may not decide.")
    created_at = serializers.DateTimeField()
    activated_at = serializers.DateTimeField(allow_null=True)
    retired_at = serializers.DateTimeField(allow_null=True)


def calibrator_document(
    row: JudgeCalibrator, *, judge_model: str, prompt_version: int
) -> dict[str, Any]:
    params = row.params
    refusal = calibrator_use_refusal(row, judge_model=judge_model, prompt_version=prompt_version)
    return {
        "id": row.pk,
        "judge_model": row.judge_model,
        "judge_prompt_version": row.judge_prompt_version,
        "version": row.version,
        "status": row.status,
        "training_size": row.training_size,
        "supported_decisions": row.supported_decisions,
        "contradicted_decisions": row.contradicted_decisions,
        "floor": row.floor,
        "cv_roc_auc": row.cv_roc_auc,
        "supported": {
            "threshold": params.get("supported_threshold"),
            "precision": row.cv_supported_precision,
            "recall": row.cv_supported_recall,
        },
        "contradicted": {
            "threshold": params.get("contradicted_threshold"),
            "precision": row.cv_contradicted_precision,
            "recall": row.cv_contradicted_recall,
        },
        "judge_alone": {
            "abstention": row.judge_abstention,
            "entailed_precision": row.judge_entailed_precision,
        },
        "with_calibrator": {
            "abstention": row.cv_abstention,
            "entailed_precision": row.cv_entailed_precision,
        },
        **{
            f"overrule_{label}": {
                key: overrule_figures(params.get("figures") or {}, label).get(key)
                for key in ("judge_decided", "disagreed", "sided_with_calibrator", "precision")
            }
            | {"may_overrule": may_overrule(params.get("figures") or {}, label)}
            for label in OVERRULE_LABELS
        },
        "can_decide": not refusal,
        "refusal": refusal,
        "created_at": row.created_at,
        "activated_at": row.activated_at,
        "retired_at": row.retired_at,
    }


class CalibratorListApi(APIView):
    """The workspace's reviewer calibrators, newest first (cursor-paginated): each an
    immutable fit of a judge model on the workspace's human decisions, with its status
    and cross-validated figures."""

    @extend_schema_serializer(component_name="CalibratorFilter")
    class FilterSerializer(serializers.Serializer[Any]):
        status = serializers.ChoiceField(choices=CalibratorStatus.values, required=False)
        judge_model = serializers.CharField(max_length=200, required=False)

    OutputSerializer = CalibratorSerializer
    pagination_class = IdCursorPagination

    @extend_schema(parameters=[FilterSerializer], responses=OutputSerializer(many=True))
    def get(self, request: Request) -> Response:
        workspace = request_workspace(request)
        filters = list_filters(request, self.FilterSerializer, self.pagination_class)
        rows = calibrator_list(
            workspace=workspace,
            status=filters.get("status"),
            judge_model=filters.get("judge_model"),
        )
        paginator = self.pagination_class()
        page = paginator.paginate_queryset(rows, request, view=self) or []
        judge = get_judge()
        data = self.OutputSerializer(
            [
                calibrator_document(
                    r, judge_model=str(judge.model_id), prompt_version=int(judge.prompt_version)
                )
                for r in page
            ],
            many=True,
        ).data
        return paginator.get_paginated_response(data)
