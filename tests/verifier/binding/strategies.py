"""Hypothesis strategies for binding tests: mixed-script text with the hard cases."""

from __future__ import annotations

from hypothesis import strategies as st

HARD_CHARS = [
    # emoji, incl. skin tone modifier, ZWJ family and a flag
    "😀", "👍🏽", "👨\u200d👩\u200d👧", "🇮🇱",
    # combining marks and precomposed letters
    "e\u0301", "é", "n\u0303", "a\u0308", "ß", "İ",
    # CJK
    "中", "文", "字", "。", "日本語",
    # right-to-left: Hebrew and Arabic, with bidi marks
    "שלום", "עולם", "مرحبا", "بالعالم", "\u200f", "\u200e",
    # typography that normalization folds
    "\u2018", "\u2019", "\u201c", "\u201d", "\u2013", "\u2014", "\u2212",
    "\u00a0", "\u2009", "\u00ad", "\u200b", "\u2060", "\ufeff", "ﬁ", "ﬂ", "ﬃ",
]  # fmt: skip
ASCII_PIECES = [*"abcdefghijklmnopqrstuvwxyzABCXYZ0123456789.,;:!?'\"-() ", " ", "\n", "\t"]

pieces = st.sampled_from(HARD_CHARS + ASCII_PIECES + ["the", "quote", "word"])

# Texts built from a mix of hard pieces, plain ASCII and arbitrary code points
# (lone surrogates excluded; they are rejected before binding by validate_text).
texts = st.lists(
    st.one_of(pieces, st.characters(exclude_categories=["Cs"])),
    min_size=1,
    max_size=80,
).map("".join)

WORDS = ["alpha", "beta", "gamma", "delta", "שלום", "مرحبا", "中文", "naïve", "don't", "co-op"]
word_texts = st.lists(st.sampled_from(WORDS), min_size=4, max_size=60).map(" ".join)

SPACES = [" ", "  ", "\u00a0", "\t", "\n", " \u200b ", "\u2003", "\u3000"]
SINGLE_QUOTES = ["'", "\u2018", "\u2019"]
DOUBLE_QUOTES = ['"', "\u201c", "\u201d", "\u00ab"]
DASHES = ["-", "\u2010", "\u2013", "\u2014", "\u2212"]


@st.composite
def perturbed(draw: st.DrawFn, quote: str) -> str:
    """``quote`` with whitespace, ASCII case, quote-style and dash changes."""
    out: list[str] = []
    for ch in quote:
        if ch == " ":
            out.append(draw(st.sampled_from(SPACES)))
        elif ch in SINGLE_QUOTES:
            out.append(draw(st.sampled_from(SINGLE_QUOTES)))
        elif ch in DOUBLE_QUOTES:
            out.append(draw(st.sampled_from(DOUBLE_QUOTES)))
        elif ch in DASHES:
            out.append(draw(st.sampled_from(DASHES)))
        elif ch.isascii() and ch.isalpha():
            out.append(ch.swapcase() if draw(st.booleans()) else ch)
        else:
            out.append(ch)
    return "".join(out)
