"""POST /worker/verify reads seed 001's optional fields as a client sends them: an
optional field sent as null (as clients serialize one they leave unset) or a blank
``domain`` takes its default, exactly as leaving it out does, instead of a 400."""

from __future__ import annotations

import pytest

from tests.verifier.api.conftest import client_for

VERIFY = "/worker/verify"
CLAIM = "The Zorblax moon is made of green cheese."


@pytest.mark.parametrize(
    "extra",
    [
        {"room_id": None, "source": None},
        {"domain": None},
        {"domain": ""},
        {"top_k": None},
        {"trust_policy_mode": None},
        {"room_id": None, "source": None, "domain": None, "top_k": None},
    ],
)
def test_an_optional_field_sent_as_null_takes_its_default(workspace, extra):
    api = client_for(workspace)
    resp = api.post(
        VERIFY, {"job_id": "j-null", "claim": CLAIM, **extra}, content_type="application/json"
    )
    assert resp.status_code == 200, resp.content
    body = resp.json()
    assert (body["room_id"], body["source"], body["domain"]) == ("", "", "general")
    assert body["trust_policy_mode"] == "adaptive"
    # an empty workspace: nothing found, nothing stored (top_k 5 did not matter)
    assert body["evidence"] == [] and body["stored_claim_id"] is None


@pytest.mark.parametrize(
    ("extra", "field"),
    [({"job_id": None}, "job_id"), ({"claim": None}, "claim"), ({"top_k": 0}, "top_k")],
)
def test_required_fields_and_bad_values_are_still_refused(workspace, extra, field):
    api = client_for(workspace)
    body = {"job_id": "j-null", "claim": CLAIM, **extra}
    resp = api.post(VERIFY, body, content_type="application/json")
    assert resp.status_code == 400, resp.content
    assert resp.json()["error"]["details"]["field"] == field
