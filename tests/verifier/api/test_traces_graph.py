from __future__ import annotations

from datetime import timedelta

from django.utils import timezone

from tests.verifier.api.conftest import judged_claim
from verifier.models import ClaimRelation, Entity, Trace, TraceClaim
from verifier.pipeline.tasks import purge_expired_traces


def _retrieve(client, **body):
    body.setdefault("query", "sediment settles")
    return client.post("/connect/v1/retrieve", body, content_type="application/json").json()


def test_trace_get_and_export(api, delta):
    judged_claim(delta, "Sediment settles where the current slows.", quote="Sediment settles")
    trace_id = _retrieve(api)["trace_id"]
    resp = api.get(f"/connect/v1/traces/{trace_id}")
    assert resp.status_code == 200
    body = resp.json()
    assert body["trace_id"] == trace_id and body["document"]["trace_id"] == trace_id
    assert body["document"]["verification_policy"]["include"] == [
        "supported",
        "inferred",
        "unverified",
        "contradicted",
    ]
    export = api.get(f"/connect/v1/traces/{trace_id}/export?format=json")
    assert export.status_code == 200
    assert export["Content-Disposition"] == f'attachment; filename="trace-{trace_id}.json"'
    assert export.json()["document"] == body["document"]
    assert api.get(f"/connect/v1/traces/{trace_id}/export").status_code == 200  # json default
    bad = api.get(f"/connect/v1/traces/{trace_id}/export?format=csv")
    assert bad.status_code == 400
    # the standard shape of a query parameter's bad value: its name in details.field
    assert bad.json()["error"] == {
        "code": "invalid_request",
        "message": (
            "The query parameter 'format' is invalid: \"csv\" is not a format the export "
            "makes; supported: json."
        ),
        "details": {"field": "format"},
    }
    unknown = api.get(f"/connect/v1/traces/{trace_id}/export?fmt=json").json()["error"]
    assert unknown["code"] == "unknown_field" and unknown["details"] == {"field": "fmt"}
    assert unknown["message"].endswith("the known ones here are: format.")


def test_cross_workspace_404_equals_missing(api, other_api, delta):
    claim = judged_claim(
        delta, "Sediment settles where the current slows.", quote="Sediment settles"
    )
    trace_id = _retrieve(api)["trace_id"]
    pairs = [
        (
            f"/connect/v1/traces/{trace_id}",
            "/connect/v1/traces/00000000-0000-4000-8000-000000000000",
        ),
        (
            f"/connect/v1/traces/{trace_id}/export?format=json",
            "/connect/v1/traces/not-a-uuid/export?format=json",
        ),
        (f"/connect/v1/claims/{claim.public_id}", "/connect/v1/claims/claim:missing000000"),
        (f"/connect/v1/sources/{delta.ref}", "/connect/v1/sources/source:missing"),
    ]
    for theirs, missing in pairs:
        a, b = other_api.get(theirs), other_api.get(missing)
        assert a.status_code == b.status_code == 404, theirs
        assert a.json() == b.json()
    # and the owner sees them
    for theirs, _ in pairs:
        assert api.get(theirs).status_code == 200, theirs


def test_purge_expired_traces(api, delta, settings):
    judged_claim(delta, "Sediment settles where the current slows.", quote="Sediment settles")
    old_id = _retrieve(api)["trace_id"]
    new_id = _retrieve(api)["trace_id"]
    Trace.objects.filter(trace_id=old_id).update(
        created_at=timezone.now() - timedelta(days=settings.SPANPROOF_TRACE_RETENTION_DAYS + 1)
    )
    Trace.objects.filter(trace_id=new_id).update(
        created_at=timezone.now() - timedelta(days=settings.SPANPROOF_TRACE_RETENTION_DAYS - 1)
    )
    assert purge_expired_traces.delay().get() == 1
    assert list(Trace.objects.values_list("trace_id", flat=True).order_by("id")) == [
        Trace.objects.get().trace_id
    ]
    assert str(Trace.objects.get().trace_id) == new_id
    assert TraceClaim.objects.filter(trace__trace_id=old_id).count() == 0
    assert purge_expired_traces() == 0  # safe to rerun


def _graph(client, **body):
    return client.post("/connect/v1/graph", body, content_type="application/json")


