"""Source version chunks (migration 0018): the database writes them for every version,
however it is inserted; ``spanproof_version_span`` cuts exactly what ``substring`` of the
whole text cuts; chunks are immutable like their version."""

from __future__ import annotations

import uuid

import pytest
from django.db import IntegrityError, InternalError, connection, transaction
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.factories import make_source
from verifier.models import SPAN_CHUNK_CHARS, Source, SourceVersion, SourceVersionChunk, text_sha256
from verifier.selectors.version_span import VersionSpan

REJECTED = (IntegrityError, InternalError)
# ASCII, two-, three- and four-byte UTF-8 characters, and the ones Python and SQL might
# count differently if either miscounted (combining mark, NBSP, newline).
ALPHABET = st.sampled_from([*"ab .\n", "é", "\u0301", "\u00a0", "日", "語", "🧪"])


def _chunks(version: SourceVersion) -> list[tuple[int, str]]:
    return list(version.chunks.order_by("index").values_list("index", "text"))


def _span(version: SourceVersion, start: int, end: int) -> str:
    with connection.cursor() as cursor:
        cursor.execute("SELECT spanproof_version_span(%s, %s, %s)", [version.pk, start, end])
        return cursor.fetchone()[0]


def _substring(version: SourceVersion, start: int, end: int) -> str:
    """What the serving path cut before chunks: ``substring`` of the whole text."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT substring(text FROM %s + 1 FOR GREATEST(%s - %s, 0)) "
            "FROM verifier_sourceversion WHERE id = %s",
            [start, end, start, version.pk],
        )
        return cursor.fetchone()[0]


def _expected_chunks(text: str) -> list[tuple[int, str]]:
    size = SPAN_CHUNK_CHARS
    return [(i // size, text[i : i + size]) for i in range(0, len(text), size)]


def test_a_version_written_by_the_service_gets_its_chunks(workspace):
    text = "Naïve café — 🧪 " * 300  # 4,500 characters, multibyte throughout
    version = make_source(workspace, text=text).versions.get()
    assert _chunks(version) == _expected_chunks(text)
    assert [len(t) for _, t in _chunks(version)] == [1024, 1024, 1024, 1024, 404]


def test_bulk_created_versions_get_their_chunks_in_one_statement(workspace):
    texts = ["x" * SPAN_CHUNK_CHARS, "y" * (SPAN_CHUNK_CHARS + 1), "z", "日" * 3000]
    sources = Source.objects.bulk_create(
        [Source(workspace=workspace, ref=f"source:bulk_{i}", title="t") for i in range(4)]
    )
    versions = SourceVersion.objects.bulk_create(
        [
            SourceVersion(source=s, number=1, text=t, sha256=text_sha256(t))
            for s, t in zip(sources, texts, strict=True)
        ]
    )
    for version, text in zip(versions, texts, strict=True):
        assert _chunks(version) == _expected_chunks(text)
    assert [len(_chunks(v)) for v in versions] == [1, 2, 1, 3]


def test_chunks_cannot_be_changed_or_deleted(workspace):
    version = make_source(workspace, text="Alpha beta gamma.").versions.get()
    chunk = version.chunks.get()
    with pytest.raises(REJECTED, match="immutable"), transaction.atomic():
        SourceVersionChunk.objects.filter(pk=chunk.pk).update(text="Tampered.")
    with pytest.raises(REJECTED, match="immutable"), transaction.atomic():
        SourceVersionChunk.objects.filter(pk=chunk.pk).delete()
    assert _chunks(version) == [(0, "Alpha beta gamma.")]


@pytest.mark.parametrize(
    ("start", "end"),
    [
        (0, 5),
        (1020, 1030),  # across the first chunk boundary
        (1024, 2048),  # exactly the second chunk
        (500, 2600),  # three chunks
        (2990, 3000),  # the last characters
        (2995, 3010),  # running past the end: shorter, as substring gives
        (3000, 3004),  # starting at the end: empty
        (4000, 4100),  # beyond the last chunk: empty
        (7, 7),  # empty span
        (9, 3),  # end before start: empty
    ],
)
def test_span_cuts_what_substring_cuts(workspace, start, end):
    text = "".join(f"{i % 10}é" if i % 7 else "🧪 " for i in range(1500))  # 3,000 characters
    version = make_source(workspace, text=text).versions.get()
    assert len(text) == 3000
    assert _span(version, start, end) == _substring(version, start, end) == text[start:end]


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    text=st.text(ALPHABET, min_size=1, max_size=3 * SPAN_CHUNK_CHARS + 50),
    data=st.data(),
)
def test_span_agrees_with_substring_on_any_text_and_range(workspace, text, data):
    source = Source.objects.create(workspace=workspace, ref=f"source:{uuid.uuid4().hex}", title="t")
    version = SourceVersion.objects.create(
        source=source, number=1, text=text, sha256=text_sha256(text)
    )
    assert "".join(t for _, t in _chunks(version)) == text
    start = data.draw(st.integers(0, len(text) + 5), label="start")
    end = data.draw(st.integers(start - 2, len(text) + 10), label="end")
    assert _span(version, start, end) == _substring(version, start, end)
    if 0 <= start <= end:
        assert _span(version, start, end) == text[start:end]


def test_version_span_expression_in_a_queryset(workspace):
    text = "ab" * 1000
    version = make_source(workspace, text=text).versions.get()
    cut = (
        SourceVersion.objects.filter(pk=version.pk)
        .annotate(span=VersionSpan("id", 1023, 1026))
        .values_list("span", flat=True)
        .get()
    )
    assert cut == text[1023:1026] == "bab"
