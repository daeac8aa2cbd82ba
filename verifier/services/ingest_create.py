"""Creating an ingest job: store each upload as a source version, record what to do.

Sources are upserted inside the request's transaction (identical text is no new
version: same text, same hash), the job's payload lists the versions and any imported
claims, and the first stage is enqueued only after the transaction commits.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AnonymousUser, User
from django.db import transaction

from verifier.errors import ApplicationError
from verifier.models import IngestJob, Source, Workspace
from verifier.services.ingest import ingest_job_start
from verifier.services.ingest_input import source_text
from verifier.services.sources import SourceInputError, source_upsert

MAX_SOURCES_PER_JOB: Final = 1000
MAX_CLAIMS_PER_JOB: Final = 50_000
LEGACY_VERDICTS: Final = ("affirmed", "rejected", "none")
_REF_CHARS = re.compile(r"[^a-z0-9_.\-/]+")


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


def ref_for_title(title: str) -> str:
    slug = _REF_CHARS.sub("_", title.strip().lower()).strip("_")
    return f"source:{slug or 'document'}"


def _store_sources(workspace: Workspace, uploads: Sequence[SourceUpload], plan: _Plan) -> None:
    for index, upload in enumerate(uploads):
        try:
            text = source_text(upload.text, upload.format)
            ref = upload.ref.strip() or ref_for_title(upload.title)
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
            raise IngestInputError(code, f"sources[{index}]: {exc}", {"index": index}) from exc
        plan.sources.append(
            {
                "ref": write.source.ref,
                "version_id": write.version.pk,
                "sha256": write.version.sha256,
                "created_version": write.created_version,
            }
        )


def _plan_claims(workspace: Workspace, claims: Sequence[ClaimUpload], plan: _Plan) -> None:
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
