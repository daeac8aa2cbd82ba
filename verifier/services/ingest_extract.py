"""Extract stage: claims (text + verbatim quote) from each uploaded source version, and
the imported claims of the upload. Imported claims skip extraction.

A version the upload added to an existing source also has a ``rebind`` item: the
source's claims from earlier jobs whose span is in an earlier version are bound again in
the new one where their words still are (``claims_rebind_superseded``), judged, and
scored again, so an unchanged sentence keeps a current claim (extraction makes no second
claim of a text the source already has). A claim whose sentence changed or went keeps
its old span: stale ("source changed"), for a reviewer; the changed sentence gets a
claim of its own from extraction.

Cancelled meanwhile: an item's claims are written under the job's row lock, and not at
all once the job is no longer active (a cancel while the extractor ran creates none).

Idempotence: a claim is keyed by (cited source, original text). Creating the claims of
one item locks its source row, reads the texts that already exist and creates only the
missing ones, so a rerun, a redelivered task or re-ingesting identical text adds no
rows.

The stage's items open their own transactions: a version's text goes to the extractor
(possibly a remote model taking seconds) with no transaction open, and only the
writes of its claims are atomic.
"""

from __future__ import annotations

from typing import Final

from django.db import transaction

from verifier.engine import get_extractor
from verifier.extractors.base import MAX_CLAIM_CHARS
from verifier.models import Claim, ClaimOrigin, IngestJob, IngestStatus, Source, SourceVersion
from verifier.services.sources import source_claims_rebind
from verifier.untrusted_input import canonical_ref

IMPORT_BATCH: Final = 500


def extract_items(job: IngestJob) -> list[str]:
    keys = []
    sources = job.payload.get("sources", [])
    if job.payload.get("extract", True):
        keys += [f"version:{s['version_id']}" for s in sources]
    # a new version of a source that had one before (a new source has no earlier claims)
    keys += [
        f"rebind:{s['version_id']}"
        for s in sources
        if s.get("created_version") and not s.get("created_source")
    ]
    claims = job.payload.get("claims", [])
    keys += [
        f"import:{i}-{min(i + IMPORT_BATCH, len(claims)) - 1}"
        for i in range(0, len(claims), IMPORT_BATCH)
    ]
    return keys


def _job_still_active(job: IngestJob) -> bool:
    """Lock the job's row (inside the writing transaction) and tell whether it is still
    queued or running: a cancel commits either before this (no claim is created) or after
    the claims (and then excludes those never judged, ``ingest_job_cancel``)."""
    status = (
        IngestJob.objects.select_for_update()
        .filter(pk=job.pk)
        .values_list("status", flat=True)
        .first()
    )
    return status in (IngestStatus.QUEUED, IngestStatus.RUNNING)


def _create_missing(source: Source, job: IngestJob, claims: list[Claim]) -> int:
    """Create the claims whose original text the source does not have yet (none once
    the job was cancelled or failed: nothing would judge them)."""
    if not _job_still_active(job):
        return 0
    Source.objects.select_for_update(no_key=True).filter(pk=source.pk).first()
    existing = set(Claim.objects.filter(source=source).values_list("original_text", flat=True))
    fresh = []
    for claim in claims:
        if claim.original_text in existing:
            continue
        existing.add(claim.original_text)
        fresh.append(claim)
    Claim.objects.bulk_create(fresh)
    return len(fresh)


def _extract_version(job: IngestJob, version_id: int) -> None:
    version = SourceVersion.objects.select_related("source").get(
        pk=version_id, source__workspace=job.workspace
    )
    extracted = get_extractor().extract(version.text)  # outside any transaction
    claims = [
        Claim(
            workspace=job.workspace,
            source=version.source,
            text=item.text,
            original_text=item.text,
            submitted_quote=item.quote,
            origin=ClaimOrigin.EXTRACTED,
            ingest_job=job,
            created_by=job.created_by,
        )
        for item in extracted
        if len(item.text) <= MAX_CLAIM_CHARS  # any extractor's: one claim, not a passage
    ]
    with transaction.atomic():
        _create_missing(version.source, job, claims)


def _rebind_earlier_claims(job: IngestJob, version_id: int) -> None:
    """Bind the source's claims of earlier jobs in its current version where their
    words still are, then judge and score them as validation does (module docstring;
    ``source_claims_rebind``, the rule every door that writes documents follows). One
    transaction under the source's row lock: a rerun finds their spans current and
    does nothing again."""
    version = SourceVersion.objects.select_related("source").get(
        pk=version_id, source__workspace=job.workspace
    )
    door = job.payload.get("door")  # the door that queued the job, when not an upload
    why = (
        f"{door}: new version v{version.number} (ingest job #{job.pk})"
        if door
        else f"ingest job #{job.pk}: new version v{version.number}"
    )
    source_claims_rebind(
        version=version,
        why=why,
        exclude_ingest_job_id=job.pk,
        # a claims/verify batch's own claims, which it verifies itself (its new version's)
        exclude_claim_ids=job.payload.get("exclude_claims") or (),
    )


def _import_claims(job: IngestJob, first: int, last: int) -> None:
    rows = job.payload.get("claims", [])[first : last + 1]
    refs = {row["source_ref"] for row in rows}
    sources = {s.ref: s for s in Source.objects.filter(workspace=job.workspace, ref__in=refs)}
    by_source: dict[int, list[Claim]] = {}
    for row in rows:
        source = sources[canonical_ref(row["source_ref"])]  # a payload written before 0041
        by_source.setdefault(source.pk, []).append(
            Claim(
                workspace=job.workspace,
                source=source,
                text=row["text"],
                original_text=row["text"],
                submitted_quote=row.get("quote") or "",
                legacy_affirmed=row.get("legacy_verdict") == "affirmed",
                origin=ClaimOrigin.IMPORTED,
                ingest_job=job,
                created_by=job.created_by,
            )
        )
    with transaction.atomic():
        for source_pk in sorted(by_source):
            claims = by_source[source_pk]
            _create_missing(claims[0].source, job, claims)


def extract_item(job: IngestJob, key: str) -> None:
    kind, _, value = key.partition(":")
    if kind == "version":
        _extract_version(job, int(value))
    elif kind == "rebind":
        _rebind_earlier_claims(job, int(value))
    elif kind == "import":
        first, last = (int(x) for x in value.split("-"))
        _import_claims(job, first, last)
    else:
        raise ValueError(f"unknown extract item {key!r}")
