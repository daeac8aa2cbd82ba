"""The /audit/rag/ console: paste or upload, then the claims and their evidence."""

from __future__ import annotations

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from tests.factories import make_workspace
from verifier.models import RagAudit
from verifier.services.rag_audit import rag_audit_run

C1 = "HNSW builds a hierarchical proximity graph; recall ~99% with low latency but RAM-heavy."
EVIL = "<script>alert(1)</script> IVF partitions vectors into Voronoi cells."
CHUNKS = "".join(json.dumps({"id": i, "text": t}) + "\n" for i, t in (("c1", C1), ("c2", EVIL)))
ANSWER = "HNSW is RAM-heavy [c1]. IVF partitions vectors into Voronoi cells <b>fast</b> [c2]."


@pytest.mark.django_db
def test_index_shows_the_form(reviewer_client):
    # an auditor reads the audits without the form: tests/console/test_read_only_forms.py
    response = reviewer_client.get("/audit/rag/")
    assert response.status_code == 200
    assert b'name="chunks"' in response.content and b'name="answer_file"' in response.content


@pytest.mark.django_db
def test_paste_runs_stores_and_redirects(reviewer_client, workspace):
    response = reviewer_client.post("/audit/rag/", {"answer": ANSWER, "chunks": CHUNKS})
    audit = RagAudit.objects.get(workspace=workspace)
    assert response.status_code == 302
    assert response["Location"] == f"/audit/rag/{audit.pk}/"


@pytest.mark.django_db
def test_upload_files(reviewer_client, workspace):
    response = reviewer_client.post(
        "/audit/rag/",
        {
            "answer_file": SimpleUploadedFile("a.txt", ANSWER.encode()),
            "chunks_file": SimpleUploadedFile("c.jsonl", CHUNKS.encode()),
        },
    )
    assert response.status_code == 302
    assert RagAudit.objects.get(workspace=workspace).answer == ANSWER


@pytest.mark.django_db
def test_bad_input_is_a_form_error(reviewer_client, workspace):
    response = reviewer_client.post(
        "/audit/rag/", {"answer": ANSWER, "chunks": CHUNKS + '{"id": "c3"\n'}
    )
    assert response.status_code == 400
    assert b"chunks line 3 is not valid JSON" in response.content
    assert not RagAudit.objects.filter(workspace=workspace).exists()


@pytest.mark.django_db
def test_detail_highlights_claims_and_evidence_escaped(auditor_client, workspace):
    write = rag_audit_run(workspace=workspace, answer=ANSWER, chunks=CHUNKS)
    url = f"/audit/rag/{write.audit.pk}/"
    response = auditor_client.get(url)
    html = response.content.decode()
    assert response.status_code == 200
    assert '<mark class="span rag-supported" data-claim="0">' in html
    assert "&lt;b&gt;fast&lt;/b&gt;" in html and "<b>fast</b>" not in html
    claim_url = f"/audit/rag/{write.audit.pk}/claims/1/"
    assert f'href="{claim_url}" hx-get="{claim_url}"' in html

    partial = auditor_client.get(claim_url, headers={"HX-Request": "true"})
    body = partial.content.decode()
    assert partial.status_code == 200 and "<html" not in body
    assert "&lt;script&gt;" in body and "<script>alert" not in body
    assert '<mark class="span">' in body

    full = auditor_client.get(claim_url)
    assert "<html" in full.content.decode()


@pytest.mark.django_db
def test_other_workspace_audit_is_404(auditor_client):
    other = make_workspace("globex")
    write = rag_audit_run(workspace=other, answer=ANSWER, chunks=CHUNKS)
    assert auditor_client.get(f"/audit/rag/{write.audit.pk}/").status_code == 404
    assert auditor_client.get("/audit/rag/999999/").status_code == 404


@pytest.mark.django_db
def test_needs_login(client):
    assert client.get("/audit/rag/").status_code == 302


@pytest.mark.django_db
def test_a_claim_the_answer_does_not_have_is_404_and_the_origin_reads_as_a_label(
    auditor_client, workspace
):
    write = rag_audit_run(workspace=workspace, answer=ANSWER, chunks=CHUNKS)
    html = auditor_client.get(f"/audit/rag/{write.audit.pk}/").content.decode()
    assert "rag_answer" not in html and "Stored as claims of origin “RAG answer”" in html
    assert auditor_client.get(f"/audit/rag/{write.audit.pk}/claims/1/").status_code == 200
    for missing in (2, 99999):
        url = f"/audit/rag/{write.audit.pk}/claims/{missing}/"
        assert auditor_client.get(url).status_code == 404
        assert auditor_client.get(url, headers={"HX-Request": "true"}).status_code == 404


@pytest.mark.django_db
def test_detail_names_the_citations_of_missing_chunks(auditor_client, workspace):
    write = rag_audit_run(workspace=workspace, answer="HNSW is RAM-heavy [c9].", chunks=CHUNKS)
    text = auditor_client.get(f"/audit/rag/{write.audit.pk}/").content.decode()
    assert 'id="rag-unknown-citations"' in text
    assert "Cites chunk that was not given: c9." in text


@pytest.mark.django_db
def test_a_numeric_chunk_id_is_a_form_error(reviewer_client, workspace):
    chunks = json.dumps([{"id": 2, "text": C1}])
    response = reviewer_client.post("/audit/rag/", {"answer": ANSWER, "chunks": chunks})
    assert response.status_code == 400
    assert "chunks[0]: \u201cid\u201d must be a string, not a number." in response.content.decode()
    assert not RagAudit.objects.filter(workspace=workspace).exists()
