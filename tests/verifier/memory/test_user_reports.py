"""Users' reports on the memory verifier (fixmem): "you said" claims, adverbs between
"I" and the verb, turns sent out of order, why a claim could not be checked, bad turns.
Real MiniLM embeddings and the heuristic judge."""

from __future__ import annotations

import json

import pytest

from verifier.embeddings import embed_texts
from verifier.judges import build_judge
from verifier.memory import (
    TranscriptInputError,
    detect_claims,
    message_claims,
    parse_transcript,
)
from verifier.memory.verify import MemoryVerifier

FLIGHT = "My flight lands at 9pm on Thursday."


@pytest.fixture(scope="module")
def verifier():
    return MemoryVerifier(judge=build_judge({"backend": "heuristic"}), embed=embed_texts)


# -- 1. a "you said" claim is out of scope whatever the agent said -------------------------


@pytest.mark.parametrize(
    "assistant",
    [
        "Noted, I will arrange a taxi.",  # nothing like it: was unsupported:no_match
        "Your flight lands at 9pm on Thursday, noted.",  # close to it
        FLIGHT,  # the agent echoed the user word for word
    ],
)
@pytest.mark.parametrize("complete", [True, False])
def test_a_true_quote_of_the_addressee_is_out_of_scope_whatever_the_agent_said(
    verifier, assistant, complete
):
    transcript = parse_transcript(
        {
            "turns": [
                {"speaker": "user", "text": FLIGHT},
                {"speaker": "assistant", "text": assistant},
            ],
            "complete": complete,
        }
    )
    (verdict,) = verifier.verify_message(f'You said "{FLIGHT}"', transcript, "assistant")
    body = verdict.as_dict()
    assert (body["outcome"], body["reason"]) == ("inconclusive:insufficient", "out_of_scope")
    assert body["actor"] == "addressee" and "out of scope" in body["note"]
    assert body["match"] is None and body["drift_categories"] == []


def test_a_quote_nobody_made_credited_to_the_addressee_is_out_of_scope(verifier):
    transcript = parse_transcript(
        [{"speaker": "user", "text": "Hello."}, {"speaker": "assistant", "text": "Hi there."}]
    )
    (verdict,) = verifier.verify_message(f'You said "{FLIGHT}"', transcript, "assistant")
    assert (verdict.outcome, verdict.reason) == ("inconclusive:insufficient", "out_of_scope")


def test_the_agents_own_words_credited_to_the_addressee_stay_actor_shift(verifier):
    transcript = parse_transcript(
        [
            {"speaker": "user", "text": "When will the contract go out?"},
            {"speaker": "assistant", "text": "I will send the contract to Dana on Monday."},
        ]
    )
    message = 'You said "I will send the contract to Dana on Monday."'
    (verdict,) = verifier.verify_message(message, transcript, "assistant")
    assert verdict.outcome == "unsupported:drift" and verdict.reason == ""
    assert verdict.drift_categories == ("actor_shift",)


# -- 2. an adverb between "I" and the verb; no memory-like sentence vanishes ------------


@pytest.mark.parametrize(
    ("message", "lane", "actor", "content"),
    [
        (
            "I also told you that I would send it to Dana and Lee today.",
            "summarized",
            "self",
            "I would send it to Dana and Lee today",
        ),
        ("I already told you that it is booked.", "summarized", "self", "it is booked"),
        ("I previously said that the door is blue.", "summarized", "self", "the door is blue"),
        ('I just said "the door is blue".', "verbatim", "self", "the door is blue"),
        ('I clearly, um, said "no".', "verbatim", "self", "no"),
        ("I earlier mentioned that it rains.", "summarized", "self", "it rains"),
        ("I definitely promised that it ships Monday.", "summarized", "self", "it ships Monday"),
        ('I have already said "it ships Monday".', "verbatim", "self", "it ships Monday"),
        ("I've mentioned that it rains.", "summarized", "self", "it rains"),
        ('"It ships Monday," I also said.', "verbatim", "self", "It ships Monday"),
        ('You also said "the door is blue".', "verbatim", "addressee", "the door is blue"),
        ("You previously mentioned that it rains.", "summarized", "addressee", "it rains"),
    ],
)
def test_a_short_word_between_the_speaker_and_the_verb(message, lane, actor, content):
    (claim,) = detect_claims(message)
    assert (claim.lane, claim.actor, claim.content) == (lane, actor, content)
    assert message[claim.start : claim.end] == claim.content


def test_a_memory_like_sentence_no_marker_covers_is_listed_as_undeclared():
    message = (
        'I said "the door is blue." I honestly and truly told you it rains. '
        "The sky is grey. She said hi."
    )
    claims = message_claims(message)
    assert [(c.lane, c.content) for c in claims] == [
        ("verbatim", "the door is blue."),
        ("undeclared", "I honestly and truly told you it rains."),
    ]
    for claim in claims:
        assert message[claim.start : claim.end] == claim.content


def test_a_message_without_claims_is_one_undeclared_claim():
    (claim,) = message_claims("  The report is due Friday.  ")
    assert (claim.lane, claim.content) == ("undeclared", "The report is due Friday.")


