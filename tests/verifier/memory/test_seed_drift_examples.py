"""Seed 002's drift examples on short turns, where MiniLM alone misses the match.

"I will send the final report this week." against the agent's "I will send the draft this
week." is the seed's Scope Shift ("the draft" → "the final report"): the transcript exists
and differs materially, so the outcome is ``unsupported:drift``. MiniLM puts the two
sentences at cosine 0.28, below ``MATCH_THRESHOLD``, and the verifier answered
``unsupported:no_match`` ("No transcript segment matches claim"). Real MiniLM, real
heuristic judge."""

from __future__ import annotations

import pytest

from verifier.embeddings import embed_texts
from verifier.judges import build_judge
from verifier.memory import MemoryVerifier, parse_transcript
from verifier.memory.verify import MATCH_THRESHOLD

TRANSCRIPT = parse_transcript(
    [
        {"speaker": "user", "text": "When will I get it?"},
        {"speaker": "agent", "text": "I will send the draft this week."},
    ]
)


@pytest.fixture(scope="module")
def verifier():
    return MemoryVerifier(judge=build_judge({"backend": "heuristic"}), embed=embed_texts)


def one(verifier, message, transcript=TRANSCRIPT):
    (verdict,) = verifier.verify_message(message, transcript, "agent")
    return verdict


@pytest.mark.parametrize(
    "message",
    [
        'I said "I will send the final report this week."',
        "I mentioned that I would send the final report this week.",
    ],
)
def test_the_seeds_scope_shift_is_drift_not_no_match(verifier, message):
    verdict = one(verifier, message)
    body = verdict.as_dict()
    assert verdict.outcome == "unsupported:drift", body
    assert verdict.drift_categories == ("scope_shift",)
    (span,) = body["drift_spans"]
    assert message[slice(*span["claim_span"])] == "final report"
    assert TRANSCRIPT.text[slice(*span["source_span"])] == "draft"
    # the match is the agent's turn, its similarity the one reported
    assert body["match"]["speaker"] == "agent"
    assert body["match"]["quote"] == "I will send the draft this week."
    assert body["similarity"] == body["match"]["similarity"] >= MATCH_THRESHOLD
    assert "embedding similarity" in body["note"]


def test_drift_found_below_the_threshold_stays_inconclusive_when_turns_are_missing(verifier):
    partial = parse_transcript(
        {
            "turns": [
                {"speaker": "user", "text": "When will I get it?"},
                {"speaker": "agent", "text": "I will send the draft this week."},
            ],
            "complete": False,
        }
    )
    verdict = one(verifier, 'I said "I will send the final report this week."', partial)
    assert verdict.outcome == "inconclusive:insufficient"
    assert verdict.reason == "coverage_incomplete"
    assert verdict.drift_categories == ("scope_shift",)


@pytest.mark.parametrize(
    "message",
    [
        # other words altogether: no turn of the agent says it, drifted or not
        'I said "I will call you tomorrow."',
        'I said "the budget is approved."',
        # too little left once the drifted words are cut out to tell it is that turn
        'I said "Friday."',
    ],
)
def test_other_words_are_still_no_match(verifier, message):
    verdict = one(verifier, message)
    assert verdict.outcome == "unsupported:no_match", verdict.as_dict()
    assert verdict.drift_categories == ()
