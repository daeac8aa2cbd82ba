"""POST /connect/v1/claims/verify through the real API, database, binding and judge."""

from __future__ import annotations

import json

import pytest

from tests.verifier.api.conftest import DELTA_TEXT
from verifier.models import (
    Claim,
    ClaimOrigin,
    EvidenceBinding,
    IngestJob,
    IngestStatus,
    Source,
    StateEvent,
    Verdict,
    VerificationJob,
    Webhook,
    WebhookDelivery,
)
from verifier.states import reason_description

pytestmark = pytest.mark.django_db

URL = "/connect/v1/claims/verify"

ORCHARD_TEXT = (
    "The Hollin orchard was planted in 1911 by the Vey family. It holds 340 apple trees "
    "of eleven varieties. Frost in April 1956 killed a third of the blossom. The orchard "
    "was sold to the county in 1987."
)


def post(client, payload: dict):
    return client.post(URL, data=json.dumps(payload), content_type="application/json")


def test_inline_batch_binds_judges_and_stores_each_claim(api, delta):
    quote = "Sediment settles where the current slows."
    response = post(
        api,
        {
            "claims": [
                {
                    "text": "Sediment settles where the current slows.",
                    "source": delta.ref,
                    "quote": quote,
                    "external_id": "app-1",
                    "metadata": {"answer": 7},
                },
                {"text": "Salt marsh grasses trap silt at high tide.", "source": delta.ref},
            ]
        },
    )
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["job"] is None
    assert body["summary"]["verified"] == 2 and body["summary"]["errors"] == 0
    first, second = body["results"]
    assert first["state"] == "supported" and first["reason"] == "entailed"
    assert first["reason_text"] == "The cited span entails the claim."
    start = DELTA_TEXT.index(quote)
    assert first["span"]["start"] == start and first["span"]["end"] == start + len(quote)
    assert first["span"]["quote"] == quote
    version = delta.versions.get()
    assert first["span"]["source_hash"] == version.sha256
    assert first["span"]["permalink"].endswith(
        f"/v/{version.sha256}?span={start}-{start + len(quote)}#seg-{start}"
    )
    assert first["permalink"] == f"/audit/claims/{first['claim_id']}/"
    assert first["external_id"] == "app-1" and first["metadata"] == {"answer": 7}
    verdict = Verdict.objects.get(pk=first["verdict_id"])
    assert verdict.claim.public_id == first["claim_id"]
    assert first["confidence"] == pytest.approx(verdict.confidence, abs=1e-4)
    # Without a quote, evidence search found the span in the cited source.
    assert second["span"]["bound_by"] == "evidence_search"
    assert "Salt marsh grasses trap silt" in second["span"]["quote"]
    claims = Claim.objects.filter(public_id__in=[first["claim_id"], second["claim_id"]])
    assert {c.origin for c in claims} == {ClaimOrigin.API}
    assert all(c.quality for c in claims)
    # States went through the one state writer: state events were appended.
    assert StateEvent.objects.filter(claim__in=claims).count() >= 2


def test_same_external_id_and_text_returns_the_stored_result(api, delta):
    claim = {
        "text": "Dredging the main channel starves the outer marsh of mud.",
        "source": delta.ref,
        "external_id": "ext-9",
    }
    first = post(api, {"claims": [claim]}).json()["results"][0]
    again = post(api, {"claims": [claim]}).json()["results"][0]
    assert again["claim_id"] == first["claim_id"] and again["reused"] is True
    assert again["verdict_id"] == first["verdict_id"] and again["state"] == first["state"]
    assert Claim.objects.filter(external_id="ext-9").count() == 1
    assert Verdict.objects.filter(claim__external_id="ext-9").count() == 1


