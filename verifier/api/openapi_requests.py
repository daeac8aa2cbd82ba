"""The API's request bodies in its OpenAPI schema as the API reads them: the schema class
of every view (``REST_FRAMEWORK["DEFAULT_SCHEMA_CLASS"]``).

drf-spectacular describes a serializer's fields, not every rule the API holds them to, so a
body its schema calls valid was refused (what Schemathesis reported as "schema-valid
request rejected", and what a client generated from the schema would send). Three rules of
the request side are added here, each where the field that holds it is mapped:

* a text field that refuses an empty string (DRF's ``allow_blank=False``, the default) has
  ``minLength: 1``;
* a list that refuses to be empty (``allow_empty=False``) has ``minItems: 1``;
* an object the API reads strictly (a ``StrictSerializer`` body and every object nested in
  it: ``verifier.api.strict_input``; a field it does not know is a ``400 unknown_field``)
  has ``additionalProperties: false``. The doors that ignore fields they do not know
  (seeds 000 and 001: ``/retrieve``, ``/graph``, ``/worker/verify``) keep them open.

Responses are left as drf-spectacular maps them: no request component is also a response
one (``tests/verifier/api/test_openapi_requests.py`` holds that true), so nothing here
constrains what the API answers.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.openapi import AutoSchema
from rest_framework import serializers

from verifier.api.strict_input import StrictSerializer


def read_strictly(serializer: serializers.BaseSerializer[Any]) -> bool:
    """Whether ``serializer`` is a strict body or nested (at any depth) in one."""
    node: Any = serializer
    while node is not None:
        if isinstance(node, StrictSerializer):
            return True
        node = getattr(node, "parent", None)
    return False


class RequestRulesAutoSchema(AutoSchema):
    def _map_serializer_field(
        self, field: Any, direction: str, bypass_extensions: bool = False
    ) -> dict[str, Any]:
        # drf-spectacular's own mapping (its private methods are untyped)
        schema: dict[str, Any] = super()._map_serializer_field(  # type: ignore[no-untyped-call]
            field, direction, bypass_extensions
        )
        if direction != "request":
            return schema
        kind = schema.get("type")
        if kind == "string" and isinstance(field, serializers.CharField) and not field.allow_blank:
            schema.setdefault("minLength", 1)
        if (
            kind == "array"
            and isinstance(field, serializers.ListField | serializers.ListSerializer)
            and not field.allow_empty
        ):
            schema.setdefault("minItems", 1)
        return schema

    def _map_basic_serializer(
        self, serializer: serializers.BaseSerializer[Any], direction: str
    ) -> dict[str, Any]:
        schema: dict[str, Any] = super()._map_basic_serializer(  # type: ignore[no-untyped-call]
            serializer, direction
        )
        if direction == "request" and read_strictly(serializer):
            schema["additionalProperties"] = False
        return schema
