"""The OpenAPI schema describes a request as the API reads it (``verifier.api.openapi_requests``,
the pagination's parameters): what the schema calls valid is not refused for a rule the
schema left out. Schemathesis, run against a live console with a key of each scope, found
each of these as "schema-valid request rejected" (or an undocumented status); every test
here checks the schema against what the API answers, so neither can drift alone."""

from __future__ import annotations

import json
from typing import Any

import pytest
from drf_spectacular.generators import SchemaGenerator

pytestmark = pytest.mark.django_db

# The doors the seeds define ignore body fields they do not know (docs/api.md).
LENIENT_DOORS = {"/connect/v1/retrieve", "/connect/v1/graph", "/worker/verify"}


@pytest.fixture(scope="module")
def schema(django_db_setup, django_db_blocker) -> dict[str, Any]:
    with django_db_blocker.unblock():
        raw = SchemaGenerator().get_schema(request=None, public=True)
    return json.loads(json.dumps(raw, default=str))


def _component(schema: dict[str, Any], ref: dict[str, Any]) -> dict[str, Any]:
    return schema["components"]["schemas"][ref["$ref"].rsplit("/", 1)[1]]


def _json_bodies(schema: dict[str, Any]):
    """(path, request component) of each POST without an id in its path."""
    for path, item in schema["paths"].items():
        body = item.get("post", {}).get("requestBody")
        if body is not None and "{" not in path:
            yield path, _component(schema, body["content"]["application/json"]["schema"])


def _refs(node: Any) -> set[str]:
    if isinstance(node, dict):
        found = {node["$ref"].rsplit("/", 1)[1]} if "$ref" in node else set()
        return found.union(*(_refs(v) for v in node.values()))
    if isinstance(node, list):
        return set().union(*(_refs(v) for v in node))
    return set()


def _closure(schema: dict[str, Any], names: set[str]) -> set[str]:
    seen: set[str] = set()
    todo = list(names)
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            todo.extend(_refs(schema["components"]["schemas"][name]))
    return seen


def test_the_list_pages_cursor_and_page_size_are_described_as_they_are_read(api, schema):
    lists = [
        path
        for path, item in schema["paths"].items()
        if any(p["name"] == "cursor" for p in item.get("get", {}).get("parameters", []))
    ]
    assert len(lists) >= 7
    for path in lists:
        params = {p["name"]: p["schema"] for p in schema["paths"][path]["get"]["parameters"]}
        assert params["cursor"].get("minLength") == 1, path
        assert params["page_size"].get("minimum") == 1, path
        empty = api.get(f"{path}?cursor=")
        assert (empty.status_code, empty.json()["error"]["code"]) == (400, "empty_field"), path
        for size in ("0", "-1"):
            refused = api.get(f"{path}?page_size={size}")
            assert refused.status_code == 400, (path, size)
            assert refused.json()["error"]["details"] == {"field": "page_size"}
        assert api.get(f"{path}?page_size=1").status_code == 200, path
        assert api.get(f"{path}?page_size=100000").status_code == 200, path


def test_a_body_read_strictly_is_closed_and_the_seed_doors_are_open(api, schema):
    bodies = dict(_json_bodies(schema))
    assert set(bodies) >= LENIENT_DOORS and len(bodies) >= 10
    for path, component in bodies.items():
        response = api.post(path, {"no_such_field": 1}, content_type="application/json")
        assert response.status_code == 400, (path, response.content[:300])
        error = response.json()["error"]
        if path in LENIENT_DOORS:
            assert component.get("additionalProperties") is None, path
            assert error["code"] != "unknown_field", path
        else:
            assert component.get("additionalProperties") is False, path
            assert (error["code"], error["details"]["field"]) == (
                "unknown_field",
                "no_such_field",
            ), path
    # the objects nested in a strict body are strict too (``claims[3].qoute``)
    claims = schema["components"]["schemas"]["VerifyClaimInput"]
    assert claims["additionalProperties"] is False
    nested = api.post(
        "/connect/v1/claims/verify",
        {"claims": [{"text": "x", "source": "source:a", "qoute": "x"}]},
        content_type="application/json",
    ).json()["error"]
    assert (nested["code"], nested["details"]["field"]) == ("unknown_field", "claims[0].qoute")
    # the seed doors' verification policy ignores what it does not know, as its door does
    assert "additionalProperties" not in schema["components"]["schemas"]["VerificationPolicy"]


