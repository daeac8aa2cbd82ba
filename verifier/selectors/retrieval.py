"""Reads behind retrieval: vector seeds, lexical fallback, relation expansion, paths."""

from __future__ import annotations

import functools
import re
from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext
from dataclasses import dataclass
from datetime import datetime
from typing import Any, NamedTuple, TypeVar

import numpy as np
import psycopg
from django.conf import settings
from django.db import connection, transaction
from django.db.models import Q, QuerySet
from psycopg.adapt import Dumper
from psycopg.pq import Format
from psycopg.types.datetime import TimestamptzLoader

from verifier.models import (
    SPAN_CHUNK_CHARS,
    Claim,
    ClaimRelation,
    Entity,
    SourceVersion,
    Verdict,
    Workspace,
)
from verifier.selectors.prepared import array_literal, prepared_cursor
from verifier.selectors.typed_rows import named_row
from verifier.states import NO_BOUND_EVIDENCE_NOTE, human_verdict_in_force, verdict_judges_active
from verifier.text.words import RETRIEVAL_TERM

HNSW_DEFAULT_EF_SEARCH = 40
LEXICAL_TOKENS = 4

RowT = TypeVar("RowT", bound=NamedTuple)


def _ef_search(limit: int) -> int | None:
    """The ``hnsw.ef_search`` a scan for ``limit`` rows needs (``hnsw.ef_search`` bounds
    how many rows one index scan can return), or None when pgvector's default does."""
    ef = max(limit, settings.SPANPROOF_HNSW_EF_SEARCH)
    return ef if ef != HNSW_DEFAULT_EF_SEARCH else None


def _transaction_for_setting(needed: bool) -> AbstractContextManager[Any]:
    """A transaction around a ``set_config(..., true)`` and the statement it is for (the
    setting lasts until the transaction ends: in autocommit, that is the ``set_config``
    statement itself) where one is ``needed`` and the caller is not already in one (a
    retrieve's reads run in autocommit)."""
    if not needed or connection.in_atomic_block:
        return nullcontext()
    return transaction.atomic()


def _limited(sql: str, limit: int) -> str:
    """``sql`` with its ``LIMIT %s`` written as the number. PostgreSQL's generic plan for
    a prepared statement guesses a parameter limit at a tenth of the table, so a seeds
    statement with one was planned again on every call (and the seeds-and-load statement's
    generic plan hash-joined whole tables); with the number written in, the prepared
    statement reuses its plan. One statement text per distinct limit."""
    return sql.replace("LIMIT %s", f"LIMIT {int(limit):d}", 1)


class QueryVector:
    """A query vector as a statement parameter: sent in pgvector's binary form
    (``vector_recv``: uint16 dimensions, uint16 unused, big-endian float32s), exactly the
    float32 values, with no text to format here (~0.2 ms for 384 numbers) or to parse
    there. The statement's ``%b::vector`` gives the parameter its type."""

    __slots__ = ("values",)

    def __init__(self, values: np.ndarray) -> None:
        self.values = values


class _QueryVectorDumper(Dumper):
    format = Format.BINARY
    oid = 0  # unknown: the ``::vector`` cast in the statement types it

    def dump(self, obj: QueryVector) -> bytes:
        values = np.asarray(obj.values, dtype=">f4").reshape(-1)
        return np.array([values.shape[0], 0], dtype=">u2").tobytes() + values.tobytes()


@contextmanager
def _serving_cursor() -> Iterator[psycopg.Cursor[Any]]:
    """:func:`prepared_cursor` for the retrieve's statements (the seeds with what serving
    needs of them, the load of claims expansion adds), sending a :class:`QueryVector` in
    binary. Timestamps (the verdicts' ``at``) are read by psycopg's own loader, written in
    C, rather than the Python subclass Django registers on its connections to set the
    tzinfo (~3 µs a value); both give the same instant, aware (the session's time zone is
    UTC), and the envelope writes it in UTC either way."""
    with prepared_cursor() as cursor:
        cursor.adapters.register_dumper(QueryVector, _QueryVectorDumper)
        cursor.adapters.register_loader("timestamptz", TimestamptzLoader)
        yield cursor


