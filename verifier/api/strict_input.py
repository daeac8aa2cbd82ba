"""The Connect API reads its input strictly: what it does not know, or cannot read as
sent, is refused with a 400 naming it, never ignored or coerced.

* **Unknown body fields.** ``StrictSerializer`` is the base of every Connect request
  body: a key that the serializer (or any serializer nested in it: each claim, each
  source, a verification policy) does not declare is a ``400 unknown_field`` whose
  message lists the known ones and whose ``details.field`` is the key's path
  (``claims[3].qoute``). A misspelt ``external_id`` would otherwise store a duplicate on
  a retry, a misspelt ``quote`` change the binding, a misspelt ``domain_pack`` fix a
  source's pack for good.
* **JSON types.** A JSON value of another type than its field's (a number where a
  string is expected, a string where a number or a boolean is) is a ``400
  invalid_request`` naming the field; DRF would turn ``5`` into ``"5"`` and ``"1"`` into
  ``1``. Form and query values are text by nature and are left to the fields, but a
  whole number among them is ASCII digits ("１" is refused, not read as 1).
* **Query parameters.** ``query_params_check``: a parameter the endpoint does not read
  is a ``400 unknown_field``, one given twice a ``400 duplicate_field`` (which of the two
  would count is not the client's guess to make). A value its field refuses
  (``list_filters``, ``query_values``: ``?state=bogus``) is a ``400 invalid_request``
  whose ``details.field`` names the parameter, the shape of every other 400; a
  whole-number parameter is ASCII digits ("１" is refused, not read as 1).

Free-form values (``metadata``, a ``JSONField``) and the fields that parse their own
input (RAG chunks, memory transcripts: ``verifier.rag.chunks``,
``verifier.memory.transcript`` hold those to the same rule) are not walked. ``POST
/worker/verify`` (seed 001) keeps DRF's lenient reading (docs/worker-verify.md).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from django.http import QueryDict
from rest_framework import serializers
from rest_framework.request import Request

from verifier.api.errors import ApiError
from verifier.untrusted_input import json_kind

# DRF's URL format override (``?format=json``) is read by every view.
ALWAYS_READ_PARAMS = ("format",)
# A console session's HTML form (the browsable API) carries its CSRF token as a field.
FORM_FIELDS_READ_BY_DJANGO = frozenset({"csrfmiddlewaretoken"})


def unknown_field(path: str, known: Iterable[str], *, what: str = "field") -> ApiError:
    names = ", ".join(known) or "none"
    return ApiError(
        "unknown_field",
        f"Unknown {what} {path!r}; the known ones here are: {names}.",
        details={"field": path},
    )


def _expected(field: serializers.Field[Any, Any, Any, Any]) -> tuple[str, tuple[type, ...]] | None:
    """(what the field reads, the JSON types it takes); None for a field that reads any.
    A field may declare its own as ``json_types`` (a source ref also takes an id)."""
    declared: tuple[str, tuple[type, ...]] | None = getattr(field, "json_types", None)
    if declared is not None:
        return declared
    if isinstance(field, serializers.BooleanField):
        return "true or false", (bool,)
    if isinstance(field, serializers.IntegerField):
        return "a whole number", (int, float)
    if isinstance(field, serializers.FloatField | serializers.DecimalField):
        return "a number", (int, float)
    if isinstance(field, serializers.CharField):
        return "a string", (str,)
    if isinstance(field, serializers.ChoiceField) and not isinstance(
        field, serializers.MultipleChoiceField
    ):
        return ("a string", (str,)) if all(isinstance(c, str) for c in field.choices) else None
    return None


def _join(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


def _check_object(
    serializer: serializers.Serializer[Any], data: Mapping[str, Any], path: str, *, typed: bool
) -> None:
    fields = serializer.fields
    writable = [name for name, field in fields.items() if not field.read_only]
    read_by_django = FORM_FIELDS_READ_BY_DJANGO if not typed else frozenset()
    for key in data:
        if key not in fields and key not in read_by_django:
            raise unknown_field(_join(path, str(key)), writable)
    for name in writable:
        if name in data:
            _check_value(fields[name], data[name], _join(path, name), typed=typed)


def _check_value(field: Any, value: Any, path: str, *, typed: bool) -> None:
    if value is None:
        return  # allow_null is the field's own rule
    if isinstance(field, serializers.ListSerializer | serializers.ListField):
        if isinstance(value, list):
            for index, item in enumerate(value):
                _check_value(field.child, item, f"{path}[{index}]", typed=typed)
        return
    if isinstance(field, serializers.Serializer):
        if isinstance(value, Mapping):
            _check_object(field, value, path, typed=typed)
        return
    if not typed and isinstance(field, serializers.IntegerField) and isinstance(value, str):
        # a form's whole number is ASCII digits, as a query's is (``ascii_integers``)
        digits = value.removeprefix("-")
        if not (digits.isascii() and digits.isdigit()):
            raise serializers.ValidationError(
                {path: ["A valid integer (ASCII digits) is required."]}
            )
    expected = _expected(field) if typed else None
    if expected is None:
        return
    what, types = expected
    if isinstance(value, bool) != (bool in types) or not isinstance(value, types):
        raise serializers.ValidationError({path: [f"Must be {what}, not {json_kind(value)}."]})


class StrictSerializer(serializers.Serializer[Any]):
    """A request body's serializer that refuses what it does not know (the module's
    rules), for itself and every serializer nested in it. Only the outermost one
    checks: it knows each nested value's path."""

    def to_internal_value(self, data: Any) -> Any:
        if self.parent is None and isinstance(data, Mapping):
            _check_object(self, data, "", typed=not isinstance(data, QueryDict))
        return super().to_internal_value(data)


