"""Bad requests get a 4xx with the API's JSON error body — never a 500 or an HTML page."""

from __future__ import annotations

import json

import pytest

from tests.verifier.api.conftest import client_for
from verifier.models import IngestJob, Source, Webhook

JSON_POSTS = [
    "/connect/v1/ingest-jobs",
    "/connect/v1/webhooks",
    "/connect/v1/retrieve",
    "/connect/v1/sources",
    "/connect/v1/graph",
    "/connect/v1/rag/audit",
    "/connect/v1/memory/transcripts",
    "/connect/v1/memory/verify",
    "/connect/v1/claims/verify",
]


@pytest.fixture
def api(workspace):
    client = client_for(workspace)
    client.raise_request_exception = False
    return client


def _nested(depth: int) -> str:
    return '{"sources": ' + "[" * depth + "]" * depth + "}"


def _assert_json_error(response, status: int, code: str) -> dict:
    assert response.status_code == status, response.content[:300]
    assert response["Content-Type"].startswith("application/json")
    error = response.json()["error"]
    assert error["code"] == code
    assert set(error) == {"code", "message", "details"}
    return error


@pytest.mark.parametrize("url", JSON_POSTS)
@pytest.mark.parametrize("depth", [1_000, 100_000])
def test_deeply_nested_json_is_a_400(api, url, depth):
    response = api.post(url, _nested(depth), content_type="application/json")
    _assert_json_error(response, 400, "malformed_request")
    assert not IngestJob.objects.exists() and not Webhook.objects.exists()


def test_json_nesting_within_the_limit_still_parses(api):
    body = {"sources": [{"ref": "source:a", "text": "x"}], "claims": [], "label": "a"}
    body["extra"] = json.loads("[" * 60 + "]" * 60)
    response = api.post("/connect/v1/ingest-jobs", body, content_type="application/json")
    assert response.status_code != 400 or response.json()["error"]["code"] != "malformed_request"


@pytest.mark.parametrize("url", JSON_POSTS)
def test_a_body_over_the_cap_is_a_json_error(api, settings, url):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1_000
    body = json.dumps({"sources": [{"ref": "source:big", "text": "x" * 5_000}]})
    response = api.post(url, body, content_type="application/json")
    error = _assert_json_error(response, 400, "payload_too_large")
    assert error["details"]["limit"] == 1_000
    assert not IngestJob.objects.exists() and not Source.objects.exists()


def test_the_documented_source_limit_fits_in_the_body_cap(api):
    from django.conf import settings

    # 5,000,000 characters of 3-byte UTF-8 (15 MB): over the old 2.5 MB cap
    text = "\u2014" * 5_000_000
    body = json.dumps({"ref": "source:big", "text": text}, ensure_ascii=False).encode()
    response = api.post("/connect/v1/sources", body, content_type="application/json")
    assert response.status_code == 201, response.content[:300]
    assert Source.objects.get().versions.get().text == text
    # the largest text of the largest (4-byte) characters fits as well
    assert settings.DATA_UPLOAD_MAX_MEMORY_SIZE >= 4 * 5_000_000 + 1024


def test_one_character_over_the_source_limit_is_refused(api):
    body = json.dumps({"ref": "source:big", "text": "x" * 5_000_001})
    response = api.post("/connect/v1/sources", body, content_type="application/json")
    error = _assert_json_error(response, 400, "invalid_request")
    assert "5000000" in json.dumps(error["details"])
    assert not Source.objects.exists()


@pytest.mark.parametrize("url", ["/connect/v1/ingest-jobs", "/connect/v1/sources"])
def test_a_nul_character_in_json_text_is_a_400(api, url):
    body = {"sources": [{"ref": "source:a", "text": "nul \x00 here"}], "ref": "source:a"}
    body["text"] = "nul \x00 here"
    response = api.post(url, body, content_type="application/json")
    assert response.status_code == 400, response.content[:300]
    assert response.json()["error"]["code"]
    assert not Source.objects.exists() and not IngestJob.objects.exists()


def test_a_nul_byte_in_a_console_upload_is_a_form_error(reviewer_client):
    from django.core.files.uploadedfile import SimpleUploadedFile

    upload = SimpleUploadedFile("notes.txt", b"The delta \x00 gains land.", "text/plain")
    response = reviewer_client.post("/ingest/", {"format": "text", "files": [upload]})
    assert response.status_code == 400
    assert b"NUL character" in response.content
    assert not Source.objects.exists() and not IngestJob.objects.exists()


def test_the_source_service_refuses_nul_characters(workspace):
    from verifier.services.sources import SourceInputError, source_upsert

    with pytest.raises(SourceInputError) as err:
        source_upsert(workspace=workspace, ref="source:a", text="a\x00b")
    assert err.value.code == "invalid_text"
    assert not Source.objects.exists()


def test_one_level_over_the_depth_limit_is_refused(api):
    from verifier.api.parsers import MAX_JSON_DEPTH

    body = '{"sources": ' + "[" * MAX_JSON_DEPTH + "]" * MAX_JSON_DEPTH + "}"
    response = api.post("/connect/v1/ingest-jobs", body, content_type="application/json")
    error = _assert_json_error(response, 400, "malformed_request")
    assert "nested" in error["message"]


@pytest.mark.parametrize("number", ["1e999", "-1e999", "NaN", "Infinity"])
def test_a_number_the_database_cannot_hold_is_a_400(api, number):
    """``1e999`` parses as infinity, which jsonb refuses (it was a 500 at the insert)."""
    body = (
        '{"sources": [{"ref": "source:a", "text": "The wall is 412 metres long."}], '
        '"claims": [{"text": "The wall is 412 metres long.", "source": "source:a", '
        f'"metadata": {{"x": {number}}}}}]}}'
    )
    response = api.post("/connect/v1/claims/verify", body, content_type="application/json")
    error = _assert_json_error(response, 400, "malformed_request")
    assert number.lstrip("-") in error["message"]
    assert not Source.objects.exists()


def test_an_ordinary_float_still_parses(api):
    body = {
        "sources": [{"ref": "source:a", "text": "The wall is 412 metres long."}],
        "claims": [
            {"text": "The wall is 412 metres long.", "source": "source:a", "metadata": {"x": 1.5e3}}
        ],
    }
    response = api.post("/connect/v1/claims/verify", body, content_type="application/json")
    assert response.status_code == 200, response.content[:300]
