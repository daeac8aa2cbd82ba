"""The sentence index: filled by the ingest store stage from the binding splitter's
sentence spans, reusing the stored vectors of claims with the same text, idempotent,
and holding each source's current version only."""

from __future__ import annotations

import numpy as np
import pytest

from tests.factories import make_claim, make_source, make_workspace
from verifier.embeddings import embed_texts
from verifier.models import Claim, SourceSentence, SourceVersion
from verifier.selectors.sentences import sentence_stored_vectors
from verifier.services import sentence_index
from verifier.services.ingest import STAGE_ORDER, ingest_stage_run
from verifier.services.ingest_create import ClaimUpload, SourceUpload, ingest_job_create
from verifier.services.sentence_index import source_sentences_index
from verifier.services.sources import source_upsert
from verifier.text.sentences import sentence_spans

pytestmark = pytest.mark.django_db

TEXT = (
    "The Halden Point lighthouse was built in 1871. Its lamp was electrified in 1923.\n\n"
    "Who kept the light?  The keeper's cottage burned down in 1950.\n\n"
    "1.\n\n"
    "Halden Point lies at the mouth of the Marrow River."
)


@pytest.fixture
def embedded(monkeypatch):
    """Every text the index embeds, in order (the real model still embeds them)."""
    seen: list[str] = []

    def counting(texts, **kwargs):
        seen.extend(texts)
        return embed_texts(texts, **kwargs)

    monkeypatch.setattr(sentence_index, "embed_texts", counting)
    return seen


def _spans(version: SourceVersion) -> list[tuple[int, int]]:
    return sorted(SourceSentence.objects.filter(source_version=version).values_list("start", "end"))


def _current(source) -> SourceVersion:
    return source.versions.order_by("-number").first()


def test_every_lettered_sentence_is_indexed_and_claim_vectors_are_reused(embedded):
    source = make_source(make_workspace(), text=TEXT)
    version = _current(source)
    copied = "The Halden Point lighthouse was built in 1871."
    claim_vector = embed_texts([copied])[0]
    make_claim(source, copied, embedding=claim_vector)
    make_claim(source, "Paraphrase: the lamp went electric in 1923.", embedding=claim_vector)

    counts = source_sentences_index(version_pks=[version.pk])

    lettered = [(s, e) for s, e in sentence_spans(TEXT) if any(c.isalpha() for c in TEXT[s:e])]
    assert (s := _spans(version)) == lettered and len(s) == 5  # "1." has no letter
    assert counts.sentences == 5 and counts.reused == 1 and counts.embedded == 4
    # only the sentences no claim copied were embedded, each once
    assert len(embedded) == 4 and copied not in embedded
    row = SourceSentence.objects.get(source_version=version, start=0)
    stored = sentence_stored_vectors(sentence_pks=[row.pk])[row.pk]
    assert np.array_equal(stored, claim_vector.astype(np.float32))
    assert row.workspace_id == source.workspace_id


def test_whitespace_inside_a_sentence_does_not_stop_reuse(embedded):
    text = "The keeper's cottage\nburned down in 1950."
    source = make_source(make_workspace(), text=text)
    make_claim(source, "The keeper's cottage burned down in 1950.", embedding=embed_texts(["x"])[0])
    counts = source_sentences_index(version_pks=[_current(source).pk])
    assert counts.reused == 1 and counts.embedded == 0 and embedded == []


def test_indexing_again_adds_nothing_and_embeds_nothing(embedded):
    source = make_source(make_workspace(), text=TEXT)
    version = _current(source)
    source_sentences_index(version_pks=[version.pk])
    before, embedded_before = _spans(version), len(embedded)

    again = source_sentences_index(version_pks=[version.pk, version.pk])

    assert _spans(version) == before
    assert again.sentences == 0 and again.embedded == 0 and len(embedded) == embedded_before


def test_a_new_version_replaces_the_older_versions_rows_and_an_old_one_is_skipped(embedded):
    workspace = make_workspace()
    source = make_source(workspace, ref="source:lighthouse", text=TEXT)
    first = _current(source)
    source_sentences_index(version_pks=[first.pk])
    edited = TEXT.replace("1923", "1924")
    second = source_upsert(workspace=workspace, ref="source:lighthouse", text=edited).version

    counts = source_sentences_index(version_pks=[second.pk, first.pk])

    assert counts.versions == 1  # the first version is no longer current
    assert _spans(first) == []
    assert len(_spans(second)) == 5
    assert not SourceSentence.objects.filter(workspace=workspace).exclude(source_version=second)


def test_ingest_fills_the_index_reusing_the_extracted_claims_vectors(
    workspace, embedded, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        job = ingest_job_create(
            workspace=workspace, sources=[SourceUpload(ref="source:l", text=TEXT)]
        )
    version = SourceVersion.objects.get(source__ref="source:l")
    assert len(_spans(version)) == 5
    claim_texts = set(Claim.objects.filter(ingest_job=job).values_list("text", flat=True))
    sentences = {" ".join(TEXT[s:e].split()) for s, e in _spans(version)}
    # the sentence extractor copied most sentences; only the others were embedded here
    assert claim_texts & sentences
    assert sorted(embedded) == sorted(sentences - claim_texts)
    assert "Who kept the light?" in embedded  # a question: no claim copies it


def test_reingesting_the_same_version_duplicates_no_rows(
    workspace, embedded, django_capture_on_commit_callbacks
):
    for _ in range(2):
        with django_capture_on_commit_callbacks(execute=True):
            ingest_job_create(
                workspace=workspace, sources=[SourceUpload(ref="source:l", text=TEXT)]
            )
    assert SourceVersion.objects.filter(source__ref="source:l").count() == 1
    assert SourceSentence.objects.filter(workspace=workspace).count() == 5


def test_a_job_of_imported_claims_indexes_its_sources_too(workspace, embedded):
    job = ingest_job_create(
        workspace=workspace,
        sources=[SourceUpload(ref="source:l", text=TEXT)],
        claims=[ClaimUpload(source_ref="source:l", text="Its lamp was electrified in 1923.")],
        start=False,
    )
    for stage in STAGE_ORDER:
        ingest_stage_run(job_id=job.pk, stage=stage)
    assert SourceSentence.objects.filter(workspace=workspace).count() == 5
    assert "Its lamp was electrified in 1923." not in embedded
    assert len(embedded) == 4


def test_sentences_of_many_versions_are_embedded_in_one_call(monkeypatch):
    calls: list[int] = []

    def counting(texts, **kwargs):
        calls.append(len(texts))
        return embed_texts(texts, **kwargs)

    monkeypatch.setattr(sentence_index, "embed_texts", counting)
    workspace = make_workspace()
    versions = [
        _current(make_source(workspace, text=f"Buoy {i} drifted north in the spring storm."))
        for i in range(sentence_index.VERSIONS_PER_ROUND + 8)
    ]
    counts = source_sentences_index(version_pks=[v.pk for v in versions])
    assert calls == [len(versions)]  # not one call per round of versions
    assert counts.versions == counts.sentences == counts.embedded == len(versions)
