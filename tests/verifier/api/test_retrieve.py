from __future__ import annotations

import json

from tests.factories import tamper
from tests.verifier.api.conftest import judged_claim
from verifier import embeddings, onnx_runtime
from verifier.models import Claim, ClaimRelation, StateEvent, Trace, TraceClaim

RETRIEVE = "/connect/v1/retrieve"


def post(client, body):
    return client.post(RETRIEVE, body, content_type="application/json")


def _good_and_unverified(delta):
    """A supported claim and an unverified one (the judge abstained) on one passage."""
    good = judged_claim(
        delta,
        "Sediment settles where the current slows.",
        quote="Sediment settles where the current slows.",
    )
    unverified = judged_claim(
        delta,
        "Sediment settles in slow water.",
        label="abstained",
        confidence=0.4,
        quote="Sediment settles",
    )
    return good, unverified


def test_retrieve_serves_supported_envelopes_with_trace(api, delta):
    good, unverified = _good_and_unverified(delta)
    resp = post(api, {"query": "where does sediment settle?", "require_verified": True})
    assert resp.status_code == 200, resp.content
    body = resp.json()
    assert set(body) == {"request_id", "trace_id", "context_block", "verified_claims", "metadata"}
    ids = [env["claim"]["id"] for env in body["verified_claims"]]
    assert ids == [good.public_id]
    env = body["verified_claims"][0]
    assert env["trace_ref"] == f"/connect/v1/traces/{body['trace_id']}"
    assert body["metadata"]["verification_summary"] == {
        "supported": 1,
        "inferred": 0,
        "unverified": 0,
        "contradicted": 0,
        "excluded": 0,
    }
    assert body["metadata"]["retrieval_degraded_code"] is None
    assert good.text in body["context_block"] and "Marrow River Survey" in body["context_block"]
    # the unverified claim was considered and excluded with a reason, never silently dropped
    trace = Trace.objects.get(trace_id=body["trace_id"])
    rows = {r["claim_id"]: r for r in trace.document["claims"]}
    assert rows[unverified.public_id]["included"] is False
    assert rows[unverified.public_id]["exclusion_reason"] == "verification_gate"
    assert rows[good.public_id]["included"] is True
    assert TraceClaim.objects.get(trace=trace, claim=unverified).exclusion_reason == (
        "verification_gate"
    )
    doc = trace.document
    for key in (
        "trace_id",
        "query",
        "workspace",
        "domain_pack",
        "created_at",
        "verification_policy",
        "seeds",
        "expansion",
        "result",
        "claims",
        "timing",
    ):
        assert key in doc
    assert doc["result"]["retrieved"] == 1 and doc["result"]["filtered"] == 1
    assert set(doc["timing"]) >= {"seed_ms", "expansion_ms", "ranking_ms", "total_ms"}
    assert set(doc["claims"][0]) >= {
        "verification_state",
        "trust_score",
        "included",
        "exclusion_reason",
        "hop_depth",
        "edge_path",
    }
    assert len(doc["seeds"][0]["text"]) <= 200 and "source_ref" in doc["seeds"][0]


def test_policy_exclusions_are_recorded_with_reasons(api, delta):
    a = judged_claim(
        delta,
        "Salt marsh grasses trap silt at high tide.",
        quote="Salt marsh grasses trap silt at high tide.",
    )
    dup = judged_claim(
        delta, "Salt marsh grasses trap silt at high tide.", quote="Salt marsh grasses trap silt"
    )  # same text
    marked = judged_claim(
        delta, "Marsh grasses trap silt.", quote="grasses trap silt", duplicate_of=a
    )
    low = judged_claim(
        delta, "Grasses hold silt at high tide.", quote="at high tide", trust_score=10
    )
    flagged = judged_claim(
        delta, "Silt is trapped by marsh grass.", quote="trap silt", flagged=True
    )
    resp = post(
        api,
        {
            "query": "marsh grasses trap silt",
            "max_claims": 1,
            "verification_policy": {"include": ["supported"], "min_trust_score": 50},
        },
    )
    body = resp.json()
    served = [e["claim"]["id"] for e in body["verified_claims"]]
    assert served == [a.public_id]
    rows = {r["claim_id"]: r for r in Trace.objects.get().document["claims"]}
    assert rows[dup.public_id]["exclusion_reason"] == "duplicate"
    assert rows[marked.public_id]["exclusion_reason"] == "duplicate"
    assert rows[low.public_id]["exclusion_reason"] == "confidence_gate"
    assert rows[flagged.public_id]["exclusion_reason"] == "verification_gate"
    assert body["metadata"]["excluded"]["duplicate"] == 2


