"""The API's error answers in its OpenAPI schema, written once: a drf-spectacular
postprocessing hook (``SPECTACULAR_SETTINGS["POSTPROCESSING_HOOKS"]``).

Every error the API answers has one body, ``{"error": {"code", "message", "details"}}``
(``verifier.api.errors``), the ``Error`` component. Each operation lists the error
statuses it can answer with that body: 401, 403 and 429 for every one (all are
authenticated and rate-limited), 503 for every one (each reads the database: an
unreachable one is a 503 ``unavailable``, ``verifier.outage``, and a statement the
database cancelled a 503 ``statement_timeout``, ``config.statement_timeout``), 400 for
one that takes input (a body or query parameters) and for every ``GET`` (each reads its
query string strictly: a parameter it does not read is a ``400 unknown_field``, even
where it reads none but ``format``), 404 for one with an id in its path; the statuses a
view declares itself (a 409, a 503, a 400 with its codes) keep their description and get
the body too; a view's own 503 gets the database's two 503 answers added to its
description.
"""

from __future__ import annotations

from typing import Any

ERROR_COMPONENT = "Error"
ERROR_REF = {"$ref": f"#/components/schemas/{ERROR_COMPONENT}"}

ERROR_SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": "Every error answer of the API.",
    "properties": {
        "error": {
            "type": "object",
            "properties": {
                "code": {
                    "type": "string",
                    "description": "Stable machine-readable code, e.g. invalid_request, "
                    "unknown_field, not_found, throttled.",
                },
                "message": {"type": "string", "description": "What went wrong, in words."},
                "details": {
                    "description": "Where and why: e.g. `field` (the path of the field at "
                    "fault), limits, `retry_after`; an empty object when there is nothing "
                    "to add.",
                },
            },
            "required": ["code", "message", "details"],
        }
    },
    "required": ["error"],
}

# Every operation reads the database, so every one can answer these two (the
# Retry-After header says when to try again; ``details.request_id`` names the request).
DATABASE_503 = (
    "The database is unreachable (unavailable) or cancelled the request's query at its "
    "statement timeout (statement_timeout, `details.timeout_seconds`). "
    "Try again after the Retry-After header's seconds; `details.request_id` names the "
    "request in the server's log."
)

DESCRIPTIONS = {
    "400": "The request is invalid (invalid_request, unknown_field, duplicate_field, "
    "empty_field, or the operation's own codes); `details.field` names the field when "
    "there is one.",
    "401": "No API key, or an unknown, revoked or malformed one (not_authenticated, "
    "authentication_failed); send `Authorization: Bearer <key>`.",
    "403": "The key's scope or the member's role does not allow this operation "
    "(permission_denied): `details.needed_scope` names the scope the operation needs and "
    "`details.held_scope` the one the key or role has (null for none), as the scopes' "
    "codes.",
    "404": "Nothing with that id in the caller's workspace (not_found).",
    "429": "Over a rate limit (throttled): `details.limit` names it, `details.retry_after` "
    "and the Retry-After header say when to try again.",
    "503": DATABASE_503,
}

METHODS = ("get", "put", "post", "patch", "delete")


def _statuses(method: str, operation: dict[str, Any]) -> list[str]:
    where = {p.get("in") for p in operation.get("parameters", [])}
    statuses = ["401", "403", "429", "503"]
    if "requestBody" in operation or "query" in where or method == "get":
        statuses.append("400")
    if "path" in where:
        statuses.append("404")
    return statuses


def error_responses_add(
    result: dict[str, Any], generator: Any, request: Any, public: bool
) -> dict[str, Any]:
    """Add the ``Error`` component and each operation's error responses."""
    result.setdefault("components", {}).setdefault("schemas", {})[ERROR_COMPONENT] = ERROR_SCHEMA
    for path_item in result.get("paths", {}).values():
        for method in METHODS:
            operation = path_item.get(method)
            if operation is None:
                continue
            responses = operation.setdefault("responses", {})
            own_503 = responses.get("503", responses.get(503))
            if own_503 is not None and DATABASE_503 not in own_503.get("description", ""):
                own = own_503.get("description", "").rstrip(".")
                own_503["description"] = f"{own}. Or: {DATABASE_503}" if own else DATABASE_503
            for status in _statuses(method, operation):
                if status == "503" and own_503 is not None:
                    continue
                responses.setdefault(status, {"description": DESCRIPTIONS[status]})
            for status, response in responses.items():
                if str(status)[0] in "45" and "content" not in response:
                    response["content"] = {"application/json": {"schema": ERROR_REF}}
            operation["responses"] = dict(sorted(responses.items(), key=lambda kv: str(kv[0])))
    return result
