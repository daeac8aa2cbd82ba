"""Every door writes one trace (issue 39, point 5): /worker/verify, claims/verify (inline
and as a job), RAG audits and memory checks each record what was asked, the claims and
spans they used, the judge that decided and the time of each step; the Traces page shows
the steps as a tree with their times. (``POST /connect/v1/retrieve`` writes its own, as
before: tests/verifier/api/test_retrieve.py.)"""

from __future__ import annotations

import json
import re

import pytest
from django.test import TestCase

from tests.verifier.api.conftest import client_for, judged_claim
from verifier.models import Claim, Trace

pytestmark = pytest.mark.django_db

TURNS = [
    {"speaker": "user", "text": "Can you get me the report?"},
    {"speaker": "agent", "text": "I'll try to send the draft this week if nothing comes up."},
]


@pytest.fixture
def corpus(workspace, delta):
    judged_claim(
        delta,
        "Sediment settles where the current slows.",
        quote="Sediment settles where the current slows.",
    )
    return workspace


def _post(client, url: str, body: dict):
    with TestCase.captureOnCommitCallbacks(execute=True):
        return client.post(url, json.dumps(body), content_type="application/json")


def _steps(nodes: list[dict]) -> list[tuple[int, str, float]]:
    """(depth, name, ms) of every step of a stored tree."""
    out = []

    def walk(items, depth):
        for node in items:
            out.append((depth, node["name"], node["ms"]))
            walk(node.get("steps", []), depth + 1)

    walk(nodes, 0)
    return out


def _one_trace(operation: str) -> Trace:
    (trace,) = Trace.objects.filter(operation=operation)
    document = trace.document
    assert document["operation"] == operation and document["query"]
    assert document["judge"]["model"]
    steps = _steps(document["steps"])
    assert steps and all(isinstance(ms, float) and ms >= 0 for _, _, ms in steps)
    assert document["timing"]["total_ms"] >= max(ms for _, _, ms in steps)
    return trace


def test_worker_verify_writes_one_trace(corpus):
    response = _post(
        client_for(corpus),
        "/worker/verify",
        {"job_id": "j1", "claim": "Sediment settles where the current slows."},
    )
    assert response.status_code == 200, response.content
    trace = _one_trace("worker_verify")
    assert response.json()["trace_id"] == str(trace.trace_id)
    document = trace.document
    names = [name for _, name, _ in _steps(document["steps"])]
    # seed 001: the cache is checked only after judging, when adaptive trust is sufficient
    assert names[:3] == ["retrieve_and_rank", "judge", "cache_precheck"]
    assert "store_claim" in names
    roles = {c["role"] for c in document["claims"]}
    assert roles == {"verified", "evidence"}
    assert document["spans"] and document["spans"][0]["quote"]
    assert trace.considered.count() == len(document["claims"])


def test_claims_verify_inline_writes_one_trace_with_the_bound_spans(api, delta):
    body = {
        "claims": [
            {"text": "Sediment settles where the current slows.", "source": delta.ref},
            {"text": "Anything.", "source": "source:nowhere"},
        ]
    }
    assert _post(api, "/connect/v1/claims/verify", body).status_code == 200
    trace = _one_trace("claims_verify")
    document = trace.document
    (claim,) = document["claims"]
    assert claim["role"] == "verified" and claim["verification_state"] == "supported"
    assert document["spans"][0]["claim_id"] == claim["claim_id"]
    assert document["spans"][0]["quote"] == "Sediment settles where the current slows."
    assert document["result"]["errors"][0]["code"] == "unknown_source"
    tree = _steps(document["steps"])
    assert (0, "submit") in [(d, n) for d, n, _ in tree]
    assert [(d, n) for d, n, _ in tree if d == 1][:3] == [(1, "embed"), (1, "bind"), (1, "judge")]


def test_the_console_verify_job_writes_one_trace(reviewer_client, delta):
    response = reviewer_client.post(
        "/verify/",
        {"claims": json.dumps({"text": "Salt marsh grasses trap silt.", "source": delta.ref})},
    )
    assert response.status_code == 302
    trace = _one_trace("claims_verify")
    assert trace.document["result"]["status"] == "succeeded"
    assert [n for d, n, _ in _steps(trace.document["steps"]) if d == 0] == ["chunk 1"]