def test_budget_exclusion(api, delta):
    for quote in ("Sediment settles", "Salt marsh grasses", "Storm surges"):
        judged_claim(delta, f"{quote} is described in the survey.", quote=quote)
    body = post(api, {"query": "survey", "max_claims": 1}).json()
    assert len(body["verified_claims"]) == 1
    assert body["metadata"]["excluded"]["budget"] == 2
    assert Trace.objects.get().document["result"]["truncated"] == 2


def test_tampered_source_demotes_in_response_and_store(api, delta):
    claim = judged_claim(
        delta,
        "Storm surges can strip a season of growth.",
        quote="Storm surges can strip a season of growth",
    )
    assert claim.state == "supported"
    for version in delta.versions.all():
        tamper(version, version.text.replace("Storm", "Flood"))
    body = post(
        api,
        {
            "query": "storm surges",
            "verification_policy": {"include": ["supported", "inferred", "unverified"]},
        },
    ).json()
    (env,) = body["verified_claims"]
    assert env["state"] == "unverified"
    assert body["metadata"]["verification_summary"]["supported"] == 0
    assert body["metadata"]["verification_summary"]["unverified"] == 1
    claim.refresh_from_db()
    assert claim.state == "unverified" and claim.state_reason == "stale_source"
    assert StateEvent.objects.filter(claim=claim, to_state="unverified").exists()
    # require_verified (supported only) now excludes it, with the reason recorded
    body = post(api, {"query": "storm surges", "require_verified": True}).json()
    assert body["verified_claims"] == []


def test_new_source_version_demotes(api, delta, workspace):
    from verifier.services.sources import source_upsert

    claim = judged_claim(
        delta,
        "Dredging starves the outer marsh of mud.",
        quote="Dredging the main channel starves the outer marsh of mud",
    )
    source_upsert(workspace=workspace, ref=delta.ref, text="Completely rewritten text.")
    # Demoted when the version was stored, before any read (issue 39): the read-time
    # re-check (``test_tampered_source_demotes_in_response_and_store``) has nothing left.
    claim.refresh_from_db()
    assert (claim.state, claim.state_reason) == ("unverified", "stale_source")
    body = post(api, {"query": "dredging", "require_verified": True}).json()
    assert body["verified_claims"] == []
    rows = Trace.objects.get().document["claims"]
    assert rows[0]["demoted_from"] is None
    assert rows[0]["verification_state"] == "unverified"
    assert rows[0]["exclusion_reason"] == "verification_gate"


def test_depth_expands_through_relations(api, delta, workspace):
    seed = judged_claim(
        delta,
        "Sediment settles where the current slows.",
        quote="Sediment settles where the current slows.",
    )
    hop1 = judged_claim(
        delta,
        "The delta gains land in wet years.",
        quote="The Marrow River delta gains land in wet years.",
        embed=False,
    )
    hop2 = judged_claim(
        delta,
        "Dredging starves the outer marsh.",
        quote="Dredging the main channel starves the outer marsh",
        embed=False,
    )
    ClaimRelation.objects.create(
        workspace=workspace,
        from_claim=seed,
        to_claim=hop1,
        kind="supports",
        confidence=0.8,
        verification="accepted",
    )
    ClaimRelation.objects.create(
        workspace=workspace,
        from_claim=hop2,
        to_claim=hop1,
        kind="elaborates",
        confidence=0.6,
        verification="accepted",
    )
    for depth, expected in (
        ("quick", {seed}),
        ("standard", {seed, hop1}),
        ("deep", {seed, hop1, hop2}),
    ):
        body = post(api, {"query": "sediment current", "depth": depth}).json()
        got = {e["claim"]["id"] for e in body["verified_claims"]}
        assert got == {c.public_id for c in expected}, depth
    doc = Trace.objects.order_by("-created_at").first().document
    rows = {r["claim_id"]: r for r in doc["claims"]}
    assert rows[hop2.public_id]["hop_depth"] == 2
    assert [s["kind"] for s in rows[hop2.public_id]["edge_path"]] == ["supports", "elaborates"]
    assert [e["depth"] for e in doc["expansion"]] == [1, 2]
    assert doc["expansion"][1]["edge_types"] == {"elaborates": 1, "supports": 1}


def test_unpublished_and_other_workspace_claims_never_served(api, delta, other_workspace):
    from tests.factories import make_source

    judged_claim(
        delta,
        "Sediment settles where the current slows.",
        quote="Sediment settles",
        published=False,
    )
    other = make_source(other_workspace, ref="source:marrow_river")
    judged_claim(other, "Sediment settles where the current slows.", quote="Sediment settles")
    body = post(api, {"query": "sediment"}).json()
    assert body["verified_claims"] == []
    assert body["metadata"]["retrieval_degraded_code"] == "no_claims"


