"""The one rule a text search matches by: a query finds a text when the query's fold is a
substring of the text's fold. The fold, in this order:

1. compatibility decomposition (NFKD): composed and decomposed forms fold alike ("é" and
   "e" + U+0301), and so do compatibility forms: the ligature "ﬁ" is "fi", a no-break or
   other wide space a space, a full-width "Ａ" an "A", "²" a "2";
2. lower case (Python's ``str.lower``; PostgreSQL's ``lower()`` under the database's
   character type: C.UTF-8 on the embedded server, a UTF-8 locale in the Compose image.
   Under a plain ``C`` locale only ASCII letters would be lowered there);
3. accents dropped: the combining diacritical marks U+0300-U+036F, which is where the
   decomposition puts every accent of a Latin letter ("Gödel" is "godel", "Łódź" is
   "lodz" with step 4, "Nguyễn" is "nguyen"). Greek tonos and Cyrillic breve and
   diaeresis are in that block too, so "ά" is "α", "й" is "и" and "ё" is "е";
4. the Latin letters with a stroke, which have no decomposition, as their plain letter
   (ø o, ł l, đ d, ħ h, ŧ t), the dotless ı as i, the ligatures ß æ œ as ss ae oe, and
   the final sigma ς as σ (Python lowers a final capital sigma to ς, PostgreSQL to σ);
5. every run of whitespace (Unicode White_Space) as one space;
6. composed again (NFC), so that what step 1 took apart in a script the rule does not
   fold is matched whole: "가" does not find "각", nor "か" "が".

Not folded: letters of their own with no decomposition other than those of step 4 (þ,
ð, ŋ, ə, ĸ stay as they are), marks outside U+0300-U+036F (Hebrew points, Arabic
harakat, Indic vowel signs, the kana's voiced sound marks), and the zero-width and
soft-hyphen characters, which stay in both text and query. Punctuation is kept: "co-op"
does not find "coop".

:func:`search_fold` is the rule in Python (for the query), :func:`search_fold_sql` the
same rule in PostgreSQL built-ins (``normalize``, ``lower``, ``regexp_replace``,
``translate``, ``replace``: no extension), for the stored folded columns the searches
compare against. ``tests/verifier/text/test_search_fold.py`` holds the two equal for
every character of the Basic Multilingual Plane on the real database.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Final

# Step 3: the block of combining diacritical marks.
ACCENT_MARKS: Final = ("\u0300", "\u036f")
# Step 4, one letter for one: from, to (ς -> σ is here too).
LETTERS_ONE_FOR_ONE: Final = ("øłđħŧıς", "oldhtiσ")
# Step 4, one letter for two.
LETTERS_ONE_FOR_TWO: Final = (("ß", "ss"), ("æ", "ae"), ("œ", "oe"))
# Step 5: Unicode's White_Space property (after NFKD most become U+0020 already).
WHITESPACE: Final = (
    "\t\n\u000b\u000c\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
)

_MARKS_RE: Final = re.compile(f"[{ACCENT_MARKS[0]}-{ACCENT_MARKS[1]}]+")
_WHITESPACE_RE: Final = re.compile(f"[{WHITESPACE}]+")
_LETTERS: Final[dict[int, str]] = {
    **{ord(a): b for a, b in zip(*LETTERS_ONE_FOR_ONE, strict=True)},
    **{ord(a): b for a, b in LETTERS_ONE_FOR_TWO},
}


def search_fold(text: str) -> str:
    """``text`` folded by the rule above (the stored text is never changed: only what a
    search compares is)."""
    folded = _MARKS_RE.sub("", unicodedata.normalize("NFKD", text).lower())
    folded = _WHITESPACE_RE.sub(" ", folded.translate(_LETTERS))
    return unicodedata.normalize("NFC", folded)


def search_query(query: str) -> str:
    """A query as a search compares it: folded, without leading or trailing space; ""
    when nothing is left to look for (a blank query, or one of accents alone)."""
    return search_fold(query).strip(" ")


def _sql_string(value: str) -> str:
    """``value`` as a PostgreSQL escape-string literal in ASCII (non-ASCII, quote and
    backslash as ``\\uXXXX``), so the rule's SQL reads the same whatever the client
    encoding and ``standard_conforming_strings``."""
    return (
        "E'"
        + "".join(
            char if " " <= char <= "~" and char not in "'\\" else f"\\u{ord(char):04x}"
            for char in value
        )
        + "'"
    )


def search_fold_sql(column: str) -> str:
    """The rule as a PostgreSQL expression over ``column`` (an identifier, already
    quoted): :func:`search_fold` on the database's side."""
    sql = f"lower(normalize({column}, NFKD))"
    marks = _sql_string(f"[{ACCENT_MARKS[0]}-{ACCENT_MARKS[1]}]+")
    sql = f"regexp_replace({sql}, {marks}, '', 'g')"
    sql = f"translate({sql}, {_sql_string(LETTERS_ONE_FOR_ONE[0])}, "
    sql += f"{_sql_string(LETTERS_ONE_FOR_ONE[1])})"
    for letter, letters in LETTERS_ONE_FOR_TWO:
        sql = f"replace({sql}, {_sql_string(letter)}, {_sql_string(letters)})"
    sql = f"regexp_replace({sql}, {_sql_string(f'[{WHITESPACE}]+')}, ' ', 'g')"
    return f"normalize({sql}, NFC)"
