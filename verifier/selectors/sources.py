from __future__ import annotations

from django.db.models import QuerySet
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
