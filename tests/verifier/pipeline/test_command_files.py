"""``manage.py ingest`` with files an operator really has: each that cannot be a source
is one line naming it (a ``CommandError``: non-zero exit, no traceback) and nothing is
stored; UTF-16 with a byte-order mark is read; a job that does not succeed exits
non-zero."""

from __future__ import annotations

import io

import pytest
from django.core.management import CommandError, call_command

from tests.verifier.pipeline.conftest import DOC_A
from verifier.models import IngestJob, Source


def _ingest(*args: str) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    call_command("ingest", *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


@pytest.mark.parametrize(
    ("name", "data", "words"),
    [
        ("latin1.txt", "Café au lait.".encode("latin-1"), "is not UTF-8 text"),
        ("binary.txt", bytes(range(128, 256)) * 40, "is not UTF-8 text"),
        ("empty.txt", b"", "is empty"),
        ("blank.md", b"  \r\n\n ", "is empty"),
        ("nul.txt", b"one\x00two", "contains a NUL character"),
    ],
)
def test_a_file_that_cannot_be_a_source_is_one_line_naming_it(
    workspace, tmp_path, name, data, words
):
    (tmp_path / "good.txt").write_text(DOC_A)
    (tmp_path / name).write_bytes(data)
    with pytest.raises(CommandError, match=words) as refused:
        _ingest(str(tmp_path), "--workspace", workspace.slug)
    assert name in str(refused.value) and "\n" not in str(refused.value)
    assert not IngestJob.objects.exists() and not Source.objects.exists()


def test_two_files_under_one_ref_are_refused_naming_both_paths(workspace, tmp_path):
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "same.txt").write_text(DOC_A)
    with pytest.raises(CommandError) as refused:
        _ingest(str(tmp_path / "a"), str(tmp_path / "b"), "--workspace", workspace.slug)
    message = str(refused.value)
    assert str(tmp_path / "a" / "same.txt") in message
    assert str(tmp_path / "b" / "same.txt") in message
    assert not IngestJob.objects.exists()


def test_a_folder_with_no_text_file_says_so(workspace, tmp_path):
    (tmp_path / "picture.png").write_bytes(b"\x89PNG")
    with pytest.raises(CommandError, match="nothing to ingest"):
        _ingest(str(tmp_path), "--workspace", workspace.slug)


@pytest.mark.django_db(transaction=True)
def test_utf16_with_a_byte_order_mark_and_crlf_are_read(tmp_path):
    from tests.factories import make_workspace

    make_workspace("cli")
    (tmp_path / "utf16.txt").write_bytes(DOC_A.encode("utf-16"))
    (tmp_path / "crlf.txt").write_bytes(b"The pier opened in 1905.\r\nIt closed in 1960.\r\n")
    out, _ = _ingest(str(tmp_path), "--workspace", "cli")
    assert "succeeded" in out
    assert Source.objects.get(ref="source:utf16.txt").versions.get().text == DOC_A
    assert "\r\n" in Source.objects.get(ref="source:crlf.txt").versions.get().text


def test_more_files_than_a_job_takes_is_one_line_before_any_is_read(workspace, tmp_path):
    from verifier.services.ingest_create import MAX_SOURCES_PER_JOB

    for i in range(MAX_SOURCES_PER_JOB + 1):
        (tmp_path / f"f{i}.txt").write_text(f"Item {i} was logged.")
    with pytest.raises(CommandError, match=rf"{MAX_SOURCES_PER_JOB + 1} files: a job takes"):
        _ingest(str(tmp_path), "--workspace", workspace.slug)
    assert not Source.objects.exists()