def published_claims(*, workspace: Workspace, domain_pack: str = "") -> QuerySet[Claim]:
    qs = Claim.objects.filter(workspace=workspace, published=True)
    if domain_pack:
        qs = qs.filter(source__domain_pack=domain_pack)
    return qs


# The nearest-neighbour query as fixed SQL text: the ORM would compile the same
# statement (published claims of the workspace with an embedding, ordered by cosine
# distance ``<=>``, HNSW) on every request. ``%b::vector`` takes a :class:`QueryVector`.
# ``_SEEDS_FROM``/``_SEEDS_FROM_PACK`` are also the seeds of the seeds-and-load statements
# below.
_DISTANCE = 'c."embedding" <=> %b::vector AS "distance"'
_SEEDS_FROM = (
    'FROM "verifier_claim" c '
    'WHERE c."workspace_id" = %s AND c."published" AND c."embedding" IS NOT NULL '
    'ORDER BY "distance" ASC LIMIT %s'
)
_SEEDS_FROM_PACK = (
    'FROM "verifier_claim" c '
    'JOIN "verifier_source" s ON s."id" = c."source_id" '
    'WHERE c."workspace_id" = %s AND c."published" AND c."embedding" IS NOT NULL '
    'AND s."domain_pack" = %s ORDER BY "distance" ASC LIMIT %s'
)
_SEEDS_BY_VECTOR_SQL = f'SELECT c."id", {_DISTANCE} {_SEEDS_FROM}'
_SEEDS_BY_VECTOR_PACK_SQL = f'SELECT c."id", {_DISTANCE} {_SEEDS_FROM_PACK}'


# The distance expression of a nearest-neighbour statement (``t`` or ``c``), as the one
# form pgvector's HNSW index answers an ``ORDER BY`` of.
_INDEXED_DISTANCE = re.compile(r'(\w+\."embedding" <=> %b::vector) AS "distance"')


@functools.cache
def _exact_sql(sql: str) -> str:
    """``sql`` ordered by its exact distances: ``(a <=> q) + 0`` is the same number, in a
    form no index answers, so the rows that pass the filter are read and sorted."""
    exact, count = _INDEXED_DISTANCE.subn(r'(\1) + 0 AS "distance"', sql)
    if count != 1:
        raise ValueError("a nearest-neighbour statement has exactly one distance column")
    return exact


def _nearest_rows(
    sql: str,
    pack_sql: str,
    row: type[RowT],
    *,
    workspace: Workspace,
    vector: np.ndarray,
    limit: int,
    domain_pack: str,
) -> list[RowT]:
    """The rows of a nearest-neighbour statement (``pack_sql`` when ``domain_pack`` is
    given) as ``row`` instances: parameters (query vector, workspace[, pack]), ``limit``
    written in, the HNSW scan keeping enough candidates for it.

    The iterative HNSW scan gives up after ``hnsw.max_scan_tuples`` index entries (20,000
    by default), counting those its filter drops: other workspaces' rows nearer the
    query, and deleted or rolled-back rows whose entries wait for a vacuum. So fewer rows
    than ``limit`` may mean the scan stopped, not that there are no more: the statement
    is then run exact (the workspace's rows read and sorted; a workspace with fewer rows
    than ``limit`` is small, so that read is too)."""
    ef = _ef_search(limit)
    statement, params = (
        (pack_sql, [workspace.pk, domain_pack]) if domain_pack else (sql, [workspace.pk])
    )
    with _transaction_for_setting(ef is not None), _serving_cursor() as cursor:
        if ef is not None:
            # Read when the scan runs, so a prepared plan honours it.
            cursor.execute("SELECT set_config('hnsw.ef_search', %s, true)", [str(ef)])
        query = QueryVector(vector)
        cursor.row_factory = named_row(row)
        cursor.execute(_limited(statement, limit), [query, *params])
        rows: list[RowT] = cursor.fetchall()
        if len(rows) < limit:
            cursor.execute(_limited(_exact_sql(statement), limit), [query, *params])
            rows = cursor.fetchall()
        return rows