def test_external_id_reused_for_another_text_is_that_claims_error(api, delta):
    post(
        api,
        {
            "claims": [
                {
                    "text": "Sediment settles where the current slows.",
                    "source": delta.ref,
                    "external_id": "x",
                }
            ]
        },
    )
    body = post(
        api,
        {"claims": [{"text": "Something else entirely.", "source": delta.ref, "external_id": "x"}]},
    ).json()
    assert body["results"][0]["status"] == "error"
    assert body["results"][0]["error"]["code"] == "external_id_conflict"
    assert Claim.objects.filter(external_id="x").get().text.startswith("Sediment")


def test_quote_from_another_source_is_a_misattribution(api, workspace, delta):
    orchard = post(
        api,
        {
            "sources": [{"ref": "source:orchard", "title": "Hollin orchard", "text": ORCHARD_TEXT}],
            "claims": [
                {
                    "text": "The orchard was planted in 1911.",
                    "source": delta.ref,  # cites the delta survey ...
                    "quote": "The Hollin orchard was planted in 1911 by the Vey family.",
                }  # ... but the quote is in the orchard source
            ],
        },
    ).json()
    row = orchard["results"][0]
    assert row["status"] == "verified"
    assert row["state"] != "supported"
    assert row["span"] is None
    assert row["misattributed_to"] == ["source:orchard"]
    assert row["reason_text"] == (
        f"{reason_description('no_evidence')} The quote is in source:orchard: the claim "
        "cites the wrong source."
    )
    claim = Claim.objects.get(public_id=row["claim_id"])
    assert not EvidenceBinding.objects.filter(claim=claim, is_active=True).exists()


def test_mixed_valid_and_invalid_claims_do_not_fail_the_batch(api, delta):
    body = post(
        api,
        {
            "claims": [
                {"text": "Storm surges can strip a season of growth.", "source": delta.ref},
                {"text": "Anything.", "source": "source:nowhere"},
                {"text": "   ", "source": delta.ref},
                {"text": "x" * 2001, "source": delta.ref},
                {"text": "Sediment settles where the current slows.", "source": delta.ref},
            ]
        },
    ).json()
    statuses = [r["status"] for r in body["results"]]
    assert statuses == ["verified", "error", "error", "error", "verified"]
    codes = [r["error"]["code"] for r in body["results"] if r["status"] == "error"]
    assert codes == ["unknown_source", "empty_text", "text_too_long"]
    assert body["summary"] == {
        "claims": 5,
        "verified": 2,
        "pending": 0,
        "errors": 3,
        "states": body["summary"]["states"],
    }
    assert Claim.objects.filter(origin=ClaimOrigin.API).count() == 2


@pytest.mark.parametrize(
    "payload, code",
    [
        ({}, "invalid_request"),
        ({"claims": []}, "invalid_request"),
        ({"claims": "text"}, "invalid_request"),
        ({"claims": [{"source": "s"}]}, "invalid_request"),
        ({"claims": [{"text": "t", "source": "s"}], "wait": -1}, "invalid_request"),
        ({"claims": [{"text": "t", "source": "s"}] * 1001}, "invalid_request"),
    ],
)
def test_malformed_request_is_400_with_json_error_and_stores_nothing(api, delta, payload, code):
    response = post(api, payload)
    assert response.status_code == 400
    assert response.json()["error"]["code"] == code
    assert not Claim.objects.exists()


def test_unknown_policy_is_400_naming_the_choices(api, delta):
    response = post(
        api,
        {"claims": [{"text": "Sediment settles.", "source": delta.ref}], "policy": "sloppy"},
    )
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "unknown_policy" and "strict" in error["details"]["policies"]
    assert not Claim.objects.exists()


def test_not_json_is_400(api):
    response = api.post(URL, data="{not json", content_type="application/json")
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "malformed_request"


