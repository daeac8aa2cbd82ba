"""A letter's combining marks in another order: the NFC or NFD form of a word binds where
the source has it, whatever order the source's marks were typed in.

NFC and NFD put a letter's marks in canonical order (by combining class). Sources are
often not in that order: pointed Hebrew is typed dagesh first, vowel after (NFD swaps
them), Arabic shadda first, vowel after, and text converted from Windows-1258 carries
Vietnamese tone marks after a precomposed "ê" (whose own circumflex NFD puts after the dot
below). A quote an application normalized (to NFC, as most do, or to NFD) holds the same
letters: it binds ``normalized`` at the source's word, and the re-check and the audit
pack's standalone checker agree with the binder."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verifier.audit_pack import check
from verifier.binding import bind, recheck_span, span_matches
from verifier.binding.normalization import fold
from verifier.binding.spans import BoundSpan

HEBREW = "בְּרֵאשִׁית \u05d1\u05bc\u05b8\u05e8\u05b8\u05d0 אֱלֹהִים אֵת הַשָּׁמַיִם וְאֵת הָאָרֶץ."
ARABIC = "قال \u0645\u064f\u062d\u064e\u0645\u0651\u064e\u062f إن الله خلق السماوات."
VIETNAMESE = "Ngày mai tôi b\u00ea\u0323nh viện. Cả nhà đều khỏe."


@pytest.mark.parametrize(
    ("text", "word"),
    [
        (HEBREW, "\u05d1\u05bc\u05b8\u05e8\u05b8\u05d0"),  # bet, dagesh (21), qamats (18)
        (ARABIC, "\u0645\u064f\u062d\u064e\u0645\u0651\u064e\u062f"),  # shadda (33), fatha (30)
        (VIETNAMESE, "b\u00ea\u0323nh"),  # ê (e + circumflex 230) + dot below (220)
        ("\u00ea\u0323 is the vowel.", "\u00ea\u0323"),  # the letter opens the text
    ],
)
@pytest.mark.parametrize("form", ["NFC", "NFD"])
def test_the_normalized_form_of_a_word_binds_at_the_word(text: str, word: str, form: str) -> None:
    quote = unicodedata.normalize(form, word)
    assert quote != word  # the source's marks are not in canonical order
    found = bind(quote, text)
    assert found is not None
    start = text.index(word)
    assert (found.start, found.end, found.match) == (start, start + len(word), "normalized")
    span = text[found.start : found.end]
    assert span_matches(quote, span, "normalized")
    assert check.span_matches(quote, span, "normalized", 0.85)
    stored = BoundSpan(quote, found.start, found.end, "normalized", "sha")
    assert recheck_span(stored, span_text=span, sha256="sha") == "fresh"


def test_a_quote_of_several_pointed_words_binds_them_whole() -> None:
    words = "\u05d1\u05bc\u05b8\u05e8\u05b8\u05d0 אֱלֹהִים"
    found = bind(unicodedata.normalize("NFC", words), HEBREW)
    assert found is not None
    assert HEBREW[found.start : found.end] == words


def test_marks_are_never_cut_from_their_letter() -> None:
    # "bê" ends inside the reordered marks of "bệ": no span ends there
    assert bind("b\u00ea", VIETNAMESE) is None
    assert bind(unicodedata.normalize("NFD", "b\u00ea"), VIETNAMESE) is None


# A letter with two to four marks (no class-0 mark, no U+0345, which case folding turns
# into a letter), in any order.
MARKS = ["\u0301", "\u0302", "\u0308", "\u0323", "\u0327", "\u05b8", "\u05bc", "\u064e", "\u0651"]
letters = st.tuples(
    st.sampled_from(["a", "e", "o", "ê", "ö", "ב", "ש", "م", "ح"]),
    st.lists(st.sampled_from(MARKS), min_size=0, max_size=4),
).map(lambda pair: pair[0] + "".join(pair[1]))
words = st.lists(letters, min_size=1, max_size=4).map("".join)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(words, min_size=1, max_size=6),
    st.data(),
    st.sampled_from(["NFC", "NFD"]),
)
def test_every_run_of_whole_words_binds_in_any_normal_form(
    source_words: list[str], data: st.DataObject, form: str
) -> None:
    text = " ".join(source_words) + "."
    first = data.draw(st.integers(0, len(source_words) - 1))
    last = data.draw(st.integers(first, len(source_words) - 1))
    written = " ".join(source_words[first : last + 1])
    quote = unicodedata.normalize(form, written)
    found = bind(quote, text)
    assert found is not None
    span = text[found.start : found.end]
    assert fold(span) == fold(quote) == check.fold(quote) == check.fold(span)
    assert unicodedata.normalize("NFD", span) == unicodedata.normalize("NFD", written)
