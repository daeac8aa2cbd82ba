"""The OpenAPI schema's 403 says what a scope refusal carries: ``details.needed_scope``
and ``details.held_scope`` (``verifier.api.permissions.ScopePermission``), the codes
clients branch on, as docs/api.md says."""

from __future__ import annotations

import json

import pytest
from drf_spectacular.generators import SchemaGenerator


@pytest.mark.django_db
def test_every_operations_403_names_the_scope_details():
    raw = SchemaGenerator().get_schema(request=None, public=True)
    schema = json.loads(json.dumps(raw, default=str))
    operations = [
        (path, method, op)
        for path, item in schema["paths"].items()
        for method, op in item.items()
        if method in ("get", "post", "put", "patch", "delete")
    ]
    assert len(operations) > 20
    for path, method, op in operations:
        words = op["responses"]["403"]["description"]
        assert "permission_denied" in words, (method, path)
        assert "details.needed_scope" in words, (method, path)
        assert "details.held_scope" in words, (method, path)
