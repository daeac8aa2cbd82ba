"""The audit-pack API: the public key, streamed packs per scope, background jobs, and
bad input answered with the error body, never a 500."""

from __future__ import annotations

import io
import json
import zipfile

import pytest

from tests.verifier.api.conftest import client_for, judged_claim
from verifier.audit_pack import check
from verifier.audit_pack.check import check_pack, render_report
from verifier.models import AuditPackJob, VerificationJob

pytestmark = pytest.mark.django_db

QUOTE = "Sediment settles where the current slows."


@pytest.fixture
def claims(delta):
    return [
        judged_claim(delta, QUOTE, quote=QUOTE),
        judged_claim(delta, "The delta floods.", label="abstained", confidence=0.0),
    ]


def _pack(response, tmp_path, name="pack.zip"):
    assert response.status_code == 200, response.content[:500]
    assert response["Content-Type"] == "application/zip"
    body = b"".join(response.streaming_content) if response.streaming else response.content
    path = tmp_path / name
    path.write_bytes(body)
    return path


def _claim_ids(path):
    with zipfile.ZipFile(path) as archive:
        lines = archive.read(check.CLAIMS_FILE).decode().splitlines()
    import json

    return {json.loads(line)["id"] for line in lines}


def test_the_public_key_is_the_one_that_signs_the_packs(api, other_api, claims, tmp_path):
    key = api.get("/connect/v1/audit-pack/public-key").json()
    assert key["algorithm"] == "Ed25519" and len(key["public_key"]) == 64
    assert api.get("/connect/v1/audit-pack/public-key").json() == key  # made once
    assert (
        other_api.get("/connect/v1/audit-pack/public-key").json()["public_key"]
        != (key["public_key"])
    )
    response = api.get("/connect/v1/audit-pack")
    assert response.streaming and "attachment" in response["Content-Disposition"]
    pack = _pack(response, tmp_path)
    report = check_pack(pack, public_key=key["public_key"])
    assert report.ok, render_report(report)
    assert report.meta["key_id"] == key["key_id"]
    assert _claim_ids(pack) == {c.public_id for c in claims}


def test_a_claim_filter_pack_holds_the_filtered_claims(api, claims, tmp_path):
    pack = _pack(api.get("/connect/v1/audit-pack?scope=claims&state=supported"), tmp_path)
    assert _claim_ids(pack) == {claims[0].public_id}
    assert check_pack(pack).ok


def test_source_trace_and_job_packs(api, workspace, delta, claims, tmp_path):
    pack = _pack(api.get(f"/connect/v1/audit-pack?scope=source&source={delta.ref}"), tmp_path, "s")
    assert _claim_ids(pack) == {c.public_id for c in claims}

    trace_id = api.post(
        "/connect/v1/retrieve", {"query": "sediment"}, content_type="application/json"
    ).json()["trace_id"]
    pack = _pack(api.get(f"/connect/v1/audit-pack?scope=trace&trace={trace_id}"), tmp_path, "t")
    report = check_pack(pack)
    assert report.ok, render_report(report)
    with zipfile.ZipFile(pack) as archive:
        assert check.TRACE_FILE in archive.namelist()

    job = VerificationJob.objects.create(
        workspace=workspace, items=[{"index": 0, "claim_id": claims[1].public_id}], total=1
    )
    pack = _pack(
        api.get(f"/connect/v1/audit-pack?scope=verification_job&job={job.pk}"), tmp_path, "v"
    )
    assert _claim_ids(pack) == {claims[1].public_id}


def test_the_checker_is_published_outside_the_pack_with_its_sha256(api, claims, tmp_path):
    """A forger can edit the check.py a pack carries (auditor walk M2): the server
    publishes the exact checker, its SHA-256 in a header and beside the public key, and
    every pack's README says to use a trusted copy or compare the hashes first."""
    import hashlib
    from pathlib import Path

    response = api.get("/connect/v1/audit-pack/checker")
    assert response.status_code == 200
    assert response["Content-Type"] == "text/x-python; charset=utf-8"
    assert 'filename="check.py"' in response["Content-Disposition"]
    body = response.content
    assert body == Path(check.__file__).read_bytes()
    digest = hashlib.sha256(body).hexdigest()
    assert response["X-Spanproof-Checker-SHA256"] == digest
    key = api.get("/connect/v1/audit-pack/public-key").json()
    assert key["checker_sha256"] == digest

    pack = _pack(api.get("/connect/v1/audit-pack"), tmp_path)
    with zipfile.ZipFile(pack) as archive:
        carried = archive.read(check.CHECKER_FILE)
        readme = archive.read(check.README_FILE).decode()
    assert hashlib.sha256(carried).hexdigest() == digest  # the pack's copy is the published one
    assert "GET /connect/v1/audit-pack/checker" in readme
    assert "sha256sum check.py" in readme and "checker_sha256" in readme
    assert "whoever could change the pack\ncould change check.py too" in readme
    # a query parameter the endpoint does not read is the API's error, not ignored
    wrong = api.get("/connect/v1/audit-pack/checker?version=2")
    assert wrong.status_code == 400 and wrong.json()["error"]["code"] == "unknown_field"


