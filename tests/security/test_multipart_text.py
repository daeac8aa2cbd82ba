"""A multipart form field whose bytes are not text in the body's charset is refused
(``invalid_text`` naming the field at the API, a 400 page naming it at the console),
nothing stored: Django's multipart reader put U+FFFD in their place, so the text stored
was not the text sent (JSON and urlencoded bodies were refused already). Both doors read
multipart bodies with one parser (``verifier.api.parsers.StrictMultiPartParser``)."""

from __future__ import annotations

import json

import pytest
from django.test import RequestFactory

from tests.verifier.api.conftest import client_for
from verifier.api.parsers import UndecodableFormField
from verifier.input_guard import multipart_load_strict
from verifier.models import RagAudit, Source, SourceVersion

pytestmark = pytest.mark.django_db

SOURCES = "/connect/v1/sources"
TEXT = "The harbour wall 🚢 is 412 metres long."


def _multipart(fields: list[tuple[str, bytes]], *, file: bytes | None = None) -> bytes:
    parts = [
        b'--XX\r\nContent-Disposition: form-data; name="'
        + name.encode()
        + b'"\r\n\r\n'
        + value
        + b"\r\n"
        for name, value in fields
    ]
    if file is not None:
        parts.append(
            b'--XX\r\nContent-Disposition: form-data; name="answer_file"; filename="a.txt"\r\n'
            b"Content-Type: text/plain\r\n\r\n" + file + b"\r\n"
        )
    return b"".join(parts) + b"--XX--\r\n"


def _post_source(api, body: bytes, charset: str = "utf-8"):
    return api.generic(
        "POST",
        SOURCES,
        data=body,
        content_type=f"multipart/form-data; boundary=XX; charset={charset}",
    )


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ([("ref", b"source:a"), ("text", b"The wall \xff is long.")], "text"),
        ([("ref", b"source:a"), ("text", b"The wall is long."), ("title", b"Wall \xc3")], "title"),
        # a lone surrogate's bytes: not UTF-8 either
        ([("ref", b"source:a\xed\xa0\x80"), ("text", b"The wall is long.")], "ref"),
    ],
)
def test_api_multipart_bytes_that_are_not_text_are_refused_naming_the_field(
    workspace, fields, field
):
    answer = _post_source(client_for(workspace), _multipart(fields))
    assert answer.status_code == 400, answer.content[:300]
    error = answer.json()["error"]
    assert (error["code"], error["details"]["field"]) == ("invalid_text", field), error
    assert "not utf-8 text" in error["message"]
    assert not Source.objects.exists()
    assert not SourceVersion.objects.exists()


@pytest.mark.parametrize(
    ("text", "charset"),
    [
        (TEXT, "utf-8"),
        ("Le mur fait 412 mètres.", "iso-8859-1"),
        ("The sign says \ufffd.", "utf-8"),  # U+FFFD sent as such is text
    ],
)
def test_api_multipart_text_is_stored_character_for_character(workspace, text, charset):
    body = _multipart([("ref", b"source:m"), ("text", text.encode(charset))])
    answer = _post_source(client_for(workspace), body, charset)
    assert answer.status_code == 201, answer.content[:300]
    assert SourceVersion.objects.get(source__ref="source:m").text == text


CHUNKS = json.dumps({"id": "c1", "text": "The harbour wall is 412 metres long."}) + "\n"


def test_console_multipart_bytes_that_are_not_text_are_refused_naming_the_field(
    reviewer_client, workspace
):
    body = _multipart(
        [("answer", b"The wall is 412 metres \xff long [c1]."), ("chunks", CHUNKS.encode())]
    )
    answer = reviewer_client.generic(
        "POST", "/audit/rag/", data=body, content_type="multipart/form-data; boundary=XX"
    )
    assert answer.status_code == 400
    page = answer.content.decode()
    assert "The form field “answer” holds bytes that are not utf-8 text" in page
    assert "\ufffd" not in page
    assert not RagAudit.objects.exists()


def test_console_multipart_text_and_files_are_read_as_sent(reviewer_client, workspace):
    answer_text = "The wall is 412 metres long [c1]. Café 🚢."
    body = _multipart([("answer", answer_text.encode()), ("chunks", CHUNKS.encode())], file=None)
    answer = reviewer_client.generic(
        "POST", "/audit/rag/", data=body, content_type="multipart/form-data; boundary=XX"
    )
    assert answer.status_code == 302, answer.content[:500]
    assert RagAudit.objects.get(workspace=workspace).answer == answer_text


def test_console_upload_still_reads_its_file(reviewer_client, workspace):
    answer_text = "The wall is 412 metres long [c1]."
    body = _multipart([("chunks", CHUNKS.encode())], file=answer_text.encode())
    answer = reviewer_client.generic(
        "POST", "/audit/rag/", data=body, content_type="multipart/form-data; boundary=XX"
    )
    assert answer.status_code == 302, answer.content[:500]
    assert RagAudit.objects.get(workspace=workspace).answer == answer_text


def test_console_urlencoded_bytes_that_are_not_text_are_refused_naming_the_field(
    reviewer_client, workspace
):
    body = b"answer=The+wall+%FF+is+long+%5Bc1%5D.&chunks=" + CHUNKS.encode().replace(b" ", b"+")
    answer = reviewer_client.generic(
        "POST", "/audit/rag/", data=body, content_type="application/x-www-form-urlencoded"
    )
    assert answer.status_code == 400
    assert "The form field “answer” holds bytes that are not utf-8 text" in answer.content.decode()
    assert not RagAudit.objects.exists()


def _read_strict(body: bytes, charset: str = "utf-8"):
    request = RequestFactory().generic(
        "POST", "/", data=body, content_type=f"multipart/form-data; boundary=XX; charset={charset}"
    )
    multipart_load_strict(request)
    return request


def test_names_and_file_names_are_read_as_django_reads_them():
    body = (
        b'--XX\r\nContent-Disposition: form-data; name="'
        + "название".encode()
        + b'"\r\n\r\n'
        + "значение 🚢".encode()
        + b'\r\n--XX\r\nContent-Disposition: form-data; name="'
        + "файл".encode()
        + b'"; filename="'
        + "отчёт.txt".encode()
        + b'"\r\nContent-Type: text/plain\r\n\r\n\xff\xfe raw bytes\r\n--XX--\r\n'
    )
    request = _read_strict(body)
    assert request.POST.getlist("название") == ["значение 🚢"]
    upload = request.FILES["файл"]
    assert (upload.name, upload.field_name, upload.read()) == (
        "отчёт.txt",
        "файл",
        b"\xff\xfe raw bytes",  # a file is bytes: not read as text
    )


def test_a_field_name_that_is_not_text_in_the_charset_is_refused():
    # a header is read as UTF-8 (a line that is not is skipped); its name's bytes then in
    # the body's charset, here ASCII, which "é" is not
    body = b'--XX\r\nContent-Disposition: form-data; name="ab\xc3\xa9"\r\n\r\nvalue\r\n--XX--\r\n'
    with pytest.raises(UndecodableFormField) as refused:
        _read_strict(body, "ascii")
    assert (refused.value.name, refused.value.index) == ("ab\ufffd\ufffd", 0)
