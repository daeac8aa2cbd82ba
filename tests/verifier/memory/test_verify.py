"""Six outcomes end to end with the real MiniLM embeddings and the heuristic judge."""

from __future__ import annotations

import pytest

from tests.verifier.relations.scripted_judge import ScriptedJudge
from verifier.embeddings import embed_texts
from verifier.judges import build_judge
from verifier.memory import MemoryVerifier, parse_transcript

TURNS = [
    {"speaker": "user", "text": "Can you get me the report?"},
    {
        "speaker": "agent",
        "text": "I'll try to send the draft this week if nothing comes up. "
        "Let me know if you need anything else.",
    },
    {"speaker": "user", "text": "Could you also book a table for 2 at Sushi 85?"},
    {
        "speaker": "agent",
        "text": "Sure, I booked a table for 2 people at Sushi 85 in Mountain View.",
    },
]
TRANSCRIPT = parse_transcript(TURNS)


@pytest.fixture(scope="module")
def verifier():
    return MemoryVerifier(judge=build_judge({"backend": "heuristic"}), embed=embed_texts)


def one(verifier, message, transcript=TRANSCRIPT, agent="agent"):
    (verdict,) = verifier.verify_message(message, transcript, agent)
    return verdict


@pytest.mark.parametrize(
    ("message", "outcome", "categories"),
    [
        (
            'I said "I\'ll try to send the draft this week if nothing comes up."',
            "supported:exact",
            (),
        ),
        (
            'I, uh, said "I\'ll, um, try to send the draft this week if nothing comes up."',
            "supported:exact",
            (),
        ),
        (
            'I said "I\'d try to send the draft this week if nothing comes up."',
            "supported:exact",
            (),
        ),
        (
            'I said "I\'ll try to send the draft Friday if nothing comes up."',
            "unsupported:drift",
            ("temporal_shift",),
        ),
        (
            'I said "I will send the draft this week if nothing comes up."',
            "unsupported:drift",
            ("confidence_shift",),
        ),
        (
            'I said "I\'ll try to send the final report this week if nothing comes up."',
            "unsupported:drift",
            ("scope_shift",),
        ),
        (
            'I said "I\'ll try to send the draft this week."',
            "unsupported:drift",
            ("conditionality_removed",),
        ),
        (
            'I said "I\'ll try to send the draft Friday 5pm if nothing comes up."',
            "unsupported:drift",
            ("precision_added",),
        ),
        (
            'You said "I\'ll try to send the draft this week if nothing comes up."',
            "unsupported:drift",
            ("actor_shift",),
        ),
        (
            'I said "Could you also book a table for 2 at Sushi 85?"',
            "unsupported:drift",
            ("actor_shift",),
        ),
        (
            "I mentioned that I would try to deliver the draft this week if nothing comes up.",
            "supported:paraphrase",
            (),
        ),
        (
            "I mentioned that I booked a table for 4 people at Sushi 85.",
            "unsupported:drift",
            ("scope_shift",),
        ),
        ("I said the weather in Paris is lovely in spring.", "unsupported:no_match", ()),
        ("As discussed, the table is booked.", "inconclusive:insufficient", ()),
        ("The table is booked.", "inconclusive:insufficient", ()),
    ],
)
def test_outcomes(verifier, message, outcome, categories):
    verdict = one(verifier, message)
    assert verdict.outcome == outcome, verdict.as_dict()
    assert verdict.drift_categories == categories


def test_exact_match_is_bound_to_transcript_offsets(verifier):
    quote = "I booked a table for 2 people at Sushi 85"
    verdict = one(verifier, f'I said "{quote}".')
    body = verdict.as_dict()
    assert body["outcome"] == "supported:exact" and body["match"]["binder"] == "exact"
    assert TRANSCRIPT.text[body["match"]["start"] : body["match"]["end"]] == quote
    assert body["similarity"] == 1.0 and body["claim_type"] == "verbatim"


def test_drift_spans_point_at_the_evidence(verifier):
    message = 'I said "I\'ll try to send the draft Friday 5pm if nothing comes up."'
    body = one(verifier, message).as_dict()
    (span,) = body["drift_spans"]
    assert span["category"] == "precision_added"
    assert message[slice(*span["claim_span"])] == "5pm"
    assert TRANSCRIPT.text[slice(*span["source_span"])] == "this week"


def test_paraphrase_records_the_judge(verifier):
    verdict = one(verifier, "I mentioned that the table was booked at Sushi 85.")
    assert verdict.outcome == "supported:paraphrase"
    assert verdict.judge is not None and verdict.judge["label"] == "entailed"
    assert verdict.judge["model"] == "spanproof-heuristic-v1"


def test_only_the_agents_own_turns_count(verifier):
    # The words exist, but the user said them: the agent cannot claim them.
    verdict = one(verifier, 'I said "Can you get me the report?"')
    assert verdict.outcome == "unsupported:drift"
    assert verdict.drift_categories == ("actor_shift",)
    assert verdict.match is not None and verdict.match.speaker == "user"


def test_conflicting_turns(verifier):
    turns = [
        *TURNS,
        {"speaker": "agent", "text": "Update: I'll try to send the draft next Monday instead."},
    ]
    verdict = one(
        verifier, 'I said "I\'ll try to send the draft next Monday."', parse_transcript(turns)
    )
    assert verdict.outcome == "inconclusive:conflict", verdict.as_dict()
    assert verdict.conflicts


