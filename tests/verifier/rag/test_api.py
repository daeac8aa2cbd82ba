"""POST /connect/v1/rag/audit against the real database, binder and judge."""

from __future__ import annotations

import json

import pytest

from tests.verifier.api.conftest import client_for
from verifier.models import Claim, RagAudit, Source, Verdict
from verifier.rag import MAX_ANSWER_CHARS

URL = "/connect/v1/rag/audit"
C1 = "HNSW builds a hierarchical proximity graph; recall ~99% with low latency but RAM-heavy."
C2 = "IVF partitions vectors into Voronoi cells; only nprobe lists are scanned per query."
CHUNKS = "".join(json.dumps({"id": i, "text": t}) + "\n" for i, t in (("c1", C1), ("c2", C2)))


def post(client, body):
    return client.post(URL, data=json.dumps(body), content_type="application/json")


@pytest.fixture
def api(workspace):
    return client_for(workspace)


@pytest.mark.django_db
def test_audit_is_returned_and_stored(api, workspace):
    answer = (
        "HNSW delivers ~99% recall at low latency [c1]. "
        "HNSW always outperforms IVF in every benchmark [c2]."
    )
    response = post(api, {"answer": answer, "chunks": CHUNKS})
    assert response.status_code == 200, response.content
    body = response.json()
    assert set(body) == {
        "claims",
        "unsupported",
        "unknown_citations",
        "verdict",
        "suggested_fix",
        "trace_id",
    }
    assert body["verdict"] == "unfaithful" and body["unknown_citations"] == []
    # the call's trace, as the worker and retrieval name theirs
    trace = api.get(f"/connect/v1/traces/{body['trace_id']}")
    assert trace.status_code == 200 and trace.json()["operation"] == "rag_audit"
    assert [c["verdict"] for c in body["claims"]] == ["supported", "unsupported"]
    assert body["claims"][0]["supported_by"] == ["c1"]
    assert body["claims"][0]["evidence"][0] == {
        "chunk_id": "c1",
        "quote": C1,
        "start": 0,
        "end": len(C1),
        "match": "exact",
    }
    assert body["unsupported"] == ["HNSW always outperforms IVF in every benchmark"]

    audit = RagAudit.objects.get(workspace=workspace)
    assert response["Location"] == f"/audit/rag/{audit.pk}/"
    assert audit.verdict == "unfaithful"
    assert audit.result == {k: v for k, v in body.items() if k != "trace_id"}
    claims = list(audit.claims.order_by("id"))
    assert [c.origin for c in claims] == ["rag_answer", "rag_answer"]
    assert [c.original_text for c in claims] == [c["span"] for c in body["claims"]]
    supported, flagged = claims
    assert supported.state == "supported" and supported.source.title == "RAG chunk c1"
    binding = supported.bindings.get(is_active=True)
    assert binding.quote == C1 and binding.source_version.text == C1
    assert flagged.state != "supported" and flagged.flagged
    assert Verdict.objects.filter(claim__in=claims).count() == 2
    assert Source.objects.filter(workspace=workspace, ref__startswith="rag-chunk:").count() == 2


@pytest.mark.django_db
def test_same_chunks_twice_reuse_their_sources(api, workspace):
    body = {"answer": "HNSW delivers ~99% recall at low latency [c1].", "chunks": CHUNKS}
    assert post(api, body).status_code == 200
    assert post(api, body).status_code == 200
    assert Source.objects.filter(workspace=workspace).count() == 2
    # and the claim too (test_the_same_answer_audited_again_finds_its_claims)
    assert Claim.objects.filter(workspace=workspace, origin="rag_answer").count() == 1


@pytest.mark.django_db
def test_array_chunks_are_accepted(api):
    chunks = [{"id": "c1", "text": C1}]
    response = post(api, {"answer": "HNSW is RAM-heavy [c1].", "chunks": chunks})
    assert response.status_code == 200
    assert response.json()["verdict"] == "faithful"


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("body", "code", "says"),
    [
        (
            {"answer": "x [c1].", "chunks": CHUNKS + '{"id": "c3", "text": \n'},
            "malformed_jsonl",
            "line 3",
        ),
        (
            {"answer": "x [c1].", "chunks": CHUNKS + json.dumps({"id": "c1", "text": "y"})},
            "duplicate_chunk_id",
            "'c1'",
        ),
        ({"answer": "  ", "chunks": CHUNKS}, "empty_answer", "empty"),
        (
            {"answer": "a" * (MAX_ANSWER_CHARS + 1), "chunks": CHUNKS},
            "payload_too_large",
            "at most",
        ),
        ({"answer": "x", "chunks": ""}, "no_chunks", "empty"),
        ({"answer": "x", "chunks": {"id": "c1"}}, "invalid_request", "invalid"),
        ({"chunks": CHUNKS}, "invalid_request", "invalid"),
    ],
)
def test_bad_input_is_a_400_with_a_clear_error(api, workspace, body, code, says):
    response = post(api, body)
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == code
    assert says in error["message"]
    assert not RagAudit.objects.filter(workspace=workspace).exists()


