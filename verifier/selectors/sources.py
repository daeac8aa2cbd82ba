"""Reads of sources and their versions."""

from __future__ import annotations

from typing import Final, Literal, get_args

from django.db.models import CharField, Exists, OuterRef, Q, QuerySet, Subquery, Value
from django.db.models.functions import Length
from django.http import Http404

from verifier.domain_packs import RAG_CHUNK_REF_PREFIX, RAG_DOMAIN_PACK
from verifier.models import MemoryTranscript, Source, SourceVersion, Workspace
from verifier.untrusted_input import canonical_ref

# Which door writes a source's versions: documents (the sources API, ingest, inline
# sources of claims/verify, fixtures), memory transcripts, RAG chunks.
SourceKind = Literal["document", "transcript", "rag_chunk"]
SOURCE_KINDS: Final[tuple[str, ...]] = get_args(SourceKind)


def _has_transcript() -> Exists:
    return Exists(MemoryTranscript.objects.filter(source_id=OuterRef("pk")))


# A RAG chunk is named by the hash of its one text, in the RAG domain pack.
_RAG_CHUNK: Final = Q(domain_pack=RAG_DOMAIN_PACK, ref__startswith=RAG_CHUNK_REF_PREFIX)


def source_kind(source: Source) -> SourceKind:
    """The door that writes ``source``'s versions (``SourceKind``)."""
    if source.transcripts.exists():
        return "transcript"
    if source.domain_pack == RAG_DOMAIN_PACK and source.ref.startswith(RAG_CHUNK_REF_PREFIX):
        return "rag_chunk"
    return "document"


def source_list(*, workspace: Workspace) -> QuerySet[Source]:
    return Source.objects.filter(workspace=workspace)


def _documents(qs: QuerySet[Source]) -> QuerySet[Source]:
    """``qs``'s documents (``source_kind``'s rule): neither a RAG chunk nor a transcript."""
    return qs.exclude(_RAG_CHUNK).filter(~_has_transcript())


def source_documents(*, workspace: Workspace) -> QuerySet[Source]:
    """The workspace's documents by ref: what a claim may cite (a RAG audit's chunks and
    a memory check's transcripts are sources too, thousands of them in a busy workspace,
    and no claim cites one)."""
    return _documents(source_list(workspace=workspace)).order_by("ref")


def source_list_paged(
    *,
    workspace: Workspace,
    kind: SourceKind = "document",
    domain_pack: str | None = None,
    prefix: str | None = None,
) -> QuerySet[Source]:
    """The workspace's sources of one kind (``source_kind``'s rule; documents unless
    asked), newest first by id, each with its ``kind`` and its current version's
    ``current_number``, ``current_sha256`` and ``current_created_at`` (None without a
    version), its text not read. ``domain_pack``: that pack only; ``prefix``: a ref, or
    a title in any letter case, that starts with it."""
    qs = source_list(workspace=workspace)
    if kind == "transcript":
        qs = qs.filter(_has_transcript())
    elif kind == "rag_chunk":
        qs = qs.filter(_RAG_CHUNK).filter(~_has_transcript())
    else:
        qs = _documents(qs)
    if domain_pack:
        qs = qs.filter(domain_pack=domain_pack)
    if prefix:
        # refs are stored in NFC (``canonical_ref``), and a pattern lookup is not brought
        # to it by the field
        qs = qs.filter(Q(ref__startswith=canonical_ref(prefix)) | Q(title__istartswith=prefix))
    current = SourceVersion.objects.filter(source_id=OuterRef("pk")).order_by("-number")
    return qs.annotate(
        kind=Value(kind, output_field=CharField()),
        current_number=Subquery(current.values("number")[:1]),
        current_sha256=Subquery(current.values("sha256")[:1]),
        current_created_at=Subquery(current.values("created_at")[:1]),
    ).order_by("-id")


def source_get(*, workspace: Workspace, ref: str) -> Source:
    """The source ``ref`` names, in whichever Unicode form it is asked for (the ref
    field's lookup brings it to the stored NFC form); 404 when there is none."""
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
