"""POST /worker/verify end to end over a corpus ingested by the real pipeline (extract,
bind, judge, relate, publish), judged by the configured (heuristic) judge."""

from __future__ import annotations

import numpy as np
import pytest
from django.test import TestCase

from tests.verifier.api.conftest import client_for
from verifier.embeddings import embed_text_torch
from verifier.models import Claim, ClaimOrigin, SourceVersion, text_sha256
from verifier.services.ingest import STAGE_ORDER, ingest_stage_run
from verifier.services.ingest_create import SourceUpload, ingest_job_create

VERIFY = "/worker/verify"

LIGHTHOUSE = (
    "The Halden Point lighthouse was built in 1871. Its lamp was electrified in 1923. "
    "The keeper's cottage burned down in 1950 and was never rebuilt. "
    "Halden Point lies at the mouth of the Marrow River."
)
DELTA = (
    "The Marrow River delta gains land in wet years. Sediment settles where the current "
    "slows. Salt marsh grasses trap silt at high tide. Dredging the main channel starves "
    "the outer marsh of mud."
)


@pytest.fixture
def corpus(workspace):
    job = ingest_job_create(
        start=False,
        workspace=workspace,
        sources=[
            SourceUpload(
                ref="https://coast.example.org/halden", title="Halden Point", text=LIGHTHOUSE
            ),
            SourceUpload(ref="https://rivers.example.net/marrow", title="Marrow delta", text=DELTA),
        ],
    )
    for stage in STAGE_ORDER:
        ingest_stage_run(job_id=job.pk, stage=stage)
    assert Claim.objects.filter(workspace=workspace, published=True).count() >= 6
    return workspace


def verify(client, **body):
    """POST and run what the request queued on commit (the stored claim's chain pass)."""
    with TestCase.captureOnCommitCallbacks(execute=True):
        return client.post(VERIFY, {"job_id": "job-1", **body}, content_type="application/json")


def test_supported_claim_is_true_with_bound_evidence(corpus):
    api = client_for(corpus)
    resp = verify(api, claim="The Halden Point lighthouse was built in 1871.", room_id="r1")
    assert resp.status_code == 200, resp.content
    body = resp.json()
    assert body["verdict"] == "TRUE", body["reconciliation_reasons"]
    assert body["job_id"] == "job-1" and body["room_id"] == "r1"
    top = body["evidence"][0]
    assert top["quote"] == "The Halden Point lighthouse was built in 1871."
    assert top["stance"] == "supports"
    # every evidence item is a bound span: offsets into the hashed source version
    for item in body["evidence"]:
        version = SourceVersion.objects.get(pk=item["source_version_id"])
        assert version.text[item["start"] : item["end"]] == item["quote"]
        assert item["source_hash"] == text_sha256(version.text) == version.sha256
    assert body["trust_threshold_met"] is True
    assert 0 < body["verdict_confidence"] <= 0.95
    assert body["truthfulness_percent"] >= 85
    assert body["claim_breakdown"][0]["status"] in ("VALID", "STRONGLY_VALID")
    assert body["evidence_map"][0]["supporting"][0] == top["id"]
    assert body["used_web_search"] is False
    assert body["data_source"].startswith("vdb")
    assert body["top_ranking_score"] == top["ranking_score"]
    assert body["analysis_counts"]["admissible_evidence"] >= 1
    assert body["judge"]["model_id"] == "spanproof-heuristic-v1+nli-v2"
    for key in (
        "avg_ranking_score",
        "trust_policy_mode",
        "trust_metric_value",
        "coverage",
        "diversity",
        "trust_post_adaptive",
        "trust_post_fixed",
        "vdb_signal_count",
        "kg_signal_count",
        "evidence_quality_percent",
    ):
        assert key in body
    stored = Claim.objects.get(public_id=body["stored_claim_id"])
    assert stored.origin == ClaimOrigin.WORKER and not stored.published
    assert stored.metadata["job_id"] == "job-1" and stored.metadata["verdict"] == "TRUE"
    assert stored.source.ref == "https://coast.example.org/halden"
    # bound in its cited source, judged and stated by the one chain (queued on commit)
    assert stored.state == "supported"
    assert stored.verdicts.count() == 1 and stored.bindings.get(is_active=True).match == "exact"


