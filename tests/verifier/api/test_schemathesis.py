"""Schemathesis against the generated OpenAPI schema: no input may produce a 500."""

from __future__ import annotations

import json
from urllib.parse import urlencode

import pytest
import schemathesis
from drf_spectacular.generators import SchemaGenerator
from hypothesis import HealthCheck, given, settings

from tests.verifier.api.conftest import judged_claim

EXAMPLES_PER_OPERATION = 20


def _schema() -> dict:
    raw = SchemaGenerator().get_schema(request=None, public=True)
    return json.loads(json.dumps(raw, default=str))


@pytest.mark.django_db(transaction=False)
def test_no_500_for_generated_input(api, delta):
    judged_claim(delta, "Sediment settles where the current slows.", quote="Sediment settles")
    schema = schemathesis.openapi.from_dict(_schema())
    operations = [r.ok() for r in schema.get_all_operations()]
    assert len(operations) >= 10
    failures: list[str] = []

    for operation in operations:
        if operation.path in ("/connect/v1/schema", "/connect/v1/docs"):
            continue

        @settings(
            max_examples=EXAMPLES_PER_OPERATION,
            deadline=None,
            database=None,
            suppress_health_check=list(HealthCheck),
        )
        @given(case=operation.as_strategy())
        def check(case):
            kwargs = case.as_transport_kwargs(base_url="http://testserver")
            path = kwargs["url"].removeprefix("http://testserver")
            body = kwargs.get("json")
            query = urlencode(kwargs.get("params") or {}, doseq=True)
            resp = api.generic(
                kwargs["method"],
                f"{path}?{query}" if query else path,
                data=json.dumps(body) if body is not None else "",
                content_type="application/json",
            )
            if resp.status_code >= 500:
                failures.append(f"{kwargs['method']} {path} {body!r} -> {resp.status_code}")

        check()
    assert failures == []
