"""GET /connect/v1/sources, and POST /connect/v1/sources adding a version: the source's
claims whose words the new version still has stay current, as ingest keeps them."""

from __future__ import annotations

import json

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.factories import make_source
from tests.verifier.api.conftest import client_for
from verifier.models import StateEvent
from verifier.services.memory import memory_transcript_import
from verifier.services.sources import source_upsert

pytestmark = pytest.mark.django_db

URL = "/connect/v1/sources"
TURNS = [
    {"speaker": "user", "text": "Can you get me the report?", "timestamp": "10:00"},
    {"speaker": "agent", "text": "I'll send the draft this week.", "timestamp": "10:01"},
]


def _post(client, url, body):
    return client.post(url, data=json.dumps(body), content_type="application/json")


@pytest.fixture
def kinds(workspace):
    """A document of each pack, a memory transcript and a RAG chunk."""
    make_source(workspace, ref="source:harbour", text="The harbour wall is 412 metres long.")
    source_upsert(
        workspace=workspace,
        ref="source:lease",
        text="The lease runs ten years.",
        title="Lease of Pier 4",
        domain_pack="legal",
    )
    memory_transcript_import(workspace=workspace, data=TURNS, ref="chat:1")
    source_upsert(
        workspace=workspace,
        ref="rag-chunk:0123456789abcdef",
        text="A retrieved chunk.",
        domain_pack="rag",
        door="rag_chunk",
    )


def _refs(response):
    assert response.status_code == 200, response.content[:300]
    return [row["ref"] for row in response.json()["results"]]


def test_the_list_is_the_workspaces_documents_newest_first(api, workspace, other_workspace, kinds):
    make_source(other_workspace, ref="source:elsewhere")
    body = api.get(URL).json()
    assert [row["ref"] for row in body["results"]] == ["source:lease", "source:harbour"]
    lease = body["results"][0]
    version = workspace.sources.get(ref="source:lease").versions.get()
    assert lease["title"] == "Lease of Pier 4" and lease["domain_pack"] == "legal"
    assert lease["kind"] == "document"
    assert lease["current_version"]["number"] == 1
    assert lease["current_version"]["sha256"] == version.sha256
    assert lease["updated_at"] == lease["current_version"]["created_at"]
    assert lease["url"] == "/connect/v1/sources/source:lease"
    assert api.get(lease["url"]).json()["text"] == "The lease runs ten years."
    assert (body["next"], body["previous"]) == (None, None)


def test_a_new_version_is_the_current_one_listed(api, workspace):
    make_source(workspace, ref="source:harbour", text="First words.")
    make_source(workspace, ref="source:harbour", text="Second words.")
    (row,) = api.get(URL).json()["results"]
    assert row["current_version"]["number"] == 2
    assert row["updated_at"] > row["created_at"]


def test_filters_by_kind_pack_and_prefix(api, kinds):
    assert _refs(api.get(URL, {"kind": "transcript"})) == ["chat:1"]
    assert _refs(api.get(URL, {"kind": "rag_chunk"})) == ["rag-chunk:0123456789abcdef"]
    assert _refs(api.get(URL, {"kind": "document"})) == ["source:lease", "source:harbour"]
    assert _refs(api.get(URL, {"domain_pack": "legal"})) == ["source:lease"]
    assert _refs(api.get(URL, {"q": "source:har"})) == ["source:harbour"]
    assert _refs(api.get(URL, {"q": "lease OF"})) == ["source:lease"]  # title, any case
    assert _refs(api.get(URL, {"q": "harbour"})) == []  # a prefix, not a substring


@pytest.mark.parametrize(("query", "field"), [("kind=bogus", "kind"), ("q=" + "x" * 201, "q")])
def test_a_bad_filter_is_a_400_naming_its_field(api, query, field):
    response = api.get(f"{URL}?{query}")
    assert response.status_code == 400, response.content[:300]
    error = response.json()["error"]
    assert (error["code"], error["details"]) == ("invalid_request", {"field": field})
    unknown = api.get(f"{URL}?colour=red").json()["error"]
    assert (unknown["code"], unknown["details"]) == ("unknown_field", {"field": "colour"})


