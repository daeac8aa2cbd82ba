"""Raw SQL read into typed rows by column name (``named_row``): the statement's columns
must be the row's fields, in order, or the first run fails naming both."""

from __future__ import annotations

from typing import NamedTuple

import psycopg
import pytest

from verifier.selectors.prepared import prepared_cursor
from verifier.selectors.retrieval import SeedRow
from verifier.selectors.typed_rows import named_row

pytestmark = pytest.mark.django_db


class _Pair(NamedTuple):
    key: int
    label: str
    note: str = "none"


def _rows(sql: str, row: type[NamedTuple]) -> list[object]:
    with prepared_cursor() as cursor:
        cursor.row_factory = named_row(row)
        cursor.execute(sql)
        return cursor.fetchall()


def test_columns_named_as_the_fields_give_typed_rows():
    assert _rows('SELECT 7 AS "id", 0.25::float8 AS "distance"', SeedRow) == [SeedRow(7, 0.25)]
    (pair,) = _rows('SELECT 1 AS "key", \'a\' AS "label", \'b\' AS "note"', _Pair)
    assert (pair.key, pair.label, pair.note) == (1, "a", "b")


def test_a_trailing_field_with_a_default_may_be_absent():
    (pair,) = _rows('SELECT 1 AS "key", \'a\' AS "label"', _Pair)
    assert pair == _Pair(1, "a", "none")


@pytest.mark.parametrize(
    "sql",
    [
        'SELECT 0.25::float8 AS "distance", 7 AS "id"',  # moved
        'SELECT 7 AS "pk", 0.25::float8 AS "distance"',  # renamed
        'SELECT 7 AS "id"',  # a field without a default missing
        'SELECT 7 AS "id", 0.25::float8 AS "distance", 1 AS "extra"',  # added
    ],
)
def test_a_column_out_of_step_with_the_fields_fails_naming_both(sql):
    with pytest.raises(psycopg.ProgrammingError, match="SeedRow reads the columns"):
        _rows(sql, SeedRow)
