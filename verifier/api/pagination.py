"""The API's one cursor pagination (``GET /connect/v1/claims``, ``/calibrators``,
``/ingest-jobs``, ``/webhooks``): newest
first by id, pages of 50, ``?page_size=`` up to 200 (a larger one is served as 200, the
``next`` link carrying on; one that is not a whole number of at least 1 is a 400
``invalid_request``, where DRF would silently serve 50).

A cursor the API did not give out is the client's mistake, not a missing page: DRF's own
answer (404 ``not_found``) would say the resource is gone, so a cursor that does not
decode, or decodes to a position that is not a whole number (a NUL, text, a sign) or
is beyond any id, is a 400 ``invalid_cursor`` in the API's error body, before it can
reach the query.

The schema says so too: ``cursor`` is never empty (``?cursor=`` is a ``400 empty_field``,
``query_params_check``) and ``page_size`` is at least 1, so a client generated from it, or a
fuzzer, does not take either for a valid request."""

from __future__ import annotations

from typing import Any, cast

from rest_framework.exceptions import NotFound
from rest_framework.pagination import Cursor, CursorPagination
from rest_framework.request import Request
from rest_framework.views import APIView

from verifier.api.errors import ApiError

# The largest id a row can have (a bigint): a position beyond it is no row's id, so no
# cursor the API gave out, however the database would compare it.
MAX_ID = 2**63 - 1


def invalid_cursor() -> ApiError:
    return ApiError(
        "invalid_cursor",
        "The cursor is not one this API gave out; use a `next` or `previous` link as it "
        "came, or start again without `cursor`.",
        details={"field": "cursor"},
    )


class IdCursorPagination(CursorPagination):
    # the query parameters a page reads (``verifier.api.strict_input.query_params_check``)
    query_params = ("cursor", "page_size")
    ordering = "-id"
    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 200

    def decode_cursor(self, request: Request) -> Cursor | None:
        """DRF's cursor, whose position (an id here) must be a whole number: a cursor
        decoding to anything else would reach the query and fail there."""
        try:
            cursor = super().decode_cursor(request)
        except NotFound:
            raise invalid_cursor() from None
        # DRF decodes the position from the cursor's text as a str (the stubs say int).
        position = cast(str | None, cursor.position if cursor is not None else None)
        if position is not None and not (
            position.isascii() and position.isdigit() and int(position) <= MAX_ID
        ):
            raise invalid_cursor()
        return cursor

    def get_schema_operation_parameters(self, view: APIView) -> list[dict[str, Any]]:
        parameters: list[dict[str, Any]] = super().get_schema_operation_parameters(view)
        for parameter in parameters:
            if parameter["name"] == self.cursor_query_param:
                parameter["schema"]["minLength"] = 1
                parameter["description"] = (
                    "The `next` or `previous` link's cursor, as it came (another is a 400 "
                    "invalid_cursor); leave it out for the first page."
                )
            elif parameter["name"] == self.page_size_query_param:
                parameter["schema"]["minimum"] = 1
                parameter["description"] = (
                    f"Rows per page, default {self.page_size}; a larger one than "
                    f"{self.max_page_size} is served as {self.max_page_size}."
                )
        return parameters

    def get_page_size(self, request: Request) -> int | None:
        raw = request.query_params.get(self.page_size_query_param)
        if raw is None or raw == "":
            return self.page_size
        if not (raw.isascii() and raw.isdigit()) or int(raw) < 1:
            raise ApiError(
                "invalid_request",
                f"page_size is a whole number of at least 1 (a page holds at most "
                f"{self.max_page_size}; a larger page_size is served as {self.max_page_size}).",
                details={"field": "page_size"},
            )
        return min(int(raw), self.max_page_size)
