from __future__ import annotations

import json

import pytest

from verifier.memory import TranscriptInputError, parse_transcript

TURNS = [
    {"speaker": "USER", "text": "Can you book a table?", "timestamp": "2026-03-01T10:00"},
    {"speaker": "SYSTEM", "text": "Sure, for how many people?"},
]


@pytest.mark.parametrize(
    "data",
    [
        TURNS,
        {"turns": TURNS},
        json.dumps(TURNS),
        "\n".join(json.dumps(t) for t in TURNS),
    ],
)
def test_formats_render_the_same_text_with_turn_offsets(data):
    transcript = parse_transcript(data)
    assert transcript.text == (
        "[2026-03-01T10:00] USER: Can you book a table?\nSYSTEM: Sure, for how many people?\n"
    )
    for turn, raw in zip(transcript.turns, TURNS, strict=True):
        assert transcript.text[turn.start : turn.end] == raw["text"]
    assert transcript.complete
    assert [t.text for t in transcript.turns_by("system")] == ["Sure, for how many people?"]


def test_gaps_in_idx_or_a_declared_gap_make_it_incomplete():
    turns = [dict(t, idx=i) for i, t in zip((0, 2), TURNS, strict=True)]
    assert not parse_transcript(turns).complete
    assert not parse_transcript({"turns": TURNS, "complete": False}).complete
    assert parse_transcript([dict(t, idx=i) for i, t in enumerate(TURNS)]).complete


@pytest.mark.parametrize(
    ("data", "code"),
    [
        ("", "empty_transcript"),
        ([], "empty_transcript"),
        ('{"speaker": "A", "text": "x"}\nnot json', "invalid_jsonl"),
        ([{"speaker": "", "text": "x"}], "invalid_turn"),
        ([{"speaker": "A"}], "invalid_turn"),
        ([{"speaker": "A", "text": "bad\x00"}], "invalid_turn"),
        ({"turns": TURNS, "complete": "yes"}, "invalid_transcript"),
        (42, "invalid_transcript"),
    ],
)
def test_bad_input_raises_with_a_code(data, code):
    with pytest.raises(TranscriptInputError) as caught:
        parse_transcript(data)
    assert caught.value.code == code


def test_jsonl_of_one_line_is_a_one_turn_transcript():
    line = json.dumps({"speaker": "bot", "text": "The door is blue."})
    transcript = parse_transcript(line)
    assert transcript.text == "bot: The door is blue.\n"
    assert [t.text for t in transcript.turns] == ["The door is blue."]


@pytest.mark.parametrize(
    ("turn", "names"),
    [
        ({"speaker": "bot", "text": 3}, "text"),
        ({"speaker": "bot", "text": "hi", "idx": -1}, "idx"),
        ({"speaker": "bot"}, "text"),
    ],
)
def test_a_bad_single_turn_is_refused_for_what_is_wrong_with_it(turn, names):
    with pytest.raises(TranscriptInputError) as refused:
        parse_transcript(json.dumps(turn))
    assert "`turns`" not in refused.value.message and names in refused.value.message


def test_an_object_that_is_neither_turns_nor_a_turn_names_both_shapes():
    with pytest.raises(TranscriptInputError) as refused:
        parse_transcript({"messages": []})
    assert "`turns`" in refused.value.message and "`speaker`" in refused.value.message


def test_a_turn_is_read_for_its_known_keys_and_a_chat_logs_others_are_left_alone():
    read = parse_transcript([{"speaker": "bot", "text": "Hi.", "id": "m-1", "meta": {"a": 1}}])
    assert read.text.strip() == "bot: Hi."
    with pytest.raises(TranscriptInputError):  # a misspelt `text` leaves the turn without one
        parse_transcript([{"speaker": "bot", "text": "Hi."}, {"speaker": "u", "txt": "x"}])
    # the aliases `time` and `index` still read as before
    assert parse_transcript([{"speaker": "bot", "text": "Hi.", "time": "9:00", "index": 0}])


def test_a_jsonl_turn_giving_a_key_twice_is_refused():
    raw = '{"speaker": "bot", "text": "Hi."}\n{"speaker": "bot", "text": "A", "text": "B"}\n'
    with pytest.raises(TranscriptInputError) as refused:
        parse_transcript(raw)
    assert refused.value.code == "duplicate_field"
    assert refused.value.details == {"field": "text", "line": 2}
