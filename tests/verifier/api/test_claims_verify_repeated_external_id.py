"""One external id sent twice in ONE claims/verify call: one claim is stored, and only
the first item says it stored it (``reused: false``); the second answers that claim's
result with ``reused: true``, as a second call would. Before, both items read
``reused: false``, so a client counting what its call stored counted two claims where
one was. Another text (or source, or quote) under the same id in the batch stays that
item's ``external_id_conflict``."""

from __future__ import annotations

import json

import pytest

from verifier.models import Claim, Verdict

pytestmark = pytest.mark.django_db

URL = "/connect/v1/claims/verify"
TEXT = "Dredging the main channel starves the outer marsh of mud."


def post(client, payload: dict):
    return client.post(URL, data=json.dumps(payload), content_type="application/json")


def test_the_same_external_id_twice_inline_stores_one_claim_and_the_second_reads_reused(api, delta):
    claim = {"text": TEXT, "source": delta.ref, "external_id": "twice-1"}
    response = post(api, {"claims": [claim, claim]})
    assert response.status_code == 200, response.content
    first, second = response.json()["results"]
    assert (first["status"], second["status"]) == ("verified", "verified")
    assert first["claim_id"] == second["claim_id"]
    assert (first["reused"], second["reused"]) == (False, True)
    assert second["verdict_id"] == first["verdict_id"] and second["state"] == first["state"]
    assert Claim.objects.filter(external_id="twice-1").count() == 1
    assert Verdict.objects.filter(claim__external_id="twice-1").count() == 1
    # the whole call sent again: both items are the stored claim's result
    again = post(api, {"claims": [claim, claim]}).json()["results"]
    assert [(r["claim_id"], r["reused"]) for r in again] == [(first["claim_id"], True)] * 2
    assert Claim.objects.filter(external_id="twice-1").count() == 1


def test_the_same_external_id_twice_in_a_job_stores_one_claim_and_verifies_it_once(
    api, delta, django_capture_on_commit_callbacks
):
    claim = {"text": TEXT, "source": delta.ref, "external_id": "twice-2"}
    with django_capture_on_commit_callbacks(execute=False):
        queued = post(api, {"claims": [claim, claim], "wait": 0})
    assert queued.status_code == 202, queued.content
    body = queued.json()
    assert body["job"]["total"] == 1  # one claim to verify, not two
    from verifier.pipeline.tasks import run_verification_job

    run_verification_job.apply(args=[body["job"]["id"]])
    polled = api.get(f"{URL}/jobs/{body['job']['id']}").json()
    first, second = polled["results"]
    assert (first["status"], second["status"]) == ("verified", "verified")
    assert first["claim_id"] == second["claim_id"]
    assert (first["reused"], second["reused"]) == (False, True)
    assert Claim.objects.filter(external_id="twice-2").count() == 1
    assert Verdict.objects.filter(claim__external_id="twice-2").count() == 1


def test_the_same_external_id_with_another_text_in_one_batch_is_the_second_items_error(api, delta):
    body = post(
        api,
        {
            "claims": [
                {"text": TEXT, "source": delta.ref, "external_id": "twice-3"},
                {
                    "text": "Salt marsh grasses trap silt.",
                    "source": delta.ref,
                    "external_id": "twice-3",
                },
            ]
        },
    ).json()
    first, second = body["results"]
    assert first["status"] == "verified" and first["reused"] is False
    assert second["status"] == "error"
    assert second["error"]["code"] == "external_id_conflict"
    assert Claim.objects.filter(external_id="twice-3").get().text == TEXT


def test_the_schema_says_reused_covers_an_earlier_item_of_the_same_call():
    from drf_spectacular.generators import SchemaGenerator

    schema = SchemaGenerator().get_schema(request=None, public=True)
    reused = schema["components"]["schemas"]["ClaimVerifyResult"]["properties"]["reused"]
    assert "earlier item of this one" in reused["description"]
