from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from verifier.models import MemoryTranscript


@pytest.mark.django_db
def test_import_transcript_command(workspace, tmp_path):
    path = tmp_path / "chat.jsonl"
    path.write_text(
        '{"speaker": "user", "text": "Hi"}\n{"speaker": "agent", "text": "I will call you."}\n',
        encoding="utf-8",
    )
    out = StringIO()
    call_command("import_transcript", str(path), workspace=workspace.slug, ref="chat:7", stdout=out)
    body = json.loads(out.getvalue())
    row = MemoryTranscript.objects.get(pk=body["id"])
    assert body["ref"] == "chat:7" and body["turns"] == 2 and body["sha256"] == row.version.sha256
    assert "agent: I will call you." in row.version.text and body["created"]
    again = StringIO()
    call_command(
        "import_transcript", str(path), workspace=workspace.slug, ref="chat:7", stdout=again
    )
    assert json.loads(again.getvalue()) == {**body, "created": False}


@pytest.mark.django_db
def test_import_transcript_bad_file(workspace, tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text("not json\n", encoding="utf-8")
    with pytest.raises(CommandError, match="invalid_jsonl"):
        call_command("import_transcript", str(path), workspace=workspace.slug)
    with pytest.raises(CommandError, match="no workspace"):
        call_command("import_transcript", str(path), workspace="missing")