def test_missing_coverage_is_insufficient(verifier):
    gap = [dict(t, idx=i) for i, t in zip((0, 1, 5), TURNS, strict=False)]
    transcript = parse_transcript(gap)
    assert not transcript.complete
    assert one(verifier, "I said the weather in Paris is lovely.", transcript).outcome == (
        "inconclusive:insufficient"
    )
    # A supporting span still supports when coverage is incomplete.
    exact = 'I said "I\'ll try to send the draft this week if nothing comes up."'
    assert one(verifier, exact, transcript).outcome == "supported:exact"


def test_no_transcript_or_no_turn_of_the_agent(verifier):
    message = 'I said "I booked a table."'
    assert one(verifier, message, None).outcome == "inconclusive:insufficient"
    assert one(verifier, message, agent="someone-else").outcome == "inconclusive:insufficient"


# --- issue 44: seed 002 to the letter -------------------------------------------------

CONTRADICTS = ScriptedJudge({"memory": ("contradicted", 0.9)})


@pytest.mark.parametrize(
    "message",
    [
        # the seed's non-material example: "deliver" ↔ "send" (with "would" ↔ "'ll")
        "I mentioned that I would try to deliver the draft this week if nothing comes up.",
        'I said "I\'ll try to deliver the draft this week if nothing comes up."',
    ],
)
def test_a_synonym_only_difference_is_a_paraphrase_whatever_the_judge_says(message):
    judge = ScriptedJudge({"memory": ("abstained", 0.5)})
    verifier = MemoryVerifier(judge=judge, embed=embed_texts)
    verdict = one(verifier, message)
    assert verdict.outcome == "supported:paraphrase", verdict.as_dict()
    assert verdict.similarity >= 0.6
    assert "synonym_substitution" in verdict.drift.non_material
    assert verdict.drift_categories == ()
    assert judge.asked == []  # the rubric decided: only non-material differences


def test_a_contradiction_the_judge_finds_is_drift_with_a_category():
    verifier = MemoryVerifier(judge=CONTRADICTS, embed=embed_texts)
    verdict = one(verifier, "I mentioned that the table was booked at Sushi 85.")
    assert verdict.outcome == "unsupported:drift"
    assert verdict.drift_categories == ("scope_shift",)
    assert [s["category"] for s in verdict.as_dict()["drift_spans"]] == ["scope_shift"]


def test_a_negation_contradicted_by_the_default_judge_is_classified(verifier):
    verdict = one(verifier, "I mentioned that I did not book a table at Sushi 85.")
    assert verdict.outcome == "unsupported:drift", verdict.as_dict()
    assert verdict.judge is not None and verdict.judge["label"] == "contradicted"
    assert verdict.drift_categories == ("scope_shift",)


def test_drift_found_in_an_incomplete_transcript_keeps_its_categories(verifier):
    gap = [dict(t, idx=i) for i, t in zip((0, 1, 5), TURNS, strict=False)]
    message = 'I said "I\'ll try to send the draft Friday if nothing comes up."'
    verdict = one(verifier, message, parse_transcript(gap))
    assert verdict.outcome == "inconclusive:insufficient"
    assert verdict.drift_categories == ("temporal_shift",)
    body = verdict.as_dict()
    assert body["drift_categories"] == ["temporal_shift"]
    assert [s["category"] for s in body["drift_spans"]] == ["temporal_shift"]


def test_sources_that_disagree_by_precision_are_a_conflict(verifier):
    # The seed's precision example, "this week" → "Friday 5pm", between two statements
    # of the agent: the sources disagree, whichever the claim quotes.
    sheet = "I'll send you the updated budget spreadsheet for the marketing team"
    turns = [
        {"speaker": "user", "text": "When will I get the spreadsheet?"},
        {"speaker": "agent", "text": f"{sheet} this week."},
        {"speaker": "user", "text": "Can you be more precise?"},
        {"speaker": "agent", "text": f"{sheet} Friday 5pm."},
    ]
    verdict = one(verifier, f'I said "{sheet} Friday 5pm."', parse_transcript(turns))
    assert verdict.outcome == "inconclusive:conflict", verdict.as_dict()
    (other,) = verdict.conflicts
    assert other.turn == 1


def test_two_statements_of_one_turn_that_disagree_are_a_conflict(verifier):
    turns = [
        {"speaker": "user", "text": "When will I get the draft?"},
        {
            "speaker": "agent",
            "text": "I'll send the draft this week. Sorry, I'll send the draft next Monday.",
        },
    ]
    verdict = one(verifier, 'I said "I\'ll send the draft next Monday."', parse_transcript(turns))
    assert verdict.outcome == "inconclusive:conflict", verdict.as_dict()
    (other,) = verdict.conflicts
    assert other.turn == 1 and other.quote == "I'll send the draft this week."


NEGATED = parse_transcript(
    [
        {"speaker": "user", "text": "Is the Friday meeting cancelled?"},
        {
            "speaker": "agent",
            "text": "No, it is not true that the Friday meeting is cancelled; it goes ahead.",
        },
        {"speaker": "user", "text": "Ok thanks."},
    ]
)


def test_words_lifted_verbatim_from_a_negated_sentence_are_drift(verifier):
    verdict = one(verifier, 'Earlier I said "the Friday meeting is cancelled".', NEGATED)
    assert verdict.outcome == "unsupported:drift", verdict.as_dict()
    assert verdict.judge is not None and verdict.judge["label"] == "contradicted"
    assert verdict.drift_categories == ("scope_shift",)


def test_a_verbatim_quote_of_a_whole_sentence_stays_exact(verifier):
    verdict = one(verifier, 'Earlier I said "it goes ahead".', NEGATED)
    assert verdict.outcome == "supported:exact", verdict.as_dict()