def claim_seeds_by_vector(
    *, workspace: Workspace, vector: np.ndarray, limit: int, domain_pack: str = ""
) -> list[tuple[int, float]]:
    """(claim pk, cosine similarity) of the ``limit`` nearest published claims (HNSW)."""
    rows = _nearest_rows(
        _SEEDS_BY_VECTOR_SQL,
        _SEEDS_BY_VECTOR_PACK_SQL,
        SeedRow,
        workspace=workspace,
        vector=vector,
        limit=limit,
        domain_pack=domain_pack,
    )
    return [(row.id, 1.0 - float(row.distance)) for row in rows]


# The same nearest-neighbour query over the sentence index (``SourceSentence``: the
# sentences of each source's current version, HNSW on ``embedding``).
_SENTENCES_BY_VECTOR_SQL = (
    'SELECT t."id", t."embedding" <=> %b::vector AS "distance" FROM "verifier_sourcesentence" t '
    'WHERE t."workspace_id" = %s ORDER BY "distance" ASC LIMIT %s'
)
_SENTENCES_BY_VECTOR_PACK_SQL = (
    'SELECT t."id", t."embedding" <=> %b::vector AS "distance" FROM "verifier_sourcesentence" t '
    'JOIN "verifier_sourceversion" v ON v."id" = t."source_version_id" '
    'JOIN "verifier_source" s ON s."id" = v."source_id" '
    'WHERE t."workspace_id" = %s AND s."domain_pack" = %s ORDER BY "distance" ASC LIMIT %s'
)


def sentence_seeds_by_vector(
    *, workspace: Workspace, vector: np.ndarray, limit: int, domain_pack: str = ""
) -> list[tuple[int, float]]:
    """(source sentence pk, cosine similarity) of the ``limit`` nearest sentences of the
    workspace's sources (of ``domain_pack`` when given) in the sentence index (HNSW)."""
    rows = _nearest_rows(
        _SENTENCES_BY_VECTOR_SQL,
        _SENTENCES_BY_VECTOR_PACK_SQL,
        SeedRow,
        workspace=workspace,
        vector=vector,
        limit=limit,
        domain_pack=domain_pack,
    )
    return [(row.id, 1.0 - float(row.distance)) for row in rows]


def claim_seeds_by_text(
    *, workspace: Workspace, query: str, limit: int, domain_pack: str = ""
) -> list[tuple[int, float]]:
    """Lexical fallback when embeddings are unavailable: claims containing the query's
    longest words; score = fraction of those words present."""
    words = sorted(set(w.lower() for w in RETRIEVAL_TERM.findall(query)), key=len, reverse=True)
    words = words[:LEXICAL_TOKENS]
    if not words:
        return []
    condition = Q()
    for word in words:
        condition |= Q(text__icontains=word)
    rows = published_claims(workspace=workspace, domain_pack=domain_pack).filter(condition)
    scored = []
    for pk, text in rows.values_list("pk", "text")[: limit * 4]:
        lowered = text.lower()
        scored.append((pk, sum(1 for w in words if w in lowered) / len(words)))
    scored.sort(key=lambda item: (-item[1], item[0]))
    return scored[:limit]


def claim_pks_by_public_id(
    *, workspace: Workspace, public_ids: Sequence[str], published_only: bool = True
) -> dict[str, int]:
    qs = Claim.objects.filter(workspace=workspace, public_id__in=list(public_ids))
    if published_only:
        qs = qs.filter(published=True)
    return dict(qs.values_list("public_id", "pk"))


def claim_pks_by_entity(*, workspace: Workspace, name: str) -> list[int]:
    entity = (
        Entity.objects.filter(workspace=workspace)
        .filter(Q(normalized_name=name.strip().lower()) | Q(name__iexact=name.strip()))
        .first()
    )
    if entity is None:
        return []
    return list(entity.claims.filter(published=True).values_list("pk", flat=True))


def relations_touching(
    *, workspace: Workspace, claim_pks: Iterable[int]
) -> list[tuple[int, int, str, float]]:
    """(from pk, to pk, kind, confidence) of accepted relations (seed 004) with either
    end in ``claim_pks`` and both ends published."""
    pks = list(claim_pks)
    if not pks:
        return []
    return list(
        ClaimRelation.objects.filter(workspace=workspace, verification="accepted")
        .filter(Q(from_claim_id__in=pks) | Q(to_claim_id__in=pks))
        .filter(from_claim__published=True, to_claim__published=True)
        .values_list("from_claim_id", "to_claim_id", "kind", "confidence")
    )


