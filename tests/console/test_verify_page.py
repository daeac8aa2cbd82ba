"""The console's "Verify claims" page and its job page, through the real chain."""

from __future__ import annotations

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from tests.factories import make_source
from verifier.models import Claim, ClaimOrigin, VerificationJob

pytestmark = pytest.mark.django_db

TEXT = (
    "The harbour wall was rebuilt in 1998 after the winter storms. It is 412 metres long. "
    "Fishing boats moor on its inner side."
)


@pytest.fixture
def harbour(workspace):
    return make_source(workspace, ref="source:harbour", text=TEXT)


def test_pasted_jsonl_is_verified_and_each_row_links_to_its_audit_page(reviewer_client, harbour):
    response = reviewer_client.post(
        "/verify/",
        {
            "claims": (
                '{"text": "It is 412 metres long.", "source": "source:harbour"}\n'
                '{"text": "Anything at all.", "source": "source:elsewhere"}\n'
            )
        },
    )
    job = VerificationJob.objects.get()
    assert response.status_code == 302 and response["Location"] == f"/verify/jobs/{job.pk}/"
    page = reviewer_client.get(response["Location"])
    html = page.content.decode()
    claim = Claim.objects.get(origin=ClaimOrigin.API)
    assert claim.state == "supported"
    assert f'href="/audit/claims/{claim.public_id}/"' in html
    assert "The cited span entails the claim." in html
    assert "unknown_source" in html and "Not accepted" in html
    assert "Verified 1 claim." in html


def test_csv_upload_with_a_default_cited_source(reviewer_client, harbour):
    upload = SimpleUploadedFile(
        "claims.csv", b"text,quote\nFishing boats moor on its inner side.,\n", "text/csv"
    )
    response = reviewer_client.post("/verify/", {"file": upload, "source": harbour.pk})
    assert response.status_code == 302
    claim = Claim.objects.get(origin=ClaimOrigin.API)
    assert claim.source == harbour and claim.state == "supported"


def test_a_bad_line_is_a_form_error_and_nothing_is_stored(reviewer_client, harbour):
    response = reviewer_client.post(
        "/verify/", {"claims": '{"text": "It is 412 metres long.", "source": "s"}\n{oops\n'}
    )
    assert response.status_code == 200
    assert "Line 2: not JSON" in response.content.decode()
    assert not Claim.objects.exists() and not VerificationJob.objects.exists()


def test_a_line_without_source_needs_the_default(reviewer_client, harbour):
    response = reviewer_client.post("/verify/", {"claims": '{"text": "It is long."}\n'})
    assert "names no source" in response.content.decode()
    assert not Claim.objects.exists()


def test_auditor_reads_but_cannot_submit(auditor_client, harbour):
    page = auditor_client.get("/verify/")
    assert page.status_code == 200
    assert "can read verification results but not submit claims" in page.content.decode()
    response = auditor_client.post(
        "/verify/", {"claims": '{"text": "It is 412 metres long.", "source": "source:harbour"}'}
    )
    assert response.status_code == 403
    assert not Claim.objects.exists()


def test_job_page_polls_until_finished_then_stops(reviewer_client, harbour, workspace):
    job = VerificationJob.objects.create(workspace=workspace, items=[], total=3, done=1)
    partial = reviewer_client.get(f"/verify/jobs/{job.pk}/", headers={"HX-Request": "true"})
    assert partial.status_code == 200 and 'hx-trigger="every 1s"' in partial.content.decode()
    job.status = "succeeded"
    job.save()
    finished = reviewer_client.get(f"/verify/jobs/{job.pk}/", headers={"HX-Request": "true"})
    assert finished.status_code == 286
    assert "hx-trigger" not in finished.content.decode()


def test_another_workspaces_job_is_404(reviewer_client, other_workspace):
    job = VerificationJob.objects.create(workspace=other_workspace, items=[])
    assert reviewer_client.get(f"/verify/jobs/{job.pk}/").status_code == 404


def test_empty_state(reviewer_client):
    assert "No claims verified here yet." in reviewer_client.get("/verify/").content.decode()


def test_verify_with_only_unknown_sources_is_a_form_error_not_a_job(reviewer_client, harbour):
    """Issue 39, point 4: it ended "Succeeded · 0/0 claims verified"."""
    response = reviewer_client.post(
        "/verify/",
        {"claims": '{"text": "The wall was rebuilt in 2004.", "source": "source:nowhere"}\n'},
    )
    assert response.status_code == 200
    html = response.content.decode()
    assert 'role="alert"' in html
    assert (
        "No claim could be verified" in html
        and "No source with the ref &#x27;source:nowhere&#x27;" in html
    )
    assert not Claim.objects.exists() and not VerificationJob.objects.exists()


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        (r'{"text": "a\u0000b", "source": "source:harbour"}', "text contains a NUL character"),
        (r'{"text": "a\ud800b", "source": "source:harbour"}', "text is not valid Unicode"),
        (r'{"text": "ok", "source": "source:harbour", "quote": "\u0000"}', "quote contains a NUL"),
        (r'{"text": "ok", "source": "s\u0000"}', "source contains a NUL character"),
        (r'{"text": "ok", "source": "source:harbour", "metadata": {"k\u0000": 1}}', "has a key"),
    ],
)
def test_an_escaped_nul_or_lone_surrogate_is_a_form_error_naming_the_line(
    reviewer_client, harbour, line, problem
):
    """A JSON escape passes the request guard as six plain characters; the parsed line
    meets the same rule as the API's bodies (it was a 500 from PostgreSQL)."""
    claims = '{"text": "It is 412 metres long.", "source": "source:harbour"}\n' + line + "\n"
    response = reviewer_client.post("/verify/", {"claims": claims})
    assert response.status_code == 200
    html = response.content.decode()
    assert "Line 2: " in html and problem in html and "it cannot be stored" in html
    assert not Claim.objects.exists() and not VerificationJob.objects.exists()


