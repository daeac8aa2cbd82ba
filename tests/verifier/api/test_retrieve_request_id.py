"""A retrieve or graph answer's ``request_id``, in its body and its trace, is the
request's ``X-Request-ID``: the id the server's log names, so the trace and the log can be
matched (it was a separate ``req_<hex>`` before)."""

from __future__ import annotations

import re

from tests.verifier.api.conftest import judged_claim
from verifier.models import Trace
from verifier.request_id import HEADER
from verifier.services.retrieval import serve_request_id


def test_a_retrieve_answer_and_its_trace_carry_the_requests_id(api, delta) -> None:
    judged_claim(delta, "Sediment settles where the current slows.")
    resp = api.post(
        "/connect/v1/retrieve",
        {"query": "where does sediment settle?"},
        content_type="application/json",
        headers={HEADER: "client-run-7"},
    )
    assert resp.status_code == 200, resp.content
    body = resp.json()
    assert resp[HEADER] == body["request_id"] == "client-run-7"
    assert Trace.objects.get(trace_id=body["trace_id"]).document["request_id"] == "client-run-7"

    made = api.post("/connect/v1/retrieve", {"query": "sediment"}, content_type="application/json")
    assert made.json()["request_id"] == made[HEADER]


def test_a_graph_answer_carries_it_too(api, delta) -> None:
    resp = api.post(
        "/connect/v1/graph",
        {"operation": "find_relevant_subgraph", "query": "sediment current"},
        content_type="application/json",
        headers={HEADER: "graph-run-8"},
    )
    assert resp.status_code == 200, resp.content
    body = resp.json()
    assert resp[HEADER] == body["request_id"] == "graph-run-8"
    assert Trace.objects.get(trace_id=body["trace_id"]).document["request_id"] == "graph-run-8"


def test_outside_a_request_it_is_a_fresh_id() -> None:
    first, second = serve_request_id(), serve_request_id()
    assert re.fullmatch(r"req_[0-9a-f]{32}", first) and first != second
