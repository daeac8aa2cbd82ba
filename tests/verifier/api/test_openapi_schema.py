"""The OpenAPI schema generates without warnings (a clashing component name silently
produces a wrong schema) and documents the claim verification operations."""

from __future__ import annotations

import pytest
from django.core.management import call_command


@pytest.mark.django_db
def test_schema_validates_without_warnings(tmp_path):
    out = tmp_path / "schema.yml"
    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(out))
    text = out.read_text()
    assert "/connect/v1/claims/verify:" in text
    assert "ClaimVerifyRequest" in text and "ClaimVerifyResult" in text
