"""Every console form reads an uploaded file the same way (``verifier.upload_text``):
over its size limit, not UTF-8, or (where the form asks) holding a NUL, it is refused
with the form's own message, before anything is parsed."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django import forms
from django.core.files.uploadedfile import SimpleUploadedFile

from audit.memory_views import MemoryVerifyForm
from audit.rag_views import MAX_UPLOAD_BYTES, RagAuditForm
from verifier.memory.transcript import MAX_TRANSCRIPT_CHARS
from verifier.pipeline.forms import MAX_FILE_BYTES, IngestUploadForm
from verifier.pipeline.verify_forms import ClaimVerifyForm

pytestmark = pytest.mark.django_db


def _ingest(upload: SimpleUploadedFile, workspace: Any) -> forms.Form:
    return IngestUploadForm({"format": "text", "domain_pack": "general"}, {"files": [upload]})


def _verify(upload: SimpleUploadedFile, workspace: Any) -> forms.Form:
    return ClaimVerifyForm({}, {"file": upload}, workspace=workspace)


def _memory(upload: SimpleUploadedFile, workspace: Any) -> forms.Form:
    return MemoryVerifyForm({}, {"transcript_file": upload})


def _rag(upload: SimpleUploadedFile, workspace: Any) -> forms.Form:
    return RagAuditForm({}, {"chunks_file": upload})


Build = Callable[[SimpleUploadedFile, Any], forms.Form]
# form, its size limit, its three messages (no NUL message: the form parses JSON, which
# refuses a raw control character itself)
FORMS: dict[str, tuple[Build, int, str, str, str | None]] = {
    "ingest": (
        _ingest,
        MAX_FILE_BYTES,
        "up.txt is larger than 5 MB: split it into smaller files.",
        "up.txt is not UTF-8 text: upload plain text, Markdown or HTML (save a PDF or Word "
        "document as text first).",
        "up.txt contains a NUL character: it is not a text file.",
    ),
    "verify": (
        _verify,
        MAX_FILE_BYTES,
        "up.txt is larger than 5 MB.",
        "up.txt is not UTF-8 text.",
        "The claims contain a NUL character.",
    ),
    "memory": (
        _memory,
        4 * MAX_TRANSCRIPT_CHARS,
        "The transcript file is too large.",
        "The transcript file is not UTF-8 text.",
        None,
    ),
    "rag": (
        _rag,
        MAX_UPLOAD_BYTES,
        f"The chunks file is larger than {MAX_UPLOAD_BYTES} bytes.",
        "The chunks file is not UTF-8 text.",
        None,
    ),
}


def _errors(name: str, content: bytes, workspace: Any) -> list[str]:
    build = FORMS[name][0]
    form = build(SimpleUploadedFile("up.txt", content), workspace)
    assert not form.is_valid()
    return list(form.non_field_errors())


@pytest.mark.parametrize("name", sorted(FORMS))
def test_each_form_refuses_an_upload_it_cannot_read(name: str, workspace: Any) -> None:
    _, limit, too_large, not_utf8, has_nul = FORMS[name]
    assert _errors(name, b"a" * (limit + 1), workspace) == [too_large]
    assert _errors(name, b"caf\xe9 \xff", workspace) == [not_utf8]
    if has_nul is not None:
        assert _errors(name, b"a\x00b", workspace) == [has_nul]