def test_seed_claim_id(api, delta):
    a = judged_claim(delta, "Storm surges strip growth.", quote="Storm surges")
    body = post(api, {"query": "anything", "seed_claim_id": a.public_id}).json()
    assert [e["claim"]["id"] for e in body["verified_claims"]] == [a.public_id]
    body = post(api, {"query": "storm", "seed_claim_id": "claim:doesnotexist"}).json()
    assert body["metadata"]["retrieval_degraded_code"] == "seed_claim_not_found"


def test_embedding_unavailable_degrades_to_lexical(api, delta, monkeypatch):
    a = judged_claim(delta, "Storm surges strip growth.", quote="Storm surges")
    # a real loader failure: point the model path somewhere empty and drop the cached
    # models (the torch one and the query path's onnxruntime one)
    monkeypatch.setattr(embeddings, "_model", None)
    monkeypatch.setattr(
        embeddings, "_onnx_query", onnx_runtime.Lazy(embeddings._onnx_query_embedder)
    )
    monkeypatch.setenv("SPANPROOF_EMBEDDING_MODEL_PATH", "/nonexistent/model")
    body = post(api, {"query": "storm surges"}).json()
    assert body["metadata"]["retrieval_degraded_code"] == "embedding_unavailable"
    assert [e["claim"]["id"] for e in body["verified_claims"]] == [a.public_id]


def test_bad_input_is_400_json(api):
    for bad in (
        {},
        {"query": "x", "max_claims": 0},
        {"query": "x", "max_claims": 501},
        {"query": "x", "depth": "huge"},
        {"query": "x", "verification_policy": {"include": ["nope"]}},
        {"query": "x", "verification_policy": {"min_trust_score": 101}},
    ):
        resp = post(api, bad)
        assert resp.status_code == 400, bad
        assert resp.json()["error"]["code"] == "invalid_request"


def test_auth_required_and_session_works(client, reviewer_client, delta):
    assert post(client, {"query": "x"}).status_code == 401
    assert post(reviewer_client, {"query": "sediment"}).status_code == 200
    assert Claim.objects.count() == 0


def test_served_body_is_exactly_what_the_schema_serializer_describes(api, delta):
    """The view returns the service's dict as is; the OpenAPI serializer must describe
    it field for field (judged, never-judged and unbound claims, every state served)."""
    from verifier.api.retrieve import ContextRetrieveApi

    judged_claim(
        delta,
        "Sediment settles where the current slows.",
        quote="Sediment settles where the current slows.",
    )
    judged_claim(
        delta, "Sediment settles in slow water.", label="abstained", quote="Sediment settles"
    )
    Claim.objects.create(
        workspace=delta.workspace,
        source=delta,
        text="Sediment never settles anywhere.",
        original_text="Sediment never settles anywhere.",
        published=True,
        embedding=embeddings.embed_text("Sediment never settles anywhere.").tolist(),
    )
    policy = {
        "include": ["supported", "inferred", "unverified", "contradicted", "excluded"],
        "exclude_flagged": False,
    }
    body = post(api, {"query": "sediment settles", "verification_policy": policy}).json()
    assert len(body["verified_claims"]) == 3
    assert any("judge" not in env for env in body["verified_claims"])
    assert any(env["evidence"] == [] for env in body["verified_claims"])
    serializer = ContextRetrieveApi.OutputSerializer(body)
    assert json.loads(json.dumps(serializer.data)) == body


def test_by_default_every_state_but_excluded_is_served_labelled(api, delta):
    """Seed 000: the envelope says each claim's state and the summary counts them "so a
    consumer can gate on 'anything non-supported in this context?'"; require_verified is
    how a request leaves the non-supported out. By default only supported claims were
    served, so the summary never showed anything to gate on and inferred claims ("always
    labelled as inference") were never served."""
    good, unverified = _good_and_unverified(delta)
    body = post(api, {"query": "where does sediment settle?"}).json()
    served = {env["claim"]["id"]: env["state"] for env in body["verified_claims"]}
    assert served == {good.public_id: "supported", unverified.public_id: "unverified"}
    summary = body["metadata"]["verification_summary"]
    assert (summary["supported"], summary["unverified"]) == (1, 1)
    assert body["metadata"]["verification_policy"]["include"] == [
        "supported",
        "inferred",
        "unverified",
        "contradicted",
    ]
