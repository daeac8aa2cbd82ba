from __future__ import annotations

import json

import pytest

from verifier.rag import (
    MAX_ANSWER_CHARS,
    MAX_CHUNKS,
    Chunk,
    RagInputError,
    parse_chunks,
    validate_answer,
)


def jsonl(*pairs):
    return "".join(json.dumps({"id": i, "text": t}) + "\n" for i, t in pairs)


def test_jsonl_and_array_parse_the_same():
    raw = jsonl(("c1", "One."), ("c2", "Two."))
    array = json.dumps([{"id": "c1", "text": "One."}, {"id": "c2", "text": "Two."}])
    expected = [Chunk("c1", "One."), Chunk("c2", "Two.")]
    assert parse_chunks(raw) == expected
    assert parse_chunks(array) == expected
    assert parse_chunks(json.loads(array)) == expected


def test_blank_lines_are_skipped():
    assert parse_chunks('\n{"id": "7", "text": "x"}\n\n') == [Chunk("7", "x")]


@pytest.mark.parametrize(
    ("raw", "field", "kind"),
    [
        ('{"id": 7, "text": "x"}\n', "chunks line 1.id", "a number"),
        ('[{"id": 2, "text": "x"}]', "chunks[0].id", "a number"),
        ([{"id": "c1", "text": "x"}, {"id": 2.5, "text": "y"}], "chunks[1].id", "a number"),
        ([{"id": True, "text": "x"}], "chunks[0].id", "a boolean"),
        ([{"id": ["c1"], "text": "x"}], "chunks[0].id", "an array"),
    ],
)
def test_a_chunk_id_that_is_not_a_string_is_refused_naming_the_field(raw, field, kind):
    """2 is not "2": an id is read as sent, like every field of the API (issue: a numeric
    id was silently turned into a string while a numeric text was refused)."""
    with pytest.raises(RagInputError) as err:
        parse_chunks(raw)
    assert err.value.code == "invalid_chunk"
    assert err.value.details["field"] == field
    assert f"`id` must be a string, not {kind}" in err.value.message


def test_malformed_jsonl_names_the_line():
    raw = jsonl(("c1", "One.")) + '{"id": "c2", "text": "Two."\n'
    with pytest.raises(RagInputError) as err:
        parse_chunks(raw)
    assert err.value.code == "malformed_jsonl"
    assert "line 2" in err.value.message
    assert err.value.details["line"] == 2


def test_duplicate_ids_are_rejected_with_both_places():
    with pytest.raises(RagInputError) as err:
        parse_chunks(jsonl(("c1", "One."), ("c2", "Two."), ("c1", "Three.")))
    assert err.value.code == "duplicate_chunk_id"
    assert "'c1'" in err.value.message and "line 1" in err.value.message
    assert "line 3" in err.value.message


@pytest.mark.parametrize(
    ("raw", "code"),
    [
        ("", "no_chunks"),
        ("\n\n", "no_chunks"),
        ("[]", "no_chunks"),
        ('{"text": "no id"}', "invalid_chunk"),
        ('{"id": "c1", "text": ""}', "invalid_chunk"),
        ('{"id": "c1", "text": 5}', "invalid_chunk"),
        ('["c1"]', "invalid_chunk"),
        ("[{", "malformed_chunks"),
        (42, "invalid_chunks"),
    ],
)
def test_bad_chunks(raw, code):
    with pytest.raises(RagInputError) as err:
        parse_chunks(raw)
    assert err.value.code == code


def test_too_many_chunks():
    raw = jsonl(*[(f"c{i}", "x") for i in range(MAX_CHUNKS + 1)])
    with pytest.raises(RagInputError) as err:
        parse_chunks(raw)
    assert err.value.code == "payload_too_large"


@pytest.mark.parametrize("answer", ["", "   \n"])
def test_empty_answer(answer):
    with pytest.raises(RagInputError) as err:
        validate_answer(answer)
    assert err.value.code == "empty_answer"
    assert err.value.details == {"field": "answer"}  # the console puts it beside the field


def test_an_answer_that_is_no_string_names_its_field():
    with pytest.raises(RagInputError) as err:
        validate_answer(["not", "text"])
    assert (err.value.code, err.value.details) == ("invalid_answer", {"field": "answer"})


def test_oversized_answer():
    with pytest.raises(RagInputError) as err:
        validate_answer("a" * (MAX_ANSWER_CHARS + 1))
    assert err.value.code == "payload_too_large"


@pytest.mark.parametrize("text", ["bad\x00byte", "lone \ud800 surrogate"])
def test_text_postgres_cannot_store_is_rejected(text):
    with pytest.raises(RagInputError) as err:
        parse_chunks([{"id": "c1", "text": text}])
    assert err.value.code == "invalid_text"
    with pytest.raises(RagInputError) as err:
        validate_answer(text)
    assert err.value.code == "invalid_text"


@pytest.mark.parametrize("chunk_id", ["c\u202e1", "c\n1", "c\u200b1", "c\t1"])
def test_a_chunk_id_is_held_to_the_identifier_rule(chunk_id):
    """A chunk id is shown as a claim's ``supported_by``: no control or invisible
    formatting character, refused as the chunk's own problem (not a "title")."""
    with pytest.raises(RagInputError) as refused:
        parse_chunks([{"id": "c0", "text": "Fine."}, {"id": chunk_id, "text": "HNSW."}])
    error = refused.value
    assert error.code == "invalid_chunk"
    assert error.details == {"index": 1, "field": "chunks[1].id"}
    assert error.message.startswith("chunks[1]: The chunk id contains")
    assert "position 1" in error.message


def test_a_chunk_keeps_what_its_retriever_attached_out_of_the_reading():
    # a score or metadata beside id and text is no error, and changes nothing read
    chunks = parse_chunks(jsonl(("c1", "One.")) + '{"id": "c2", "text": "Two.", "score": 1}\n')
    assert [(c.id, c.text) for c in chunks] == [("c1", "One."), ("c2", "Two.")]
