"""Lanes of seed 002: verbatim, summarized; implicit and undeclared are out of scope."""

from __future__ import annotations

import pytest

from verifier.memory import detect_claims, undeclared


@pytest.mark.parametrize(
    ("message", "lane", "actor", "content"),
    [
        (
            'I said "I will send the report this week."',
            "verbatim",
            "self",
            "I will send the report this week.",
        ),
        (
            "My exact words were: I'll try to send it Friday.",
            "verbatim",
            "self",
            "I'll try to send it Friday",
        ),
        ('I, uh, said "I\'ll send it".', "verbatim", "self", "I'll send it"),
        (
            "Earlier I said 'I'll send you the draft if nothing comes up' and meant it.",
            "verbatim",
            "self",
            "I'll send you the draft if nothing comes up",
        ),
        (
            "\u201cTable for two at 7 pm,\u201d I said.",
            "verbatim",
            "self",
            "Table for two at 7 pm,",
        ),
        (
            "I mentioned that I would send the draft this week.",
            "summarized",
            "self",
            "I would send the draft this week",
        ),
        ("I said something like I'd deliver it soon.", "summarized", "self", "I'd deliver it soon"),
        (
            "I told you that the restaurant is in Mountain View.",
            "summarized",
            "self",
            "the restaurant is in Mountain View",
        ),
        ('You said "I\'ll send the draft".', "verbatim", "addressee", "I'll send the draft"),
        (
            "You mentioned that the table is for two.",
            "summarized",
            "addressee",
            "the table is for two",
        ),
        ("As discussed, the report is due Friday.", "implicit", "self", "the report is due Friday"),
        ("Per our agreement, I will send it Monday.", "implicit", "self", "I will send it Monday"),
    ],
)
def test_lanes(message, lane, actor, content):
    (claim,) = detect_claims(message)
    assert (claim.lane, claim.actor) == (lane, actor)
    assert claim.content.rstrip(",") == content.rstrip(",")
    assert message[claim.start : claim.end] == claim.content
    assert claim.in_scope is (lane in ("verbatim", "summarized"))


def test_no_marker_is_undeclared():
    message = "  The report is due Friday.  "
    assert detect_claims(message) == []
    claim = undeclared(message)
    assert claim.lane == "undeclared" and not claim.in_scope
    assert message[claim.start : claim.end] == "The report is due Friday."


def test_several_claims_in_reading_order():
    message = (
        'I said "the table is for two." Later I mentioned that I would book Sushi 85. '
        "As discussed, it is at 7 pm."
    )
    claims = detect_claims(message)
    assert [c.lane for c in claims] == ["verbatim", "summarized", "implicit"]
    assert claims[1].content == "I would book Sushi 85"


def test_a_third_person_report_is_not_a_memory_claim():
    assert detect_claims("She said the meeting moved to Friday.") == []
