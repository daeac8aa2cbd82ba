"""A source ref is one ref in either Unicode form (``verifier.untrusted_input``, rule 3):
``source:café`` written with a composed ``é`` (U+00E9) and with ``e`` + U+0301 name the
same source at every door, which stores and looks refs up in NFC; migration 0041 brings
the refs stored before to NFC, leaving a pair that would collide as two sources.

Found by a probe: the console's upload made refs in NFC while the API doors stored them
as sent, so the same ref a person reads was two sources, and a claim citing the other
spelling was an ``unknown_source``."""

from __future__ import annotations

import importlib
import io
import json
import logging
import re
import zipfile

import pytest
from django.apps import apps
from django.db import connection
from django.test import Client
from django.urls import reverse

from audit.selectors.trace_spans import trace_span_rows
from tests.factories import make_source
from tests.review.conftest import queue_claim
from tests.verifier.api.conftest import DELTA_TEXT, client_for, judged_claim
from verifier.models import Claim, IngestJob, Source, SourceVersion
from verifier.selectors.permalinks import span_permalink
from verifier.services.ingest import ingest_job_start
from verifier.untrusted_input import canonical_ref

pytestmark = pytest.mark.django_db

COMPOSED = "source:caf\u00e9_notes"  # NFC
DECOMPOSED = "source:cafe\u0301_notes"  # NFD: the same ref to a reader
assert COMPOSED != DECOMPOSED
TEXT = "The cafe opens at seven. Its bread is baked on site each morning."
NEWER = "The cafe opens at eight. Its bread is baked on site each morning."
QUOTE = "Its bread is baked on site each morning."


@pytest.fixture
def api(workspace):
    return client_for(workspace)


@pytest.fixture
def cafe(workspace) -> Source:
    """The source, stored in NFC."""
    return make_source(workspace, ref=COMPOSED, text=TEXT)


def _post(client, url: str, body: dict, on_commit=None):
    if on_commit is None:
        return client.post(url, json.dumps(body), content_type="application/json")
    with on_commit(execute=True):
        return client.post(url, json.dumps(body), content_type="application/json")