def test_an_escaped_nul_in_an_uploaded_file_is_a_form_error(reviewer_client, harbour):
    upload = SimpleUploadedFile(
        "claims.jsonl", rb'{"text": "a\u0000b", "source": "source:harbour"}' + b"\n"
    )
    response = reviewer_client.post("/verify/", {"file": upload})
    assert response.status_code == 200
    assert "Line 1: text contains a NUL character" in response.content.decode()
    assert not Claim.objects.exists() and not VerificationJob.objects.exists()


@pytest.mark.parametrize(
    ("claims", "message"),
    [
        (
            "text,source\n" + "y" * 200_000 + ",source:harbour\n",
            "Line 2: a field is longer than 131,072 characters",
        ),
        ("text," + "y" * 200_000 + "\n", "Line 1: a field is longer than 131,072 characters"),
        ('text,source\n"' + "y" * 200_000, "Line 2: a field is longer than 131,072 characters"),
        ("text,source\nIt is\rlong.,source:harbour\n", "Line 2: a carriage return"),
        ("text,source\nIt is long.,source:harbour,extra\n", "Line 2: 3 fields; the header has 2"),
    ],
)
def test_unreadable_csv_is_a_form_error_naming_the_line(reviewer_client, harbour, claims, message):
    response = reviewer_client.post("/verify/", {"claims": claims})
    assert response.status_code == 200
    assert message in response.content.decode()
    assert not Claim.objects.exists() and not VerificationJob.objects.exists()


def test_an_overlong_external_id_is_a_form_error(reviewer_client, harbour):
    line = {"text": "It is 412 metres long.", "source": "source:harbour", "external_id": "e" * 201}
    response = reviewer_client.post("/verify/", {"claims": json.dumps(line)})
    assert response.status_code == 200
    assert "Line 1: external_id is longer than 200 characters" in response.content.decode()
    assert not Claim.objects.exists() and not VerificationJob.objects.exists()


@pytest.mark.parametrize(
    ("metadata", "message"),
    [
        ("NaN", "Line 1: a number is NaN, Infinity or too large"),
        ("1e999", "Line 1: a number is NaN, Infinity or too large"),
        ("1" * 5000, "Line 1: a number has more than 4,300 digits"),
    ],
)
def test_a_number_jsonb_cannot_hold_is_a_form_error(reviewer_client, harbour, metadata, message):
    line = '{"text": "It is 412 metres long.", "source": "source:harbour", "metadata": {"x": %s}}'
    response = reviewer_client.post("/verify/", {"claims": line % metadata})
    assert response.status_code == 200
    assert message in response.content.decode()
    assert not Claim.objects.exists() and not VerificationJob.objects.exists()


def test_policies_read_in_words_in_the_form_and_the_jobs_list(reviewer_client, workspace):
    """The policy select read "active (balanced)", "strict"; the jobs list "strict": codes,
    where the rule-set pages name them "Balanced", "Strict"."""
    VerificationJob.objects.create(workspace=workspace, items=[], policy="strict")
    VerificationJob.objects.create(workspace=workspace, items=[], policy="")
    page = reviewer_client.get("/verify/").content.decode()
    assert '<option value="" selected>Active (Balanced)</option>' in page
    assert '<option value="strict">Strict</option>' in page
    rows = page.split("<tbody>")[1].split("</tbody>")[0]
    assert "<td>Strict</td>" in rows and "<td>Active</td>" in rows and ">strict<" not in rows


def test_the_cited_source_select_offers_documents_only(reviewer_client, harbour, workspace):
    """It listed every source, a RAG audit's chunks too (5,000 options, 285 KB, 784 ms
    in a workspace with 5,000 of them); no claim cites one."""
    from verifier.domain_packs import RAG_CHUNK_REF_PREFIX, RAG_DOMAIN_PACK
    from verifier.models import Source

    Source.objects.create(
        workspace=workspace, ref=f"{RAG_CHUNK_REF_PREFIX}abc", domain_pack=RAG_DOMAIN_PACK
    )
    page = reviewer_client.get("/verify/").content.decode()
    select = page.split('name="source"')[1].split("</select>")[0]
    assert "source:harbour" in select and RAG_CHUNK_REF_PREFIX not in select
