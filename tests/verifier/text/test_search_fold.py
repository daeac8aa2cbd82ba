"""The search rule's fold in Python (the query's side): what it folds and what it keeps.
That the database folds alike is ``tests/verifier/selectors/test_text_search.py``."""

from __future__ import annotations

import unicodedata

import pytest

from verifier.text.search_fold import search_fold, search_fold_sql, search_query

NFC = lambda text: unicodedata.normalize("NFC", text)  # noqa: E731
NFD = lambda text: unicodedata.normalize("NFD", text)  # noqa: E731

FOLDS = [
    # (what, text, its fold)
    ("case", "KURT Gödel", "kurt godel"),
    ("composed", NFC("Ödön"), "odon"),
    ("decomposed", NFD("Ödön"), "odon"),
    ("stacked marks", "Nguyễn Thị", "nguyen thi"),
    ("cedilla, ogonek, caron", "Ça, Łęczna, Škoda", "ca, leczna, skoda"),
    ("stroke letters", "Ørsted Łódź Đakovo Ħal Ŧ", "orsted lodz dakovo hal t"),
    ("dotless and dotted i", "Iğdır İstanbul", "igdir istanbul"),
    ("sharp s, capital and small", "STRAẞE Straße", "strasse strasse"),
    ("ligatures æ œ", "Æsir Œuvre", "aesir oeuvre"),
    ("final sigma", "ΟΔΟΣ ὁδός", "οδοσ οδοσ"),
    ("Cyrillic breve and diaeresis", "Йошкар Ёлка", "иошкар елка"),
    ("compatibility forms", "ﬁne Ａ² ½", "fine a2 1⁄2"),
    ("whitespace runs", "a \t\n b\u00a0\u2003c\u3000\u2028d", "a b c d"),
    ("letters of their own", "Þór Ðoð ŋ ə", "þor ðoð ŋ ə"),
    ("Hangul syllables stay whole", "각", "각"),
    ("kana keep their voiced mark", "が", "が"),
    ("punctuation and wildcards kept", "co-op 100%_\\", "co-op 100%_\\"),
    ("Hebrew points kept", "שָׁלוֹם", NFC("שָׁלוֹם")),
]


@pytest.mark.parametrize(("what", "text", "folded"), FOLDS, ids=[f[0] for f in FOLDS])
def test_fold(what: str, text: str, folded: str) -> None:
    assert search_fold(text) == folded


@pytest.mark.parametrize(("what", "text", "folded"), FOLDS, ids=[f[0] for f in FOLDS])
def test_fold_is_stable(what: str, text: str, folded: str) -> None:
    assert search_fold(folded) == folded


@pytest.mark.parametrize(
    ("query", "compared"),
    [
        ("  Gödel  ", "godel"),
        ("\u00a0café\t", "cafe"),
        ("", ""),
        (" \t ", ""),
        ("\u0301\u0308", ""),  # accents alone: nothing to look for
    ],
)
def test_query(query: str, compared: str) -> None:
    assert search_query(query) == compared


def test_the_sql_is_ascii_and_quotes_the_column_given() -> None:
    sql = search_fold_sql('"text"')
    assert sql.isascii()
    assert 'normalize("text", NFKD)' in sql