def _store_decomposed(source: Source) -> None:
    """``source``'s ref as a door stored it before the rule: in NFD (the ref field
    would store NFC, so the row is written in SQL)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE verifier_source SET ref = %s WHERE id = %s",
            [DECOMPOSED, source.pk],
        )


def test_canonical_ref_is_nfc_and_nothing_else():
    assert canonical_ref(DECOMPOSED) == canonical_ref(COMPOSED) == COMPOSED
    # combining marks in either order are one letter
    assert canonical_ref("source:\u1ea1\u0302") == canonical_ref("source:a\u0302\u0323")
    assert canonical_ref("source:a\u0302\u0323") == "source:\u1ead"
    # no case folding, no compatibility folding, no trimming
    assert canonical_ref(" source:Caf\u00e9 \ufb01") == " source:Caf\u00e9 \ufb01"


# --- POST /connect/v1/sources, GET /connect/v1/sources/{ref} --------------------------


def test_the_sources_api_writes_either_form_to_one_source(api, workspace, cafe):
    same = _post(api, "/connect/v1/sources", {"ref": DECOMPOSED, "text": TEXT})
    assert same.status_code == 200, same.content  # identical text: a no-op
    assert same.json()["source"]["ref"] == COMPOSED and not same.json()["created_version"]
    newer = _post(api, "/connect/v1/sources", {"ref": DECOMPOSED, "text": NEWER})
    assert newer.status_code == 201, newer.content
    assert newer.json()["source"]["ref"] == COMPOSED
    assert newer.json()["version"]["number"] == 2
    assert list(Source.objects.filter(workspace=workspace).values_list("ref", flat=True)) == [
        COMPOSED
    ]
    assert list(cafe.versions.order_by("number").values_list("text", flat=True)) == [TEXT, NEWER]


def test_a_source_made_in_nfd_is_stored_in_nfc(api, workspace):
    made = _post(api, "/connect/v1/sources", {"ref": DECOMPOSED, "text": TEXT})
    assert made.status_code == 201, made.content
    assert made.json()["source"]["ref"] == COMPOSED
    assert Source.objects.get(workspace=workspace).ref == COMPOSED
    # the text is stored as sent: only the ref is brought to NFC
    decomposed_text = "Cafe\u0301 text, as sent."
    _post(api, "/connect/v1/sources", {"ref": "source:marks", "text": decomposed_text})
    assert SourceVersion.objects.get(source__ref="source:marks").text == decomposed_text


def test_get_finds_the_source_by_either_form(api, cafe):
    for asked in (COMPOSED, DECOMPOSED):
        got = api.get(f"/connect/v1/sources/{asked}")
        assert got.status_code == 200, (asked, got.content)
        assert got.json()["ref"] == COMPOSED and got.json()["text"] == TEXT
        # the list's ?q= prefix too
        prefix = asked.removesuffix("_notes")
        listed = api.get("/connect/v1/sources", {"q": prefix}).json()
        assert [s["ref"] for s in listed["results"]] == [COMPOSED], asked


def test_a_ref_over_the_limit_once_composed_is_a_400_not_a_500(api, workspace):
    # U+0958 is composed to two characters (NFC does not recompose it): 107 -> 207
    ref = "source:" + "\u0958" * 100
    response = _post(api, "/connect/v1/sources", {"ref": ref, "text": TEXT})
    assert response.status_code == 400, response.content
    error = response.json()["error"]
    assert (error["code"], error["details"]) == ("invalid_ref", {"field": "ref"})
    assert "207 characters" in error["message"]
    assert not Source.objects.filter(workspace=workspace).exists()


# --- POST /connect/v1/claims/verify -----------------------------------------------------


def test_a_claim_citing_either_form_binds(api, workspace, cafe):
    body = {
        "claims": [
            {"text": f"The bread is baked on site ({n}).", "source": cited, "quote": QUOTE}
            for n, cited in enumerate((COMPOSED, DECOMPOSED))
        ]
    }
    response = _post(api, "/connect/v1/claims/verify", body)
    assert response.status_code == 200, response.content
    assert response.json()["summary"]["errors"] == 0, response.json()
    claims = Claim.objects.filter(workspace=workspace)
    assert [c.source_id for c in claims] == [cafe.pk, cafe.pk]
    assert [c.bindings.get().quote for c in claims] == [QUOTE, QUOTE]


def test_an_inline_source_in_nfd_versions_the_nfc_one(
    api, workspace, cafe, django_capture_on_commit_callbacks
):
    body = {
        "sources": [{"ref": DECOMPOSED, "text": NEWER}],
        "claims": [{"text": "The cafe opens at eight.", "source": COMPOSED}],
    }
    response = _post(api, "/connect/v1/claims/verify", body, django_capture_on_commit_callbacks)
    assert response.status_code == 200, response.content
    assert Source.objects.filter(workspace=workspace).count() == 1
    assert cafe.versions.count() == 2
    assert Claim.objects.get(workspace=workspace).source_id == cafe.pk


def test_two_inline_sources_in_the_two_forms_are_one_ref_twice(api, workspace):
    body = {
        "sources": [{"ref": COMPOSED, "text": TEXT}, {"ref": DECOMPOSED, "text": NEWER}],
        "claims": [{"text": "The cafe opens at seven.", "source": COMPOSED}],
    }
    response = _post(api, "/connect/v1/claims/verify", body)
    assert response.status_code == 400, response.content
    assert response.json()["error"]["code"] == "duplicate_source_ref"
    assert not Source.objects.filter(workspace=workspace).exists()


# --- ingest: the API and the console's upload --------------------------------------------


def test_the_ingest_api_takes_either_form(api, workspace, cafe, django_capture_on_commit_callbacks):
    body = {
        "extract": False,
        "sources": [{"ref": DECOMPOSED, "text": NEWER}],
        "claims": [{"source_ref": DECOMPOSED, "text": "The cafe opens at eight."}],
    }
    response = _post(api, "/connect/v1/ingest-jobs", body, django_capture_on_commit_callbacks)
    assert response.status_code == 202, response.content
    assert Source.objects.filter(workspace=workspace).count() == 1
    assert cafe.versions.count() == 2
    (claim,) = Claim.objects.filter(workspace=workspace)
    assert claim.source_id == cafe.pk and claim.text == "The cafe opens at eight."


def test_a_job_queued_before_the_migration_imports_its_claims(
    workspace, cafe, django_capture_on_commit_callbacks
):
    """A job's payload keeps the ref as the door took it then (NFD); the source it names
    is stored in NFC since migration 0041."""
    job = IngestJob.objects.create(
        workspace=workspace,
        payload={
            "sources": [],
            "claims": [
                {
                    "source_ref": DECOMPOSED,
                    "text": "The cafe opens at seven.",
                    "quote": "",
                    "legacy_verdict": "none",
                }
            ],
            "extract": False,
        },
    )
    with django_capture_on_commit_callbacks(execute=True):
        ingest_job_start(job=job)
    job.refresh_from_db()
    assert job.status == "succeeded", job.errors
    (claim,) = Claim.objects.filter(workspace=workspace)
    assert claim.source_id == cafe.pk


def test_one_ingest_job_may_not_give_one_ref_in_both_forms(api, workspace):
    body = {"sources": [{"ref": COMPOSED, "text": TEXT}, {"ref": DECOMPOSED, "text": NEWER}]}
    response = _post(api, "/connect/v1/ingest-jobs", body)
    assert response.status_code == 400, response.content
    error = response.json()["error"]
    assert error["code"] == "duplicate_ref" and error["details"]["ref"] == COMPOSED
    assert not Source.objects.filter(workspace=workspace).exists()


def test_a_console_upload_and_an_api_write_meet_in_one_source(
    api, reviewer_client, workspace, django_capture_on_commit_callbacks
):
    """The probe's case: the API stored the ref as sent and the console made it NFC."""
    made = _post(api, "/connect/v1/sources", {"ref": DECOMPOSED, "text": TEXT})
    assert made.status_code == 201, made.content
    with django_capture_on_commit_callbacks(execute=True):
        response = reviewer_client.post(
            "/ingest/", {"title": "Cafe\u0301 notes", "text": NEWER, "format": "text"}
        )
    assert response.status_code == 302, response.content.decode()[:300]
    (source,) = Source.objects.filter(workspace=workspace)
    assert source.ref == COMPOSED
    assert list(source.versions.order_by("number").values_list("text", flat=True)) == [
        TEXT,
        NEWER,
    ]


