from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from review.selectors import Segment, highlight_segments


def test_segments_split_at_code_point_offsets():
    text = "a😀b e\u0301 <x>"
    assert highlight_segments(text, 1, 3) == [
        Segment("a", "text"),
        Segment("😀b", "span"),
        Segment(" e\u0301 <x>", "text"),
    ]


def test_out_of_range_or_missing_offsets_give_plain_text():
    assert highlight_segments("abc", None, None) == [Segment("abc", "text")]
    assert highlight_segments("abc", 2, 9) == [Segment("abc", "text")]
    assert highlight_segments("abc", 2, 2) == [Segment("abc", "text")]


@given(st.text(min_size=1), st.data())
def test_segments_round_trip(text, data):
    start = data.draw(st.integers(0, len(text) - 1))
    end = data.draw(st.integers(start + 1, len(text)))
    segments = highlight_segments(text, start, end)
    assert "".join(s.text for s in segments) == text
    (span,) = [s for s in segments if s.kind == "span"]
    assert span.text == text[start:end]