def test_pages_follow_the_cursor_and_queries_do_not_grow(api, workspace):
    for i in range(3):
        make_source(workspace, ref=f"source:doc-{i}", text=f"Text {i}.")
    first = api.get(URL, {"page_size": 2}).json()
    assert [r["ref"] for r in first["results"]] == ["source:doc-2", "source:doc-1"]
    second = api.get(first["next"]).json()
    assert [r["ref"] for r in second["results"]] == ["source:doc-0"]
    counts = []
    for size in (1, 3):
        with CaptureQueriesContext(connection) as queries:
            assert len(api.get(URL, {"page_size": size}).json()["results"]) == size
        counts.append(len(queries.captured_queries))
    assert counts[0] == counts[1], counts


def test_filter_errors_name_their_field_on_every_list(api):
    """One shape for a refused filter value on every list (``list_filters``)."""
    for url, field in (
        ("/connect/v1/claims?state=bogus", "state"),
        ("/connect/v1/claims?job=abc", "job"),
        ("/connect/v1/calibrators?status=bogus", "status"),
        ("/connect/v1/relations?kind=x", "kind"),
        ("/connect/v1/activity?action=bogus", "action"),
    ):
        response = api.get(url)
        assert response.status_code == 400, url
        error = response.json()["error"]
        assert (error["code"], error["details"]) == ("invalid_request", {"field": field}), url
        assert error["message"].startswith(f"The query parameter '{field}' is invalid: "), url


PIER_V1 = "The pier is 300 metres long. It opened in 1901 after two years of work."
PIER_V2 = "The pier is 300 metres long. It was painted green in 2001."


def test_a_new_version_binds_the_claims_whose_words_it_still_has(
    api, django_capture_on_commit_callbacks
):
    """The document door keeps claims as ingest does (``source_claims_rebind``, in an
    ingest job it queues): an unchanged quote is bound in the new version, judged and
    scored again; a claim whose words went stays stale, for a reviewer."""
    assert _post(api, URL, {"ref": "source:pier", "text": PIER_V1}).status_code == 201
    kept, gone = "The pier is 300 metres long.", "It opened in 1901 after two years of work."
    claims = [{"text": q, "source": "source:pier", "quote": q} for q in (kept, gone)]
    rows = _post(api, "/connect/v1/claims/verify", {"claims": claims}).json()["results"]
    assert [r["state"] for r in rows] == ["supported", "supported"]

    with django_capture_on_commit_callbacks(execute=True):  # the worker runs the job
        answer = _post(api, URL, {"ref": "source:pier", "text": PIER_V2})
    assert answer.status_code == 201
    job = answer.json()["rebind_job"]
    assert job["status"] == "queued" and job["url"] == f"/connect/v1/ingest-jobs/{job['id']}"
    assert api.get(job["url"]).json()["status"] == "succeeded"
    current = api.get("/connect/v1/sources/source:pier").json()["current_version"]
    first, second = (api.get(f"/connect/v1/claims/{r['claim_id']}").json() for r in rows)
    assert (first["state"], first["reason"]) == ("supported", "entailed")
    assert first["evidence"][0]["source_hash"] == current["sha256"]
    assert (second["state"], second["reason"]) == ("unverified", "stale_source")
    causes = StateEvent.objects.filter(claim__public_id=rows[0]["claim_id"]).values_list(
        "cause", flat=True
    )
    assert any("sources API: new version v2" in c for c in causes), list(causes)


def test_a_read_key_may_list_sources_but_not_write_them(workspace):
    reader = client_for(workspace, scope="read")
    assert reader.get(URL).status_code == 200
    assert _post(reader, URL, {"ref": "source:x", "text": "T."}).status_code == 403