def _chain(workspace, delta):
    a = judged_claim(
        delta,
        "Sediment settles where the current slows.",
        quote="Sediment settles where the current slows.",
    )
    b = judged_claim(
        delta,
        "The delta gains land in wet years.",
        quote="The Marrow River delta gains land in wet years.",
    )
    c = judged_claim(
        delta,
        "Dredging starves the outer marsh of mud.",
        quote="Dredging the main channel starves the outer marsh of mud.",
    )
    x = judged_claim(
        delta, "Storm surges strip growth.", quote="Storm surges", label="abstained", confidence=0.2
    )
    ClaimRelation.objects.create(
        workspace=workspace,
        from_claim=a,
        to_claim=b,
        kind="supports",
        confidence=0.9,
        verification="accepted",
    )
    ClaimRelation.objects.create(
        workspace=workspace,
        from_claim=b,
        to_claim=c,
        kind="elaborates",
        confidence=0.7,
        verification="accepted",
    )
    ClaimRelation.objects.create(
        workspace=workspace,
        from_claim=a,
        to_claim=x,
        kind="contradicts",
        confidence=0.6,
        verification="accepted",
    )
    return a, b, c, x


def test_graph_operations(api, workspace, delta):
    a, b, c, x = _chain(workspace, delta)
    resp = _graph(
        api,
        operation="expand_context",
        claim_ids=[a.public_id],
        depth="standard",
        require_verified=True,
    )
    assert resp.status_code == 200, resp.content
    body = resp.json()
    ids = {n["id"] for n in body["nodes"]}
    assert ids == {a.public_id, b.public_id}  # x is unverified: gated, recorded
    assert all(n["envelope"]["claim"]["id"] == n["id"] for n in body["nodes"])
    assert body["edges"] == [
        {"from": a.public_id, "to": b.public_id, "type": "supports", "confidence": 0.9}
    ]
    rows = {
        r["claim_id"]: r for r in Trace.objects.get(trace_id=body["trace_id"]).document["claims"]
    }
    assert rows[x.public_id]["exclusion_reason"] == "verification_gate"

    body = _graph(api, operation="find_paths", from_ref=a.public_id, to_ref=c.public_id).json()
    assert [[e["type"] for e in p] for p in body["paths"]] == [["supports", "elaborates"]]

    body = _graph(api, operation="find_relevant_subgraph", query="sediment current").json()
    assert a.public_id in {n["id"] for n in body["nodes"]}

    body = _graph(
        api, operation="summarise_subgraph", claim_ids=[b.public_id], depth="standard"
    ).json()
    assert body["summary"]["nodes"] == 3 and body["summary"]["states"]["supported"] == 3

    body = _graph(api, operation="retrieve_context", query="sediment").json()
    assert body["context_block"]
    assert Trace.objects.count() == 5


def test_find_paths_between_entities(api, workspace, delta):
    a, _b, c, _ = _chain(workspace, delta)
    e1 = Entity.objects.create(workspace=workspace, name="Sediment", normalized_name="sediment")
    e2 = Entity.objects.create(workspace=workspace, name="Marsh", normalized_name="marsh")
    e1.claims.add(a)
    e2.claims.add(c)
    body = _graph(api, operation="find_paths", from_ref="Sediment", to_ref="marsh").json()
    assert len(body["paths"]) == 1 and len(body["paths"][0]) == 2


def test_graph_bad_input(api):
    assert _graph(api, operation="nope").status_code == 400
    r = _graph(api, operation="expand_context")
    assert r.status_code == 400 and r.json()["error"]["code"] == "claim_ids_required"
    assert r.json()["error"]["details"] == {"field": "claim_ids"}
    r = _graph(api, operation="retrieve_context")
    assert r.json()["error"]["details"] == {"field": "query"}
    # the fields named as the request spells them
    r = _graph(api, operation="find_paths", from_ref="claim:x")
    error = r.json()["error"]
    assert (error["code"], error["details"]) == ("endpoints_required", {"field": "to_ref"})
    assert "from_ref and to_ref" in error["message"]
    body = _graph(api, operation="expand_context", claim_ids=["claim:missing"]).json()
    assert body["metadata"]["retrieval_degraded_code"] == "seed_claim_not_found"
