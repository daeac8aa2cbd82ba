"""Every trace says who made the call: the API key (its name and prefix, never the key)
or the signed-in member; a background job records the caller that submitted it. The
Traces list and a trace's page show it in words."""

from __future__ import annotations

import json

import pytest
from django.test import Client, TestCase

from tests.factories import make_user
from tests.verifier.api.conftest import judged_claim
from verifier.models import ApiKey, Trace, VerificationJob, generate_api_key, hash_api_key
from verifier.services.traces import DoorTrace, TraceSteps, trace_door_record

pytestmark = pytest.mark.django_db

SENTENCE = "Sediment settles where the current slows."


@pytest.fixture
def corpus(workspace, delta):
    judged_claim(delta, SENTENCE, quote=SENTENCE)
    return workspace


def _key_client(workspace, name: str) -> tuple[Client, ApiKey]:
    raw = generate_api_key()
    key = ApiKey.objects.create(
        workspace=workspace, name=name, prefix=raw[:8], key_hash=hash_api_key(raw), scope="admin"
    )
    return Client(headers={"Authorization": f"Bearer {raw}"}), key


def _post(client: Client, url: str, body: dict):
    with TestCase.captureOnCommitCallbacks(execute=True):
        return client.post(url, json.dumps(body), content_type="application/json")


def test_a_retrieve_records_the_api_key_that_called(corpus):
    client, key = _key_client(corpus, "support-bot")
    response = _post(client, "/connect/v1/retrieve", {"query": "sediment settles"})
    assert response.status_code == 200
    trace = Trace.objects.get(trace_id=response.json()["trace_id"])
    assert trace.document["caller"] == {
        "kind": "api_key",
        "name": "support-bot",
        "key_prefix": key.prefix,
    }


def test_a_door_records_the_api_key_and_the_next_call_outside_a_request_records_none(corpus, delta):
    client, key = _key_client(corpus, "rag-pipeline")
    body = {"claims": [{"text": SENTENCE, "source": delta.ref}]}
    assert _post(client, "/connect/v1/claims/verify", body).status_code == 200
    caller = Trace.objects.get().document["caller"]
    assert caller["name"] == "rag-pipeline" and caller["key_prefix"] == key.prefix

    # The request is over: a call from a task or a command records no caller, not the
    # key of the thread's last request.
    trace = DoorTrace(operation="claims_verify", query="from a command")
    trace_door_record(workspace=corpus, trace=trace, steps=TraceSteps())
    assert Trace.objects.get(trace_id=trace.trace_id).document["caller"] is None


def test_a_console_check_records_the_member(reviewer_client, delta):
    response = reviewer_client.post(
        "/verify/",
        {"claims": json.dumps({"text": "Salt marsh grasses trap silt.", "source": delta.ref})},
    )
    assert response.status_code == 302
    assert Trace.objects.get().document["caller"] == {"kind": "member", "name": "rita"}


def test_a_background_job_records_the_caller_that_submitted_it(corpus, delta):
    client, key = _key_client(corpus, "nightly-batch")
    body = {"claims": [{"text": SENTENCE, "source": delta.ref}], "wait": 0}
    with TestCase.captureOnCommitCallbacks(execute=False):
        response = client.post(
            "/connect/v1/claims/verify", json.dumps(body), content_type="application/json"
        )
    assert response.status_code == 202
    job = VerificationJob.objects.get(pk=response.json()["job"]["id"])
    expected = {"kind": "api_key", "name": "nightly-batch", "key_prefix": key.prefix}
    assert job.caller == expected

    # It runs in a worker, outside any request.
    from verifier.pipeline.tasks import run_verification_job

    run_verification_job.apply(args=[job.pk])
    assert Trace.objects.get(operation="claims_verify").document["caller"] == expected


def test_the_traces_pages_say_who_called(corpus, delta, workspace):
    client, key = _key_client(corpus, "support-bot")
    traced = _post(client, "/connect/v1/retrieve", {"query": "sediment settles"}).json()
    member = make_user("maya", workspace=workspace, role="reviewer")
    console = Client()
    console.force_login(member)
    console.post(
        "/verify/",
        {"claims": json.dumps({"text": "Salt marsh grasses trap silt.", "source": delta.ref})},
    )
    untraced = DoorTrace(operation="claims_verify", query="from a command")
    trace_door_record(workspace=corpus, trace=untraced, steps=TraceSteps())

    listing = console.get("/audit/traces/").content.decode()
    assert f'API key “support-bot” <code class="muted">{key.prefix}…</code>' in listing
    assert "member <strong>maya</strong>" in listing
    assert "not recorded" in listing

    page = console.get(f"/audit/traces/{traced['trace_id']}/").content.decode()
    called_by = page[page.index('id="trace-caller"') :]
    called_by = called_by[: called_by.index("</dd>")]
    assert "support-bot" in called_by and key.prefix in called_by
    assert key.key_hash not in page
