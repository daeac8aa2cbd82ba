"""``POST /connect/v1/graph``: five graph operations on the serving run of
:mod:`verifier.services.retrieval` (same policy, read-time re-check and trace).

Each operation is one function: it seeds the run and returns what it adds to the
response once the run has served (the paths, the summary, or nothing).
:data:`OPERATIONS` maps an operation's name to that function and its default depth.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Final, NamedTuple

from django.db import transaction

from verifier.models import Workspace
from verifier.retrieval_ranking import (
    Considered,
    Edge,
    context_block,
    paths_served,
    subgraph_summary,
)
from verifier.selectors import retrieval as sel
from verifier.services.retrieval import SEED_OVERFETCH, RetrievalInputError, ServeRun

MAX_PATH_HOPS: Final = 6


@dataclass(frozen=True)
class GraphAsk:
    """What a graph request asks, beyond what the serving run holds."""

    query: str
    claim_ids: Sequence[str]
    from_ref: str
    to_ref: str
    max_claims: int
    max_hops: int
    max_paths: int


@dataclass(frozen=True)
class ServedGraph:
    """The served claims (the gate's included ones, as envelopes, in ranked order) and
    the accepted relations among them."""

    served_pks: set[int]
    envelopes: list[dict[str, Any]]
    edges: list[Edge]


# What an operation adds to the response once the run has served.
Respond = Callable[[ServedGraph], dict[str, Any]]


def _nothing_more(_graph: ServedGraph) -> dict[str, Any]:
    return {}


def _edge_row(run: ServeRun, edge: Edge) -> dict[str, Any]:
    a, b, kind, conf = edge
    return {"from": run.public_id(a), "to": run.public_id(b), "type": kind, "confidence": conf}


def _seed_by_query(run: ServeRun, ask: GraphAsk) -> None:
    if not ask.query.strip():
        raise RetrievalInputError(
            "query_required", f"{run.operation} needs a query.", {"field": "query"}
        )
    run.seed_by_query(limit=ask.max_claims * SEED_OVERFETCH)


def _seed_by_claim_ids(run: ServeRun, ask: GraphAsk) -> None:
    if not ask.claim_ids:
        raise RetrievalInputError(
            "claim_ids_required", f"{run.operation} needs claim_ids.", {"field": "claim_ids"}
        )
    missing = run.seed_by_ids(list(ask.claim_ids))
    if missing:
        run.degrade("seed_claim_not_found")
        run.extra["missing_claim_ids"] = missing


def _resolve_endpoint(workspace: Workspace, ref: str) -> list[int]:
    if ref.startswith("claim:"):
        found = sel.claim_pks_by_public_id(workspace=workspace, public_ids=[ref])
        return list(found.values())
    return sel.claim_pks_by_entity(workspace=workspace, name=ref)


def _retrieve_context(run: ServeRun, ask: GraphAsk) -> Respond:
    """The claims nearest the query."""
    _seed_by_query(run, ask)
    return _nothing_more


def _expand_context(run: ServeRun, ask: GraphAsk) -> Respond:
    """The given claims and their neighbours."""
    _seed_by_claim_ids(run, ask)
    return _nothing_more


def _find_relevant_subgraph(run: ServeRun, ask: GraphAsk) -> Respond:
    """The claims nearest the query and their neighbours."""
    _seed_by_query(run, ask)
    return _nothing_more


def _find_paths(run: ServeRun, ask: GraphAsk) -> Respond:
    """Shortest relation paths between two claims or entities; a path is served only
    when the policy serves every claim on it."""
    if not ask.from_ref or not ask.to_ref:
        missing = "from_ref" if not ask.from_ref else "to_ref"
        raise RetrievalInputError(
            "endpoints_required",
            "find_paths needs from_ref and to_ref (a claim id or an entity each).",
            {"field": missing},
        )
    starts = _resolve_endpoint(run.workspace, ask.from_ref)
    goals = _resolve_endpoint(run.workspace, ask.to_ref)
    paths_pk: list[list[Edge]] = []
    if not starts or not goals:
        run.degrade("seed_claim_not_found")
    else:
        paths_pk = sel.claim_paths(
            workspace=run.workspace,
            start_pks=starts,
            goal_pks=goals,
            max_hops=min(ask.max_hops, MAX_PATH_HOPS),
            max_paths=ask.max_paths,
        )
    run.add_seeds([(pk, 1.0) for pk in starts])
    for path in paths_pk:
        for hop, (a, b, _kind, _confidence) in enumerate(path, start=1):
            for pk in (a, b):
                if pk not in run.considered:
                    run.considered[pk] = Considered(pk=pk, score=1.0 / (1 + hop), hop_depth=hop)
    run.depth = "quick"  # the paths are the expansion

    def respond(graph: ServedGraph) -> dict[str, Any]:
        kept, dropped = paths_served(paths_pk, graph.served_pks)
        run.extra["paths"] = {
            "found": len(paths_pk),
            "served": len(kept),
            "dropped_by_policy": dropped,
        }
        return {"paths": [[_edge_row(run, edge) for edge in path] for path in kept]}

    return respond


def _summarise_subgraph(run: ServeRun, ask: GraphAsk) -> Respond:
    """The given claims (or those nearest the query) and their neighbours, with counts of
    nodes, edges, edge types, states and sources."""
    if ask.claim_ids:
        _seed_by_claim_ids(run, ask)
    else:
        _seed_by_query(run, ask)

    def respond(graph: ServedGraph) -> dict[str, Any]:
        return {"summary": subgraph_summary(edges=graph.edges, envelopes=graph.envelopes)}

    return respond


class GraphOperation(NamedTuple):
    seed: Callable[[ServeRun, GraphAsk], Respond]
    default_depth: str


OPERATIONS: Final[Mapping[str, GraphOperation]] = MappingProxyType(
    {
        "retrieve_context": GraphOperation(_retrieve_context, "quick"),
        "expand_context": GraphOperation(_expand_context, "standard"),
        "find_relevant_subgraph": GraphOperation(_find_relevant_subgraph, "standard"),
        "find_paths": GraphOperation(_find_paths, "quick"),
        "summarise_subgraph": GraphOperation(_summarise_subgraph, "standard"),
    }
)
GRAPH_OPERATIONS: Final = tuple(OPERATIONS)


@transaction.atomic
def graph_query(
    *,
    workspace: Workspace,
    operation: str,
    query: str = "",
    claim_ids: Sequence[str] = (),
    from_ref: str = "",
    to_ref: str = "",
    depth: str | None = None,
    max_claims: int = 20,
    max_hops: int = 4,
    max_paths: int = 5,
    require_verified: bool = False,
    verification_policy: dict[str, Any] | None = None,
    domain_pack: str = "",
) -> dict[str, Any]:
    """``POST /connect/v1/graph``: nodes carry envelopes, edges carry kind and confidence."""
    op = OPERATIONS.get(operation)
    if op is None:
        raise RetrievalInputError(
            "unsupported_operation", f"operation must be one of {list(GRAPH_OPERATIONS)}."
        )
    run = ServeRun.from_request(
        workspace=workspace,
        operation=operation,
        query=query,
        depth=depth or op.default_depth,
        max_claims=max_claims,
        require_verified=require_verified,
        verification_policy=verification_policy,
        domain_pack=domain_pack,
    )
    ask = GraphAsk(
        query=query,
        claim_ids=claim_ids,
        from_ref=from_ref,
        to_ref=to_ref,
        max_claims=max_claims,
        max_hops=max_hops,
        max_paths=max_paths,
    )
    t = time.perf_counter()
    respond = op.seed(run, ask)
    run.mark("seed", t)
    run.run()

    served_pks = {c.pk for c in run.included}
    graph = ServedGraph(
        served_pks=served_pks,
        envelopes=run.envelopes(),
        edges=sel.relations_among(workspace=workspace, claim_pks=served_pks),
    )
    response: dict[str, Any] = {
        "request_id": run.request_id,
        "trace_id": str(run.trace_id),
        "operation": operation,
        "nodes": [{"id": env["claim"]["id"], "envelope": env} for env in graph.envelopes],
        "edges": [_edge_row(run, edge) for edge in sorted(graph.edges)],
        "context_block": context_block(graph.envelopes),
        **respond(graph),
    }
    run.record()
    response["metadata"] = run.metadata(graph.envelopes)
    return response
