from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING, Any

from django.db import models
from django.db.models.expressions import RawSQL

from verifier.models.workspaces import Workspace
from verifier.text.search_fold import search_fold_sql
from verifier.untrusted_input import canonical_ref


def text_sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def search_folded(column: str) -> models.GeneratedField:
    """``column`` folded by the text-search rule (``verifier.text.search_fold``), stored:
    PostgreSQL writes it on every insert and every change of ``column``, whoever writes
    the row (a service, a COPY, a bulk update), so a search compares the query against it
    without folding every row again (``bench/claim_search.py``). The rule's SQL is in the
    migration as text: a change of the rule is a schema change (``makemigrations``)."""
    return models.GeneratedField(
        expression=RawSQL(search_fold_sql(f'"{column}"'), ()),
        output_field=models.TextField(),
        db_persist=True,
        help_text=f"The {column} as the console's searches compare it (case, accents, "
        "Unicode form and whitespace runs folded).",
    )


if TYPE_CHECKING:  # CharField cannot be subscripted at run time
    from django.db.models.expressions import Combinable

    _CharField = models.CharField[str | int | Combinable, str]
else:
    _CharField = models.CharField


class SourceRefField(_CharField):
    """A source's ref, written and compared in its one form (``canonical_ref``: NFC):
    a save stores it so, and an ``exact`` or ``in`` lookup (``ref=``, ``ref__in=``,
    ``source__ref=``) brings the ref asked for to it, so every door that finds a source
    by its ref finds it whichever Unicode form the ref came in (migration 0041 brought
    the refs stored before to it). A pattern lookup (``startswith``) is left as given:
    its caller brings the pattern to the form."""

    def get_prep_value(self, value: Any) -> Any:
        value = super().get_prep_value(value)
        return canonical_ref(value) if isinstance(value, str) else value

    def pre_save(self, model_instance: models.Model, add: bool) -> Any:
        value = getattr(model_instance, self.attname)
        if isinstance(value, str):
            value = canonical_ref(value)
            setattr(model_instance, self.attname, value)  # the instance reads as stored
        return value


class Source(models.Model):
    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="sources")
    ref = SourceRefField(
        max_length=200, help_text="Stable reference, e.g. source:nicomachean_ethics"
    )
    title = models.CharField(max_length=300)
    citation = models.CharField(max_length=500, blank=True)
    domain_pack = models.CharField(max_length=64, blank=True, default="general")
    created_at = models.DateTimeField(auto_now_add=True)
    ref_folded = search_folded("ref")
    title_folded = search_folded("title")

    class Meta:
        ordering = ["ref"]
        constraints = [
            models.UniqueConstraint(fields=["workspace", "ref"], name="source_unique_ref"),
        ]

    def __str__(self) -> str:
        return self.ref


class SourceVersion(models.Model):
    """Exact text of a source at one point in time. Immutable (a trigger rejects UPDATE)."""

    source = models.ForeignKey(Source, on_delete=models.CASCADE, related_name="versions")
    number = models.PositiveIntegerField()
    text = models.TextField()
    sha256 = models.CharField(max_length=64)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["source_id", "-number"]
        indexes = [models.Index(fields=["sha256"], name="sourceversion_sha256")]
        get_latest_by = "number"
        constraints = [
            models.UniqueConstraint(
                fields=["source", "number"], name="sourceversion_unique_number"
            ),
            models.CheckConstraint(
                condition=models.Q(sha256__regex=r"^[0-9a-f]{64}$"), name="sourceversion_sha256_hex"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.source.ref} v{self.number} ({self.sha256[:12]})"


# Characters per ``SourceVersionChunk``; the database functions of migration 0018 use the
# same number.
SPAN_CHUNK_CHARS = 1024


class SourceVersionChunk(models.Model):
    """Characters ``[index * SPAN_CHUNK_CHARS, (index + 1) * SPAN_CHUNK_CHARS)`` of a
    source version's text. Written by the database (an AFTER INSERT trigger on
    ``verifier_sourceversion``, so every writer — services, ``bulk_create``, COPY — gets
    them), never by Django; immutable like the version.

    Why: PostgreSQL counts a UTF-8 text's characters from its first byte to reach an offset,
    so ``substring(text FROM start ...)`` reads (and decompresses) the whole prefix — 1.5 to
    3 ms a span at the end of a 200 KB version. ``spanproof_version_span(version, start,
    end)`` reads the one or two chunks that hold the span instead, whatever the version's
    length: the worker's evidence sentences cut spans that way, and the read-time re-check
    runs the same cut written inline in its statement (``verifier.selectors.retrieval``)."""

    version = models.ForeignKey(SourceVersion, on_delete=models.CASCADE, related_name="chunks")
    index = models.PositiveIntegerField()
    text = models.TextField()

    class Meta:
        ordering = ["version_id", "index"]
        constraints = [
            models.UniqueConstraint(
                fields=["version", "index"], name="sourceversionchunk_unique_index"
            ),
        ]

    def __str__(self) -> str:
        return f"version {self.version_id} chunk {self.index}"
