"""Reading 9 of the heuristic judge's lexical comparison: two passes it made wrongly. The
first number of a range takes the range's unit ("two to three metres" is no "2 years"),
and a comparison is read as reversed when the two things compared share words ("building
an IVF index" … "building an HNSW index")."""

from __future__ import annotations

import pytest

from verifier.judges.signals import compare
from verifier.judges.signals.text_profile import profile


def notes(claim: str, span: str, context: str = "") -> list[str]:
    return [b.note for b in compare(claim, span, context).blockers]


@pytest.mark.parametrize(
    ("text", "units"),
    [
        ("The poles stand two to three metres apart.", ["metre", "metre"]),
        ("The poles stand 2-3 metres apart.", ["metre", "metre"]),
        ("The poles stand 2 – 3 metres apart.", ["metre", "metre"]),
        ("The poles stand between 2 and 3 metres apart.", ["metre", "metre"]),
        ("Repairs take 4 or 5 days.", ["day", "day"]),
        ("It took 2 men and 3 days.", ["", "day"]),  # no range: "men" stands between
        ("She had 2 and he had 3 days.", ["", "day"]),  # "and" without "between"
    ],
)
def test_the_first_number_of_a_range_takes_its_unit(text: str, units: list[str]) -> None:
    found = profile(text).numbers
    assert [m.unit for m in found] == units


def test_a_number_of_another_unit_in_a_range_does_not_state_the_claims_number() -> None:
    span = "The poles stand two to three metres apart, and the survey is repeated yearly."
    found = notes("The survey is repeated every 2 years.", span)
    assert any("2 years" in n for n in found), found
    # the range's own unit still matches
    assert not [n for n in notes("The poles stand 2 metres apart.", span) if "number" in n]


@pytest.mark.parametrize(
    ("claim", "span", "reversed_"),
    [
        (
            "Building an IVF index is slower than building an HNSW index.",
            "Building an HNSW index is slower than building an IVF index.",
            True,
        ),
        (
            "A wooden hull rots faster than a steel hull.",
            "A steel hull rots faster than a wooden hull.",
            True,
        ),
        (
            "Building an HNSW index is slower than building an IVF index.",
            "Building an HNSW index is slower than building an IVF index.",
            False,
        ),
        # the opposite comparative with the sides swapped says the same thing
        (
            "Building an IVF index is faster than building an HNSW index.",
            "Building an HNSW index is slower than building an IVF index.",
            False,
        ),
    ],
)
def test_a_comparison_of_things_that_share_words_is_read_as_reversed(
    claim: str, span: str, reversed_: bool
) -> None:
    found = compare(claim, span)
    reversed_notes = [b for b in found.blockers if "comparison reversed" in b.note]
    assert bool(reversed_notes) is reversed_, found.blockers
    if reversed_:
        assert reversed_notes[0].contradicts
