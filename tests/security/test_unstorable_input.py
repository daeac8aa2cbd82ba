"""NUL bytes, lone surrogates and deep JSON never reach a view as a 500.

One input layer refuses a NUL or a lone surrogate wherever a request carries it (the
path, the query string, console form fields: ``verifier.input_guard``; API bodies:
``verifier.api.parsers``) with a 400 — the API's JSON error body, the console's 400 page
— and nothing is stored. Every JSON the app parses is held to the API's 64-level nesting
limit, JSON carried as text inside a body or a console form included
(``verifier.untrusted_input``).
"""

from __future__ import annotations

import base64
import json

import pytest

from tests.factories import make_source
from tests.verifier.api.conftest import client_for
from verifier.models import Claim, IngestJob, MemoryCheck, RagAudit, Source, Trace, Webhook
from verifier.untrusted_input import (
    MAX_JSON_DEPTH,
    JsonTooDeep,
    loads_bounded,
    printable,
    text_problem,
    unstorable_location,
)

BAD = {"nul": "\x00", "surrogate": "\ud800"}
DEEP = "[" * 100_000
# one JSONL line nested one level past the limit
DEEP_LINE = '{"id": "c", "text": "t", "x": ' + "[" * MAX_JSON_DEPTH + "]" * MAX_JSON_DEPTH + "}"


@pytest.fixture
def api(workspace):
    client = client_for(workspace)
    client.raise_request_exception = False
    return client


@pytest.fixture
def stored(workspace):
    """Counts of what a refused request must not have added to."""
    source = make_source(workspace, ref="source:marrow", text="Sediment settles in the delta.")

    def counts() -> dict[str, int]:
        return {
            model.__name__: model.objects.count()
            for model in (Claim, IngestJob, Webhook, Source, RagAudit, MemoryCheck, Trace)
        }

    counts.source = source  # type: ignore[attr-defined]
    return counts


def _assert_api_refusal(response, code: str = "invalid_text", status: int = 400) -> dict:
    assert response.status_code == status, response.content[:300]
    assert response["Content-Type"].startswith("application/json")
    error = response.json()["error"]
    assert error["code"] == code, error
    return error


def _api_bodies(bad: str) -> list[tuple[str, dict]]:
    return [
        ("/connect/v1/retrieve", {"query": "sediment", "depth": bad}),
        ("/connect/v1/graph", {"operation": bad, "query": "sediment"}),
        ("/connect/v1/graph", {"operation": "neighbors", "depth": bad, "query": "sediment"}),
        (
            "/connect/v1/ingest-jobs",
            {"sources": [{"ref": "source:n", "text": "Text.", "format": bad}]},
        ),
        (
            "/connect/v1/ingest-jobs",
            {"claims": [{"source_ref": "source:marrow", "text": "T.", "legacy_verdict": bad}]},
        ),
        (
            "/connect/v1/webhooks",
            {"url": "https://hooks.example/x", "secret": "s" * 16, "events": [bad]},
        ),
        (
            "/connect/v1/claims/verify",
            {
                "claims": [
                    {"text": "Silt settles.", "source": "source:marrow", "metadata": {bad: 1}}
                ]
            },
        ),
        (
            "/connect/v1/claims/verify",
            {
                "claims": [
                    {"text": "Silt settles.", "source": "source:marrow", "metadata": {"k": bad}}
                ]
            },
        ),
        ("/connect/v1/sources", {"ref": "source:n", "text": f"Text {bad} here."}),
    ]


@pytest.mark.parametrize("kind", sorted(BAD))
@pytest.mark.parametrize("case", range(9))
def test_api_bodies_with_unstorable_text_are_refused(api, stored, kind, case):
    url, body = _api_bodies(BAD[kind])[case]
    before = stored()
    response = api.post(url, body, content_type="application/json")
    error = _assert_api_refusal(response)
    assert "cannot be stored" in error["message"] and error["details"]["field"]
    assert stored() == before


@pytest.mark.parametrize(
    "path",
    [
        "/connect/v1/claims/%00",
        "/connect/v1/sources/source:%00",
        "/connect/v1/traces/%00",
        "/connect/v1/traces/%00/export",
        "/connect/v1/ingest-jobs/1%00",
        "/worker/verify%00",
    ],
)
def test_api_paths_with_a_nul_are_refused(api, stored, path):
    error = _assert_api_refusal(api.get(path))
    assert error["message"].startswith("The path contains a NUL character")


@pytest.mark.parametrize(
    "query",
    [{"state": "\x00"}, {"source": "\x00"}, {"page_size": "\x00"}, {"\x00": "1"}],
)
def test_api_query_strings_with_a_nul_are_refused(api, stored, query):
    error = _assert_api_refusal(api.get("/connect/v1/claims", query))
    assert error["details"]["field"].startswith("query")


@pytest.mark.parametrize("position", ["\x00", "12\x00", "abc", "-1"])
def test_a_cursor_that_decodes_to_garbage_is_a_400(api, stored, position):
    cursor = base64.b64encode(f"p={position}".encode()).decode()
    _assert_api_refusal(api.get("/connect/v1/claims", {"cursor": cursor}), "invalid_cursor", 400)


def test_a_trace_export_format_with_a_nul_is_refused(api, stored):
    body = api.post("/connect/v1/retrieve", {"query": "sediment"}, content_type="application/json")
    trace_id = body.json()["trace_id"]
    response = api.get(f"/connect/v1/traces/{trace_id}/export", {"format": "\x00"})
    _assert_api_refusal(response)


