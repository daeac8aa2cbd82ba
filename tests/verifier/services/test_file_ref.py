"""One rule names a file as a source at every door: the Ingest page, an API upload with
a title and no ref, ``manage.py ingest`` and ``verify_claims --source-dir`` all store
``Harbour Report.md`` as ``source:harbour_report.md`` (``file_ref``). The commands used to
store it as ``source:harbour report`` (the name without its extension): a file stored
that way, and never under the new ref, keeps its ref, so ingesting it again anywhere is
a new version of it, not a second source."""

from __future__ import annotations

import pytest

from tests.factories import make_workspace
from verifier.management.commands.ingest import _upload
from verifier.models import Source
from verifier.services.ingest_create import (
    SourceUpload,
    file_ref,
    ingest_job_create,
    legacy_file_ref,
)
from verifier.services.sources import source_upsert

pytestmark = pytest.mark.django_db

TEXT = "The harbour wall is 412 metres long. It was finished in 1911."


def test_the_rule() -> None:
    workspace = make_workspace()
    assert file_ref(workspace=workspace, name="Harbour Report.md") == "source:harbour_report.md"
    assert legacy_file_ref("Harbour Report.md") == "source:harbour report"


def test_a_legacy_ref_is_kept_only_while_the_new_one_is_unused() -> None:
    workspace = make_workspace()
    source_upsert(workspace=workspace, ref="source:harbour report", text=TEXT)
    assert file_ref(workspace=workspace, name="Harbour Report.md") == "source:harbour report"
    source_upsert(workspace=workspace, ref="source:harbour_report.md", text=TEXT)
    assert file_ref(workspace=workspace, name="Harbour Report.md") == "source:harbour_report.md"
    # another workspace's sources are not this one's
    assert file_ref(workspace=make_workspace(), name="Harbour Report.md") == (
        "source:harbour_report.md"
    )


def test_the_ingest_command_names_a_file_as_the_ingest_page_does(tmp_path) -> None:
    """``manage.py ingest`` hands each file over by its name, as the Ingest page does, so
    the command's upload and the page's of one file are one source."""
    workspace = make_workspace()
    path = tmp_path / "Harbour Report.md"
    path.write_text(TEXT, encoding="utf-8")
    ingest_job_create(workspace=workspace, sources=[_upload(path, "")], start=False)
    ingest_job_create(
        workspace=workspace,
        sources=[SourceUpload(text=TEXT + " Later.", title="Harbour Report.md")],
        start=False,
    )
    refs = list(Source.objects.filter(workspace=workspace).values_list("ref", flat=True))
    assert refs == ["source:harbour_report.md"]
    assert Source.objects.get(workspace=workspace).versions.count() == 2


def test_an_upload_of_a_file_the_commands_stored_before_is_a_new_version_of_it() -> None:
    workspace = make_workspace()
    old = source_upsert(workspace=workspace, ref="source:harbour report", text=TEXT).source
    ingest_job_create(
        workspace=workspace,
        sources=[SourceUpload(text=TEXT + " Later.", title="Harbour Report.md")],
        start=False,
    )
    assert list(Source.objects.filter(workspace=workspace).values_list("ref", flat=True)) == [
        "source:harbour report"
    ]
    assert old.versions.count() == 2
