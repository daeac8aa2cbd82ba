"""Uploads are UTF-8, or UTF-16 / UTF-32 where a byte-order mark names the encoding (a
mark is read, never guessed); Latin-1 and binary stay refused."""

from __future__ import annotations

import codecs

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from verifier.pipeline.forms import IngestUploadForm
from verifier.services.ingest_create import ref_for_text
from verifier.upload_text import decode_text

TEXT = "The lighthouse at Halden Point was built in 1871.\r\nCafé sign — €5."


@pytest.mark.parametrize(
    "data",
    [
        TEXT.encode("utf-8"),
        TEXT.encode("utf-16"),  # with the platform's mark
        codecs.BOM_UTF16_LE + TEXT.encode("utf-16-le"),
        codecs.BOM_UTF16_BE + TEXT.encode("utf-16-be"),
        codecs.BOM_UTF32_LE + TEXT.encode("utf-32-le"),
        codecs.BOM_UTF32_BE + TEXT.encode("utf-32-be"),
    ],
)
def test_utf8_and_marked_utf16_or_utf32_decode_to_the_same_text(data):
    assert decode_text(data) == TEXT


@pytest.mark.parametrize(
    "data", [TEXT.encode("latin-1", "replace"), TEXT.encode("utf-16-le"), b"\xff\xd8\xff\xe0"]
)
def test_latin1_unmarked_utf16_and_binary_are_refused(data):
    with pytest.raises(UnicodeDecodeError):
        decode_text(data)


def test_the_ingest_form_reads_a_utf16_file_with_its_mark():
    upload = SimpleUploadedFile("notes.txt", TEXT.encode("utf-16"))
    form = IngestUploadForm({"format": "text"}, {"files": [upload]})
    assert form.is_valid(), form.errors
    [source] = form.cleaned_data["uploads"]
    assert source.text == TEXT and source.title == "notes.txt"


def test_pasted_text_is_read_with_the_line_ends_it_had_not_the_browsers_crlf():
    # A browser submits a textarea's line ends as CRLF; the same text uploaded as a file
    # with LF must be the same text (one hash, one version, the same offsets).
    text = "The light was automated in 1987.\nIts keeper left that year.\n"
    pasted = IngestUploadForm({"format": "text", "text": text.replace("\n", "\r\n")})
    uploaded = IngestUploadForm(
        {"format": "text"}, {"files": [SimpleUploadedFile("light.txt", text.encode())]}
    )
    assert pasted.is_valid(), pasted.errors
    assert uploaded.is_valid(), uploaded.errors
    [paste] = pasted.cleaned_data["uploads"]
    [upload] = uploaded.cleaned_data["uploads"]
    assert paste.text == upload.text == text
    assert paste.ref == ref_for_text(text)


def test_the_files_help_names_the_encodings_the_form_reads():
    # it said "UTF-8" while a marked UTF-16 file is read (above)
    from verifier.pipeline.forms import FILES_HELP

    assert "UTF-16 or UTF-32 with a byte-order mark" in FILES_HELP
