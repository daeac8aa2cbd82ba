"""A source text with nothing to read (only whitespace and invisible characters such as a
zero-width space) is refused at every door that stores one, by one rule
(``untrusted_input.blank_text_problem`` in ``services.sources.source_upsert``): 400
``empty_text`` naming the field, a form error in the console, one line from the command,
and nothing stored."""

from __future__ import annotations

import io

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command

from tests.verifier.api.conftest import client_for
from verifier.models import IngestJob, Source
from verifier.untrusted_input import blank_text_problem

BLANKS = ["\u200b", " \u200b\n", "\ufeff\u2060", "\u3000\u00a0", "\u3164", "\t\u200d "]


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("", "is empty"),
        (" \n\t", "is only whitespace"),
        ("\u3000\u00a0", "is only whitespace"),
        ("\u200b", "only whitespace and invisible characters such as U+200B ZERO WIDTH SPACE"),
        (" \u3164 ", "such as U+3164 HANGUL FILLER"),
        ("\u200ba", None),
        ("\u05d0", None),
        ("é", None),
        ("\U0001f600", None),
    ],
)
def test_blank_text_problem(text, problem):
    found = blank_text_problem(text)
    assert found == problem if problem is None else problem in (found or "")


@pytest.fixture
def api(workspace):
    return client_for(workspace)


def _refused(response, field):
    assert response.status_code == 400, response.content
    error = response.json()["error"]
    assert error["code"] == "empty_text", error
    assert error["details"]["field"] == field
    return error


@pytest.mark.parametrize("text", BLANKS)
def test_the_sources_api_refuses_a_text_with_nothing_to_read(api, workspace, text):
    response = api.post(
        "/connect/v1/sources",
        {"ref": "source:blank", "text": text},
        content_type="application/json",
    )
    error = _refused(response, "text")
    assert error["message"].startswith("The text ")
    assert not Source.objects.filter(workspace=workspace).exists()


def test_the_ingest_api_refuses_it_naming_the_upload(api, workspace):
    response = api.post(
        "/connect/v1/ingest-jobs",
        {"sources": [{"ref": "source:blank", "text": "\u200b"}]},
        content_type="application/json",
    )
    error = _refused(response, "sources[0].text")
    assert "U+200B ZERO WIDTH SPACE" in error["message"]
    assert not Source.objects.filter(workspace=workspace).exists()
    assert not IngestJob.objects.filter(workspace=workspace).exists()


def test_inline_sources_of_claims_verify_are_refused(api, workspace):
    response = api.post(
        "/connect/v1/claims/verify",
        {
            "sources": [{"ref": "source:blank", "text": "\u200b\u200b"}],
            "claims": [{"text": "Anything.", "source": "source:blank"}],
        },
        content_type="application/json",
    )
    assert response.status_code == 400, response.content
    error = response.json()["error"]
    assert error["code"] == "empty_text" and error["message"].startswith("sources[0]: ")
    assert error["details"] == {"index": 0, "field": "sources[0].text"}
    assert not Source.objects.filter(workspace=workspace).exists()


def test_the_console_upload_says_so_on_the_field(admin_client_ws, workspace):
    pasted = admin_client_ws.post("/ingest/", {"text": "\u200b", "format": "text"})
    assert pasted.status_code == 400
    assert pasted.context["form"].errors["text"] == [
        "The pasted text has no visible character, only whitespace and invisible "
        "characters such as U+200B ZERO WIDTH SPACE: paste text with something to read."
    ]
    blank_file = SimpleUploadedFile("blank.txt", " \u200b\n".encode(), "text/plain")
    uploaded = admin_client_ws.post("/ingest/", {"files": [blank_file], "format": "text"})
    assert uploaded.status_code == 400
    assert any(
        "blank.txt: the text has no visible" in e for e in uploaded.context["form"].errors["files"]
    )
    assert not Source.objects.filter(workspace=workspace).exists()
    assert not IngestJob.objects.filter(workspace=workspace).exists()


def test_the_ingest_command_names_the_file(workspace, tmp_path):
    (tmp_path / "zwsp.txt").write_text("\u200b\n", encoding="utf-8")
    with pytest.raises(CommandError, match=r"zwsp\.txt: The text has no visible") as refused:
        call_command("ingest", str(tmp_path), "--workspace", workspace.slug, stdout=io.StringIO())
    assert "\n" not in str(refused.value)
    assert not Source.objects.filter(workspace=workspace).exists()
