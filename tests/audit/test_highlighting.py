"""Properties of the pure highlighting segments and the word diff."""

from __future__ import annotations

import itertools

from hypothesis import given
from hypothesis import strategies as st

from audit.highlighting import Span, diff_segments, segments, span_map

# Pieces include a multi-code-point emoji (ZWJ sequence) so spans can cut inside it.
TEXT = st.lists(
    st.sampled_from([*"ab ,.\n", "é", "😀", "👩\u200d🔬", "\u00a0", "中", "<b>", "&amp;"]),
    max_size=30,
).map("".join)


@st.composite
def text_and_spans(draw):
    text = draw(TEXT)
    n = len(text)
    spans = draw(
        st.lists(
            st.builds(
                lambda a, b, k: Span(min(a, b), max(a, b), k),
                st.integers(0, n),
                st.integers(0, n),
                st.integers(0, 5),
            ),
            max_size=8,
        )
    )
    return text, spans


@given(text_and_spans())
def test_segments_reassemble_the_text_exactly(case):
    text, spans = case
    segs = segments(text, spans)
    assert "".join(s.text for s in segs) == text


@given(text_and_spans())
def test_segments_are_contiguous_non_overlapping_and_offsets_slice_the_text(case):
    text, spans = case
    segs = segments(text, spans)
    position = 0
    for seg in segs:
        assert seg.start == position
        assert seg.start < seg.end
        assert text[seg.start : seg.end] == seg.text
        position = seg.end
    assert position == len(text)


@given(text_and_spans())
def test_every_code_point_carries_exactly_the_spans_that_cover_it(case):
    text, spans = case
    for seg in segments(text, spans):
        for i in range(seg.start, seg.end):
            covering = {s.key for s in spans if s.start <= i < s.end}
            assert set(seg.keys) == covering


@given(text_and_spans())
def test_neighbouring_segments_differ_in_their_key_sets(case):
    text, spans = case
    segs = segments(text, spans)
    for left, right in itertools.pairwise(segs):
        assert left.keys != right.keys


def test_overlapping_spans_split_into_three_segments():
    segs = segments("abcdefgh", [Span(1, 5, "x"), Span(3, 7, "y")])
    assert [(s.text, s.keys) for s in segs] == [
        ("a", ()),
        ("bc", ("x",)),
        ("de", ("x", "y")),
        ("fg", ("y",)),
        ("h", ()),
    ]


def test_adjacent_spans_stay_separate():
    segs = segments("aabb", [Span(0, 2, 1), Span(2, 4, 2)])
    assert [(s.text, s.keys) for s in segs] == [("aa", (1,)), ("bb", (2,))]


def test_spans_at_the_edges_and_out_of_range_are_clamped():
    segs = segments("hello", [Span(0, 1, "a"), Span(4, 99, "b"), Span(7, 9, "c"), Span(3, 3, "d")])
    assert [(s.text, s.keys) for s in segs] == [("h", ("a",)), ("ell", ()), ("o", ("b",))]


def test_emoji_offsets_are_code_points():
    text = "I 😀 rivers"
    start = text.index("rivers")
    segs = segments(text, [Span(start, start + 6, 7)])
    assert segs[-1].text == "rivers" and segs[-1].keys == (7,)


def test_html_is_not_interpreted():
    segs = segments("<b>x</b>", [Span(3, 4, 1)])
    assert [s.text for s in segs] == ["<b>", "x", "</b>"]


def test_empty_text_has_no_segments():
    assert segments("", [Span(0, 3, 1)]) == []


@given(TEXT, TEXT)
def test_diff_segments_rebuild_both_sides(old, new):
    diff = diff_segments(old, new)
    assert "".join(d.text for d in diff if d.op != "insert") == old
    assert "".join(d.text for d in diff if d.op != "delete") == new


def test_diff_marks_a_replaced_word():
    diff = diff_segments("The delta gains land.", "The delta loses land.")
    assert [(d.op, d.text) for d in diff] == [
        ("equal", "The delta "),
        ("delete", "gains"),
        ("insert", "loses"),
        ("equal", " land."),
    ]


def test_multi_line_diff_keeps_unchanged_lines_equal():
    old = "one\ntwo three\nfour\n"
    new = "one\ntwo 3\nfour\nfive\n"
    diff = diff_segments(old, new)
    assert diff[0].op == "equal" and diff[0].text.startswith("one\ntwo ")
    assert ("delete", "three") in [(d.op, d.text) for d in diff]
    assert diff[-1] == type(diff[-1])("insert", "five\n")


ATTENTION = ("contradicted", "unverified", "inferred", "excluded", "supported")


def test_span_map_marks_every_span_in_the_stretch_it_starts_in():
    starts = [(0, "supported"), (3, "contradicted"), (4, "supported"), (9, "unverified")]
    cells = span_map(10, starts, window=(0, 4), attention=ATTENTION, cells=3)
    assert [(c.start, c.end) for c in cells] == [(0, 3), (3, 6), (6, 10)]
    assert [c.count for c in cells] == [1, 2, 1]
    # the state most needing attention leads, with the tally in that order
    assert cells[1].state == "contradicted"
    assert cells[1].states == (("contradicted", 1), ("supported", 1))
    assert [c.density for c in cells] == [2, 4, 2]
    assert [c.in_window for c in cells] == [True, True, False]


@given(
    st.integers(1, 5_000),
    st.lists(st.tuples(st.integers(-5, 5_100), st.sampled_from(ATTENTION)), max_size=80),
    st.integers(1, 60),
)
def test_span_map_cells_tile_the_text_and_count_each_span_once(length, starts, cells):
    out = span_map(length, starts, window=(0, 1), attention=ATTENTION, cells=cells)
    assert out[0].start == 0 and out[-1].end == length
    assert all(a.end == b.start for a, b in itertools.pairwise(out))
    assert all(c.end > c.start for c in out)
    inside = [(s, state) for s, state in starts if 0 <= s < length]
    assert sum(c.count for c in out) == len(inside)
    for s, _ in inside:
        (cell,) = [c for c in out if c.start <= s < c.end]
        assert cell.count >= 1
    assert all((c.count == 0) == (c.density == 0) and c.density <= 4 for c in out)


def test_span_map_of_an_empty_text_is_empty():
    assert span_map(0, [], window=(0, 0), attention=ATTENTION) == []
