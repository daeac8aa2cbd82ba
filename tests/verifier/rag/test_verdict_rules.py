"""What an answer's verdict may and may not rest on (pure core, the real judge).

Non-assertions are not claims; an invented number makes its claim unsupported wherever
it sits; a citation of a missing chunk is listed and keeps the answer from `faithful`;
the suggested fix says what is true for the verdict it comes with, and its softened
wording is grammatical.
"""

from __future__ import annotations

import pytest

from verifier.rag import audit_answer, decompose, parse_chunks
from verifier.rag.audit import invented_numbers
from verifier.rag.claim_audit import ClaimAudit
from verifier.rag.decompose import AnswerClaim, is_non_assertion
from verifier.rag.fix import NOTHING_FULLY, NOTHING_LEFT, suggested_fix
from verifier.rag.overclaims import Overclaim, find_overclaims, soften

MARROW = (
    "The Marrow River carries roughly 4.2 million tonnes of sediment to its delta each year. "
    "Most of that load arrives during the spring flood, when snowmelt from the Hallam "
    "uplands raises the river by two to three metres."
)
TARN = (
    "Tarn Point Light was automated in 1987, and the last resident keeper, Tomas Hale, left the "
    "point that spring. The keeper's cottage is now a small museum run by volunteers, open "
    "on weekends from May to September."
)
CHUNKS = parse_chunks([{"id": "c1", "text": MARROW}, {"id": "c2", "text": TARN}])
AUTOMATED = "Tarn Point Light was automated in 1987 [c2]."
CARRIES = "The Marrow River carries roughly 4.2 million tonnes of sediment to its delta each year"


def audit(answer, judge):
    return audit_answer(answer, CHUNKS, judge=judge)


# --- 1. a question, a greeting, an offer asserts nothing --------------------------------


@pytest.mark.parametrize(
    ("sentence", "asserts"),
    [
        ("Would you like to know more about its history?", False),
        ("Was it ever electrified?", False),
        ("Hello!", False),
        ("Hi there.", False),
        ("Thanks for asking!", False),
        ("Let me know if you have other questions.", False),
        ("If you'd like, I can tell you more about its keepers.", False),
        ("I'd be happy to explain further.", False),
        ("If you have any other questions, feel free to ask.", False),
        ("Happy to help!", False),
        ("Hello Kitty was created in 1974.", True),
        ("Thank you notes became popular in 1900.", True),
        ("If you would like to visit, the museum is open on weekends.", True),
        ("The light was automated in 1987.", True),
    ],
)
def test_non_assertions(sentence, asserts):
    assert is_non_assertion(sentence) is not asserts
    assert bool(decompose(sentence)) is asserts


def test_a_cited_question_is_still_audited():
    # the answer presents it as backed by c2, so it is checked like any sentence
    spans = [s.whole.span for s in decompose("Was it automated in 1987 [c2]? Yes.")]
    assert spans[:1] == ["Was it automated in 1987"]


@pytest.mark.parametrize(
    "answer",
    [
        f"{AUTOMATED} Would you like to know more about its history?",
        f"Hello! {AUTOMATED}",
        f"{AUTOMATED} I can tell you more about its keepers if you like.",
        f"Sure! {AUTOMATED} Let me know if you have other questions.",
    ],
)
def test_a_faithful_answer_with_non_assertions_stays_faithful(answer, judge):
    result = audit(answer, judge)
    assert result.verdict == "faithful"
    assert [c.claim.span for c in result.claims] == ["Tarn Point Light was automated in 1987"]
    assert result.unsupported == [] and result.suggested_fix is None


# --- 2. an invented number ---------------------------------------------------------------


@pytest.mark.parametrize(
    "answer",
    [
        f"{CARRIES}, 60 percent of it sand [c1].",
        f"{CARRIES} [c1]. 60 percent of it is sand [c1].",
        "The Marrow River carries roughly 4.2 million tonnes of sediment, 60 percent of it "
        "sand, to its delta each year [c1].",
    ],
)
def test_an_invented_number_is_named_and_unfaithful_wherever_it_sits(answer, judge):
    result = audit(answer, judge)
    assert result.verdict == "unfaithful"
    flagged = [c for c in result.claims if c.verdict != "supported"]
    assert [c.verdict for c in flagged] == ["unsupported"]
    assert "invented number: 60 percent — no chunk states it" in flagged[0].note


def test_an_invented_number_in_a_backed_sentence_keeps_what_the_chunk_backs(judge):
    result = audit(f"{CARRIES}, 60 percent of it sand [c1].", judge)
    assert result.claims[0].note.startswith("partly backed by c1")
    assert result.suggested_fix == f"{CARRIES} [c1]."