def relations_among(
    *, workspace: Workspace, claim_pks: Iterable[int]
) -> list[tuple[int, int, str, float]]:
    pks = list(claim_pks)
    if not pks:
        return []
    return list(
        ClaimRelation.objects.filter(
            workspace=workspace,
            verification="accepted",
            from_claim_id__in=pks,
            to_claim_id__in=pks,
        ).values_list("from_claim_id", "to_claim_id", "kind", "confidence")
    )


def claim_paths(
    *,
    workspace: Workspace,
    start_pks: Sequence[int],
    goal_pks: Sequence[int],
    max_hops: int,
    max_paths: int,
) -> list[list[tuple[int, int, str, float]]]:
    """Shortest undirected relation paths (as edge lists) from any start to any goal,
    by breadth-first search one hop (one query) at a time; at most ``max_paths``."""
    goals = set(goal_pks)
    paths: list[list[tuple[int, int, str, float]]] = []
    for pk in start_pks:
        if pk in goals:
            paths.append([])
    parents: dict[int, list[tuple[int, tuple[int, int, str, float]]]] = {pk: [] for pk in start_pks}
    frontier = deque(start_pks)
    found_at: list[int] = []
    for _hop in range(max_hops):
        if not frontier or found_at:
            break
        edges = relations_touching(workspace=workspace, claim_pks=frontier)
        frontier_set = set(frontier)
        visited = set(parents)
        next_frontier: list[int] = []
        for edge in edges:
            for here, there in ((edge[0], edge[1]), (edge[1], edge[0])):
                if here in frontier_set and there not in visited:
                    if there not in parents:
                        parents[there] = []
                        next_frontier.append(there)
                    parents[there].append((here, edge))
        frontier = deque(next_frontier)
        found_at = [pk for pk in next_frontier if pk in goals]

    def unwind(node: int) -> list[list[tuple[int, int, str, float]]]:
        if not parents.get(node):
            return [[]]
        result = []
        for parent, edge in parents[node]:
            for prefix in unwind(parent):
                result.append([*prefix, edge])
                if len(result) >= max_paths:
                    return result
        return result

    for goal in found_at:
        for path in unwind(goal):
            paths.append(path)
            if len(paths) >= max_paths:
                return paths
    return paths


def current_versions(*, source_pks: Iterable[int]) -> dict[int, SourceVersion]:
    """The highest-numbered version of each source, in one query."""
    pks = sorted(set(source_pks))
    if not pks:
        return {}
    versions = (
        SourceVersion.objects.filter(source_id__in=pks)
        .order_by("source_id", "-number")
        .distinct("source_id")
    )
    return {v.source_id: v for v in versions}


# --- what serving needs of each considered claim, in one query ------------------------
#
# The read model of a served claim: :class:`ServedClaim` and the immutable values it
# holds, read from one row of the statements below (:class:`ServedRow`, by column name).
# The envelope (``verifier.selectors.envelopes``), the trust score, the gate, the trace
# and the read-time re-check read these fields by name. An ORM ``Claim`` loaded by
# ``claims_for_envelopes`` becomes the same shape through ``served_claim_of``.
#
# The immutable values are typed ``NamedTuple``s rather than frozen dataclasses: a
# frozen dataclass sets each field through ``object.__setattr__``, and building the
# served claims of the 40 rows of a retrieve's seeds took 1.4 times as long with frozen
# dataclasses as with these (in-process timing, 2026-11-27). Read by field name only.


class ServedSource(NamedTuple):
    id: int
    ref: str
    title: str
    citation: str


class ServedBinding(NamedTuple):
    """The claim's active binding: its span of the version ``source_version_id`` of
    ``source`` (the bound version's source, whose ref the envelope names)."""

    id: int
    quote: str
    start: int
    end: int
    source_hash: str
    match: str
    source_version_id: int
    source: ServedSource