def test_contradicted_claim_is_false(corpus):
    resp = verify(client_for(corpus), claim="The Halden Point lighthouse was built in 1902.")
    assert resp.status_code == 200, resp.content
    body = resp.json()
    assert body["verdict"] == "FALSE", body
    assert body["claim_breakdown"][0]["status"] in ("INVALID", "PARTIALLY_INVALID")
    assert body["evidence"][0]["stance"] == "contradicts"
    assert body["truthfulness_percent"] <= 25
    assert body["verdict_confidence"] >= 0.55  # contradiction-only FALSE floor
    assert Claim.objects.get(public_id=body["stored_claim_id"]).state == "contradicted"


def test_unrelated_claim_is_unverifiable(corpus):
    resp = verify(client_for(corpus), claim="Jupiter has ninety-five known moons.")
    assert resp.status_code == 200, resp.content
    body = resp.json()
    assert body["verdict"] == "UNVERIFIABLE"
    assert body["verdict_confidence"] <= 0.35
    assert 40 <= body["truthfulness_percent"] <= 60


def test_compound_claim_is_broken_down(corpus):
    claim = "The Halden Point lighthouse was built in 1871 and its lamp was electrified in 1990."
    body = verify(client_for(corpus), claim=claim).json()
    assert len(body["claim_breakdown"]) == 2
    statuses = [part["status"] for part in body["claim_breakdown"]]
    assert statuses[0] in ("VALID", "STRONGLY_VALID")
    assert body["verdict"] != "TRUE"


@pytest.mark.parametrize(
    "body,field",
    [
        ({"claim": "x", "top_k": 0}, "top_k"),
        ({"claim": "x", "top_k": 21}, "top_k"),
        ({"claim": ""}, "claim"),
        ({"job_id": "", "claim": "x"}, "job_id"),
    ],
)
def test_bad_input_is_a_400_and_stores_nothing(corpus, body, field):
    before = Claim.objects.count()
    resp = client_for(corpus).post(
        VERIFY, {"job_id": "job-1", **body}, content_type="application/json"
    )
    assert resp.status_code == 400
    assert "error" in resp.json() and field in str(resp.json())
    assert Claim.objects.count() == before


def test_requires_an_api_key(client, corpus):
    resp = client.post(VERIFY, {"job_id": "j", "claim": "x"}, content_type="application/json")
    assert resp.status_code in (401, 403)
    assert "error" in resp.json()


def test_other_workspace_sees_none_of_this_corpus(corpus, other_workspace):
    body = verify(
        client_for(other_workspace), claim="The Halden Point lighthouse was built in 1871."
    ).json()
    assert body["evidence"] == [] and body["verdict"] == "UNVERIFIABLE"
    assert body["stored_claim_id"] is None


def test_repeat_is_answered_from_cache_until_the_evidence_changes(corpus):
    api = client_for(corpus)
    claim = "The Halden Point lighthouse was built in 1871."
    first = verify(api, claim=claim).json()
    assert first["status"] == "completed" and first["cache"]["reason"] == "no_cached_result"
    stored = Claim.objects.filter(origin=ClaimOrigin.WORKER).count()

    again = verify(api, claim=claim, job_id="job-2").json()
    assert again["status"] == "completed_from_cache" and again["cache"]["reason"] == "hit"
    assert again["job_id"] == "job-2"
    assert again["verdict"] == first["verdict"] == "TRUE"
    assert again["stored_claim_id"] == first["stored_claim_id"]
    assert Claim.objects.filter(origin=ClaimOrigin.WORKER).count() == stored  # nothing new

    # a different top_k is a different question: no cache
    assert verify(api, claim=claim, top_k=3).json()["status"] == "completed"

    # the stored claim's state moves (here: excluded by an admin) → the gate fails
    from verifier.services.claim_state import claim_exclude

    claim_exclude(
        claim=Claim.objects.get(public_id=first["stored_claim_id"]), reason="test", actor=None
    )
    after = verify(api, claim=claim).json()
    assert after["status"] == "completed"
    assert after["cache"]["reason"] == "state_disagrees"


def test_unverifiable_results_are_never_served_from_cache(corpus):
    api = client_for(corpus)
    claim = "The Halden Point lighthouse keeper kept three goats."
    verify(api, claim=claim)
    body = verify(api, claim=claim).json()
    assert body["status"] == "completed"
    assert body["cache"]["reason"] in ("not_binary", "trust_insufficient", "no_cached_result")


