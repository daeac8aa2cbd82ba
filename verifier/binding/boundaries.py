"""Word boundaries: a bound span never starts or ends inside a word of the source.

"effective against viruses." occurs in "Antibiotics are ineffective against viruses.",
but a span cut out of the middle of "ineffective" says the opposite of its source. So a
span may only start and end where a reader sees a word start and end:

* **letters, digits and marks** (Unicode categories L*, N*, M*, any script) make words.
  When the span's first (last) visible character is one, the visible character before
  (after) the span must not be one;
* a **hyphen or apostrophe between two word characters** joins them into one word: a
  span may not start at "toxic" in "non-toxic" or end at "can" in "can't", nor start
  or end on such a joiner ("'t", "don'");
* a **number** is one word with its separators: a span may not start or end between
  digits joined by "," "." or a thin or no-break space ("1,900", "3.5", "5 000"), nor
  start at a digit right after a sign ("-40", "+3", "−2"), which would drop the sign;
* a **combining mark** belongs to the character before it: a span never ends just
  before one (it would cut "é" written as "e" + U+0301 in two);
* characters the matching normalization removes (soft hyphen, zero-width joiners, word
  joiner, BOM, bidi marks, variation selectors) are looked through: "in\\u00adeffective"
  is still one word. A zero-width space (U+200B) is a word break, as it is meant to be;
* scripts written **without spaces between words** (Chinese, Japanese, Thai, Lao,
  Khmer, Myanmar) give no boundary to check: between two letters where either is of
  such a script, any position is a boundary.

Punctuation, symbols and whitespace at a span's edge need nothing: a quote may start
with "(" or a quotation mark and end with "." wherever they are.
"""

from __future__ import annotations

import unicodedata
from typing import Final

# Inside a word: hyphen-minus, hyphen, non-breaking hyphen; apostrophes.
_WORD_JOINERS: Final = frozenset("-\u2010\u2011'\u2019\u02bc")
# Inside a number: decimal and thousands separators (no-break, thin, narrow no-break).
_NUMBER_JOINERS: Final = frozenset(".,'\u2019\u00a0\u2009\u202f\u066b\u066c")
# A sign written against a number.
_SIGNS: Final = frozenset("-+\u2212\u2013\u00b1\ufe63\uff0d\uff0b")
_ZERO_WIDTH_SPACE: Final = "\u200b"

# Code-point ranges of scripts written without spaces between words.
_UNSPACED: Final = (
    (0x0E00, 0x0EFF),  # Thai, Lao
    (0x1000, 0x109F),  # Myanmar
    (0x1780, 0x17FF),  # Khmer
    (0x19E0, 0x19FF),  # Khmer symbols
    (0x2E80, 0x2FDF),  # CJK radicals, Kangxi radicals
    (0x3005, 0x3007),  # 々 〆 〇
    (0x3021, 0x3029),  # Hangzhou numerals
    (0x3031, 0x3035),  # kana repeat marks
    (0x3040, 0x31FF),  # Hiragana, Katakana, Bopomofo, Kanbun, Katakana extensions
    (0x3400, 0x4DBF),  # CJK extension A
    (0x4E00, 0x9FFF),  # CJK unified ideographs
    (0xA9E0, 0xA9FF),  # Myanmar extended-B
    (0xAA60, 0xAA7F),  # Myanmar extended-A
    (0xF900, 0xFAFF),  # CJK compatibility ideographs
    (0xFF66, 0xFF9F),  # half-width Katakana
    (0x1B000, 0x1B16F),  # Kana supplement and extended
    (0x20000, 0x3FFFF),  # CJK extensions B and later
)


def is_word_char(ch: str) -> bool:
    """A letter, digit or mark of any script."""
    if ch < "\x80":
        return ch.isalnum()
    return unicodedata.category(ch)[0] in "LNM"


def _is_mark(ch: str) -> bool:
    return ch >= "\u0300" and unicodedata.category(ch)[0] == "M"


def _is_digit(ch: str) -> bool:
    return ch.isdigit()


def _unspaced(ch: str) -> bool:
    code = ord(ch)
    if code < 0x0E00:
        return False
    return any(low <= code <= high for low, high in _UNSPACED)


def _invisible(ch: str) -> bool:
    """Removed by the matching normalization, so it separates nothing."""
    if ch < "\x80" or ch == _ZERO_WIDTH_SPACE:
        return False
    code = ord(ch)
    return (
        0xFE00 <= code <= 0xFE0F or 0xE0100 <= code <= 0xE01EF or unicodedata.category(ch) == "Cf"
    )


def _before(text: str, i: int) -> int:
    """Index of the last visible character before ``i``, or -1."""
    i -= 1
    while i >= 0 and _invisible(text[i]):
        i -= 1
    return i


def _after(text: str, i: int) -> int:
    """Index of the first visible character at or after ``i``, or ``len(text)``."""
    n = len(text)
    while i < n and _invisible(text[i]):
        i += 1
    return i


def _one_word(left: str, right: str) -> bool:
    """Whether two adjacent word characters belong to one word."""
    if _is_mark(right):
        return True
    return not (_unspaced(left) or _unspaced(right))


def _joined_across(left: str, joiner: str, right: str) -> bool:
    """Whether ``left`` + ``joiner`` + ``right`` is one word (or one number)."""
    if not (is_word_char(left) and is_word_char(right)):
        return False
    if joiner in _WORD_JOINERS and _one_word(left, right):
        return True
    return joiner in _NUMBER_JOINERS and _is_digit(left) and _is_digit(right)


def starts_word(text: str, start: int, end: int) -> bool:
    """Whether a span ``[start, end)`` of ``text`` starts on a word boundary."""
    first = _after(text, start)
    if first >= end:
        return True
    ch = text[first]
    p = _before(text, start)
    if p < 0:
        return True
    prev = text[p]
    if not is_word_char(ch):
        # a hyphen or apostrophe inside a word ("don't" cut as "'t") is inside it
        following = _after(text, first + 1)
        return not (following < len(text) and _joined_across(prev, ch, text[following]))
    if is_word_char(prev):
        return not _one_word(prev, ch)
    if _is_mark(ch) and not prev.isspace():
        return False
    if _is_digit(ch) and prev in _SIGNS:
        return False
    pp = _before(text, p)
    return not (pp >= 0 and _joined_across(text[pp], prev, ch))


def ends_word(text: str, start: int, end: int) -> bool:
    """Whether a span ``[start, end)`` of ``text`` ends on a word boundary."""
    n = _after(text, end)
    if n >= len(text):
        return True
    nxt = text[n]
    if _is_mark(nxt):
        return False
    last = _before(text, end)
    if last < start:
        return True
    ch = text[last]
    if not is_word_char(ch):
        # a hyphen or apostrophe inside a word ("don't" cut as "don'") is inside it
        preceding = _before(text, last)
        return not (preceding >= 0 and _joined_across(text[preceding], ch, nxt))
    if is_word_char(nxt):
        return not _one_word(ch, nxt)
    nn = _after(text, n + 1)
    return not (nn < len(text) and _joined_across(ch, nxt, text[nn]))


def on_word_boundaries(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` starts and ends on word boundaries (module docstring)."""
    return starts_word(text, start, end) and ends_word(text, start, end)


def has_word_char(s: str) -> bool:
    """Whether ``s`` holds a letter or digit of any script (a quote must)."""
    return any(ch.isalnum() for ch in s)
