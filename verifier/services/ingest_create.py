"""Creating an ingest job: store each upload as a source version, record what to do.

Sources are upserted inside the request's transaction (identical text is no new
version: same text, same hash), the job's payload lists the versions and any imported
claims, and the first stage is enqueued only after the transaction commits.
"""

from __future__ import annotations

import dataclasses
import hashlib
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import PurePath
from typing import Any, Final

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AnonymousUser, User
from django.db import transaction

from verifier.errors import ApplicationError
from verifier.models import IngestJob, Source, Workspace
from verifier.services.ingest import ingest_job_start
from verifier.services.ingest_input import source_text
from verifier.services.sources import SourceInputError, SourceWrite, source_upsert
from verifier.untrusted_input import canonical_ref

MAX_SOURCES_PER_JOB: Final = 1000
MAX_CLAIMS_PER_JOB: Final = 50_000
LEGACY_VERDICTS: Final = ("affirmed", "rejected", "none")
REF_PREFIX: Final = "source:"
REF_MAX_CHARS: Final = Source._meta.get_field("ref").max_length or 200
REF_HASH_CHARS: Final = 12
# Kept in a name-made ref besides letters, marks and digits of any script.
_REF_PUNCTUATION: Final = frozenset("_.-/")


class IngestInputError(ApplicationError, ValueError):
    """An ingest request that cannot be queued (the API answers 400)."""


@dataclass(frozen=True)
class SourceUpload:
    text: str
    ref: str = ""
    title: str = ""
    citation: str = ""
    domain_pack: str = ""
    format: str = "text"


@dataclass(frozen=True)
class ClaimUpload:
    source_ref: str
    text: str
    quote: str = ""
    legacy_verdict: str = "none"


@dataclass
class _Plan:
    sources: list[dict[str, Any]] = field(default_factory=list)
    claims: list[dict[str, Any]] = field(default_factory=list)


def _name_hash(name: str) -> str:
    return hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:REF_HASH_CHARS]


def _stem(slug: str) -> str:
    """``slug`` without a file extension (``.txt``, not the whole of ``.bashrc``)."""
    head, dot, tail = slug.rpartition(".")
    return head if dot and head and tail.isalnum() and len(tail) <= 8 else slug


def ref_for_title(title: str) -> str:
    """The ref an upload without one gets from its title or file name: the name in
    lower case (NFC) with letters, marks and digits of any script and ``_ . - /`` kept,
    each run of other characters turned into one ``_``, and invisible formatting
    characters (Unicode category Cf) dropped, so the ref passes ``identifier_problem``:
    ``Harbour Report.txt`` → ``source:harbour_report.txt``, ``отчёт.txt`` →
    ``source:отчёт.txt``. Names that differ only in case, spacing or punctuation are the
    same name (the same ref: a new version of that source). Where a name loses more than
    that (a symbol or emoji outside ASCII), or is too long for a ref, the ref ends in a
    hash of the whole name; a name with no letter or digit before its extension
    (``🚢.txt``) is ``source:document-`` and that hash. Distinct names never meet in a
    ref by losing their letters. An empty name is refused: see ``ref_for_text``."""
    name = unicodedata.normalize("NFC", title.strip()).lower()
    if not name:
        raise ValueError("ref_for_title needs a name")
    kept: list[str] = []
    in_run = False  # inside a run of other characters, already written as one "_"
    lost = False  # a character that tells names apart was dropped
    for ch in name:
        category = unicodedata.category(ch)
        if category == "Cf":
            continue
        if category[0] in "LMN" or ch in _REF_PUNCTUATION:
            kept.append(ch)
            in_run = False
            continue
        lost = lost or (not ch.isascii() and category[0] not in "ZP")
        if not in_run:
            kept.append("_")
            in_run = True
    if not any(ch.isalnum() for ch in _stem("".join(kept))):
        return f"{REF_PREFIX}document-{_name_hash(name)}"
    slug = "".join(kept).strip("_")
    room = REF_MAX_CHARS - len(REF_PREFIX)
    if lost or len(slug) > room:
        slug = f"{slug[: room - REF_HASH_CHARS - 1]}-{_name_hash(name)}"
    return f"{REF_PREFIX}{slug}"


def ref_for_text(text: str) -> str:
    """The ref of an upload with neither a ref nor a name: ``source:document-`` and a
    hash of its text. The same text is the same source (no new version); another text
    is another source, never a new version of an unrelated one."""
    return f"{REF_PREFIX}document-{_name_hash(text)}"