def test_wait_zero_gives_a_job_whose_results_are_readable(
    api, workspace, delta, django_capture_on_commit_callbacks
):
    Webhook.objects.create(
        workspace=workspace,
        url="http://127.0.0.1:9/hook",
        secret="s" * 16,
        events=["verification.completed"],
        is_active=False,  # counted below only when active
    )
    hook = Webhook.objects.create(
        workspace=workspace,
        url="http://127.0.0.1:9/hook",
        secret="s" * 16,
        events=["verification.completed"],
    )
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        response = post(
            api,
            {
                "claims": [
                    {"text": "Sediment settles where the current slows.", "source": delta.ref},
                    {"text": "", "source": delta.ref},
                ],
                "wait": 0,
            },
        )
    assert response.status_code == 202
    body = response.json()
    job_id = body["job"]["id"]
    assert body["job"]["status"] == "queued" and body["job"]["total"] == 1
    assert [r["status"] for r in body["results"]] == ["pending", "error"]
    polled = api.get(f"{URL}/jobs/{job_id}").json()
    assert polled["job"]["done"] == 0
    # The job runs after commit (Celery, eager in tests); the webhook send is queued.
    from verifier.pipeline.tasks import run_verification_job

    assert len(callbacks) == 1
    run_verification_job.apply(args=[job_id])
    polled = api.get(f"{URL}/jobs/{job_id}").json()
    assert polled["job"]["status"] == "succeeded" and polled["job"]["done"] == 1
    assert polled["results"][0]["status"] == "verified"
    assert polled["results"][0]["state"] == "supported"
    delivery = WebhookDelivery.objects.get()
    assert delivery.webhook == hook and delivery.event == "verification.completed"
    assert delivery.payload["verification_job"]["states"] == {"supported": 1}


def test_job_is_invisible_from_another_workspace(api, other_api, delta):
    job = post(api, {"claims": [{"text": "Sediment settles.", "source": delta.ref}], "wait": 0})
    job_id = job.json()["job"]["id"]
    assert other_api.get(f"{URL}/jobs/{job_id}").status_code == 404
    assert VerificationJob.objects.filter(pk=job_id).exists()


def test_a_source_in_another_workspace_is_unknown(api, other_api, delta):
    body = post(other_api, {"claims": [{"text": "Sediment settles.", "source": delta.ref}]})
    assert body.json()["results"][0]["error"]["code"] == "unknown_source"


def test_thousand_claim_batch_becomes_a_job_that_verifies_every_claim(
    api, delta, django_capture_on_commit_callbacks
):
    sentences = [s.strip() + "." for s in DELTA_TEXT.split(".") if s.strip()]
    claims = [
        {
            "text": f"{sentences[i % len(sentences)]}",
            "source": delta.ref,
            "external_id": f"bulk-{i}",
        }
        for i in range(1000)
    ]
    with django_capture_on_commit_callbacks(execute=True):
        response = post(api, {"claims": claims})
    assert response.status_code == 202
    job = VerificationJob.objects.get(pk=response.json()["job"]["id"])
    assert job.status == "succeeded" and job.total == 1000 and job.done == 1000
    assert Claim.objects.filter(origin=ClaimOrigin.API).count() == 1000
    assert Verdict.objects.filter(claim__origin=ClaimOrigin.API).count() == 1000
    body = api.get(f"/connect/v1/claims/verify/jobs/{job.pk}").json()
    assert body["summary"]["verified"] == 1000
    assert body["summary"]["states"] == {"supported": 1000}


def _sentences(text: str) -> list[str]:
    return [s.strip() + "." for s in text.split(".") if s.strip()]