@pytest.mark.parametrize(
    ("query", "status", "code"),
    [
        ("scope=everything", 400, "invalid_scope"),
        ("scope=source", 400, "invalid_scope"),
        ("scope=trace&trace=not-a-uuid", 400, "invalid_scope"),
        ("scope=ingest_job&job=x", 400, "invalid_scope"),
        ("scope=ingest_job&job=99999999999999999999999", 400, "invalid_scope"),
        ("scope=source&source=source:nowhere", 404, "not_found"),
        ("scope=trace&trace=00000000-0000-0000-0000-000000000000", 404, "not_found"),
        ("scope=ingest_job&job=123456", 404, "not_found"),
        ("scope=verification_job&job=123456", 404, "not_found"),
    ],
)
def test_bad_scopes_are_clear_errors(api, claims, query, status, code):
    response = api.get(f"/connect/v1/audit-pack?{query}")
    assert response.status_code == status, response.content
    assert response.json()["error"]["code"] == code


def test_another_workspaces_source_is_a_404(other_api, delta, claims):
    response = other_api.get(f"/connect/v1/audit-pack?scope=source&source={delta.ref}")
    assert response.status_code == 404


def test_a_pack_too_large_to_stream_asks_for_a_job(api, claims, settings):
    settings.SPANPROOF_AUDIT_PACK_DIRECT_MAX_CLAIMS = 1
    response = api.get("/connect/v1/audit-pack")
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "pack_too_large"
    assert response.json()["error"]["details"] == {"claims": 2, "limit": 1}


def test_a_job_exports_in_the_background(
    workspace, claims, tmp_path, settings, django_capture_on_commit_callbacks
):
    settings.SPANPROOF_AUDIT_PACK_DIR = tmp_path / "packs"
    api = client_for(workspace, "read")
    with django_capture_on_commit_callbacks(execute=True):
        response = api.post(
            "/connect/v1/audit-pack/jobs", {"scope": "claims"}, content_type="application/json"
        )
    assert response.status_code == 202, response.content
    job_id = response.json()["id"]
    job = api.get(f"/connect/v1/audit-pack/jobs/{job_id}").json()
    assert job["status"] == "succeeded", job
    assert (job["done"], job["total"], job["percent"]) == (2, 2, 100)
    download = api.get(job["download"])
    assert download.status_code == 200
    pack = tmp_path / "job.zip"
    pack.write_bytes(b"".join(download.streaming_content))
    import hashlib

    assert hashlib.sha256(pack.read_bytes()).hexdigest() == job["sha256"]
    assert check_pack(pack).ok
    with zipfile.ZipFile(pack) as archive:
        meta = __import__("json").loads(archive.read(check.PACK_FILE))
    assert meta["exported_by"] == {"api_key_scope": "read"}


def test_a_job_not_finished_cannot_be_downloaded(api, workspace):
    job = AuditPackJob.objects.create(workspace=workspace, scope={"scope": "claims"})
    response = api.get(f"/connect/v1/audit-pack/jobs/{job.pk}/download")
    assert response.status_code == 409
    assert response.json()["error"]["code"] == "pack_not_ready"


def test_another_workspaces_job_is_a_404(other_api, workspace):
    job = AuditPackJob.objects.create(workspace=workspace, scope={"scope": "claims"})
    assert other_api.get(f"/connect/v1/audit-pack/jobs/{job.pk}").status_code == 404
    assert other_api.get(f"/connect/v1/audit-pack/jobs/{job.pk}/download").status_code == 404


def test_a_bad_job_scope_creates_nothing(api):
    response = api.post(
        "/connect/v1/audit-pack/jobs", {"scope": "source"}, content_type="application/json"
    )
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "invalid_scope"
    assert not AuditPackJob.objects.exists()
    response = api.post(
        "/connect/v1/audit-pack/jobs",
        {"scope": "source", "source": "source:none"},
        content_type="application/json",
    )
    assert response.status_code == 404
    assert not AuditPackJob.objects.exists()


def test_a_stream_hands_on_the_pack_in_pieces(api, claims):
    response = api.get("/connect/v1/audit-pack")
    pieces = list(response.streaming_content)
    assert len(pieces) >= 3  # claims, texts, then the manifest: never one buffered blob
    assert zipfile.ZipFile(io.BytesIO(b"".join(pieces))).testzip() is None


