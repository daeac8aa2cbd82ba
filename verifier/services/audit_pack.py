"""Audit packs: the workspace's signing key, and exports, streamed or as a job.

An export reads the scope's claims chunk by chunk from one snapshot (a REPEATABLE READ,
READ ONLY transaction, so a claim's state and its history come from the same moment)
and writes each record into the pack as it goes (``verifier.audit_pack.writer``): into a
file (the command, a job) or into a streamed HTTP response (``audit_pack_stream``). The
manifest is signed with the workspace's Ed25519 key, made on first use.
"""

from __future__ import annotations

import hashlib
import logging
import os
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Final

from django.conf import settings
from django.db import IntegrityError, connection, transaction
from django.utils import timezone

from verifier.audit_pack import check, signing
from verifier.audit_pack.records import (
    People,
    claim_record,
    iso_time,
    trace_record,
    version_record,
)
from verifier.audit_pack.scope import AuditPackError, PackScope
from verifier.audit_pack.writer import PackWriter
from verifier.binding import DEFAULT_FUZZY_FLOOR
from verifier.models import AuditPackJob, AuditPackJobStatus, Workspace, WorkspaceSigningKey
from verifier.selectors.audit_pack import (
    PackSelection,
    audit_pack_claim_chunks,
    audit_pack_claim_count,
    audit_pack_current_versions,
    audit_pack_people,
    audit_pack_rule_sets,
    audit_pack_selection,
    audit_pack_source_version_ids,
    audit_pack_trace,
    audit_pack_versions,
)
from verifier.services.claim_state import claims_recheck_stored
from verifier.services.enqueue import RUN_AUDIT_PACK_JOB, task_enqueue_on_commit
from verifier.services.job_heartbeat import (
    job_heartbeat,
    leased_job_take,
)
from verifier.states import DEFAULT_POLICY, ClaimState

logger = logging.getLogger(__name__)

# How often a running job's progress reaches its row (on the heartbeat's connection).
PROGRESS_SECONDS: Final = 1.0
_SNAPSHOT: Final = "SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY"

# W3C PROV terms for the pack's provenance fields (JSON-LD), in pack.json.
PROV_CONTEXT: Final = {
    "prov": "http://www.w3.org/ns/prov#",
    "created_at": "prov:generatedAtTime",
    "at": "prov:generatedAtTime",
    "exported_at": "prov:generatedAtTime",
    "exported_by": "prov:wasAttributedTo",
    "person": "prov:wasAttributedTo",
    "bound_by_person": "prov:wasAttributedTo",
    "actor": "prov:wasAssociatedWith",
    "judge_model": "prov:wasAssociatedWith",
    "source": "prov:hadPrimarySource",
    "binding": "prov:wasDerivedFrom",
    "sha256": "prov:value",
}


# --- the signing key ----------------------------------------------------------------------


def _key_context(workspace: Workspace) -> str:
    return f"workspace:{workspace.pk}"


def signing_key_ensure(*, workspace: Workspace) -> WorkspaceSigningKey:
    """The workspace's signing key, made (and stored sealed) on first use."""
    existing = WorkspaceSigningKey.objects.filter(workspace=workspace).first()
    if existing is not None:
        return existing
    private = signing.new_private_key()
    try:
        with transaction.atomic():
            return WorkspaceSigningKey.objects.create(
                workspace=workspace,
                algorithm=signing.ALGORITHM,
                public_key=signing.public_key_of(private).hex(),
                sealed_private_key=signing.seal(
                    private, secret=settings.SECRET_KEY, context=_key_context(workspace)
                ),
            )
    except IntegrityError:  # another request made it first: theirs is the key
        return WorkspaceSigningKey.objects.get(workspace=workspace)


@dataclass(frozen=True)
class PackSigner:
    public_key: bytes
    _private: bytes

    def sign(self, message: bytes) -> bytes:
        return signing.sign(self._private, message)

    @property
    def key_id(self) -> str:
        return check.key_id(self.public_key)


def _signer(workspace: Workspace) -> PackSigner:
    key = signing_key_ensure(workspace=workspace)
    secrets = [settings.SECRET_KEY, *getattr(settings, "SECRET_KEY_FALLBACKS", [])]
    private = signing.unseal(
        bytes(key.sealed_private_key), secrets=secrets, context=_key_context(workspace)
    )
    return PackSigner(bytes.fromhex(key.public_key), private)


# --- one export ---------------------------------------------------------------------------


@dataclass
class PackResult:
    claims: int
    key_id: str
    manifest: dict[str, Any]


@contextmanager
def _snapshot() -> Iterator[None]:
    """One consistent, read-only view of the database for the whole export (inside a
    caller's transaction, that transaction's view)."""
    if connection.in_atomic_block:
        yield
        return
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute(_SNAPSHOT)
        yield


def _recheck(*, workspace: Workspace, scope: PackScope) -> None:
    """The read-time re-check of the scope's claims before the snapshot is taken: a pack
    records each claim's state as every other door tells it (a supported claim whose
    span no longer matches its source's current version is demoted first, with its state
    event, which the pack's history then holds)."""
    claims_recheck_stored(claims=audit_pack_selection(workspace=workspace, scope=scope).claims)


