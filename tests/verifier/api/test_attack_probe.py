"""Refusals the API attack probe found missing: each bad value is a 4xx JSON error
naming its field, and nothing is read as another value than the one sent."""

from __future__ import annotations

import base64

import pytest

from tests.verifier.api.conftest import judged_claim
from verifier.models import AuditPackJob

NON_ASCII_ONE = ["１", "١", "¹"]  # full-width, Arabic-Indic, superscript


@pytest.mark.parametrize("one", NON_ASCII_ONE)
def test_a_whole_number_in_the_query_is_ascii_digits(api, delta, one):
    judged_claim(delta, "Sediment settles.", quote="Sediment settles", embed=False)
    for url, field in [
        (f"/connect/v1/sources/{delta.ref}?version={one}", "version"),
        (f"/connect/v1/claims?job={one}", "job"),
    ]:
        r = api.get(url)
        assert r.status_code == 400, (url, r.content)
        assert r.json()["error"]["code"] == "invalid_request"
        assert r.json()["error"]["details"] == {"field": field}
    r = api.get(f"/connect/v1/audit-pack?scope=claims&job={one}")
    assert r.status_code == 400, r.content
    assert r.json()["error"]["code"] == "invalid_scope"
    assert r.json()["error"]["details"]["field"] == "job"
    # ASCII digits still read
    assert api.get(f"/connect/v1/sources/{delta.ref}?version=1").status_code == 200
    assert api.get("/connect/v1/claims?job=1").status_code == 200


def test_a_scope_refused_for_its_job_stores_no_job(api, delta):
    r = api.post(
        "/connect/v1/audit-pack/jobs",
        {"scope": "claims", "job": "١"},
        content_type="application/json",
    )
    assert r.status_code == 400 and r.json()["error"]["details"]["field"] == "job"
    assert not AuditPackJob.objects.exists()


def test_a_cursor_past_any_id_is_refused_on_every_list(api):
    cursor = base64.b64encode(b"p=99999999999999999999999999").decode()
    for url in ["/connect/v1/sources", "/connect/v1/activity", "/connect/v1/ingest-jobs"]:
        r = api.get(url, {"cursor": cursor})
        assert r.status_code == 400, (url, r.content)
        assert r.json()["error"] == {
            "code": "invalid_cursor",
            "message": (
                "The cursor is not one this API gave out; use a `next` or `previous` link as "
                "it came, or start again without `cursor`."
            ),
            "details": {"field": "cursor"},
        }


def test_a_value_a_field_refuses_names_the_field_in_details(api, delta):
    """A value of the right type that a field refuses (too long, out of range) names its
    path in ``details.field``, as ``unknown_field`` names ``claims[0].qoute``, and
    stores nothing."""
    from verifier.models import Claim

    long_id = {"text": "Sediment settles.", "source": delta.ref, "external_id": "x" * 201}
    r = api.post(
        "/connect/v1/claims/verify",
        {"claims": [{"text": "Sediment settles.", "source": delta.ref}, long_id]},
        content_type="application/json",
    )
    assert r.status_code == 400, r.content
    error = r.json()["error"]
    assert error["code"] == "invalid_request"
    assert error["details"]["field"] == "claims[1].external_id"
    assert error["message"].startswith("The request is invalid: claims[1].external_id: ")
    assert not Claim.objects.exists()

    r = api.post(
        "/connect/v1/retrieve", {"query": "x", "max_claims": 0}, content_type="application/json"
    )
    assert r.status_code == 400
    assert r.json()["error"]["details"]["field"] == "max_claims"
    assert r.json()["error"]["details"]["max_claims"]  # DRF's own messages stay


def test_an_integer_too_long_to_read_is_a_400_in_the_clients_terms(api):
    body = '{"query": "x", "max_claims": ' + "9" * 5000 + "}"
    r = api.post("/connect/v1/retrieve", body, content_type="application/json")
    assert r.status_code == 400
    error = r.json()["error"]
    assert error["code"] == "malformed_request"
    assert error["message"] == "JSON parse error - a number has more than 4300 digits."
