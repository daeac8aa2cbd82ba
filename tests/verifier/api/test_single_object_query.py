"""A single-object GET reads no query parameter: one it does not read is refused
(``unknown_field``), as the list endpoints do, not ignored — ``GET /sources/{ref}?revision=1``
answered the current text, and a hash check ran on the wrong version. (A source reads
``version``: tests/verifier/api/test_rules_sources_claims.py.)"""

from __future__ import annotations

import pytest

from tests.verifier.api.conftest import judged_claim

pytestmark = pytest.mark.django_db


@pytest.fixture
def paths(api, delta):
    claim = judged_claim(delta, "Sediment settles where the current slows.")
    trace_id = api.post(
        "/connect/v1/retrieve", {"query": "sediment"}, content_type="application/json"
    ).json()["trace_id"]
    return [
        f"/connect/v1/claims/{claim.public_id}",
        f"/connect/v1/sources/{delta.ref}",
        f"/connect/v1/traces/{trace_id}",
        "/connect/v1/workspace",
        "/connect/v1/verification-rules",
        "/connect/v1/audit-pack/public-key",
    ]


def test_an_unknown_query_parameter_is_refused(api, paths):
    for path in paths:
        assert api.get(path).status_code == 200, path
        response = api.get(f"{path}?revision=1")
        assert response.status_code == 400, path
        error = response.json()["error"]
        assert (error["code"], error["details"]["field"]) == ("unknown_field", "revision"), path


def test_a_trace_export_still_reads_its_format(api, paths):
    trace = paths[2]
    assert api.get(f"{trace}/export?format=json").status_code == 200
    assert api.get(f"{trace}/export?format=json&x=1").status_code == 400