@pytest.mark.django_db
def test_body_over_the_upload_limit_is_a_json_400(api, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
    response = post(api, {"answer": "x" * 2000, "chunks": CHUNKS})
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "payload_too_large"


@pytest.mark.django_db
def test_needs_an_api_key(client):
    response = client.post(URL, data="{}", content_type="application/json")
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "not_authenticated"


def test_a_chunk_id_with_a_bidi_override_is_the_chunks_problem(api, workspace):
    body = {
        "answer": "HNSW builds a graph [c1].",
        "chunks": [{"id": "c\u202e1", "text": "HNSW builds a proximity graph."}],
    }
    response = post(api, body)
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "invalid_chunk" and "title" not in error["message"]
    assert error["details"] == {"index": 0, "field": "chunks[0].id"}
    assert not RagAudit.objects.exists() and not Source.objects.exists()


@pytest.mark.django_db
def test_a_claim_no_chunk_backs_waits_for_want_of_evidence(api, workspace):
    """Nothing bound, no judge asked: the stored claim reads "No evidence found", not
    "Judge undecided" (states walk, M6)."""
    answer = "HNSW builds a proximity graph [c1]. Quantum annealers sort penguins by height [c2]."
    body = post(api, {"answer": answer, "chunks": CHUNKS}).json()
    assert body["claims"][1]["verdict"] == "unsupported"
    claim = RagAudit.objects.get(workspace=workspace).claims.order_by("id").last()
    assert not claim.bindings.exists()
    assert (claim.state, claim.state_reason) == ("unverified", "no_evidence")


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("chunks", "field", "kind"),
    [
        ([{"id": 2, "text": C1}], "chunks[0].id", "a number"),
        ([{"id": "c1", "text": C1}, {"id": 2, "text": C2}], "chunks[1].id", "a number"),
        ('{"id": 2, "text": "HNSW builds a graph."}\n', "chunks line 1.id", "a number"),
        ([{"id": None, "text": C1}], "chunks[0].id", ""),
    ],
)
def test_a_chunk_id_that_is_not_a_string_is_a_400_naming_it(api, workspace, chunks, field, kind):
    """A chunk id sent as the JSON number 2 was read as "2"; a numeric text was refused.
    Both are refused now, naming the field, and nothing is stored."""
    response = post(api, {"answer": "HNSW builds a graph [2].", "chunks": chunks})
    assert response.status_code == 400, response.content
    error = response.json()["error"]
    assert error["code"] == "invalid_chunk" and error["details"]["field"] == field
    assert f"not {kind}" in error["message"] if kind else "string `id`" in error["message"]
    assert not RagAudit.objects.exists() and not Source.objects.exists()


@pytest.mark.django_db
def test_a_citation_of_a_missing_chunk_is_listed_and_never_faithful(api, workspace):
    answer = "HNSW is RAM-heavy [c1, c9]. IVF partitions vectors into Voronoi cells [c7]."
    response = post(api, {"answer": answer, "chunks": CHUNKS})
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["unknown_citations"] == ["c9", "c7"]
    assert body["verdict"] == "partial"
    assert [(c["verdict"], c["supported_by"]) for c in body["claims"]] == [
        ("partial", ["c1"]),
        ("partial", ["c2"]),
    ]
    assert "c9, which is not among the chunks" in body["claims"][0]["note"]
    # the fix keeps both claims, cited to the chunks that back them
    assert body["suggested_fix"].startswith("HNSW is RAM-heavy [c1].")
    assert "[c2]" in body["suggested_fix"] and "Drop" not in body["suggested_fix"]
    assert RagAudit.objects.get(workspace=workspace).verdict == "partial"


@pytest.mark.django_db
def test_a_closing_question_is_not_audited(api, workspace):
    answer = "HNSW is RAM-heavy [c1]. Would you like to know more about IVF?"
    body = post(api, {"answer": answer, "chunks": CHUNKS}).json()
    assert body["verdict"] == "faithful" and body["unsupported"] == []
    assert [c["span"] for c in body["claims"]] == ["HNSW is RAM-heavy"]
    stored = RagAudit.objects.get(workspace=workspace).claims.values_list("text", flat=True)
    assert list(stored) == ["HNSW is RAM-heavy"]


@pytest.mark.django_db
def test_the_same_answer_audited_again_finds_its_claims(api, workspace):
    """Three identical audits stored three sets of claims (integrator walk)."""
    answer = "HNSW delivers ~99% recall at low latency [c1]. IVF scans every list [c2]."
    first = post(api, {"answer": answer, "chunks": CHUNKS}).json()
    again = post(api, {"answer": answer, "chunks": CHUNKS}).json()
    assert first["verdict"] == again["verdict"]
    assert Claim.objects.filter(workspace=workspace, origin="rag_answer").count() == len(
        first["claims"]
    )
    assert RagAudit.objects.filter(workspace=workspace).count() == 2
    first_audit, second_audit = RagAudit.objects.filter(workspace=workspace).order_by("pk")
    assert set(first_audit.claims.values_list("pk", flat=True)) == set(
        second_audit.claims.values_list("pk", flat=True)
    )
