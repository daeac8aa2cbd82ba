import hashlib

import pytest
from django.db import IntegrityError, InternalError, transaction

from verifier.models import SourceVersion
from verifier.services.sources import SourceInputError, source_upsert


def test_version_stores_sha256_of_exact_utf8_bytes(workspace):
    text = "Naïve café — “quoted” text with emoji 🧪 and\u00a0NBSP."
    write = source_upsert(workspace=workspace, ref="source:unicode", text=text)
    assert write.version.text == text
    assert write.version.sha256 == hashlib.sha256(text.encode("utf-8")).hexdigest()
    assert write.version.number == 1


def test_identical_text_creates_no_new_version(workspace):
    first = source_upsert(workspace=workspace, ref="source:a", text="Alpha text.")
    again = source_upsert(workspace=workspace, ref="source:a", text="Alpha text.")
    assert again.version.pk == first.version.pk
    assert not again.created_version
    assert SourceVersion.objects.filter(source=first.source).count() == 1


def test_changed_text_creates_a_new_version_and_keeps_the_old(workspace):
    v1 = source_upsert(workspace=workspace, ref="source:a", text="Alpha text.").version
    v2 = source_upsert(workspace=workspace, ref="source:a", text="Alpha text, revised.").version
    assert (v1.number, v2.number) == (1, 2)
    assert v1.sha256 != v2.sha256
    v1.refresh_from_db()
    assert v1.text == "Alpha text."


def test_reverting_to_old_text_makes_it_current_again(workspace):
    source_upsert(workspace=workspace, ref="source:a", text="One.")
    source_upsert(workspace=workspace, ref="source:a", text="Two.")
    v3 = source_upsert(workspace=workspace, ref="source:a", text="One.").version
    assert v3.number == 3


def test_version_text_cannot_be_updated_in_the_database(workspace):
    version = source_upsert(workspace=workspace, ref="source:a", text="Original.").version
    with pytest.raises((IntegrityError, InternalError)), transaction.atomic():
        SourceVersion.objects.filter(pk=version.pk).update(text="Tampered.")
    version.refresh_from_db()
    assert version.text == "Original."


@pytest.mark.parametrize("bad", ["", "   \n", "lone \ud800 surrogate"])
def test_bad_text_is_refused_and_nothing_is_stored(workspace, bad):
    with pytest.raises(SourceInputError):
        source_upsert(workspace=workspace, ref="source:bad", text=bad)
    assert not SourceVersion.objects.filter(source__ref="source:bad").exists()


def test_sha256_format_is_checked_by_the_database(source):
    with pytest.raises(IntegrityError), transaction.atomic():
        SourceVersion.objects.create(source=source, number=99, text="x", sha256="not-a-hash")