class ServedVerdict(NamedTuple):
    """The verdict the claim's state rests on (:func:`verdict_in_force`): a reviewer's
    decision in force, else the latest model verdict (by ``-at, -id``). A reviewer
    calibrator's answer (``Verdict.calibrator``) is recorded after the judge's own, so it
    is the latest model verdict; ``calibrator_id`` and ``calibrator_version`` name that
    calibrator (None when the judge or a person answered)."""

    id: int
    judge_model: str
    prompt_version: int
    confidence: float
    label: str
    at: datetime
    reviewer_id: int | None
    calibrator_id: int | None = None
    calibrator_version: int | None = None


def human_decisions_in_force(
    *, claims: Sequence[ServedClaim]
) -> dict[int, tuple[Verdict, ServedVerdict]]:
    """{claim pk: its reviewer's decision in force} for the claims among ``claims`` that
    have one still judging their active binding — what their state rests on rather than
    any model verdict (``verifier.states.resolve_state``). One query (none when
    ``claims`` is empty)."""
    if not claims:
        return {}
    rows = (
        Verdict.objects.filter(claim_id__in=[c.pk for c in claims], reviewer__isnull=False)
        .latest_first_by_claim()
        .select_related("binding")
        .only(
            "id",
            "claim_id",
            "judge_model",
            "prompt_version",
            "confidence",
            "label",
            "at",
            "reviewer_id",
            "binding__id",
            "binding__quote",
        )
    )
    by_claim: dict[int, list[Verdict]] = {}
    for verdict in rows:
        by_claim.setdefault(verdict.claim_id, []).append(verdict)
    out: dict[int, tuple[Verdict, ServedVerdict]] = {}
    for claim in claims:
        decision = human_verdict_in_force(by_claim.get(claim.pk, []))
        if decision is None:
            continue
        binding = claim.binding
        judged_quote = decision.binding.quote if decision.binding is not None else None
        if not verdict_judges_active(
            judged_binding_id=decision.binding_id,
            active_binding_id=binding.id if binding is not None else None,
            judged_quote=lambda: judged_quote,  # noqa: B023 (called in this iteration)
            active_quote=binding.quote if binding is not None else None,
        ):
            continue
        out[claim.pk] = (
            decision,
            ServedVerdict(
                id=decision.pk,
                judge_model=decision.judge_model,
                prompt_version=decision.prompt_version,
                confidence=decision.confidence,
                label=decision.label,
                at=decision.at,
                reviewer_id=decision.reviewer_id,
            ),
        )
    return out


class CurrentVersion(NamedTuple):
    """The highest-numbered version of a source (what the re-check compares against)."""

    id: int
    source_id: int
    number: int
    sha256: str


class CurrentSpan(NamedTuple):
    """What the read-time re-check reads of the current version: its text at the
    claim's bound offsets, cut out by the database (a source can be megabytes; only
    the span travels)."""

    version: CurrentVersion
    span_text: str


@dataclass(slots=True)
class ServedClaim:
    """A published claim as serving reads it: its own columns, its source, its active
    ``binding`` and latest ``verdict`` (None when it has none) and, for a supported or
    inferred claim with a binding, the ``current_span`` its re-check reads. Not frozen:
    a read-time demotion (``claim_recheck_on_read``) writes the new ``state``,
    ``state_reason`` and ``queue_rank`` into it, as into a ``Claim``."""

    pk: int
    public_id: str
    text: str
    state: str
    state_reason: str
    source_id: int
    source: ServedSource
    duplicate_of_id: int | None
    flagged: bool
    trust_score: int | None
    binding: ServedBinding | None = None
    verdict: ServedVerdict | None = None
    current_span: CurrentSpan | None = None
    # written by the state writer when a demotion changes the reason; not served
    queue_rank: int | None = None


