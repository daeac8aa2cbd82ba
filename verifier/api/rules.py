from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema, extend_schema_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from verifier.api.scoping import request_workspace
from verifier.api.strict_input import query_params_check
from verifier.selectors.rules import rule_set_builtin_document, verification_rules_active


class RuleSetDefinitionSerializer(serializers.Serializer[Any]):
    @extend_schema_serializer(component_name="RuleDimension")
    class DimensionSerializer(serializers.Serializer[Any]):
        key = serializers.CharField()
        weight = serializers.FloatField()
        passing_threshold = serializers.FloatField()
        description = serializers.CharField()
        prompt_template = serializers.CharField()

    @extend_schema_serializer(component_name="RulePolicy")
    class PolicySerializer(serializers.Serializer[Any]):
        name = serializers.CharField()
        min_overall_score = serializers.FloatField()
        weak_threshold = serializers.FloatField()

    name = serializers.CharField()
    display_name = serializers.CharField(allow_blank=True, required=False)
    version = serializers.IntegerField()
    default_policy = serializers.CharField()
    dimensions = DimensionSerializer(many=True)
    policies = PolicySerializer(many=True)


class VerificationRulesGetApi(APIView):
    """The rule set active for the caller's workspace, per domain pack ('' = all packs),
    with every override against built-in Core v1 listed."""

    @extend_schema_serializer(component_name="ActiveVerificationRules")
    class OutputSerializer(serializers.Serializer[Any]):
        @extend_schema_serializer(component_name="ActiveRuleSet")
        class ActiveSerializer(serializers.Serializer[Any]):
            @extend_schema_serializer(component_name="RuleSetRef")
            class RuleSetRefSerializer(serializers.Serializer[Any]):
                name = serializers.CharField()
                version = serializers.IntegerField()

            @extend_schema_serializer(component_name="RuleSetOverride")
            class OverrideSerializer(serializers.Serializer[Any]):
                target = serializers.CharField()
                field = serializers.CharField()
                built_in = serializers.FloatField(allow_null=True)
                value = serializers.FloatField(allow_null=True)

            domain_pack = serializers.CharField(allow_blank=True)
            # DRF's metaclass takes declared fields off the class; the stubs see Field's attribute.
            source = serializers.ChoiceField(choices=["built_in", "workspace"])  # type: ignore[assignment]
            rule_set = RuleSetRefSerializer()
            policy = serializers.CharField()
            activated_at = serializers.DateTimeField(allow_null=True)
            definition = RuleSetDefinitionSerializer()
            overrides = OverrideSerializer(many=True)

        workspace = serializers.CharField()
        rule_sets = ActiveSerializer(many=True)

    @extend_schema(responses=OutputSerializer)
    def get(self, request: Request) -> Response:
        query_params_check(request, ())
        rules = verification_rules_active(workspace=request_workspace(request))
        return Response(self.OutputSerializer(rules).data)


class VerificationRulesBuiltInApi(APIView):
    """The built-in "Restormel Core v1" rule set."""

    OutputSerializer = RuleSetDefinitionSerializer

    @extend_schema(responses=OutputSerializer)
    def get(self, request: Request) -> Response:
        query_params_check(request, ())
        request_workspace(request)
        return Response(self.OutputSerializer(rule_set_builtin_document()).data)
