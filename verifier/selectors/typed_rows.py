"""Typed rows for raw SQL: a psycopg row factory that reads each row of a statement into
a ``NamedTuple`` whose fields are the statement's columns, by name."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NamedTuple, TypeVar

from psycopg import ProgrammingError
from psycopg.pq import ExecStatus
from psycopg.rows import BaseRowFactory, RowMaker, no_result

if TYPE_CHECKING:  # the cursor type psycopg's row factories are declared with
    from psycopg._cursor_base import BaseCursor

RowT = TypeVar("RowT", bound=NamedTuple)


def named_row(cls: type[RowT]) -> BaseRowFactory[RowT]:
    """psycopg's ``class_row`` for a ``NamedTuple`` ``cls``: the statement's column names
    must be ``cls``'s fields in order (trailing fields with a default may be absent), as
    checked once per statement — a column renamed, added or moved in the SQL and not in
    the class fails when its first row is read, never lands in the wrong field. Each row
    is then the tuple of its values (``cls._make``), without the keyword dictionary
    ``class_row`` builds per row (measured on the 40 rows of a retrieve's seeds:
    ``class_row`` into a frozen dataclass of the 35 columns took longer than building
    the served claims from the rows; ``_make``, a tenth of that)."""
    fields: tuple[str, ...] = cls._fields
    defaults: dict[str, Any] = cls._field_defaults

    def factory(cursor: BaseCursor[Any, Any]) -> RowMaker[RowT]:
        result = cursor.pgresult
        if result is None or result.status != ExecStatus.TUPLES_OK:
            return no_result
        # The names as the server sent them (``cursor.description`` would build a
        # ``Column`` object per column on every run).
        encoding = cursor.connection.info.encoding
        names = tuple((result.fname(i) or b"").decode(encoding) for i in range(result.nfields))
        absent = fields[len(names) :]
        if names != fields[: len(names)] or any(name not in defaults for name in absent):
            # Raised when a row is read (as by ``class_row``), so a cursor may run other
            # statements (a ``set_config``, say) with the factory set.
            message = f"{cls.__name__} reads the columns {fields}, not {names}."

            def out_of_step(values: Any) -> RowT:
                raise ProgrammingError(message)

            return out_of_step
        make = cls._make
        if not absent:
            return make
        tail = tuple(defaults[name] for name in absent)

        def make_with_defaults(values: Any) -> RowT:
            return make((*values, *tail))

        return make_with_defaults

    return factory
