from __future__ import annotations

from dataclasses import replace

from tests.verifier.api.conftest import judged_claim
from verifier.models import IngestJob, RuleSet, RuleSetActivation
from verifier.scoring.rulesets import CORE_V1, to_dict


def test_verification_rules_default_to_core_v1(api):
    body = api.get("/connect/v1/verification-rules").json()
    (entry,) = body["rule_sets"]
    assert entry["source"] == "built_in" and entry["domain_pack"] == ""
    assert entry["rule_set"] == {"name": "Core v1", "version": 1}
    assert entry["overrides"] == []
    assert len(entry["definition"]["dimensions"]) == 6
    built_in = api.get("/connect/v1/verification-rules/built-in").json()
    assert built_in["display_name"] == "Restormel Core v1"
    assert {p["name"] for p in built_in["policies"]} == {"strict", "balanced", "lenient"}


def test_verification_rules_show_workspace_overrides(api, workspace, other_workspace):
    # evidence grounding and logical structure trade weights (.20 and .25): still sums to 1
    swapped = {"evidence_grounding": 0.25, "logical_structure": 0.20}
    dimensions = tuple(replace(d, weight=swapped.get(d.key, d.weight)) for d in CORE_V1.dimensions)
    tuned = replace(CORE_V1, name="Tuned", dimensions=dimensions)
    rs = RuleSet.objects.create(
        workspace=workspace, name="Tuned", version=1, definition=to_dict(tuned)
    )
    RuleSetActivation.objects.create(
        workspace=workspace, domain_pack="law", rule_set=rs, policy="strict"
    )
    body = api.get("/connect/v1/verification-rules").json()
    packs = {e["domain_pack"]: e for e in body["rule_sets"]}
    assert set(packs) == {"", "law"}
    law = packs["law"]
    assert law["source"] == "workspace" and law["policy"] == "strict"
    targets = {o["target"] for o in law["overrides"] if o["field"] == "weight"}
    assert "dimension:evidence_grounding" in targets
    # another workspace's activation is invisible
    other = RuleSet.objects.create(
        workspace=other_workspace, name="X", version=1, definition=to_dict(CORE_V1)
    )
    RuleSetActivation.objects.create(workspace=other_workspace, domain_pack="med", rule_set=other)
    assert "med" not in {
        e["domain_pack"] for e in api.get("/connect/v1/verification-rules").json()["rule_sets"]
    }


def test_sources_create_version_and_get(api):
    body = {"ref": "source:a/b:c", "text": "First text.", "title": "Doc", "citation": "Doc, p1"}
    r = api.post("/connect/v1/sources", body, content_type="application/json")
    assert r.status_code == 201, r.content
    assert r.json()["version"]["number"] == 1 and r.json()["created_source"] is True
    r = api.post("/connect/v1/sources", body, content_type="application/json")
    assert r.status_code == 200 and r.json()["created_version"] is False
    r = api.post(
        "/connect/v1/sources", {**body, "text": "Second text."}, content_type="application/json"
    )
    assert r.status_code == 201 and r.json()["version"]["number"] == 2
    got = api.get("/connect/v1/sources/source:a/b:c").json()
    assert got["ref"] == "source:a/b:c" and got["text"] == "Second text."
    assert got["current_version"]["number"] == 2
    assert [v["number"] for v in got["versions"]] == [1, 2]
    bad = api.post(
        "/connect/v1/sources", {"ref": "source:x", "text": "   "}, content_type="application/json"
    )
    assert bad.status_code == 400 and "error" in bad.json()


def test_claims_list_filters_and_cursor(api, workspace, delta, django_assert_max_num_queries):
    job = IngestJob.objects.create(workspace=workspace)
    for n in range(7):
        judged_claim(
            delta,
            f"Claim {n} about sediment.",
            quote="Sediment settles",
            embed=False,
            ingest_job=job if n < 3 else None,
        )
    judged_claim(delta, "An unjudged claim.", quote="Sediment settles", label="", embed=False)
    with django_assert_max_num_queries(10):
        r = api.get("/connect/v1/claims?page_size=5")
    body = r.json()
    assert len(body["results"]) == 5 and body["next"]
    nxt = api.get(body["next"]).json()
    assert len(nxt["results"]) == 3 and nxt["next"] is None
    assert {
        e["state"] for e in api.get("/connect/v1/claims?state=unverified").json()["results"]
    } == {"unverified"}
    assert len(api.get(f"/connect/v1/claims?job={job.pk}").json()["results"]) == 3
    assert len(api.get(f"/connect/v1/claims?source={delta.ref}").json()["results"]) == 8
    assert api.get("/connect/v1/claims?state=bogus").status_code == 400
    assert api.get("/connect/v1/claims?job=abc").status_code == 400


def test_claims_list_query_count_does_not_grow(api, delta, django_assert_max_num_queries):
    for n in range(30):
        judged_claim(delta, f"Claim {n} about sediment.", quote="Sediment settles", embed=False)
    with django_assert_max_num_queries(10):
        assert len(api.get("/connect/v1/claims?page_size=30").json()["results"]) == 30


def test_claim_get_is_the_envelope(api, delta):
    claim = judged_claim(
        delta,
        "Sediment settles where the current slows.",
        quote="Sediment settles where the current slows.",
    )
    env = api.get(f"/connect/v1/claims/{claim.public_id}").json()
    assert env["claim"]["id"] == claim.public_id and env["state"] == "supported"
    assert "trace_ref" not in env and env["judge"]["model"]