def test_the_second_claim_worded_i_also_told_you_is_verified(verifier):
    transcript = parse_transcript(
        [
            {"speaker": "user", "text": "When will the contract go out?"},
            {"speaker": "assistant", "text": "I will send the contract to Dana on Monday."},
        ]
    )
    message = (
        'I said "I will send the contract to Dana on Monday." '
        "I also told you that I would send it to Dana and Lee today."
    )
    first, second = verifier.verify_message(message, transcript, "assistant")
    assert first.outcome == "supported:exact"
    assert second.claim.content == "I would send it to Dana and Lee today"
    assert second.outcome == "unsupported:drift" and second.drift_categories


# -- 3. turns out of order are sorted by idx; only gaps make it incomplete ------------------

TURNS = [
    {"speaker": "user", "text": "Can you book a table?"},
    {"speaker": "bot", "text": "Sure, for how many people?"},
    {"speaker": "user", "text": "Two, at seven."},
]


@pytest.mark.parametrize(
    ("order", "complete"),
    [
        ((0, 1, 2), True),
        ((1, 0, 2), True),
        ((2, 1, 0), True),
        ((0, 1, 3), False),  # a gap
        ((1, 2, 3), False),  # turn 0 missing
    ],
)
def test_turns_are_sorted_by_idx_and_only_gaps_make_coverage_incomplete(order, complete):
    # the i-th turn sent gives idx order[i]
    transcript = parse_transcript([dict(t, idx=i) for t, i in zip(TURNS, order, strict=True)])
    assert transcript.complete is complete
    by_idx = sorted(zip(order, TURNS, strict=True), key=lambda pair: pair[0])
    assert [t.text for t in transcript.turns] == [t["text"] for _, t in by_idx]


def test_the_same_turns_sent_out_of_order_render_the_same_text():
    in_order = [dict(t, idx=i) for i, t in enumerate(TURNS)]
    shuffled = [in_order[1], in_order[0], in_order[2]]
    assert parse_transcript(shuffled).text == parse_transcript(in_order).text
    assert parse_transcript(shuffled).complete


def test_only_some_turns_giving_idx_is_incomplete():
    turns = [dict(TURNS[0], idx=0), TURNS[1], dict(TURNS[2], idx=2)]
    assert not parse_transcript(turns).complete


@pytest.mark.parametrize(("turns", "second"), [([0, 0, 1], 1), ([1, None, 1], 2)])
def test_an_idx_given_twice_is_refused(turns, second):
    data = [dict(t, idx=i) if i is not None else t for t, i in zip(TURNS, turns, strict=True)]
    with pytest.raises(TranscriptInputError) as refused:
        parse_transcript(data)
    assert refused.value.code == "duplicate_idx"
    assert refused.value.details["field"] == f"transcript[{second}].idx"
    assert f"(transcript[{second}].idx)" in refused.value.message


# -- 5. why a claim could not be checked ----------------------------------------------------


def test_each_insufficient_outcome_says_why(verifier):
    transcript = parse_transcript(
        [{"speaker": "user", "text": "Hi."}, {"speaker": "bot", "text": "The door is blue."}]
    )
    gap = parse_transcript(
        [
            {"speaker": "user", "text": "Hi.", "idx": 0},
            {"speaker": "bot", "text": "The door is blue.", "idx": 2},
        ]
    )
    cases = [
        ('I said "the door is blue"', transcript, "nobody", "agent_not_in_transcript"),
        ("The door is blue.", transcript, "bot", "out_of_scope"),
        ("As discussed, the door is blue.", transcript, "bot", "out_of_scope"),
        ('I said "the door is blue"', None, "bot", "no_transcript"),
        ('I said "the window is open at noon"', gap, "bot", "coverage_incomplete"),
    ]
    for message, given, agent, reason in cases:
        (verdict,) = verifier.verify_message(message, given, agent)
        assert (verdict.outcome, verdict.reason) == ("inconclusive:insufficient", reason), (
            message,
            verdict.as_dict(),
        )
    (verdict,) = verifier.verify_message('I said "The door is blue."', transcript, "bot")
    assert verdict.outcome == "supported:exact" and verdict.as_dict()["reason"] == ""


# -- 6. bad turns are refused naming the turn and its field ---------------------------------


@pytest.mark.parametrize(
    ("turn", "field", "words"),
    [
        ({"speaker": "bot", "text": ""}, "text", "empty `text`"),
        ({"speaker": "bot", "text": "   "}, "text", "empty `text`"),
        ({"speaker": 7, "text": "hi"}, "speaker", "`speaker` must be a string, not a number"),
        ({"speaker": "", "text": "hi"}, "speaker", "empty `speaker`"),
        ({"text": "hi"}, "speaker", "needs a `speaker`"),
        ({"speaker": "bot", "text": ["hi"]}, "text", "`text` must be a string, not an array"),
        ({"speaker": "bot", "text": "hi", "idx": -1}, "idx", "not -1"),
        ({"speaker": "bot", "text": "hi", "idx": "1"}, "idx", "not a string"),
        ({"speaker": "bot", "text": "hi", "idx": True}, "idx", "not a boolean"),
        ({"speaker": "bot", "text": "hi", "timestamp": []}, "timestamp", "not an array"),
    ],
)
def test_a_bad_turn_is_refused_naming_the_turn_and_its_field(turn, field, words):
    data = [{"speaker": "user", "text": "Hello."}, turn]
    with pytest.raises(TranscriptInputError) as refused:
        parse_transcript(json.dumps(data))
    assert refused.value.code == "invalid_turn"
    assert refused.value.details == {"turn": 1, "field": f"transcript[1].{field}"}
    assert refused.value.message.startswith(f"Turn 1 (transcript[1].{field}) ")
    assert words in refused.value.message