def query_params_check(request: Request, known: Iterable[str]) -> None:
    """Refuse a query parameter the endpoint does not read (``known``, and DRF's
    ``format``), one given more than once and one given empty (``?cursor=`` is a client's
    bug, not "no cursor")."""
    allowed = list(dict.fromkeys([*known, *ALWAYS_READ_PARAMS]))  # each named once
    for name, values in request.query_params.lists():
        if name not in allowed:
            raise unknown_field(name, allowed, what="query parameter")
        if len(values) > 1:
            raise ApiError(
                "duplicate_field",
                f"The query parameter {name!r} is given {len(values)} times; give it once.",
                details={"field": name},
            )
        if not values[0].strip():
            raise ApiError(
                "empty_field",
                f"The query parameter {name!r} is empty; give it a value or leave it out.",
                details={"field": name},
            )


def _query_value_error(errors: Mapping[str, Any]) -> ApiError:
    """A query parameter's bad value as every other 400 names its field: ``400
    invalid_request`` with ``details.field`` (the first field in the wrong)."""
    name, problems = next(iter(errors.items()))
    said = " ".join(str(p) for p in problems) if isinstance(problems, list) else str(problems)
    return ApiError(
        "invalid_request",
        f"The query parameter {name!r} is invalid: {said}",
        details={"field": str(name)},
    )


def ascii_integers(data: Mapping[str, Any], fields: Mapping[str, Any]) -> None:
    """A whole number sent as text (a query parameter) is ASCII digits, an optional
    ``-`` before them: DRF's ``IntegerField`` would read "１" (full-width) or "٣"
    (Arabic-Indic) as 1 and 3, so ``?version=１`` answered version 1, where the rest of
    the app reads only ASCII digits (``verifier.untrusted_input.decimal_int``). A bad
    one is the parameter's ``400 invalid_request``."""
    for name, field in fields.items():
        raw = data.get(name)
        if not isinstance(field, serializers.IntegerField) or not isinstance(raw, str):
            continue
        digits = raw.removeprefix("-")
        if not (digits.isascii() and digits.isdigit()):
            raise _query_value_error({name: ["A valid integer (ASCII digits) is required."]})


def _validated_query(
    request: Request, serializer: type[serializers.Serializer[Any]]
) -> dict[str, Any]:
    checked = serializer(data=request.query_params)
    ascii_integers(request.query_params, checked.fields)
    if not checked.is_valid():
        raise _query_value_error(checked.errors)
    return dict(checked.validated_data)


def query_values(request: Request, serializer: type[serializers.Serializer[Any]]) -> dict[str, Any]:
    """An endpoint's query parameters, validated by ``serializer``: the query may hold
    only its fields (``query_params_check``), and a bad value is a ``400
    invalid_request`` whose ``details.field`` names the parameter."""
    query_params_check(request, serializer().fields)
    return _validated_query(request, serializer)


def list_filters(
    request: Request, filters: type[serializers.Serializer[Any]], paged_by: Any
) -> dict[str, Any]:
    """A list endpoint's filters, validated: the query may hold only the ``filters``
    serializer's fields and the pagination's own parameters (``paged_by``, a pagination
    class), each once; a bad value is a ``400 invalid_request`` whose
    ``details.field`` names the filter, as every other 400 names its field."""
    query_params_check(request, [*filters().fields, *paged_by.query_params])
    return _validated_query(request, filters)