class ServedRow(NamedTuple):
    """One row of the served-claims statements, by column name (``named_row``): the
    claim, its source, its active binding with the bound version's source, its latest
    verdict, and the current version of its source with the span at the bound offsets.
    The columns of a LEFT JOIN are NULL together (no binding, never judged, no current
    version read); ``distance`` only in the statement that seeds by vector."""

    id: int
    public_id: str
    text: str
    state: str
    state_reason: str
    source_id: int
    duplicate_of_id: int | None
    flagged: bool
    trust_score: int | None
    source_ref: str
    source_title: str
    source_citation: str
    binding_id: int | None
    binding_quote: str | None
    binding_start: int | None
    binding_end: int | None
    binding_source_hash: str | None
    binding_match: str | None
    binding_version_id: int | None
    bound_source_id: int | None
    bound_source_ref: str | None
    bound_source_title: str | None
    bound_source_citation: str | None
    verdict_id: int | None
    verdict_judge_model: str | None
    verdict_prompt_version: int | None
    verdict_confidence: float | None
    verdict_label: str | None
    verdict_at: datetime | None
    verdict_reviewer_id: int | None
    verdict_calibrator_id: int | None
    verdict_calibrator_version: int | None
    has_human_verdict: bool
    current_version_id: int | None
    current_version_number: int | None
    current_version_sha256: str | None
    current_span: str | None
    distance: float | None = None


class SeedRow(NamedTuple):
    """One row of a nearest-neighbour statement: a key and its cosine distance."""

    id: int
    distance: float


# One row per claim: the claim and its source, its active binding (at most one, by the
# ``binding_one_active_per_claim`` constraint) with the bound version's source, its
# latest model verdict (by ``-at, -id``, as ``claims_for_envelopes`` orders them; none
# when it is the abstention recorded for a claim with nothing bound — the judge was not
# asked, ``verifier.states.judge_not_asked``, as ``envelopes.latest_verdict`` reads it;
# with the calibrator that gave it), whether a person decided it (their decision in force
# then replaces the model's, ``human_decisions_in_force``) and — for
# supported/inferred claims, the only ones re-checked — the current version of its
# source (highest number) with its text at the bound offsets, cut from the version's
# chunks (migration 0018: the one or two chunks that hold the span, where ``substring``
# of the text would read its whole prefix). The cut is ``spanproof_version_span``'s body
# written inline: the planner does not inline a SQL function with an aggregate, and
# calling it costs ~25 µs a claim (4.8 against 3.9 ms for 40 claims at 1,000,000).
_CLAIM_COLUMNS = """
       c."id", c."public_id", c."text", c."state", c."state_reason", c."source_id",
       c."duplicate_of_id", c."flagged", c."trust_score"
"""
# Named as the fields of :class:`ServedRow`.
_SERVED_COLUMNS = f"""{_CLAIM_COLUMNS.rstrip()},
       s."ref" AS "source_ref", s."title" AS "source_title", s."citation" AS "source_citation",
       b."id" AS "binding_id", b."quote" AS "binding_quote", b."start" AS "binding_start",
       b."end" AS "binding_end", b."source_hash" AS "binding_source_hash",
       b."match" AS "binding_match", b."source_version_id" AS "binding_version_id",
       bs."id" AS "bound_source_id", bs."ref" AS "bound_source_ref",
       bs."title" AS "bound_source_title", bs."citation" AS "bound_source_citation",
       v."id" AS "verdict_id", v."judge_model" AS "verdict_judge_model",
       v."prompt_version" AS "verdict_prompt_version", v."confidence" AS "verdict_confidence",
       v."label" AS "verdict_label", v."at" AS "verdict_at",
       v."reviewer_id" AS "verdict_reviewer_id",
       v."calibrator_id" AS "verdict_calibrator_id",
       v."calibrator_version" AS "verdict_calibrator_version",
       EXISTS (SELECT 1 FROM "verifier_verdict" hv
               WHERE hv."claim_id" = c."id" AND hv."reviewer_id" IS NOT NULL)
           AS "has_human_verdict",
       cv."id" AS "current_version_id", cv."number" AS "current_version_number",
       cv."sha256" AS "current_version_sha256", cv."span" AS "current_span"
"""
_SERVED_JOINS = f"""
JOIN "verifier_source" s ON s."id" = c."source_id"
LEFT JOIN "verifier_evidencebinding" b ON b."claim_id" = c."id" AND b."is_active"
LEFT JOIN "verifier_sourceversion" bv ON bv."id" = b."source_version_id"
LEFT JOIN "verifier_source" bs ON bs."id" = bv."source_id"
LEFT JOIN LATERAL (
    SELECT vv."id", vv."judge_model", vv."prompt_version", vv."confidence", vv."label",
           vv."at", vv."reviewer_id", vv."note", vv."calibrator_id",
           (SELECT jc."version" FROM "verifier_judgecalibrator" jc
            WHERE jc."id" = vv."calibrator_id") AS "calibrator_version"
    FROM "verifier_verdict" vv WHERE vv."claim_id" = c."id" AND vv."reviewer_id" IS NULL
    ORDER BY vv."at" DESC, vv."id" DESC LIMIT 1
) v ON NOT (v."reviewer_id" IS NULL AND v."label" = 'abstained'
            AND v."note" = '{NO_BOUND_EVIDENCE_NOTE}')
LEFT JOIN LATERAL (
    SELECT sv."id", sv."number", sv."sha256",
           (SELECT substring(string_agg(k."text", '' ORDER BY k."index")
                             FROM b."start" - min(k."index") * {SPAN_CHUNK_CHARS} + 1
                             FOR GREATEST(b."end" - b."start", 0))
            FROM "verifier_sourceversionchunk" k
            WHERE k."version_id" = sv."id"
              AND k."index" BETWEEN GREATEST(b."start", 0) / {SPAN_CHUNK_CHARS}
                                AND GREATEST(b."end" - 1, b."start", 0) / {SPAN_CHUNK_CHARS}
           ) AS "span"
    FROM "verifier_sourceversion" sv
    WHERE sv."source_id" = c."source_id" AND c."state" IN ('supported', 'inferred')
    ORDER BY sv."number" DESC LIMIT 1
) cv ON TRUE"""
_SERVED_CLAIMS_SQL = f"""
SELECT {_SERVED_COLUMNS}
FROM "verifier_claim" c {_SERVED_JOINS}
WHERE c."workspace_id" = %s AND c."published" AND c."id" = ANY(%s::bigint[])
ORDER BY c."id"
"""


