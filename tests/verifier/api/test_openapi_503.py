"""Every operation of the OpenAPI schema lists the 503 the API answers when the database
is unreachable (``unavailable``, ``verifier.outage``) or cancels a query at its statement
timeout (``statement_timeout``, ``config.statement_timeout``), with the ``Error`` body;
an operation's own 503 (the audit pack's ``signing_key_unavailable``) keeps its words and
gains these."""

from __future__ import annotations

import json
from typing import Any

import pytest
from drf_spectacular.generators import SchemaGenerator

ERROR_REF = {"$ref": "#/components/schemas/Error"}


def _operations() -> list[tuple[str, str, dict[str, Any]]]:
    raw = SchemaGenerator().get_schema(request=None, public=True)
    schema = json.loads(json.dumps(raw, default=str))
    return [
        (path, method, operation)
        for path, item in schema["paths"].items()
        for method, operation in item.items()
        if method in ("get", "post", "put", "patch", "delete")
    ]


@pytest.mark.django_db
def test_every_operation_lists_the_database_503_with_the_error_body():
    operations = _operations()
    assert len(operations) > 20
    for path, method, operation in operations:
        answer = operation["responses"].get("503")
        assert answer is not None, (method, path)
        assert answer["content"]["application/json"]["schema"] == ERROR_REF, (method, path)
        words = answer["description"]
        assert "unavailable" in words and "statement_timeout" in words, (method, path)
        assert "Retry-After" in words, (method, path)


@pytest.mark.django_db
def test_an_operations_own_503_keeps_its_words():
    own = {
        (path, method): op["responses"]["503"]["description"]
        for path, method, op in _operations()
        if "signing_key_unavailable" in op["responses"]["503"]["description"]
    }
    assert own, "the audit pack's own 503 is in the schema"
    for words in own.values():
        assert words.startswith("signing_key_unavailable")
        assert "statement_timeout" in words