# --- /worker/verify ------------------------------------------------------------------------


def test_the_worker_cites_the_source_named_in_either_form(
    workspace, cafe, django_capture_on_commit_callbacks
):
    # the evidence the verdict rests on is another source's: only the request's source
    # names the cafe
    delta = make_source(workspace, ref="source:marrow_river", text=DELTA_TEXT)
    judged_claim(delta, "Sediment settles where the current slows.", quote="Sediment settles")
    response = _post(
        client_for(workspace),
        "/worker/verify",
        {
            "job_id": "j1",
            "claim": "Sediment settles where the current slows.",
            "source": DECOMPOSED,
        },
        django_capture_on_commit_callbacks,
    )
    assert response.status_code == 200, response.content
    (stored,) = Claim.objects.filter(workspace=workspace, origin="worker")
    assert stored.source_id == cafe.pk


# --- memory transcripts -------------------------------------------------------------------


def test_a_memory_transcript_ref_is_one_ref_in_either_form(api, workspace):
    turns = [{"speaker": "user", "text": "Meet at the cafe at seven.", "timestamp": "10:00"}]
    first = _post(
        api, "/connect/v1/memory/transcripts", {"transcript": turns, "ref": "chat:cafe\u0301"}
    )
    assert first.status_code == 201, first.content
    later = [*turns, {"speaker": "agent", "text": "See you there.", "timestamp": "10:01"}]
    second = _post(
        api, "/connect/v1/memory/transcripts", {"transcript": later, "ref": "chat:caf\u00e9"}
    )
    assert second.status_code == 201, second.content
    (source,) = Source.objects.filter(workspace=workspace)
    assert source.ref == "chat:caf\u00e9" and source.versions.count() == 2


# --- filters: the claims API, audit packs, the console's lists ---------------------------


@pytest.fixture
def cafe_claim(cafe):
    return judged_claim(cafe, "The bread is baked on site.", quote=QUOTE, embed=False)


def test_the_claims_api_filters_by_either_form(api, cafe_claim):
    for asked in (COMPOSED, DECOMPOSED):
        listed = api.get("/connect/v1/claims", {"source": asked})
        assert listed.status_code == 200, listed.content
        assert [c["claim"]["id"] for c in listed.json()["results"]] == [cafe_claim.public_id]


def test_an_audit_pack_of_the_source_by_either_form(api, cafe_claim):
    for asked in (COMPOSED, DECOMPOSED):
        # a source pack of it, and a claims pack filtered by it
        for scope in ("source", "claims"):
            response = api.get("/connect/v1/audit-pack", {"scope": scope, "source": asked})
            assert response.status_code == 200, (asked, scope)
            with zipfile.ZipFile(io.BytesIO(b"".join(response.streaming_content))) as archive:
                claims = archive.read("claims.jsonl").decode().splitlines()
            assert [json.loads(line)["id"] for line in claims] == [cafe_claim.public_id]


def test_the_audit_claim_list_filters_by_either_form(auditor_client, cafe_claim):
    for asked in (COMPOSED, DECOMPOSED):
        html = auditor_client.get(reverse("audit:claim-list"), {"source": asked}).content.decode()
        listed = re.findall(r'href="/audit/claims/(claim:[a-z0-9]+)/(?:\?list=[^"]*)?"', html)
        assert listed == [cafe_claim.public_id], asked


