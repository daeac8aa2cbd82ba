from __future__ import annotations

import io

import pytest
from django.core.management import CommandError, call_command

from tests.verifier.pipeline.conftest import DOC_A, DOC_B
from verifier.models import Claim, IngestJob


@pytest.mark.django_db(transaction=True)
def test_ingest_command_runs_a_job_with_a_progress_bar(tmp_path, settings):
    from tests.factories import make_workspace

    make_workspace("cli")
    (tmp_path / "delta.txt").write_text(DOC_A)
    (tmp_path / "harbour.md").write_text(DOC_B)
    out, err = io.StringIO(), io.StringIO()
    call_command("ingest", str(tmp_path), "--workspace", "cli", stdout=out, stderr=err)
    job = IngestJob.objects.get()
    assert job.status == "succeeded"
    assert "succeeded: 7 claims" in out.getvalue()
    assert "100.0%" in err.getvalue() and "[" in err.getvalue()
    assert Claim.objects.filter(ingest_job=job, published=True).count() == 7


@pytest.mark.django_db(transaction=True)
def test_the_summary_counts_one_claim_as_one_claim(tmp_path):
    """It read "succeeded: 1 claims"."""
    from tests.factories import make_workspace

    make_workspace("one")
    (tmp_path / "light.md").write_text("The Tarn Point light was automated in 1987.\n")
    out = io.StringIO()
    call_command("ingest", str(tmp_path), "--workspace", "one", stdout=out, stderr=io.StringIO())
    assert Claim.objects.filter(published=True).count() == 1
    assert "succeeded: 1 claim, " in out.getvalue()


def test_ingest_command_rejects_a_missing_workspace(db, tmp_path):
    with pytest.raises(CommandError):
        call_command("ingest", str(tmp_path), "--workspace", "nope")


@pytest.mark.django_db
def test_a_file_over_the_source_limit_is_refused_naming_it(tmp_path, settings):
    """The command line had no limit: a text over the one every other door refuses was
    stored. The rule is the source writer's now, for every door."""
    from tests.factories import make_workspace
    from verifier.models import Source

    settings.SOURCE_TEXT_MAX_CHARS = 60
    make_workspace("big")
    (tmp_path / "long.txt").write_text("The Tarn Point light was automated in 1987. " * 3)
    with pytest.raises(CommandError, match="at most 60 characters"):
        call_command("ingest", str(tmp_path), "--workspace", "big", stdout=io.StringIO())
    assert not Source.objects.exists() and not IngestJob.objects.exists()
