"""Problems users found in ingest: non-Latin names merged into one source, no claims from
non-Latin text (and no word why), unchanged sentences losing their claim when a changed
text is ingested again, and the empty-file form error."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from tests.verifier.api.conftest import client_for
from verifier.models import Claim, EvidenceBinding, IngestJob, Source, SourceVersion
from verifier.services.ingest_create import IngestInputError, SourceUpload, ingest_job_create

RU_A = "Гавань открылась в 1901 году после долгого строительства. Паром ходит через пролив."
RU_B = "Паром через пролив ходит дважды в день летом. Билеты продаются у причала утром."


@pytest.fixture
def api_client(workspace):
    return client_for(workspace)


# --- 1. a ref made from a name keeps distinct names distinct ------------------------------


def test_two_files_with_cyrillic_names_in_one_upload_are_two_sources(
    reviewer_client, django_capture_on_commit_callbacks
):
    first = SimpleUploadedFile("отчёт.txt", RU_A.encode())
    second = SimpleUploadedFile("доклад.txt", RU_B.encode())
    with django_capture_on_commit_callbacks(execute=True):
        response = reviewer_client.post("/ingest/", {"format": "text", "files": [first, second]})
    assert response.status_code == 302
    sources = {s.ref: s for s in Source.objects.all()}
    assert sorted(sources) == ["source:доклад.txt", "source:отчёт.txt"]
    assert sources["source:отчёт.txt"].title == "отчёт.txt"
    assert SourceVersion.objects.filter(source__in=sources.values(), number=2).count() == 0
    assert not Claim.objects.exclude(exclusion_reason="").exists()


def test_pastes_titled_in_cyrillic_one_after_another_are_two_sources(
    reviewer_client, django_capture_on_commit_callbacks
):
    for title, text in (("Отчёт о гавани", RU_A), ("Доклад о пароме", RU_B)):
        with django_capture_on_commit_callbacks(execute=True):
            reviewer_client.post("/ingest/", {"title": title, "text": text, "format": "text"})
    assert sorted(Source.objects.values_list("ref", flat=True)) == [
        "source:доклад_о_пароме",
        "source:отчёт_о_гавани",
    ]
    assert not SourceVersion.objects.filter(number__gt=1).exists()


def test_untitled_pastes_of_different_texts_are_different_sources(reviewer_client):
    reviewer_client.post("/ingest/", {"text": RU_A, "format": "text"})
    reviewer_client.post("/ingest/", {"text": RU_B, "format": "text"})
    reviewer_client.post("/ingest/", {"text": RU_A, "format": "text"})  # the same text again
    assert Source.objects.count() == 2
    assert not SourceVersion.objects.filter(number__gt=1).exists()
    assert set(Source.objects.values_list("title", flat=True)) == {"Pasted text"}


@pytest.mark.parametrize(
    ("name", "ref"),
    [
        ("Harbour Report.txt", "source:harbour_report.txt"),  # as before: ASCII names keep
        ("a  __b", "source:a___b"),  # their refs, so a re-ingest is still a new version
        ("a+b.txt", "source:a_b.txt"),
        ("отчёт.txt", "source:отчёт.txt"),
        ("Отчёт о гавани", "source:отчёт_о_гавани"),
        ("«Отчёт» — гавань", "source:отчёт_гавань"),
        ("Ελληνικά.txt", "source:ελληνικά.txt"),
        ("報告書.txt", "source:報告書.txt"),
        ("हिन्दी रिपोर्ट.md", "source:हिन्दी_रिपोर्ट.md"),  # marks stay in their word
        ("Café.txt", "source:café.txt"),
        ("a\u200db.txt", "source:ab.txt"),  # an invisible character is no part of a ref
        (".bashrc", "source:.bashrc"),
    ],
)
def test_ref_for_title(name, ref):
    from verifier.services.ingest_create import ref_for_title
    from verifier.untrusted_input import identifier_problem

    assert ref_for_title(name) == ref
    assert identifier_problem(ref_for_title(name)) is None


def test_names_with_no_letters_left_get_a_hash_of_the_name_not_one_shared_ref():
    from verifier.services.ingest_create import ref_for_title

    ship, rocket = ref_for_title("🚢.txt"), ref_for_title("🚀.txt")
    assert ship != rocket and ship.startswith("source:document-")
    assert ref_for_title("🚢.txt") == ship  # stable: the same name again is a new version
    assert ref_for_title("Report 🚢.txt") != ref_for_title("Report 🚀.txt")
    assert ref_for_title("!!!") != ref_for_title("???")
    long_a, long_b = ref_for_title("x" * 299 + "a"), ref_for_title("x" * 299 + "b")
    assert long_a != long_b and len(long_a) == len(long_b) == 200


def test_a_title_too_long_for_a_ref_is_stored_not_a_500(api_client):
    body = {"sources": [{"title": "Ж" * 300, "text": RU_A}]}
    response = api_client.post("/connect/v1/ingest-jobs", body, content_type="application/json")
    assert response.status_code == 202, response.json()
    assert len(Source.objects.get().ref) == 200


def test_two_uploads_of_one_job_under_one_ref_are_refused_naming_both(workspace):
    uploads = [
        SourceUpload(title="Report.txt", text=RU_A),
        SourceUpload(title="report.txt", text=RU_B),
    ]
    with pytest.raises(IngestInputError) as refused:
        ingest_job_create(workspace=workspace, sources=uploads, start=False)
    assert refused.value.code == "duplicate_ref"
    assert "'Report.txt' and 'report.txt'" in refused.value.message
    assert "source:report.txt" in refused.value.message
    assert not Source.objects.exists() and not IngestJob.objects.exists()


def test_the_api_refuses_one_ref_twice_in_a_job_with_a_400(api_client):
    body = {"sources": [{"ref": "source:x", "text": RU_A}, {"ref": "source:x", "text": RU_B}]}
    response = api_client.post("/connect/v1/ingest-jobs", body, content_type="application/json")
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "duplicate_ref"
    assert error["message"].startswith("sources[0] and sources[1] would both be stored")
    assert not Source.objects.exists()


def test_the_form_shows_the_collision_as_its_error(reviewer_client):
    first = SimpleUploadedFile("Report.txt", RU_A.encode())
    second = SimpleUploadedFile("report.txt", RU_B.encode())
    response = reviewer_client.post("/ingest/", {"format": "text", "files": [first, second]})
    assert response.status_code == 400
    assert "would both be stored as the source" in response.content.decode()
    assert not Source.objects.exists()


# --- 2. claims from text in any script, and a word when there are none --------------------


@pytest.mark.parametrize(
    "text",
    [
        "Гавань открылась в 1901 году после долгого строительства.",
        "Το λιμάνι άνοιξε το 1901 μετά από μακρά κατασκευή.",
        "Он сказал: «Гавань открылась в 1901 году после ремонта».",
        "فتح الميناء في عام 1901 بعد بناء طويل.",
    ],
)
def test_the_sentence_extractor_finds_statements_in_any_script(text):
    from verifier.extractors.sentence import SentenceExtractor

    assert [c.quote for c in SentenceExtractor().extract(text)] == [text]


@pytest.mark.parametrize(
    "text",
    [
        "Когда открылась гавань после строительства?",
        "Πότε άνοιξε το λιμάνι μετά την κατασκευή;",  # the Greek question mark
        "Πότε άνοιξε το λιμάνι μετά την κατασκευή\u037e",
        "متى فتح الميناء بعد بناء طويل في المدينة؟",
        "Гавань 1901 1902 1903 1904 1905.",  # numbers are not words
    ],
)
def test_questions_and_fragments_in_any_script_are_no_claims(text):
    from verifier.extractors.sentence import SentenceExtractor

    assert SentenceExtractor().extract(text) == []


def test_a_job_with_no_statement_in_a_source_says_so(
    reviewer_client, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        reviewer_client.post(
            "/ingest/",
            {
                "title": "Вопросы",
                "text": "Когда открылась гавань?\n\nКто построил паром?",
                "format": "text",
            },
        )
    job = IngestJob.objects.get()
    assert job.status == "succeeded"
    assert job.quality_report["notices"] == [
        {
            "code": "no_claims",
            "source": "source:вопросы",
            "message": "No claims were found in source:вопросы: no sentence reads as a statement.",
        }
    ]
    page = reviewer_client.get(f"/ingest/jobs/{job.pk}/").content.decode()
    assert "No claims were found in source:вопросы: no sentence reads as a statement." in page


def test_a_job_whose_sources_all_have_claims_has_no_notice(workspace, run_job):
    job = run_job(workspace, {"source:ru": RU_A})
    assert Claim.objects.filter(ingest_job=job).count() == 2
    assert job.quality_report["notices"] == []


# --- 3. re-ingesting changed text keeps the unchanged sentences' claims current -----------

KESTREL = [
    "The Kestrel Bridge opened to traffic in 1931 after four years of work.",
    "Its main span crosses the Tarn estuary at a height of forty metres.",
    "The bridge was painted green by the county council in 1978.",
    "A toll on the bridge was collected from every car and cart until the county council "
    "bought the bridge in 1962.",
    "Ferries across the estuary stopped running soon after the opening.",
    "The bridge carries two lanes of traffic and a footpath on each side.",
]


def _ingest(api, sentences):
    body = {"sources": [{"ref": "source:kestrel", "text": " ".join(sentences)}]}
    response = api.post("/connect/v1/ingest-jobs", body, content_type="application/json")
    assert response.status_code == 202, response.json()
    return IngestJob.objects.get(pk=response.json()["id"])


def test_reingesting_changed_text_rebinds_the_unchanged_sentences_claims(
    workspace, django_capture_on_commit_callbacks
):
    api = client_for(workspace)
    with django_capture_on_commit_callbacks(execute=True):
        first = _ingest(api, KESTREL)
    old = {c.original_text: c for c in Claim.objects.filter(ingest_job=first)}
    assert len(old) == 6
    before = {text: c.state for text, c in old.items()}
    changed = [*KESTREL[:3], KESTREL[3].replace("1962", "1965"), KESTREL[4]]  # 6th removed
    with django_capture_on_commit_callbacks(execute=True):
        second = _ingest(api, changed)
    second.refresh_from_db()
    v2 = SourceVersion.objects.get(source__ref="source:kestrel", number=2)
    report = second.quality_report
    assert report["claims"] == 1 and report["duplicates"] == 0
    new = Claim.objects.get(ingest_job=second)
    assert new.original_text == changed[3] and new.duplicate_of_id is None
    for text, claim in old.items():
        claim.refresh_from_db()
        binding = EvidenceBinding.objects.filter(claim=claim, is_active=True).first()
        if text in changed:  # bound in v2 and judged again: as it was
            assert binding is not None and binding.source_version_id == v2.pk, text
            assert claim.state == before[text], text
        else:  # its sentence changed or went: not current
            assert binding is None or binding.source_version_id != v2.pk
            assert claim.state != "supported", text
    # every sentence of v2 has exactly one current claim
    current = EvidenceBinding.objects.filter(source_version=v2, is_active=True)
    assert sorted(current.values_list("quote", flat=True)) == sorted(changed)


# --- 4. an empty file is one error that names it -------------------------------------------


@pytest.mark.parametrize("with_good_file", [False, True])
def test_an_empty_file_is_one_error_naming_it(reviewer_client, with_good_file):
    files = [SimpleUploadedFile("пусто.txt", b"")]
    if with_good_file:
        files.append(SimpleUploadedFile("good.txt", RU_A.encode()))
    response = reviewer_client.post("/ingest/", {"format": "text", "files": files})
    html = response.content.decode()
    assert response.status_code == 400
    assert "пусто.txt is empty." in html
    assert "Paste some text or choose at least one file." not in html
    assert "The submitted file is empty." not in html
    # the field's help (which files it takes) and its error both describe it
    assert 'aria-invalid="true" aria-describedby="id_files_helptext id_files_error"' in html
    assert not IngestJob.objects.exists()
