from __future__ import annotations

import json

import pytest
from django.core.management import CommandError, call_command

C1 = "HNSW builds a hierarchical proximity graph; recall ~99% with low latency but RAM-heavy."


@pytest.fixture
def files(tmp_path):
    chunks = tmp_path / "chunks.jsonl"
    chunks.write_text(json.dumps({"id": "c1", "text": C1}) + "\n", encoding="utf-8")
    answer = tmp_path / "answer.txt"
    return answer, chunks


def run(answer, chunks, capsys):
    code = 0
    try:
        call_command("rag_audit", "--answer", str(answer), "--chunks", str(chunks))
    except SystemExit as exc:
        code = exc.code
    return code, capsys.readouterr().out


def test_faithful_answer_exits_0_with_json(files, capsys):
    answer, chunks = files
    answer.write_text("HNSW is RAM-heavy [c1].", encoding="utf-8")
    code, out = run(answer, chunks, capsys)
    assert code == 0
    assert json.loads(out)["verdict"] == "faithful"


def test_unfaithful_answer_exits_1(files, capsys):
    answer, chunks = files
    answer.write_text("HNSW is the only index FAISS supports [c1].", encoding="utf-8")
    code, out = run(answer, chunks, capsys)
    assert code == 1
    body = json.loads(out)
    assert body["verdict"] == "unfaithful" and body["suggested_fix"]


def test_bad_chunks_are_a_command_error(files):
    answer, chunks = files
    answer.write_text("HNSW is RAM-heavy.", encoding="utf-8")
    chunks.write_text('{"id": "c1"', encoding="utf-8")
    with pytest.raises(CommandError, match="malformed_jsonl: chunks line 1"):
        call_command("rag_audit", "--answer", str(answer), "--chunks", str(chunks))