def test_a_changed_secret_key_is_a_clear_503_not_a_500(api, claims, settings):
    assert api.get("/connect/v1/audit-pack/public-key").status_code == 200  # key sealed
    settings.SECRET_KEY = "another secret the key was not sealed with"
    settings.SECRET_KEY_FALLBACKS = []
    response = api.get("/connect/v1/audit-pack")
    assert response.status_code == 503
    assert response.json()["error"]["code"] == "signing_key_unavailable"
    assert "SECRET_KEY_FALLBACKS" in response.json()["error"]["message"]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ([1], "body"),
        (None, "body"),
        ("claims", "body"),
        ({}, "scope"),  # a body names its scope: {"scope": "claims"} for every claim
        ({"state": "supported"}, "scope"),
        ({"scope": ["claims"]}, "scope"),
        ({"scope": "everything"}, "scope"),
        ({"scope": "claims", "state": {"a": 1}}, "state"),
        ({"scope": "claims", "state": "bogus"}, "state"),
        ({"scope": "claims", "reason": "bogus"}, "reason"),
        ({"scope": "claims", "quality": "great"}, "quality"),
        ({"scope": "claims", "job": "x"}, "job"),
        ({"scope": "claims", "job": 0}, "job"),
        ({"scope": "claims", "q": ["sediment"]}, "q"),
        ({"scope": "source", "source": ["a"]}, "source"),
        ({"scope": "source", "source": {"ref": "source:marrow_river"}}, "source"),
        ({"scope": "trace", "trace": 5}, "trace"),
        ({"scope": "verification_job", "job": [1]}, "job"),
    ],
)
def test_a_malformed_job_body_is_a_400_naming_the_field(api, claims, body, field):
    response = api.post(
        "/connect/v1/audit-pack/jobs", __import__("json").dumps(body), "application/json"
    )
    assert response.status_code == 400, response.content
    error = response.json()["error"]
    assert error["code"] == "invalid_scope", error
    assert error["details"]["field"] == field, error
    assert not AuditPackJob.objects.exists()


def test_a_misspelt_job_filter_is_the_apis_unknown_field(api, claims):
    """A misspelt filter would widen the pack without a word: refused by the rule every
    Connect body follows (``unknown_field``), not by a check of this endpoint's own."""
    body = {"scope": "claims", "states": "supported"}
    response = api.post("/connect/v1/audit-pack/jobs", body, content_type="application/json")
    assert response.status_code == 400, response.content
    error = response.json()["error"]
    assert (error["code"], error["details"]) == ("unknown_field", {"field": "states"})
    assert "state, source, job, scope" in error["message"]
    assert not AuditPackJob.objects.exists()


def test_a_job_body_stores_the_scope_it_was_given(api, claims, django_capture_on_commit_callbacks):
    response = api.post(
        "/connect/v1/audit-pack/jobs",
        {"scope": "claims", "state": "supported", "reason": "entailed", "quality": "supported"},
        content_type="application/json",
    )
    assert response.status_code == 202, response.content
    job = AuditPackJob.objects.get()
    assert job.scope == {
        "scope": "claims",
        "state": "supported",
        "reason": "entailed",
        "quality": "supported",
    }
    assert response.json()["scope"] == job.scope


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ("scope=claims&state=bogus", "state"),
        ("state=bogus", "state"),
        ("scope=claims&reason=bogus", "reason"),
        ("scope=claims&quality=great", "quality"),
        ("scope=claims&job=abc", "job"),
        ("scope=claims&job=0", "job"),
        ("scope=claims&source=" + "s" * 201, "source"),
        ("scope=ingest_job&job=x", "job"),
    ],
)
def test_a_packs_claim_filters_follow_the_claim_lists_rule(api, claims, query, field):
    response = api.get(f"/connect/v1/audit-pack?{query}")
    assert response.status_code == 400, response.content[:300]
    error = response.json()["error"]
    assert (error["code"], error["details"]["field"]) == ("invalid_scope", field)
    # The claim list answers the same filter value with a 400 too (one rule, not a copy).
    claims_query = query.removeprefix("scope=ingest_job&").removeprefix("scope=claims&")
    if field in ("state", "source", "job"):
        listed = api.get(f"/connect/v1/claims?{claims_query}")
        assert listed.status_code == 400
        assert listed.json()["error"]["details"] == {"field": field}


def test_a_trace_pack_names_a_person_caller_by_role_never_by_username(
    api, auditor_client, auditor, claims, tmp_path
):
    """docs/audit-pack.md: people appear by role. A console member's call leaves its
    username as the trace's caller; the pack gives the role and a pack-local ref."""
    trace_id = auditor_client.post(
        "/connect/v1/retrieve", {"query": "sediment"}, content_type="application/json"
    ).json()["trace_id"]
    pack = _pack(api.get(f"/connect/v1/audit-pack?scope=trace&trace={trace_id}"), tmp_path, "m")
    assert check_pack(pack).ok
    with zipfile.ZipFile(pack) as archive:
        raw = archive.read(check.TRACE_FILE).decode()
    assert json.loads(raw)["document"]["caller"] == {
        "kind": "member",
        "role": "auditor",
        "ref": "auditor-1",
    }
    assert auditor.get_username() not in raw