def legacy_file_ref(name: str) -> str:
    """The ref ``manage.py ingest`` and ``verify_claims --source-dir`` gave a file until
    they named files as the Ingest page does: ``source:`` and the name without its
    extension, in lower case (``Ferry Times.md`` → ``source:ferry times``)."""
    return f"{REF_PREFIX}{PurePath(name.strip()).stem.lower()}"


def file_ref(*, workspace: Workspace, name: str) -> str:
    """The ref a file (or a titled upload) named ``name`` is stored under, at every door
    (the Ingest page, the API's uploads without a ref, ``manage.py ingest``,
    ``verify_claims --source-dir``): ``ref_for_title(name)``. A file the commands stored
    under its legacy ref (:func:`legacy_file_ref`), and never under this one, keeps that
    ref, so uploading it again is a new version of it, not a second source."""
    ref = ref_for_title(name)
    legacy = legacy_file_ref(name)
    if legacy != ref and legacy != REF_PREFIX:
        stored = set(
            Source.objects.filter(
                workspace=workspace, ref__in=[ref, canonical_ref(legacy)]
            ).values_list("ref", flat=True)
        )
        if ref not in stored and canonical_ref(legacy) in stored:
            return canonical_ref(legacy)
    return ref


def _upload_ref(workspace: Workspace, upload: SourceUpload) -> str:
    if upload.ref.strip():
        return canonical_ref(upload.ref.strip())  # as it is stored: one ref in either form
    if upload.title.strip():
        return file_ref(workspace=workspace, name=upload.title)
    return ref_for_text(upload.text)


def _name_of(index: int, upload: SourceUpload) -> str:
    return f"{upload.title.strip()!r}" if upload.title.strip() else f"sources[{index}]"


def _refs(workspace: Workspace, uploads: Sequence[SourceUpload]) -> list[str]:
    """Each upload's ref; two uploads of one job under one ref are refused, naming
    both: one would silently become a new version of the other."""
    refs: list[str] = []
    first: dict[str, int] = {}
    for index, upload in enumerate(uploads):
        ref = _upload_ref(workspace, upload)
        if ref in first:
            other = first[ref]
            raise IngestInputError(
                "duplicate_ref",
                f"{_name_of(other, uploads[other])} and {_name_of(index, upload)} would both be "
                f"stored as the source {ref!r}, the second as a new version of the first. Upload "
                "them in separate jobs, or give them different names or refs.",
                {"index": index, "other_index": other, "ref": ref},
            )
        first[ref] = index
        refs.append(ref)
    return refs


def _store_sources(workspace: Workspace, uploads: Sequence[SourceUpload], plan: _Plan) -> None:
    """Store the uploads in the refs' order, as every door storing several sources does
    (two jobs uploading the same sources in other orders would each hold a source's row
    the other waits for: a deadlock), and list them in the plan in the upload's order."""
    refs = _refs(workspace, uploads)
    stored: dict[int, dict[str, Any]] = {}
    for index in sorted(range(len(uploads)), key=lambda i: canonical_ref(refs[i])):
        upload, ref = uploads[index], refs[index]
        try:
            text = source_text(upload.text, upload.format)
            write = source_upsert(
                workspace=workspace,
                ref=ref,
                text=text,
                title=upload.title,
                citation=upload.citation,
                domain_pack=upload.domain_pack,
            )
        except (SourceInputError, ValueError) as exc:
            code = getattr(exc, "code", "invalid_source")
            details: dict[str, Any] = {"index": index}
            field = (getattr(exc, "details", None) or {}).get("field")
            if field:  # the upload's field the source's rule refused (``text``, ``ref``)
                details["field"] = f"sources[{index}].{field}"
            raise IngestInputError(
                code,
                f"sources[{index}]: {exc}",
                details,
                status_code=getattr(exc, "status_code", 400),
            ) from exc
        stored[index] = {
            "ref": write.source.ref,
            "version_id": write.version.pk,
            "sha256": write.version.sha256,
            "created_version": write.created_version,
            "created_source": write.created_source,
        }
    plan.sources.extend(stored[index] for index in range(len(uploads)))