def test_inline_call_queries_do_not_grow_with_the_claims(api, delta):
    """Sources, versions, rule sets, bindings, verdicts and states are read and written
    once per batch: a 10-claim inline call runs the same queries as a 1-claim call."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    sentences = _sentences(DELTA_TEXT)
    counts = {}
    for n in (1, 10):
        claims = [{"text": sentences[i % len(sentences)], "source": delta.ref} for i in range(n)]
        with CaptureQueriesContext(connection) as queries:
            response = post(api, {"claims": claims})
        assert response.status_code == 200 and response.json()["summary"]["verified"] == n
        counts[n] = len(queries.captured_queries)
    assert counts[10] == counts[1], counts


def test_a_job_with_no_acceptable_claim_is_refused_and_stores_nothing(api, workspace):
    """Issue 39, point 4: such a job "succeeded, 0 of 0 claims verified"."""
    body = {
        "sources": [{"ref": "source:fresh", "text": "A fresh source text."}],
        "claims": [
            {"text": "Anything.", "source": "source:nowhere"},
            {"text": "   ", "source": "source:fresh"},
        ],
        "wait": 0,
    }
    response = post(api, body)
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "no_claim_accepted"
    # numbered as ``index`` is (0-based), each problem's own full stop not doubled
    assert error["message"] == (
        "No claim could be verified — claims[0]: No source with the ref 'source:nowhere' "
        "in this workspace; claims[1]: The claim text is empty."
    )
    assert [e["code"] for e in error["details"]["errors"]] == ["unknown_source", "empty_text"]
    assert [e["index"] for e in error["details"]["errors"]] == [0, 1]
    # the first field in the wrong, as every 400 names it
    assert error["details"]["field"] == "claims[0].source"
    assert not VerificationJob.objects.exists() and not Claim.objects.exists()
    assert not Source.objects.filter(workspace=workspace, ref="source:fresh").exists()


def test_the_result_serializer_declares_exactly_the_keys_of_the_results(api, delta):
    """One shape: ``ResultSerializer`` declares each key of ``verification_results``'
    rows (``claim_result``'s among them), verified, pending and error rows together, so
    none is dropped from the answer."""
    from verifier.api.claim_verification import (
        ClaimErrorSerializer,
        ResultSerializer,
        VerifiedSpanSerializer,
    )
    from verifier.pipeline.tasks import run_verification_job
    from verifier.selectors.claim_verification import verification_results

    claims = [
        {"text": "Sediment settles where the current slows.", "source": delta.ref},
        {"text": "", "source": delta.ref},
    ]
    body = post(api, {"claims": claims, "wait": 0}).json()
    job = VerificationJob.objects.get(pk=body["job"]["id"])
    pending = verification_results(workspace=delta.workspace, items=job.items)
    run_verification_job.apply(args=[job.pk])
    job.refresh_from_db()
    done = verification_results(workspace=delta.workspace, items=job.items)
    rows = {row["status"]: row for row in [*pending, *done]}
    assert set(rows) == {"pending", "verified", "error"}
    declared = set(ResultSerializer().fields)
    assert set().union(*rows.values()) == declared
    verified = rows["verified"]
    assert set(verified) == declared - {"error"}
    assert set(verified["span"]) == set(VerifiedSpanSerializer().fields)
    assert set(rows["error"]["error"]) == set(ClaimErrorSerializer().fields)
    data = json.loads(json.dumps(ResultSerializer(verified).data))
    assert {key: data[key] for key in verified} == json.loads(json.dumps(verified))


@pytest.mark.parametrize(
    ("label", "shown"), [("abstained", None), ("coverage_gap", None), ("entailed", 0.61)]
)
def test_a_row_shows_a_verdicts_confidence_by_the_envelopes_rule(api, delta, label, shown):
    """One rule for one stored verdict (``vocabulary.verdict_confidence``): an abstention
    has no confidence in the claims/verify row, as in the claim's envelope, and the row
    names the verdict its confidence belongs to."""
    from tests.verifier.api.conftest import judged_claim

    text = "Sediment settles where the current slows."
    claim = judged_claim(delta, text, quote=text, label=label, confidence=0.61, external_id="app-7")
    body = post(api, {"claims": [{"text": text, "source": delta.ref, "external_id": "app-7"}]})
    (row,) = body.json()["results"]
    assert row["reused"] is True
    assert (row["verdict"], row["confidence"]) == (label, shown)
    judge = api.get(f"/connect/v1/claims/{claim.public_id}").json()["judge"]
    assert (judge["verdict"], judge["confidence"]) == (row["verdict"], row["confidence"])


def test_pending_and_error_rows_echo_the_requests_external_id(api, delta):
    claims = [
        {"text": "Sediment settles where the current slows.", "source": delta.ref},
        {"text": "Salt marsh grasses trap silt.", "source": delta.ref, "external_id": "bulk-1"},
        {"text": "", "source": delta.ref, "external_id": "bulk-err"},
        {"text": "Anything.", "source": "source:nowhere", "external_id": "bulk-nosrc"},
    ]
    response = post(api, {"claims": claims, "wait": 0})
    assert response.status_code == 202, response.content[:300]
    rows = response.json()["results"]
    assert [(r["status"], r["external_id"]) for r in rows] == [
        ("pending", None),
        ("pending", "bulk-1"),
        ("error", "bulk-err"),
        ("error", "bulk-nosrc"),
    ]
    inline = post(api, {"claims": [{"text": "", "source": delta.ref, "external_id": "e-1"}]})
    assert [(r["status"], r["external_id"]) for r in inline.json()["results"]] == [("error", "e-1")]


def test_a_retry_while_the_first_job_is_still_running_is_pending_then_verified(
    api, delta, django_capture_on_commit_callbacks
):
    """A retry of claims whose first job has not judged them yet: their stored state is
    no result ("unverified / not judged"), so the retry reads pending, its job does not
    "succeed" before it has verified them, and an inline retry verifies them itself."""
    from verifier.pipeline.tasks import run_verification_job

    claims = [
        {
            "text": "Sediment settles where the current slows.",
            "source": delta.ref,
            "external_id": "q-1",
        },
        {
            "text": "Salt marsh grasses trap silt at high tide.",
            "source": delta.ref,
            "external_id": "q-2",
        },
    ]
    with django_capture_on_commit_callbacks(execute=False):
        first = post(api, {"claims": claims, "wait": 0}).json()
    with django_capture_on_commit_callbacks(execute=False):
        retry = post(api, {"claims": claims, "wait": 0})
    assert retry.status_code == 202
    body = retry.json()
    assert body["job"]["status"] == "queued" and body["job"]["total"] == 2
    assert [r["status"] for r in body["results"]] == ["pending", "pending"]
    assert [r["claim_id"] for r in body["results"]] == [r["claim_id"] for r in first["results"]]
    assert body["summary"]["pending"] == 2

    inline = post(api, {"claims": claims[:1]}).json()  # an inline retry verifies it
    assert inline["job"] is None
    row = inline["results"][0]
    assert (row["status"], row["reused"], row["state"]) == ("verified", True, "supported")

    run_verification_job.apply(args=[body["job"]["id"]])
    polled = api.get(f"{URL}/jobs/{body['job']['id']}").json()
    assert polled["job"]["status"] == "succeeded" and polled["job"]["done"] == 2
    assert [(r["status"], r["state"]) for r in polled["results"]] == [
        ("verified", "supported"),
        ("verified", "supported"),
    ]
    run_verification_job.apply(args=[first["job"]["id"]])  # nothing left to judge
    claim = Claim.objects.get(external_id="q-1")
    assert Verdict.objects.filter(claim=claim).count() == 1


def test_more_inline_sources_than_a_batch_takes_are_refused_and_nothing_is_stored(api, workspace):
    """claims/verify stored any number of inline sources: 20,000 in one call held a web
    thread for a minute (attack probe). At most MAX_CLAIMS_PER_BATCH, as an ingest job."""
    from verifier.models import Source
    from verifier.services.claim_verification import MAX_CLAIMS_PER_BATCH

    before = Source.objects.filter(workspace=workspace).count()
    sources = [
        {"ref": f"source:bulk-{i}", "text": f"Fact {i}."} for i in range(MAX_CLAIMS_PER_BATCH + 1)
    ]
    body = {"sources": sources, "claims": [{"text": "Fact 0.", "source": "source:bulk-0"}]}
    response = api.post("/connect/v1/claims/verify", body, content_type="application/json")
    assert response.status_code == 400
    assert "sources" in response.json()["error"]["details"]
    assert Source.objects.filter(workspace=workspace).count() == before


# --- issue walk: misattribution, one reason text, re-sent stale claims, traces ---------

SOURCES = "/connect/v1/sources"


def put_source(client, ref: str, text: str) -> None:
    response = client.post(
        SOURCES, data=json.dumps({"ref": ref, "text": text}), content_type="application/json"
    )
    assert response.status_code in (200, 201), response.content


def test_a_quote_another_source_no_longer_has_is_no_misattribution(api):
    """A source's earlier version held the quote; its current one does not: the claim
    does not cite "the wrong source" (only current versions are looked in)."""
    put_source(api, "source:mA", "The canal froze in 1963.")
    put_source(api, "source:mA", "The canal never froze.")
    put_source(api, "source:mB", "Canal notes.")
    quote = "The canal froze in 1963."
    body = post(api, {"claims": [{"text": quote, "source": "source:mB", "quote": quote}]})
    (row,) = body.json()["results"]
    assert row["misattributed_to"] == []
    assert row["reason_text"] == reason_description("no_evidence")


def test_a_quote_only_in_an_earlier_version_of_the_cited_source_says_so(api):
    put_source(api, "source:canal", "The canal froze in 1963.")
    put_source(api, "source:canal", "The canal never froze.")
    put_source(api, "source:other", "Elsewhere: The canal froze in 1963.")
    quote = "The canal froze in 1963."
    body = post(api, {"claims": [{"text": quote, "source": "source:canal", "quote": quote}]})
    (row,) = body.json()["results"]
    assert (row["state"], row["reason"], row["span"]) == ("unverified", "no_evidence", None)
    assert row["misattributed_to"] == ["source:other"]
    assert row["reason_text"] == (
        f"{reason_description('no_evidence')} The quote is in version 1 of source:canal, "
        "which has changed since. It is also in source:other: the claim cites the wrong source."
    )


def test_a_quote_not_bound_shows_no_judge_and_reads_the_same_everywhere(api, delta):
    """The judge was not asked (nothing bound): no verdict is shown as its answer, and
    the verify row, the claim's envelope and the claim list give one reason text — one
    that holds when the source states the claim in other words than the quote."""
    text = "Sediment settles where the current slows."  # verbatim in the source
    body = post(api, {"claims": [{"text": text, "source": delta.ref, "quote": "Mud sinks."}]})
    (row,) = body.json()["results"]
    assert (row["state"], row["reason"], row["span"]) == ("unverified", "no_evidence", None)
    assert (row["verdict"], row["confidence"], row["verdict_id"], row["judge_model"]) == (
        None,
        None,
        None,
        None,
    )
    assert row["reason_text"] == reason_description("no_evidence")
    assert "quote" in row["reason_text"]
    assert "states the claim" not in row["reason_text"]
    envelope = api.get(f"/connect/v1/claims/{row['claim_id']}").json()
    assert "judge" not in envelope
    assert (envelope["reason"], envelope["reason_text"]) == (row["reason"], row["reason_text"])
    (listed,) = api.get("/connect/v1/claims").json()["results"]
    assert listed["reason_text"] == row["reason_text"] and "judge" not in listed
    # the local abstention stays on record; it is just not shown as the judge's answer
    (kept,) = Verdict.objects.filter(claim__public_id=row["claim_id"])
    assert (kept.label, kept.note) == ("abstained", "no_bound_evidence")


def test_an_inline_call_names_its_trace_and_a_job_names_its_once_it_ended(
    api, delta, django_capture_on_commit_callbacks
):
    from verifier.pipeline.tasks import run_verification_job

    claim = {"text": "Sediment settles where the current slows.", "source": delta.ref}
    inline = post(api, {"claims": [claim]}).json()
    trace = api.get(f"/connect/v1/traces/{inline['trace_id']}")
    assert trace.status_code == 200, trace.content[:300]
    assert trace.json()["operation"] == "claims_verify"

    with django_capture_on_commit_callbacks(execute=False):
        queued = post(api, {"claims": [claim], "wait": 0}).json()
    assert queued["trace_id"] is None
    job_url = f"{URL}/jobs/{queued['job']['id']}"
    assert api.get(job_url).json()["trace_id"] is None  # not run yet
    run_verification_job.apply(args=[queued["job"]["id"]])
    ended = api.get(job_url).json()
    assert ended["job"]["status"] == "succeeded" and ended["trace_id"]
    trace = api.get(f"/connect/v1/traces/{ended['trace_id']}").json()
    assert trace["operation"] == "claims_verify"
    assert trace["document"]["request"]["job"] == queued["job"]["id"]
    # its count agrees with its noun (it read "1 claim(s)")
    assert trace["query"] == f"verification job #{queued['job']['id']}: 1 claim"


PIER_V1 = "The pier is 300 metres long. It opened in 1901 after two years of work."
PIER_V2 = "The pier is 300 metres long. It was painted green in 2001."


def test_a_new_version_sent_inline_keeps_the_claims_whose_quote_it_still_has(api):
    """claims/verify's inline sources write documents as ingest does: a new version
    binds the source's earlier claims again where their words still are (judged and
    scored again), so re-sending a claim answers a current result, not a stale one."""
    quote = "The pier is 300 metres long."
    claim = {"text": quote, "source": "source:pier", "quote": quote, "external_id": "pier-1"}
    first = post(api, {"sources": [{"ref": "source:pier", "text": PIER_V1}], "claims": [claim]})
    (before,) = first.json()["results"]
    assert (before["state"], before["span"]["source_version"]) == ("supported", 1)
    again = post(api, {"sources": [{"ref": "source:pier", "text": PIER_V2}], "claims": [claim]})
    (row,) = again.json()["results"]
    assert (row["claim_id"], row["reused"]) == (before["claim_id"], True)
    assert (row["state"], row["reason"]) == ("supported", "entailed")
    assert row["span"]["source_version"] == 2
    assert row["verdict_id"] != before["verdict_id"]  # judged again, in the new version


def test_a_new_inline_version_queues_the_earlier_claims_rejudging(
    api, django_capture_on_commit_callbacks
):
    """The earlier claims of a source a batch sends a new version of are judged again by
    an ingest job queued on commit, not within the request (a large source's claims take
    minutes to judge, past the web worker's timeout, whose kill rolled the batch back)."""
    quote = "The pier is 300 metres long."
    earlier = {"text": quote, "source": "source:pier", "quote": quote, "external_id": "e-1"}
    first = post(api, {"sources": [{"ref": "source:pier", "text": PIER_V1}], "claims": [earlier]})
    (before,) = first.json()["results"]
    other = {"text": "The pier was painted green in 2001.", "source": "source:pier"}

    with django_capture_on_commit_callbacks(execute=False) as queued:
        answer = post(
            api, {"sources": [{"ref": "source:pier", "text": PIER_V2}], "claims": [other]}
        )
    assert answer.status_code == 200, answer.content
    stored = Claim.objects.get(public_id=before["claim_id"])
    assert (stored.state, stored.state_reason) == ("unverified", "stale_source")
    job = IngestJob.objects.get(workspace=stored.workspace)
    assert job.label == "claims/verify: new version v2 of source:pier"
    assert job.status == IngestStatus.QUEUED

    with django_capture_on_commit_callbacks(execute=True):
        for send in queued:  # the worker runs the job (tasks eager)
            send()
    job.refresh_from_db()
    assert job.status == IngestStatus.SUCCEEDED, job.errors
    row = api.get(f"/connect/v1/claims/{before['claim_id']}").json()
    assert (row["state"], row["reason"]) == ("supported", "entailed")
    bound = EvidenceBinding.objects.get(claim=stored, is_active=True)
    assert bound.source_version.number == 2


def test_a_resent_claim_whose_source_changed_is_verified_again_not_reused_stale(api):
    """A claim whose words the new version no longer has stays stale (for review); sent
    again, it is verified again against the current version (its stored quote), so
    the answer says where the quote is now instead of a result about version 1."""
    put_source(api, "source:pier", PIER_V1)
    quote = "It opened in 1901 after two years of work."
    claim = {"text": "The pier opened in 1901.", "source": "source:pier", "quote": quote}
    first = post(api, {"claims": [{**claim, "external_id": "pier-2"}]}).json()["results"][0]
    assert first["span"]["source_version"] == 1
    put_source(api, "source:pier", PIER_V2)
    stale = api.get(f"/connect/v1/claims/{first['claim_id']}").json()
    assert (stale["state"], stale["reason"]) == ("unverified", "stale_source")

    (row,) = post(api, {"claims": [{**claim, "external_id": "pier-2"}]}).json()["results"]
    assert (row["claim_id"], row["reused"], row["status"]) == (first["claim_id"], True, "verified")
    assert (row["state"], row["reason"], row["span"]) == ("unverified", "no_evidence", None)
    assert row["reason_text"].endswith(
        "The quote is in version 1 of source:pier, which has changed since."
    )
    stored = Claim.objects.get(public_id=row["claim_id"])
    assert not EvidenceBinding.objects.filter(claim=stored, is_active=True).exists()


def test_a_resent_stale_claim_in_a_job_reads_pending_then_verified(
    api, django_capture_on_commit_callbacks
):
    from verifier.pipeline.tasks import run_verification_job

    put_source(api, "source:pier", PIER_V1)
    quote = "It opened in 1901 after two years of work."
    claim = {"text": quote, "source": "source:pier", "quote": quote, "external_id": "pier-3"}
    first = post(api, {"claims": [claim]}).json()["results"][0]
    assert first["state"] == "supported"
    put_source(api, "source:pier", PIER_V2)
    with django_capture_on_commit_callbacks(execute=False):
        queued = post(api, {"claims": [claim], "wait": 0}).json()
    assert queued["job"]["total"] == 1
    assert [(r["status"], r["claim_id"]) for r in queued["results"]] == [
        ("pending", first["claim_id"])
    ]
    run_verification_job.apply(args=[queued["job"]["id"]])
    polled = api.get(f"{URL}/jobs/{queued['job']['id']}").json()
    assert polled["job"]["done"] == 1
    (row,) = polled["results"]
    assert (row["status"], row["reused"], row["reason"]) == ("verified", True, "no_evidence")


def test_the_rebinding_job_leaves_the_batchs_own_claims_to_the_batch(
    api, django_capture_on_commit_callbacks
):
    """A batch sent as a job with a changed inline source: the source's re-binding job
    and the verification job would both bind the batch's claims (a deadlock on the one
    active span each claim has); the re-binding job leaves them to the batch."""
    from verifier.pipeline.tasks import run_verification_job

    quote = "The pier is 300 metres long."
    earlier = {"text": quote, "source": "source:pier", "quote": quote, "external_id": "e-2"}
    post(api, {"sources": [{"ref": "source:pier", "text": PIER_V1}], "claims": [earlier]})
    fresh = {"text": "The pier was painted green in 2001.", "source": "source:pier"}
    batch = {"sources": [{"ref": "source:pier", "text": PIER_V2}], "wait": 0}
    with django_capture_on_commit_callbacks(execute=False) as queued:
        answer = post(api, {**batch, "claims": [earlier, fresh]}).json()
    ids = [r["claim_id"] for r in answer["results"]]
    job = IngestJob.objects.get(label="claims/verify: new version v2 of source:pier")
    assert job.payload["exclude_claims"] == sorted(
        Claim.objects.filter(public_id__in=ids).values_list("pk", flat=True)
    )

    # the re-binding job runs first: it touches neither claim of the batch
    with django_capture_on_commit_callbacks(execute=True):
        for send in queued:  # the re-binding job (tasks eager); the verification job waits
            send()
    rebinding = StateEvent.objects.filter(claim__public_id__in=ids, cause__contains="ingest job")
    assert not rebinding.exists(), list(rebinding.values_list("cause", flat=True))
    run_verification_job.apply(args=[answer["job"]["id"]])
    rows = api.get(f"{URL}/jobs/{answer['job']['id']}").json()["results"]
    assert [r["status"] for r in rows] == ["verified", "verified"]
