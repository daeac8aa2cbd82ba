"""History is append-only in the database, whatever the app's code does.

The tests run as the owner role (it creates and flushes the test database); each
attempt here goes through a separate connection as the runtime role the app uses
(``spanproof_app``), on committed rows (``transactional_db``).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import psycopg
import pytest
from django.conf import settings
from django.db import connection

from tests.factories import make_binding, make_claim, make_source, make_workspace
from tests.verifier.pipeline.conftest import DOC_A, DOC_B
from verifier.models import EvidenceBinding, IngestStatus, SourceSentence, SourceVersion
from verifier.services.ingest_create import SourceUpload, ingest_job_create

pytestmark = pytest.mark.skipif(
    not settings.DATABASE_OWNER, reason="no owner/runtime role split configured"
)


@pytest.fixture
def history(transactional_db):
    source = make_source(make_workspace("hist"), text="Salt marsh grasses trap silt at high tide.")
    claim = make_claim(source, text="Marsh grasses trap silt.")
    binding = make_binding(claim, "grasses trap silt")
    bare = make_source(source.workspace, text="A version nothing is bound to.")
    return binding, bare.versions.get()


BYPASSES = {
    "update_quote": "UPDATE verifier_evidencebinding SET quote = 'forged' WHERE id = {binding}",
    "update_start": "UPDATE verifier_evidencebinding SET start = start + 1 WHERE id = {binding}",
    "update_end": 'UPDATE verifier_evidencebinding SET "end" = "end" - 1 WHERE id = {binding}',
    "update_source_hash": (
        "UPDATE verifier_evidencebinding SET source_hash = repeat('0', 64) WHERE id = {binding}"
    ),
    "update_quote_and_is_active": (
        "UPDATE verifier_evidencebinding SET quote = 'x', is_active = false WHERE id = {binding}"
    ),
    "delete_binding": "DELETE FROM verifier_evidencebinding WHERE id = {binding}",
    "delete_unbound_version": "DELETE FROM verifier_sourceversion WHERE id = {version}",
    "truncate_bindings": "TRUNCATE verifier_evidencebinding CASCADE",
    "truncate_verdicts": "TRUNCATE verifier_verdict CASCADE",
    "disable_trigger": (
        "ALTER TABLE verifier_evidencebinding DISABLE TRIGGER verifier_evidencebinding_append_only"
    ),
    "disable_all_triggers": "ALTER TABLE verifier_sourceversion DISABLE TRIGGER ALL",
    "drop_trigger": (
        "DROP TRIGGER verifier_evidencebinding_append_only ON verifier_evidencebinding"
    ),
    "drop_function": "DROP FUNCTION spanproof_evidencebinding_guard() CASCADE",
    "replication_role": "SET session_replication_role = replica",
    "set_role_owner": "SET ROLE spanproof_owner",
}


@pytest.mark.parametrize("name", sorted(BYPASSES))
def test_runtime_role_cannot_rewrite_history(name, history, runtime):
    binding, version = history
    sql = BYPASSES[name].format(binding=binding.pk, version=version.pk)
    with pytest.raises(psycopg.Error):
        runtime.execute(sql)
    binding_row = EvidenceBinding.objects.get(pk=binding.pk)
    assert (binding_row.quote, binding_row.start, binding_row.end, binding_row.source_hash) == (
        binding.quote,
        binding.start,
        binding.end,
        binding.source_hash,
    )
    assert binding_row.is_active
    assert SourceVersion.objects.filter(pk=version.pk).exists()
    assert runtime.execute("SHOW session_replication_role").fetchone() == ("origin",)


def test_the_owner_cannot_rewrite_bindings_either(history):
    """The triggers bind every role but a superuser, the owner included."""
    binding, version = history
    from django.db import IntegrityError, transaction

    with pytest.raises(IntegrityError), transaction.atomic():
        EvidenceBinding.objects.filter(pk=binding.pk).update(quote="forged")
    with pytest.raises(IntegrityError), transaction.atomic():
        EvidenceBinding.objects.filter(pk=binding.pk).delete()
    with pytest.raises(IntegrityError), transaction.atomic():
        SourceVersion.objects.filter(pk=version.pk).delete()


def test_runtime_role_may_deactivate_a_binding(history, runtime):
    binding, _ = history
    runtime.execute(
        "UPDATE verifier_evidencebinding SET is_active = false WHERE id = %s", [binding.pk]
    )
    assert not EvidenceBinding.objects.get(pk=binding.pk).is_active


@contextmanager
def _as_runtime_role() -> Iterator[None]:
    saved = {key: connection.settings_dict.get(key) for key in ("USER", "PASSWORD")}
    connection.close()
    connection.settings_dict["USER"] = settings.DATABASE_RUNTIME_USER
    connection.settings_dict["PASSWORD"] = settings.DATABASES["default"].get("PASSWORD", "")
    try:
        yield
    finally:
        connection.close()
        connection.settings_dict.update(saved)


def test_runtime_role_runs_a_whole_ingest_job(transactional_db):
    """Everything the pipeline does (binary COPY into a temporary table, ANALYZE through
    ``spanproof_analyze``, advisory locks, rebinding) works without owning a table."""
    workspace = make_workspace("runtime")
    with _as_runtime_role():
        assert connection.cursor().execute("SELECT current_user").fetchone() == (
            settings.DATABASE_RUNTIME_USER,
        )
        job = ingest_job_create(
            workspace=workspace,
            sources=[
                SourceUpload(ref="source:a", text=DOC_A, title="a"),
                SourceUpload(ref="source:b", text=DOC_B, title="b"),
            ],
        )
        job.refresh_from_db()
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT relname, last_analyze FROM pg_stat_user_tables "
                "WHERE relname IN ('verifier_claim', 'verifier_sourcesentence')"
            )
            analyzed = dict(cursor.fetchall())
    assert job.status == IngestStatus.SUCCEEDED, job.errors
    assert job.errors == []
    assert analyzed["verifier_claim"] is not None
    # the store stage's sentence index (COPY, INSERT, ANALYZE) needs no more rights
    assert analyzed["verifier_sourcesentence"] is not None
    assert SourceSentence.objects.filter(workspace=workspace).count() == 7  # 4 + 3 sentences
