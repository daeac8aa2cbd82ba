"""Seed 002 lanes in messages that say more than one thing (pure detection).

* ``"X," I said`` is one verbatim claim: the marker after the quote is part of it, not a
  memory-like sentence of its own (it was also listed as an undeclared claim "I said.",
  one more out-of-scope check for every such message);
* "I said that X, and you said 'Y'" is a summarized claim of the agent and a claim about
  the addressee: the first was lost to out of scope (undeclared "I said that X, and")
  because the summarized lane's match ran into the claim taken already."""

from __future__ import annotations

from verifier.memory.detection import message_claims


def lanes(message):
    return [(c.lane, c.actor, c.content) for c in message_claims(message)]


def test_a_quote_before_its_marker_is_one_claim():
    assert lanes("\u201cI will send it,\u201d I said.") == [("verbatim", "self", "I will send it")]
    message = '"I will send it," I said. I also told you that the budget is approved.'
    assert lanes(message) == [
        ("verbatim", "self", "I will send it"),
        ("summarized", "self", "the budget is approved"),
    ]


def test_a_summary_joined_to_a_later_claim_keeps_its_lane():
    message = "I said that I'd send it, and you said 'ok'."
    claims = message_claims(message)
    assert [(c.lane, c.actor, c.content) for c in claims] == [
        ("summarized", "self", "I'd send it"),
        ("verbatim", "addressee", "ok"),
    ]
    first = claims[0]
    assert message[first.start : first.end] == "I'd send it"


def test_a_summary_that_runs_on_is_left_whole():
    assert lanes("I mentioned that I'd send it and then call you.") == [
        ("summarized", "self", "I'd send it and then call you")
    ]
    assert lanes("You said 'ok' and I said that I'd send it.") == [
        ("verbatim", "addressee", "ok"),
        ("summarized", "self", "I'd send it"),
    ]
