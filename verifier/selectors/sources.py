from __future__ import annotations

from typing import Final

from django.db.models import QuerySet
from django.db.models.functions import Length
from django.http import Http404

from verifier.models import Source, SourceVersion, Workspace


def source_list(*, workspace: Workspace) -> QuerySet[Source]:
    return Source.objects.filter(workspace=workspace)


def source_get(*, workspace: Workspace, ref: str) -> Source:
    source = source_list(workspace=workspace).filter(ref=ref).first()
    if source is None:
        raise Http404("No such source in this workspace.")
    return source


def source_current_version(*, source: Source) -> SourceVersion | None:
    return SourceVersion.objects.filter(source=source).order_by("-number").first()


def source_version_get(*, source: Source, number: int) -> SourceVersion:
    """Version ``number`` of ``source``, with its text; 404 when it has no such version."""
    version = SourceVersion.objects.filter(source=source, number=number).first()
    if version is None:
        raise Http404(f"The source has no version {number}.")
    return version


# A source's API answer lists its newest versions, oldest of them first.
VERSIONS_LISTED: Final = 100


def source_versions_listed(*, source: Source) -> tuple[list[SourceVersion], int]:
    """The source's newest ``VERSIONS_LISTED`` versions in number order, without their
    text (each one's length counted by the database, as characters, as ``len`` counts
    them), and how many it has in all."""
    newest: list[SourceVersion] = list(
        SourceVersion.objects.filter(source=source)
        .annotate(text_length=Length("text"))
        .defer("text")
        .order_by("-number")[:VERSIONS_LISTED]
    )
    total = (
        len(newest)
        if len(newest) < VERSIONS_LISTED
        else SourceVersion.objects.filter(source=source).count()
    )
    return newest[::-1], total