def _state_rules() -> dict[str, Any]:
    return {
        "states": [s.value for s in ClaimState],
        "initial_state": check.INITIAL_STATE[0],
        "initial_reason": check.INITIAL_STATE[1],
        "confidence_floor": DEFAULT_POLICY.confidence_floor,
        "bound_match_kinds": sorted(DEFAULT_POLICY.bound_match_kinds),
        "fuzzy_floor": DEFAULT_FUZZY_FLOOR,
    }


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if hasattr(value, "isoformat"):
        return iso_time(value)
    return value


def _pack_steps(
    writer: PackWriter,
    *,
    workspace: Workspace,
    scope: PackScope,
    selection: PackSelection,
    exported_by: Mapping[str, Any],
    signer: PackSigner,
    on_progress: Callable[[int, int], None] | None,
    result: PackResult,
) -> Iterator[None]:
    """Write the pack, yielding after each chunk of claims and each source text (where a
    stream hands on what was written so far)."""
    created_at = iso_time(timezone.now()) or ""
    total = audit_pack_claim_count(selection)
    people = People(audit_pack_people(workspace=workspace))
    counts = {"claims": 0, "bindings": 0, "verdicts": 0, "state_events": 0}
    version_ids: set[int] = set()
    source_ids: set[int] = set()
    claims = writer.jsonl(check.CLAIMS_FILE)
    for chunk in audit_pack_claim_chunks(selection):
        for rows in chunk:
            record = claim_record(
                rows.claim,
                bindings=rows.bindings,
                verdicts=rows.verdicts,
                events=rows.events,
                people=people,
            )
            claims.write(record, record_id=record["id"])
            version_ids.update(b["source_version_id"] for b in rows.bindings)
            source_ids.add(rows.claim["source_id"])
            counts["bindings"] += len(rows.bindings)
            counts["verdicts"] += len(rows.verdicts)
            counts["state_events"] += len(rows.events)
        counts["claims"] += len(chunk)
        if on_progress is not None:
            on_progress(counts["claims"], total)
        yield
    claims.close()

    if selection.source is not None:
        source_ids.add(selection.source.pk)
        version_ids.update(audit_pack_source_version_ids(source=selection.source))
    current = set(audit_pack_current_versions(source_ids=source_ids).values())
    version_ids |= current
    versions = []
    for row in audit_pack_versions(version_ids=version_ids):
        path = writer.write_text(sha256=row["sha256"], text=row["text"])
        versions.append(version_record(row, current=row["id"] in current, path=path))
        yield
    sources = writer.jsonl(check.SOURCES_FILE)
    for record in versions:
        sources.write(record, record_id=f"{record['source']} v{record['version']}")
    sources.close()
    counts["source_versions"] = len(versions)

    if selection.trace is not None:
        trace = trace_record(audit_pack_trace(selection.trace), people)
        writer.write_json(check.TRACE_FILE, _jsonable(trace))
    workspace_doc = {"slug": workspace.slug, "name": workspace.name}
    writer.write_json(
        check.PACK_FILE,
        {
            "@context": PROV_CONTEXT,
            "format": check.FORMAT,
            "format_version": check.FORMAT_VERSION,
            "workspace": workspace_doc,
            "scope": scope.as_dict(),
            "exported_at": created_at,
            "exported_by": dict(exported_by),
            "counts": counts,
            "state_rules": _state_rules(),
            "rule_sets": _jsonable(audit_pack_rule_sets(workspace=workspace)),
        },
    )
    result.manifest = writer.finish(
        workspace=workspace_doc,
        created_at=created_at,
        public_key=signer.public_key,
        sign=signer.sign,
    )
    result.claims = counts["claims"]
    yield


def audit_pack_write(
    *,
    workspace: Workspace,
    scope: PackScope,
    sink: IO[bytes],
    exported_by: Mapping[str, Any],
    on_progress: Callable[[int, int], None] | None = None,
) -> PackResult:
    """Write the scope's pack into ``sink`` (a binary file); returns what it holds."""
    signer = _signer(workspace)
    result = PackResult(0, signer.key_id, {})
    _recheck(workspace=workspace, scope=scope)
    with _snapshot():
        selection = audit_pack_selection(workspace=workspace, scope=scope)
        writer = PackWriter(sink)
        try:
            for _ in _pack_steps(
                writer,
                workspace=workspace,
                scope=scope,
                selection=selection,
                exported_by=exported_by,
                signer=signer,
                on_progress=on_progress,
                result=result,
            ):
                pass
        except BaseException:
            writer.abort()
            raise
    return result


class _Chunks:
    """A write-only sink whose bytes are taken out as they come (zipfile writes to an
    object without ``tell`` as to a stream)."""

    def __init__(self) -> None:
        self._parts: list[bytes] = []

    def write(self, data: bytes) -> int:
        self._parts.append(bytes(data))
        return len(data)

    def flush(self) -> None:
        return None

    def take(self) -> bytes:
        data = b"".join(self._parts)
        self._parts = []
        return data