def test_a_text_that_may_not_be_blank_and_a_list_that_may_not_be_empty_say_so(api, schema):
    checked = 0
    for path, component in _json_bodies(schema):
        for name, prop in component["properties"].items():
            if prop.get("type") == "string" and prop.get("minLength") == 1:
                value: Any = ""
            elif prop.get("type") == "array" and prop.get("minItems") == 1:
                value = []
            else:
                continue
            response = api.post(path, {name: value}, content_type="application/json")
            assert response.status_code == 400, (path, name)
            details = response.json()["error"]["details"]
            named = {details.get("field"), *details, *details.get("errors", {})}
            assert name in named, (path, name, details)
            checked += 1
    assert checked >= 12
    schemas = schema["components"]["schemas"]
    for component, name in [
        ("SourceUpsertRequest", "ref"),
        ("SourceUpsertRequest", "text"),
        ("RetrieveRequest", "query"),
        ("WorkerVerifyRequest", "job_id"),
        ("MemoryVerifyRequest", "agent"),
    ]:
        assert schemas[component]["properties"][name]["minLength"] == 1, (component, name)
    assert schemas["ClaimVerifyRequest"]["properties"]["claims"]["minItems"] == 1
    # a claim's empty text is that claim's own error row, not a refused request
    assert "minLength" not in schemas["VerifyClaimInput"]["properties"]["text"]


def test_a_policys_states_are_the_states_and_at_least_one(api, schema):
    include = schema["components"]["schemas"]["VerificationPolicy"]["properties"]["include"]
    assert include["minItems"] == 1
    states = _component(schema, include["items"])["enum"]
    assert states == ["supported", "inferred", "unverified", "contradicted", "excluded"]
    for policy, ok in [({"include": states}, True), ({"include": []}, False)]:
        response = api.post(
            "/connect/v1/retrieve",
            {"query": "sediment", "verification_policy": policy},
            content_type="application/json",
        )
        assert (response.status_code == 200) is ok, response.content[:300]
    bogus = api.post(
        "/connect/v1/retrieve",
        {"query": "sediment", "verification_policy": {"include": ["bogus"]}},
        content_type="application/json",
    )
    assert bogus.status_code == 400


def test_memory_verify_documents_the_404_of_a_transcript_id_it_does_not_have(api, schema):
    responses = schema["paths"]["/connect/v1/memory/verify"]["post"]["responses"]
    assert responses["404"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/Error"
    }
    response = api.post(
        "/connect/v1/memory/verify",
        {"agent": "assistant", "message": "As I said, the pier is 40 m.", "transcript_id": 99999},
        content_type="application/json",
    )
    assert response.status_code == 404, response.content[:300]
    assert response.json()["error"]["code"] == "not_found"


def test_no_request_component_is_also_a_response_one(schema):
    """The request rules above are added on the request side only: they would be wrong
    on an answer (a title may be served empty), so no component may be both."""
    requests: set[str] = set()
    responses: set[str] = set()
    for item in schema["paths"].values():
        for operation in item.values():
            if isinstance(operation, dict):
                requests |= _closure(schema, _refs(operation.get("requestBody", {})))
                responses |= _closure(schema, _refs(operation.get("responses", {})))
    shared = {
        name for name in requests & responses if "enum" not in schema["components"]["schemas"][name]
    }
    assert shared == set()