def test_stored_claim_chain_pass_is_queued_and_safe_to_rerun(
    corpus, django_capture_on_commit_callbacks
):
    from verifier.services.claim_worker_storage import worker_stored_claim_verify

    api = client_for(corpus)
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        body = api.post(
            VERIFY,
            {"job_id": "j", "claim": "The Halden Point lighthouse was built in 1871."},
            content_type="application/json",
        ).json()
    stored = Claim.objects.get(public_id=body["stored_claim_id"])
    assert len(callbacks) == 1 and stored.verdicts.count() == 0  # not judged inside the request
    # stored as ingest stores vectors (the fp32 model), not as the int8 query path embeds
    fp32 = embed_text_torch(stored.text)
    assert np.allclose(np.asarray(stored.embedding), fp32, rtol=0, atol=1e-6)
    callbacks[0]()
    assert worker_stored_claim_verify(claim_id=stored.pk) == "supported"  # rerun: no-op
    assert stored.verdicts.count() == 1


def test_tuning_variables_are_read_from_settings_and_checked(settings, corpus):
    from verifier.checks import worker_tuning_valid

    assert worker_tuning_valid() == []
    settings.SPANPROOF_WORKER_TUNING = {"UNVERIFIABLE_CONFIDENCE_CAP": "1.7"}
    assert [e.id for e in worker_tuning_valid()] == ["spanproof.E002"]
    # HEDGE_PENALTY_BLOCK_TRUE 0: any supporting evidence counts as too hedged for TRUE
    settings.SPANPROOF_WORKER_TUNING = {"HEDGE_PENALTY_BLOCK_TRUE": "0.0"}
    body = verify(
        client_for(corpus), claim="The Halden Point lighthouse was built in 1871.", top_k=4
    ).json()
    assert body["verdict"] == "UNVERIFIABLE"
    assert body["reconciliation_reasons"] == ["hedged_evidence_blocks_true"]


def test_domain_restricts_retrieval_to_that_domain_pack(corpus):
    claim = "The Halden Point lighthouse was built in 1871."
    other = verify(client_for(corpus), claim=claim, domain="law").json()
    assert other["evidence"] == [] and other["verdict"] == "UNVERIFIABLE"
    assert other["stored_claim_id"] is None
    from verifier.models import Source

    Source.objects.filter(workspace=corpus).update(domain_pack="coast")
    coast = verify(client_for(corpus), claim=claim, domain="coast").json()
    assert coast["evidence"] and coast["verdict"] == "TRUE"


# --- issue 44: seed 001 to the letter ---------------------------------------------------


def test_the_response_carries_confidence_as_the_seeds_output_names_it(corpus):
    body = verify(client_for(corpus), claim="The Halden Point lighthouse was built in 1871.").json()
    assert body["confidence"] == body["verdict_confidence"]
    assert body["numeric_support"] == 1.0  # 1871 is stated by the supporting evidence


def test_confidence_mode_is_selected_by_the_request_or_the_setting(settings, corpus):
    api = client_for(corpus)
    claim = "The Halden Point lighthouse was built in 1871."
    assert verify(api, claim=claim).json()["trust_policy_mode"] == "adaptive"
    body = verify(api, claim=claim, job_id="j2", trust_policy_mode="confidence").json()
    assert body["trust_policy_mode"] == "confidence"
    # a cached result of the other mode is not served
    assert body["status"] == "completed" and body["cache"]["reason"] == "mode_changed"
    settings.SPANPROOF_WORKER_TRUST_POLICY_MODE = "confidence"
    assert verify(api, claim="Its lamp was electrified in 1923.").json()["trust_policy_mode"] == (
        "confidence"
    )
    bad = verify(api, claim=claim, trust_policy_mode="lenient")
    assert bad.status_code == 400 and bad.json()["error"]["details"]


def test_cache_is_checked_after_trust_and_reads_the_current_trust(corpus):
    # Seed 001 runtime path: rank, compute adaptive trust, "If adaptive trust is
    # sufficient, run a cache verdict precheck". The stored result's own
    # trust_threshold_met is not what decides.
    api = client_for(corpus)
    claim = "The Halden Point lighthouse was built in 1871."
    first = verify(api, claim=claim).json()
    assert first["trust_threshold_met"] is True
    stored = Claim.objects.get(public_id=first["stored_claim_id"])
    stored.metadata["worker_result"]["trust_threshold_met"] = False
    Claim.objects.filter(pk=stored.pk).update(metadata=stored.metadata)
    again = verify(api, claim=claim, job_id="job-2").json()
    assert again["status"] == "completed_from_cache" and again["cache"]["reason"] == "hit"
    assert "judge_ms" in again["timing_ms"]  # judged before the precheck