def audit_pack_stream(
    *,
    workspace: Workspace,
    scope: PackScope,
    exported_by: Mapping[str, Any],
    max_claims: int | None = None,
) -> Iterator[bytes]:
    """The scope's pack as a stream of bytes for an HTTP response. The scope is checked
    now (a missing source, trace or job is a 404; more than ``max_claims`` claims an
    ``AuditPackError``), the pack is written as the stream is read."""
    selection = audit_pack_selection(workspace=workspace, scope=scope)
    if max_claims is not None:
        count = audit_pack_claim_count(selection)
        if count > max_claims:
            raise AuditPackError(
                "pack_too_large",
                f"This pack would hold {count:,} claims; a download holds at most "
                f"{max_claims:,}. Start an audit-pack job for it instead.",
                {"claims": count, "limit": max_claims},
            )
    signer = _signer(workspace)
    return _stream(workspace=workspace, scope=scope, exported_by=exported_by, signer=signer)


def _stream(
    *, workspace: Workspace, scope: PackScope, exported_by: Mapping[str, Any], signer: PackSigner
) -> Iterator[bytes]:
    sink = _Chunks()
    result = PackResult(0, signer.key_id, {})
    _recheck(workspace=workspace, scope=scope)
    with _snapshot():
        selection = audit_pack_selection(workspace=workspace, scope=scope)
        writer = PackWriter(sink)  # type: ignore[arg-type]
        try:
            for _ in _pack_steps(
                writer,
                workspace=workspace,
                scope=scope,
                selection=selection,
                exported_by=exported_by,
                signer=signer,
                on_progress=None,
                result=result,
            ):
                data = sink.take()
                if data:
                    yield data
        except BaseException:
            writer.abort()
            raise
    data = sink.take()
    if data:
        yield data


# --- jobs ---------------------------------------------------------------------------------


def audit_pack_file(job: AuditPackJob) -> Path:
    return Path(settings.SPANPROOF_AUDIT_PACK_DIR) / job.file_name


def audit_pack_job_create(
    *,
    workspace: Workspace,
    scope: PackScope,
    actor: Any = None,
    exported_by: Mapping[str, Any],
) -> AuditPackJob:
    """Queue a background export of the scope (checked now: a missing source, trace or
    job is a 404); the job runs once the transaction commits."""
    audit_pack_selection(workspace=workspace, scope=scope)
    with transaction.atomic():
        job = AuditPackJob.objects.create(
            workspace=workspace,
            created_by=actor if getattr(actor, "pk", None) else None,
            exported_by=dict(exported_by),
            scope=scope.as_params(),
        )
        job_id = job.pk
        task_enqueue_on_commit(RUN_AUDIT_PACK_JOB, job_id)
    return job


class _Progress:
    def __init__(self) -> None:
        self.done = 0
        self.total = 0
        self.lock = threading.Lock()

    def __call__(self, done: int, total: int) -> None:
        with self.lock:
            self.done, self.total = done, total


def audit_pack_job_run(*, job_id: int) -> AuditPackJob:
    """Export a queued job's pack into ``SPANPROOF_AUDIT_PACK_DIR``; its progress reaches
    the row every ``PROGRESS_SECONDS``. Safe to run again: a finished job, or one a live
    worker holds, is left alone; an interrupted one starts over."""
    from verifier.audit_pack.scope import parse_scope

    job, taken = leased_job_take(
        AuditPackJob.objects.select_related("workspace"),
        job_id,
        start_over=True,
        also=lambda job: {"file_name": f"audit-pack-{job.workspace.slug}-{job.pk}.zip"},
    )
    if not taken:
        return job
    ours = AuditPackJob.objects.filter(pk=job.pk, runner=job.runner)
    progress = _Progress()
    path = audit_pack_file(job)
    partial = path.with_suffix(".part")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with job_heartbeat(
            model=AuditPackJob,
            pk=job.pk,
            runner=job.runner,
            also=lambda: ours.update(done=progress.done, total=progress.total),
            interval=PROGRESS_SECONDS,
        ):
            with partial.open("wb") as sink:
                result = audit_pack_write(
                    workspace=job.workspace,
                    scope=parse_scope(job.scope),
                    sink=sink,
                    exported_by=job.exported_by,
                    on_progress=progress,
                )
            os.replace(partial, path)
    except Exception as exc:
        partial.unlink(missing_ok=True)
        with transaction.atomic():
            ours.update(
                status=AuditPackJobStatus.FAILED,
                error=f"{type(exc).__name__}: {exc}"[:2000],
                finished_at=timezone.now(),
                runner="",
            )
        logger.exception("audit pack job %s failed", job.pk)
        job.refresh_from_db()
        return job
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    with transaction.atomic():
        ours.update(
            status=AuditPackJobStatus.SUCCEEDED,
            total=result.claims,
            done=result.claims,
            size=path.stat().st_size,
            sha256=digest.hexdigest(),
            key_id=result.key_id,
            finished_at=timezone.now(),
            runner="",
        )
    job.refresh_from_db()
    return job