def test_the_review_queue_filters_by_either_form(reviewer_client, workspace):
    cafe = make_source(workspace, ref=COMPOSED)
    claim = queue_claim(cafe, "contradicted")
    for asked in (COMPOSED, DECOMPOSED):
        response = reviewer_client.get("/review/", {"source": asked})
        assert response.status_code == 200
        rows = re.findall(r'<tr data-claim="(claim:[a-z0-9]+)"', response.content.decode())
        assert rows == [claim.public_id], asked


# --- migration 0041 ---------------------------------------------------------------------------

MIGRATION = importlib.import_module("verifier.migrations.0041_source_ref_nfc")


def test_the_migration_brings_a_stored_nfd_ref_to_nfc(workspace, cafe_claim, caplog):
    cafe = cafe_claim.source
    version = cafe.versions.get()
    binding = cafe_claim.bindings.get()
    _store_decomposed(cafe)
    plain = make_source(workspace, ref="source:plain")
    with caplog.at_level(logging.WARNING):
        MIGRATION.refs_to_nfc(apps, None)
    assert Source.objects.get(pk=cafe.pk).ref == COMPOSED
    assert Source.objects.get(pk=plain.pk).ref == "source:plain"
    # only the ref: the version's text and hash and the span's offsets are as they were
    again = SourceVersion.objects.get(pk=version.pk)
    assert (again.text, again.sha256) == (version.text, version.sha256)
    bound = cafe_claim.bindings.get()
    assert (bound.start, bound.end, bound.source_hash) == (
        binding.start,
        binding.end,
        binding.source_hash,
    )
    assert not caplog.records


def test_the_migration_leaves_a_pair_that_would_collide_and_says_so(workspace, caplog):
    older = make_source(workspace, ref=COMPOSED, text=TEXT)
    _store_decomposed(older)  # the NFD one, made first by an API door
    newer = make_source(workspace, ref=COMPOSED, text=NEWER)  # its NFC twin
    assert newer.pk != older.pk
    elsewhere = make_source(workspace, ref="source:x")
    with caplog.at_level(logging.WARNING):
        MIGRATION.refs_to_nfc(apps, None)
    refs = dict(Source.objects.values_list("pk", "ref"))
    assert refs == {older.pk: DECOMPOSED, newer.pk: COMPOSED, elsewhere.pk: "source:x"}
    (record,) = caplog.records
    message = record.getMessage()
    assert record.levelno == logging.WARNING
    assert f"workspace {workspace.pk}, source {older.pk}," in message
    assert ascii(DECOMPOSED) in message and f"is the ref of source {newer.pk}" in message


def test_an_admin_gives_a_pair_left_by_the_migration_a_ref_of_its_own(workspace, django_user_model):
    """What docs/operations.md advises for a pair the migration left: saving the NFD one
    as it is is a form error (its ref is its twin's), not a 500; a new ref is saved."""
    older = make_source(workspace, ref=COMPOSED, text=TEXT)
    _store_decomposed(older)
    make_source(workspace, ref=COMPOSED, text=NEWER)
    user = django_user_model.objects.create_superuser("root", "root@example.com", "pw-123456!")
    client = Client()
    client.force_login(user)
    url = f"/admin/verifier/source/{older.pk}/change/"
    form = {
        "workspace": workspace.pk,
        "title": "Old notes",
        "citation": "",
        "domain_pack": "general",
        "versions-TOTAL_FORMS": "1",
        "versions-INITIAL_FORMS": "1",
        "versions-MIN_NUM_FORMS": "0",
        "versions-MAX_NUM_FORMS": "1000",
        "versions-0-id": older.versions.get().pk,
        "versions-0-source": older.pk,
    }
    kept = client.post(url, form | {"ref": DECOMPOSED})
    assert kept.status_code == 200
    assert "Source with this Workspace and Ref already exists." in kept.content.decode()
    assert Source.objects.get(pk=older.pk).ref == DECOMPOSED
    renamed = client.post(url, form | {"ref": "source:caf\u00e9_notes_old"})
    assert renamed.status_code == 302, renamed.content.decode()[:500]
    assert Source.objects.get(pk=older.pk).ref == "source:caf\u00e9_notes_old"


def test_a_trace_recorded_before_the_migration_links_its_span(workspace, cafe):
    """A trace keeps the ref as it was then (NFD); its span still links to the source,
    now stored under the NFC form."""
    version = cafe.versions.get()
    start = TEXT.index(QUOTE)
    span = {"source_ref": DECOMPOSED, "source_hash": version.sha256, "start": start}
    (row,) = trace_span_rows(workspace=workspace, spans=[span | {"end": start + len(QUOTE)}])
    assert row["permalink"] == span_permalink(
        source_id=cafe.pk, sha256=version.sha256, start=start, end=start + len(QUOTE)
    )