@pytest.mark.parametrize(
    "url, body",
    [
        ("/connect/v1/rag/audit", {"answer": "Silt settles.", "chunks": DEEP}),
        ("/connect/v1/rag/audit", {"answer": "Silt settles.", "chunks": DEEP_LINE + "\n"}),
        ("/connect/v1/memory/verify", {"agent": "a", "message": "I said so.", "transcript": DEEP}),
        ("/connect/v1/memory/transcripts", {"ref": "chat:deep", "transcript": DEEP}),
    ],
)
def test_json_carried_as_text_is_held_to_the_nesting_limit(api, stored, url, body):
    before = stored()
    response = api.post(url, body, content_type="application/json")
    assert response.status_code == 400, response.content[:300]
    assert response.json()["error"]["code"] == "json_too_deep"
    assert stored() == before


# --- the console ----------------------------------------------------------------------


def _assert_console_refusal(response) -> None:
    assert response.status_code == 400, response.content[:300]
    assert response["Content-Type"].startswith("text/html")
    assert "cannot be read as text" in response.content.decode()


def test_the_console_names_the_part_in_words(admin_client_ws, stored):
    page = admin_client_ws.get("/review/", {"source": "\x00"}).content.decode()
    assert "The query parameter “source” contains a NUL character at position 0" in page
    assert "query.source[0]" not in page and "Nothing was done." in page
    path = admin_client_ws.get("/audit/claims/%00/").content.decode()
    assert "The address contains a NUL character" in path
    form = admin_client_ws.post("/audit/memory/", {"agent": "a\x00"}).content.decode()
    assert "The form field “agent” contains a NUL character at position 1" in form


@pytest.mark.parametrize(
    "path, query",
    [
        ("/audit/claims/", {"q": "\x00"}),
        ("/audit/claims/", {"state": "\x00"}),
        ("/audit/claims/", {"source": "\x00"}),
        ("/audit/claims/export.csv", {"q": "\x00"}),
        ("/audit/claims/export.jsonl", {"state": "\x00"}),
        ("/review/", {"q": "\x00"}),
        ("/review/", {"reason": "\x00"}),
        ("/audit/sources/", {"q": "\x00"}),
        ("/audit/traces/", {"q": "\x00"}),
        ("/review/item/%00/", {}),
        ("/audit/claims/%00/", {}),
        ("/audit/sources/1/v/%00", {}),
    ],
)
def test_console_paths_and_query_strings_with_a_nul_are_a_400_page(
    admin_client_ws, stored, path, query
):
    _assert_console_refusal(admin_client_ws.get(path, query))


def test_the_workspace_switch_refuses_a_nul(admin_client_ws, stored):
    before = admin_client_ws.session.get("workspace_slug")
    _assert_console_refusal(admin_client_ws.post("/workspace/switch", {"workspace": "\x00"}))
    assert admin_client_ws.session.get("workspace_slug") == before


def test_console_form_fields_with_a_nul_are_refused(admin_client_ws, stored):
    before = stored()
    form = {"agent": "agent\x00", "message": "I said so.", "transcript": "[]"}
    _assert_console_refusal(admin_client_ws.post("/audit/memory/", form))
    assert stored() == before


@pytest.mark.parametrize(
    "url, form",
    [
        ("/audit/rag/", {"answer": "Silt settles.", "chunks": DEEP}),
        ("/audit/memory/", {"agent": "agent", "message": "I said so.", "transcript": DEEP}),
    ],
)
def test_console_json_fields_are_held_to_the_nesting_limit(admin_client_ws, stored, url, form):
    before = stored()
    response = admin_client_ws.post(url, form)
    assert response.status_code in (400, 422), response.content[:300]
    assert response["Content-Type"].startswith("text/html")
    assert f"nested deeper than {MAX_JSON_DEPTH} levels".encode() in response.content
    assert stored() == before


def test_pasted_console_claims_are_held_to_the_nesting_limit(reviewer_client, stored):
    before = stored()
    line = '{"text": "t", "source": "source:marrow", "metadata": ' + DEEP + "\n"
    response = reviewer_client.post("/verify/", {"claims": line})
    assert response.status_code in (200, 400, 422), response.content[:300]
    assert f"nested deeper than {MAX_JSON_DEPTH} levels".encode() in response.content
    assert stored() == before


# --- the rules themselves -------------------------------------------------------------


def test_text_problem_names_nul_and_lone_surrogates():
    assert text_problem("fine \u00e9 😀") is None
    assert text_problem("a\x00b") == "contains a NUL character at position 1"
    assert "lone surrogate" in (text_problem("ab\udc80") or "")
    assert printable("a\x00\ud800b") == "a\\x00\\ud800b"
    assert json.dumps(printable("\ud800"))  # safe to render


def test_unstorable_location_walks_keys_values_and_lists():
    assert unstorable_location({"a": [1, {"b": "ok"}]}) is None
    assert unstorable_location({"a": [1, {"b": "x\x00"}]})[0] == "a[1].b"
    where, problem = unstorable_location({"m": {"k\ud800": 1}})
    assert where == "m.k\\ud800" and problem.startswith("has a key that")


@pytest.mark.parametrize("depth, ok", [(MAX_JSON_DEPTH, True), (MAX_JSON_DEPTH + 1, False)])
def test_loads_bounded_at_the_limit(depth, ok):
    text = "[" * depth + "]" * depth
    if ok:
        assert loads_bounded(text) is not None
    else:
        with pytest.raises(JsonTooDeep):
            loads_bounded(text)
    with pytest.raises(JsonTooDeep):
        loads_bounded(DEEP)