def test_rag_audit_writes_one_trace(api):
    chunks = [{"id": "c1", "text": "HNSW builds a proximity graph over the vectors."}]
    body = {"answer": "HNSW builds a proximity graph.", "chunks": chunks}
    assert _post(api, "/connect/v1/rag/audit", body).status_code == 200
    trace = _one_trace("rag_audit")
    names = [n for d, n, _ in _steps(trace.document["steps"]) if d == 0]
    assert names == ["parse", "audit", "store"]
    assert trace.document["claims"] and trace.document["spans"]
    assert trace.document["result"]["verdict"]


def test_memory_check_writes_one_trace(api):
    body = {
        "agent": "agent",
        "message": 'I said "I\'ll try to send the draft this week if nothing comes up."',
        "transcript": TURNS,
    }
    assert _post(api, "/connect/v1/memory/verify", body).status_code == 200
    trace = _one_trace("memory_verify")
    names = [n for d, n, _ in _steps(trace.document["steps"]) if d == 0]
    assert names == ["import_transcript", "verify", "store"]
    (check,) = trace.document["result"]["checks"]
    assert check["outcome"] == "supported:exact" and check["claim_id"]
    assert trace.document["spans"][0]["claim_id"] == check["claim_id"]


def test_the_traces_page_shows_each_door_with_its_steps_as_a_tree(api, auditor_client, delta):
    body = {"claims": [{"text": "Sediment settles where the current slows.", "source": delta.ref}]}
    _post(api, "/connect/v1/claims/verify", body)
    trace = Trace.objects.get()
    listing = auditor_client.get("/audit/traces/").content.decode()
    assert f"/audit/traces/{trace.trace_id}/" in listing and "Claims verified" in listing
    html = auditor_client.get(f"/audit/traces/{trace.trace_id}/").content.decode()
    tree = html[html.index('id="trace-steps"') :]
    tree = tree[: tree.index("</section>")]
    # The top-level steps, and the verify step's children nested inside it.
    # (each step by its label, its recorded name beside it)
    assert re.search(
        r">Record the claims</span> <code[^>]*>submit</code> "
        r'<span class="step-ms">[\d.]+ (?:ms|s|min)',
        tree,
    )
    verify = tree[tree.index('step-code">verify</code>') :]
    assert verify.index('<ol class="trace-steps">') < verify.index('step-code">bind</code>')
    assert 'id="trace-judge"' in html and 'id="trace-spans"' in html
    claim = Claim.objects.get(origin="api")
    assert claim.public_id in html


def test_a_retrieve_trace_shows_its_timed_steps_too(api, auditor_client, corpus):
    response = api.post(
        "/connect/v1/retrieve",
        json.dumps({"query": "sediment settles"}),
        content_type="application/json",
    )
    trace_id = response.json()["trace_id"]
    html = auditor_client.get(f"/audit/traces/{trace_id}/").content.decode()
    tree = html[html.index('id="trace-steps"') :]
    assert re.search(
        r">Embed the query</span> <code[^>]*>embedding</code> "
        r'<span class="step-ms">[\d.]+ (?:ms|s|min)',
        tree,
    )


def test_a_worker_verify_trace_page_shows_each_steps_detail(corpus, auditor_client):
    """The judge step records how many items it judged as ``{"items": n}``: the page
    shows it as such (a template once read ``detail.items`` as that key and failed)."""
    response = _post(
        client_for(corpus),
        "/worker/verify",
        {"job_id": "j1", "claim": "Sediment settles where the current slows."},
    )
    trace_id = response.json()["trace_id"]
    judge = next(s for s in Trace.objects.get().document["steps"] if s["name"] == "judge")
    assert isinstance(judge["detail"]["items"], int)
    page = auditor_client.get(f"/audit/traces/{trace_id}/")
    assert page.status_code == 200
    tree = page.content.decode()
    tree = tree[tree.index('id="trace-steps"') :]
    items = judge["detail"]["items"]
    assert re.search(
        rf'<small class="muted step-detail"><span[^>]*>Items judged</span>: {items}<', tree
    )
