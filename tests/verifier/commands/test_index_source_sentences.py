"""``manage.py index_source_sentences``: backfill of the sentence index."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from tests.factories import make_source, make_workspace
from verifier.models import SourceSentence

pytestmark = pytest.mark.django_db


def _run(*args: str) -> dict:
    out = StringIO()
    call_command("index_source_sentences", *args, stdout=out)
    return json.loads(out.getvalue())


def test_indexes_sources_stored_outside_ingest_once():
    mine, other = make_workspace(), make_workspace()
    make_source(mine)  # three sentences (the factories' default text)
    make_source(other)
    assert not SourceSentence.objects.exists()

    counts = _run("--workspace", mine.slug)

    assert counts["versions"] == 1 and counts["sentences"] == 3
    assert SourceSentence.objects.filter(workspace=mine).count() == 3
    assert not SourceSentence.objects.filter(workspace=other).exists()
    assert _run()["sentences"] == 3  # the other workspace now; mine is not redone
    assert _run()["sentences"] == 0


def test_an_unknown_workspace_is_an_error():
    with pytest.raises(CommandError):
        _run("--workspace", "nope")