def _plan_claims(workspace: Workspace, claims: Sequence[ClaimUpload], plan: _Plan) -> None:
    # each cited ref in its stored form (``canonical_ref``), in the payload too: the
    # import stage looks the sources up by it
    claims = [dataclasses.replace(c, source_ref=canonical_ref(c.source_ref)) for c in claims]
    refs = {c.source_ref for c in claims}
    known = set(
        Source.objects.filter(workspace=workspace, ref__in=refs).values_list("ref", flat=True)
    )
    for index, claim in enumerate(claims):
        if claim.source_ref not in known:
            raise IngestInputError(
                "unknown_source",
                f"claims[{index}]: no source {claim.source_ref!r} in this workspace or upload.",
                {"index": index},
            )
        if not claim.text.strip():
            raise IngestInputError("empty_claim", f"claims[{index}]: empty text.", {"index": index})
        if claim.legacy_verdict not in LEGACY_VERDICTS:
            raise IngestInputError(
                "invalid_legacy_verdict",
                f"claims[{index}]: legacy_verdict must be one of {', '.join(LEGACY_VERDICTS)}.",
                {"index": index},
            )
        plan.claims.append(
            {
                "source_ref": claim.source_ref,
                "text": claim.text.strip(),
                "quote": claim.quote,
                "legacy_verdict": claim.legacy_verdict,
            }
        )


@transaction.atomic
def ingest_job_create(
    *,
    workspace: Workspace,
    sources: Sequence[SourceUpload] = (),
    claims: Sequence[ClaimUpload] = (),
    label: str = "",
    extract: bool | None = None,
    actor: User | AnonymousUser | None = None,
    start: bool = True,
) -> IngestJob:
    """Store the uploads and queue the job. ``extract`` defaults to True unless claims
    were imported (imported claims skip extraction). ``start=False`` leaves the job
    queued for the caller to start with ``ingest_job_start``."""
    if not sources and not claims:
        raise IngestInputError("empty_upload", "Upload at least one source or claim.")
    if len(sources) > MAX_SOURCES_PER_JOB:
        raise IngestInputError("too_many_sources", f"At most {MAX_SOURCES_PER_JOB} sources.")
    if len(claims) > MAX_CLAIMS_PER_JOB:
        raise IngestInputError("too_many_claims", f"At most {MAX_CLAIMS_PER_JOB} claims.")
    plan = _Plan()
    _store_sources(workspace, sources, plan)
    _plan_claims(workspace, claims, plan)
    job = IngestJob.objects.create(
        workspace=workspace,
        created_by=actor if isinstance(actor, get_user_model()) else None,
        label=label[:200],
        payload={
            "sources": plan.sources,
            "claims": plan.claims,
            "extract": (not claims) if extract is None else bool(extract),
        },
    )
    if start:
        ingest_job_start(job=job)
    return job


@transaction.atomic
def source_upsert_queue_rebind(
    *,
    workspace: Workspace,
    ref: str,
    text: str,
    title: str = "",
    citation: str = "",
    domain_pack: str = "",
    door_name: str,
    actor: User | AnonymousUser | None = None,
) -> SourceWrite:
    """``source_upsert`` of a document, and when it added a version to an existing
    source, an ingest job queued on commit whose one item binds the source's earlier
    claims in that version again where their words still are, judges and scores them
    (the ``rebind`` item, ``services.ingest_extract``; ``rebind_job`` of the answer).

    For a door that answers within a request (``POST /connect/v1/sources``): judging the
    claims of a source is minutes of work for a large one (500 claims: ~95 s with the
    default judge on 2 cores, longer with a remote one), past the web worker's timeout,
    which would roll the version back too. Until the job has run, the earlier claims are
    ``unverified`` (``stale_source``), as ``source_upsert`` leaves them; the job is the
    pipeline's, so it survives a worker's death, shows on the console's job page and is
    retried like an upload. ``door_name`` names the door in the job's label and in the
    state events' cause."""
    write = source_upsert(
        workspace=workspace,
        ref=ref,
        text=text,
        title=title,
        citation=citation,
        domain_pack=domain_pack,
    )
    if not write.created_version or write.created_source:
        return write
    job = IngestJob.objects.create(
        workspace=workspace,
        created_by=actor if isinstance(actor, get_user_model()) else None,
        label=f"{door_name}: new version v{write.version.number} of {write.source.ref}"[:200],
        payload={
            "sources": [
                {
                    "ref": write.source.ref,
                    "version_id": write.version.pk,
                    "sha256": write.version.sha256,
                    "created_version": True,
                    "created_source": False,
                }
            ],
            "claims": [],
            "extract": False,
            "door": door_name,
        },
    )
    ingest_job_start(job=job)
    return dataclasses.replace(write, rebind_job=job)