@pytest.mark.parametrize(
    ("claim", "texts", "invented"),
    [
        ("It carries 60 percent sand", [MARROW], ["60 percent"]),
        ("It carries 4.2 million tonnes of sediment", [MARROW], []),
        ("It carries about 4 million tonnes of sediment", [MARROW], []),
        ("It was automated in 1987", [MARROW, TARN], []),  # in the second text
        ("It was automated in 1987", [MARROW], ["1987"]),
        ("It carries sediment", [MARROW], []),
        ("In 1858 it carried 60 percent sand", [TARN], ["1858", "60 percent"]),
    ],
)
def test_invented_numbers(claim, texts, invented):
    assert invented_numbers(claim, texts) == invented


# --- 3. the suggested fix says what is true for its verdict ------------------------------


def _claim(text, cited=()):
    return AnswerClaim(text, 0, len(text), text, tuple(cited), 0)


@pytest.mark.parametrize(
    ("answer", "verdict", "fix_starts"),
    [
        # partial: an invented citation; the fix re-cites the chunk that backs it
        ("Tarn Point Light was automated in 1987 [c9].", "partial", AUTOMATED),
        # partial: an over-claim; softened
        ("The Marrow River always carries sediment to its delta [c1].", "partial", None),
        # unfaithful, nothing backed at all: drop it
        ("Penguins sort quantum annealers by height [c2].", "unfaithful", NOTHING_LEFT),
    ],
)
def test_the_fix_is_true_to_the_verdict(answer, verdict, fix_starts, judge):
    result = audit(answer, judge)
    assert result.verdict == verdict
    if fix_starts:
        assert result.suggested_fix.startswith(fix_starts)
    if verdict == "partial":
        assert not result.suggested_fix.startswith(("Drop", "Rewrite"))


def test_a_fix_with_nothing_to_keep_never_says_no_claim_is_supported_when_one_partly_is():
    partial = ClaimAudit(_claim("A thing"), "partial", (), "partly backed by c1", (), "", 0.0)
    assert suggested_fix([partial]).startswith(NOTHING_FULLY)
    unsupported = ClaimAudit(_claim("A thing"), "unsupported", (), "", (), "", 0.0)
    assert suggested_fix([unsupported]) == NOTHING_LEFT


# --- 4. over-claims: a frequency is none, and a softened text stays grammatical ----------


@pytest.mark.parametrize(
    ("claim", "evidence", "words"),
    [
        ("It floods every 2 years", "It floods each year.", []),
        ("It floods every year", "It floods each year.", []),
        ("It floods every other spring", "It floods in spring.", []),
        ("It wins in every benchmark", "It wins.", ["every"]),
        ("All patients recovered", "Most patients recovered.", ["all"]),
    ],
)
def test_find_overclaims(claim, evidence, words):
    assert [o.word for o in find_overclaims(claim, evidence)] == words


@pytest.mark.parametrize(
    ("text", "softened"),
    [
        ("It floods every 2 years", "It floods every 2 years"),
        ("It floods every year", "It floods every year"),
        ("IVF wins in every benchmark", "IVF wins in nearly every benchmark"),
        ("All patients in the cohort recovered", "Many patients in the cohort recovered"),
        ("All the patients recovered", "Many of the patients recovered"),
        ("They all recovered", "They mostly recovered"),
        ("All 3 patients recovered", "All 3 patients recovered"),
        ("It did not help at all", "It did not help at all"),
        ("Nobody knows", "Hardly anyone knows"),
        ("Everyone agrees", "Nearly everyone agrees"),
        ("It always works", "It often works"),
    ],
)
def test_soften_is_grammatical(text, softened):
    absolutes = ["every", "all", "nobody", "everyone", "always"]
    assert soften(text, [Overclaim(w, "absolute") for w in absolutes]) == softened


def test_a_quantifier_before_a_period_is_never_rewritten_into_the_fix(judge):
    answer = f"{CARRIES.replace('each year', 'every 2 years')} [c1]."
    result = audit(answer, judge)
    assert result.verdict != "faithful"
    assert "many 2 years" not in result.suggested_fix
    assert "every 2 years" not in result.suggested_fix  # the chunk's words instead
    assert result.suggested_fix == f"{CARRIES} [c1]."


# --- 5. a citation of a chunk that is not there ------------------------------------------


@pytest.mark.parametrize(
    ("answer", "unknown"),
    [
        ("Tarn Point Light was automated in 1987 [c9].", ["c9"]),
        ("Tarn Point Light was automated in 1987 [c2, c9].", ["c9"]),
        (f"{CARRIES} [c7]. Tarn Point Light was automated in 1987 [c9][c7].", ["c7", "c9"]),
    ],
)
def test_a_missing_chunk_cited_is_listed_and_the_answer_is_at_most_partial(answer, unknown, judge):
    result = audit(answer, judge)
    assert result.unknown_citations == unknown
    assert result.as_dict()["unknown_citations"] == unknown
    assert result.verdict == "partial"
    for claim in result.claims:
        assert claim.verdict == "partial" and claim.supported_by  # its facts are backed
        assert "which is not among the chunks" in claim.note


def test_no_unknown_citation_is_an_empty_list(judge):
    result = audit(AUTOMATED, judge)
    assert result.as_dict()["unknown_citations"] == [] and result.verdict == "faithful"