def _seeds_served_sql(seeds_from: str) -> str:
    """The nearest published claims and what serving needs of each, in one statement: the
    seeds statement (``seeds_from``) as a materialized CTE named like the claim table,
    carrying the claim's own columns from the rows the HNSW scan has already fetched (the
    separate load looked each claim up again by its key), then the joins of
    ``_SERVED_CLAIMS_SQL``. One round trip and one executor start fewer for a retrieve
    without expansion."""
    return f"""
WITH c AS MATERIALIZED (
    SELECT {_CLAIM_COLUMNS.rstrip()}, {_DISTANCE}
    {seeds_from}
)
SELECT {_SERVED_COLUMNS}, c."distance"
FROM c {_SERVED_JOINS}
ORDER BY c."distance", c."id"
"""


_SEEDS_SERVED_SQL = _seeds_served_sql(_SEEDS_FROM)
_SEEDS_SERVED_PACK_SQL = _seeds_served_sql(_SEEDS_FROM_PACK)


def served_claims(
    *, workspace: Workspace, claim_pks: Iterable[int]
) -> tuple[list[ServedClaim], dict[int, CurrentVersion]]:
    """The published claims of ``workspace`` among ``claim_pks`` as :class:`ServedClaim`
    (active binding, latest verdict and — supported/inferred ones — the current span
    attached), and {source pk: current version} for the sources of the
    supported/inferred ones — one query."""
    pks = sorted(set(claim_pks))
    if not pks:
        return [], {}
    with _serving_cursor() as cursor:
        cursor.row_factory = named_row(ServedRow)
        cursor.execute(_SERVED_CLAIMS_SQL, [workspace.pk, array_literal(pks)])
        rows: list[ServedRow] = cursor.fetchall()
    return _served_from_rows(rows)


