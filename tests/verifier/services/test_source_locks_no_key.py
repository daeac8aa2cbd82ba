"""Every door that writes under a source's row lock takes it FOR NO KEY UPDATE, as
``source_claims_rebind`` does (its docstring says why): one writer of the source at a
time still, while a transaction that updated a claim of the source twice can commit (at
commit PostgreSQL checks the claim's foreign key to its source FOR KEY SHARE, which a
plain FOR UPDATE blocks: each would wait for the other). The doors, run for real, with
their statements captured."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from verifier.models import Source
from verifier.services.ingest_create import SourceUpload, ingest_job_create
from verifier.services.memory import memory_verify
from verifier.services.rag_audit import rag_audit_run
from verifier.services.sources import source_upsert

pytestmark = pytest.mark.django_db

SOURCE = f'FROM "{Source._meta.db_table}"'
TEXT = "Tarn Point Light was first lit on 3 November 1858. It was automated in 1987."
TURNS = [
    {"speaker": "user", "text": "Can you get me the report?"},
    {"speaker": "agent", "text": "I'll try to send the draft this week if nothing comes up."},
]


def _source_locks(captured: CaptureQueriesContext) -> list[str]:
    return [
        q["sql"]
        for q in captured.captured_queries
        if SOURCE in q["sql"] and ("FOR UPDATE" in q["sql"] or "FOR NO KEY UPDATE" in q["sql"])
    ]


def _assert_no_key(captured: CaptureQueriesContext) -> None:
    locks = _source_locks(captured)
    assert locks, "no source row was locked"
    plain = [sql for sql in locks if "FOR NO KEY UPDATE" not in sql]
    assert not plain, plain


def test_source_upsert_locks_the_source_no_key(workspace):
    source_upsert(workspace=workspace, ref="source:tarn", text=TEXT)
    with CaptureQueriesContext(connection) as captured:
        source_upsert(workspace=workspace, ref="source:tarn", text=TEXT + " Still lit.")
    _assert_no_key(captured)


def test_a_rag_audit_locks_its_chunks_sources_no_key(workspace):
    chunks = '{"id": "c1", "text": "Tarn Point Light was first lit on 3 November 1858."}\n'
    with CaptureQueriesContext(connection) as captured:
        rag_audit_run(
            workspace=workspace,
            answer="Tarn Point Light was first lit on 3 November 1858 [c1].",
            chunks=chunks,
        )
    _assert_no_key(captured)


def test_a_memory_check_locks_the_transcripts_source_no_key(workspace):
    message = 'I said "I\'ll try to send the draft this week if nothing comes up."'
    with CaptureQueriesContext(connection) as captured:
        memory_verify(workspace=workspace, agent="agent", message=message, transcript_data=TURNS)
    _assert_no_key(captured)


def test_extraction_locks_the_source_no_key(workspace, django_capture_on_commit_callbacks):
    with (
        CaptureQueriesContext(connection) as captured,
        django_capture_on_commit_callbacks(execute=True),
    ):
        ingest_job_create(
            workspace=workspace,
            sources=[SourceUpload(ref="source:tarn", text=TEXT)],
            extract=True,
        )
    # the extraction's own lock (``_create_missing``), beside source_upsert's
    assert len(_source_locks(captured)) >= 2
    _assert_no_key(captured)