def served_seeds_by_vector(
    *, workspace: Workspace, vector: np.ndarray, limit: int, domain_pack: str = ""
) -> list[tuple[ServedClaim, float]]:
    """``claim_seeds_by_vector`` and ``served_claims`` of its seeds in one statement:
    (claim, cosine similarity) of the ``limit`` nearest published claims, nearest first."""
    rows = _nearest_rows(
        _SEEDS_SERVED_SQL,
        _SEEDS_SERVED_PACK_SQL,
        ServedRow,
        workspace=workspace,
        vector=vector,
        limit=limit,
        domain_pack=domain_pack,
    )
    claims, _versions = _served_from_rows(rows)
    seeds: list[tuple[ServedClaim, float]] = []
    for claim, row in zip(claims, rows, strict=True):
        assert row.distance is not None  # the seeding statement's last column
        seeds.append((claim, 1.0 - float(row.distance)))
    return seeds


def _served_from_rows(
    rows: Sequence[ServedRow],
) -> tuple[list[ServedClaim], dict[int, CurrentVersion]]:
    """Each row as a :class:`ServedClaim` (in row order), and {source pk: current
    version} of the rows that read one. A source shared by several rows is one
    :class:`ServedSource`."""
    claims: list[ServedClaim] = []
    versions: dict[int, CurrentVersion] = {}
    sources: dict[int, ServedSource] = {}
    for row in rows:
        source = sources.get(row.source_id)
        if source is None:
            source = sources[row.source_id] = ServedSource(
                id=row.source_id,
                ref=row.source_ref,
                title=row.source_title,
                citation=row.source_citation,
            )
        claim = ServedClaim(
            pk=row.id,
            public_id=row.public_id,
            text=row.text,
            state=row.state,
            state_reason=row.state_reason,
            source_id=row.source_id,
            source=source,
            duplicate_of_id=row.duplicate_of_id,
            flagged=row.flagged,
            trust_score=row.trust_score,
        )
        if row.binding_id is not None:
            # the active binding's columns and its version's source's are NOT NULL
            assert row.binding_quote is not None and row.binding_source_hash is not None
            assert row.binding_start is not None and row.binding_end is not None
            assert row.binding_match is not None and row.binding_version_id is not None
            assert row.bound_source_id is not None and row.bound_source_ref is not None
            assert row.bound_source_title is not None and row.bound_source_citation is not None
            bound_source = sources.get(row.bound_source_id)
            if bound_source is None:
                bound_source = sources[row.bound_source_id] = ServedSource(
                    id=row.bound_source_id,
                    ref=row.bound_source_ref,
                    title=row.bound_source_title,
                    citation=row.bound_source_citation,
                )
            claim.binding = ServedBinding(
                id=row.binding_id,
                quote=row.binding_quote,
                start=row.binding_start,
                end=row.binding_end,
                source_hash=row.binding_source_hash,
                match=row.binding_match,
                source_version_id=row.binding_version_id,
                source=bound_source,
            )
        if row.verdict_id is not None:
            assert row.verdict_judge_model is not None and row.verdict_label is not None
            assert row.verdict_prompt_version is not None and row.verdict_at is not None
            assert row.verdict_confidence is not None
            claim.verdict = ServedVerdict(
                id=row.verdict_id,
                judge_model=row.verdict_judge_model,
                prompt_version=row.verdict_prompt_version,
                confidence=row.verdict_confidence,
                label=row.verdict_label,
                at=row.verdict_at,
                reviewer_id=row.verdict_reviewer_id,
                calibrator_id=row.verdict_calibrator_id,
                calibrator_version=row.verdict_calibrator_version,
            )
        if row.current_version_id is not None:
            version = versions.get(row.source_id)
            if version is None:
                assert row.current_version_number is not None
                assert row.current_version_sha256 is not None
                version = versions[row.source_id] = CurrentVersion(
                    id=row.current_version_id,
                    source_id=row.source_id,
                    number=row.current_version_number,
                    sha256=row.current_version_sha256,
                )
            if claim.binding is not None:
                claim.current_span = CurrentSpan(version=version, span_text=row.current_span or "")
        claims.append(claim)
    # A reviewer's decision in force outranks every model verdict (one more query, only
    # when some claim was decided by a person).
    decided = human_decisions_in_force(
        claims=[c for c, r in zip(claims, rows, strict=True) if r.has_human_verdict]
    )
    for claim in claims:
        if claim.pk in decided:
            claim.verdict = decided[claim.pk][1]
    return claims, versions
