"""Reads behind ``POST /worker/verify``: evidence rows (published claims with their
active bound span, and sentences of the sentence index), the knowledge-graph reach of a
claim's entities and the tails of the graph relations that reached each claim."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db.models import F, Q

from verifier.models import Claim, Entity, EntityRelation, SourceSentence, Workspace
from verifier.selectors.version_span import VersionSpan

CLAIM = "claim"
SOURCE_SENTENCE = "source_sentence"


@dataclass(frozen=True)
class EvidenceRow:
    """One evidence candidate as a bound span: a published claim with its active binding,
    or (``kind`` ``source_sentence``) a sentence of the sentence index, whose quote and
    text are the sentence itself and which has no claim, state or binding."""

    claim_pk: int | None
    public_id: str
    text: str
    state: str
    trust_score: int | None
    source_id: int
    source_ref: str
    source_title: str
    source_citation: str
    domain_pack: str
    binding_id: int | None
    quote: str
    start: int
    end: int
    source_hash: str
    match: str
    source_version_id: int
    version_created_at: datetime
    kind: str = CLAIM
    sentence_pk: int | None = None

    @property
    def span(self) -> tuple[int, int, int]:
        """(source version pk, start, end): where the evidence is bound."""
        return self.source_version_id, self.start, self.end


def sentence_key(*, source_version_id: int, start: int, end: int) -> str:
    """The evidence id of a source sentence: its span, stable across re-indexing."""
    return f"sentence:{source_version_id}:{start}-{end}"


def worker_evidence_rows(
    *, workspace: Workspace, claim_pks: Iterable[int], domain_pack: str = ""
) -> list[EvidenceRow]:
    """Published claims of ``workspace`` among ``claim_pks`` (of sources in
    ``domain_pack`` when given) that have an active bound span (one query); a claim
    without one cannot be evidence."""
    pks = sorted(set(claim_pks))
    if not pks:
        return []
    qs = Claim.objects.filter(
        workspace=workspace, published=True, pk__in=pks, bindings__is_active=True
    )
    if domain_pack:
        qs = qs.filter(source__domain_pack=domain_pack)
    rows = qs.values_list(
        "pk",
        "public_id",
        "text",
        "state",
        "trust_score",
        "source_id",
        "source__ref",
        "source__title",
        "source__citation",
        "source__domain_pack",
        "bindings__id",
        "bindings__quote",
        "bindings__start",
        "bindings__end",
        "bindings__source_hash",
        "bindings__match",
        "bindings__source_version_id",
        "bindings__source_version__created_at",
    )
    return [EvidenceRow(*row) for row in rows]


def worker_sentence_rows(
    *, workspace: Workspace, sentence_pks: Iterable[int], domain_pack: str = ""
) -> list[EvidenceRow]:
    """The sentences of ``workspace``'s sentence index among ``sentence_pks`` (of sources
    in ``domain_pack`` when given) as evidence rows, their text cut out of the version by
    the database (one query)."""
    pks = sorted(set(sentence_pks))
    if not pks:
        return []
    qs = SourceSentence.objects.filter(workspace=workspace, pk__in=pks)
    if domain_pack:
        qs = qs.filter(source_version__source__domain_pack=domain_pack)
    rows = qs.annotate(quote=VersionSpan(F("source_version_id"), F("start"), F("end"))).values_list(
        "pk",
        "quote",
        "start",
        "end",
        "source_version_id",
        "source_version__sha256",
        "source_version__created_at",
        "source_version__source_id",
        "source_version__source__ref",
        "source_version__source__title",
        "source_version__source__citation",
        "source_version__source__domain_pack",
    )
    out = []
    for pk, quote, start, end, version_id, sha256, created_at, source_id, *source in rows:
        ref, title, citation, pack = source
        out.append(
            EvidenceRow(
                claim_pk=None,
                public_id=sentence_key(source_version_id=version_id, start=start, end=end),
                text=quote,
                state="",
                trust_score=None,
                source_id=source_id,
                source_ref=ref,
                source_title=title,
                source_citation=citation,
                domain_pack=pack,
                binding_id=None,
                quote=quote,
                start=start,
                end=end,
                source_hash=sha256,
                match="exact",
                source_version_id=version_id,
                version_created_at=created_at,
                kind=SOURCE_SENTENCE,
                sentence_pk=pk,
            )
        )
    return out


def worker_claims_by_entities(
    *, workspace: Workspace, normalized_names: Iterable[str], limit: int
) -> dict[int, set[str]]:
    """{published claim pk: the given entity names it mentions}, at most ``limit``
    claims (those mentioning the most names first)."""
    names = sorted(set(normalized_names))
    if not names:
        return {}
    through = Entity.claims.through
    rows = through.objects.filter(
        entity__workspace=workspace,
        entity__normalized_name__in=names,
        claim__published=True,
    ).values_list("claim_id", "entity__normalized_name")[: limit * 4]
    found: dict[int, set[str]] = defaultdict(set)
    for claim_pk, name in rows:
        found[claim_pk].add(name)
    ordered = sorted(found.items(), key=lambda item: (-len(item[1]), item[0]))[:limit]
    return dict(ordered)


def worker_relation_tails(
    *, workspace: Workspace, claim_pks: Iterable[int], normalized_names: Iterable[str]
) -> dict[int, set[str]]:
    """{claim pk: the names (as written) at the tail of the knowledge-graph relations
    that reached it}, for claims reached through the graph by a claim naming
    ``normalized_names``. The heads are the named entities the reached claim mentions;
    its tails are the entities it mentions at the other end of an ``EntityRelation``
    (co-mention edge) from a head — another head included, so a claim that links two of
    the named entities has a tail the claim names. A claim mentioning none of the named
    entities (reached through a ``ClaimRelation``) has all its entities as tails. A
    claim without such tails is absent. Two queries."""
    pks = sorted(set(claim_pks))
    names = set(normalized_names)
    if not pks:
        return {}
    through = Entity.claims.through
    mentions: dict[int, dict[int, tuple[str, str]]] = defaultdict(dict)
    for claim_pk, entity_pk, normalized, name in through.objects.filter(
        claim_id__in=pks, entity__workspace=workspace
    ).values_list("claim_id", "entity_id", "entity__normalized_name", "entity__name"):
        mentions[claim_pk][entity_pk] = (normalized, name)
    heads = {e for found in mentions.values() for e, (n, _) in found.items() if n in names}
    others = {e for found in mentions.values() for e in found}
    edges: set[tuple[int, int]] = set()
    if heads:
        for a, b in (
            EntityRelation.objects.filter(workspace=workspace)
            .filter(
                Q(from_entity_id__in=heads, to_entity_id__in=others)
                | Q(to_entity_id__in=heads, from_entity_id__in=others)
            )
            .values_list("from_entity_id", "to_entity_id")
        ):
            edges.update(((a, b), (b, a)))
    tails: dict[int, set[str]] = {}
    for claim_pk, found in mentions.items():
        mine = {e for e in found if e in heads}
        if mine:
            reached = {found[t][1] for t in found for h in mine if t != h and (h, t) in edges}
        else:
            reached = {name for _n, name in found.values()}
        if reached:
            tails[claim_pk] = reached
    return tails


def worker_cached_claim(
    *, workspace: Workspace, text: str, domain: str, top_k: int
) -> tuple[str, str, datetime, dict[str, Any]] | None:
    """(public id, state, created at, stored result) of the newest worker claim of
    ``workspace`` with this exact text, domain and top_k that stored a result."""
    row = (
        Claim.objects.filter(
            workspace=workspace,
            origin="worker",
            text=text,
            metadata__domain=domain,
            metadata__top_k=top_k,
            metadata__has_key="worker_result",
        )
        .order_by("-created_at", "-id")
        .values_list("public_id", "state", "created_at", "metadata")
        .first()
    )
    if row is None:
        return None
    public_id, state, created_at, metadata = row
    return public_id, state, created_at, metadata["worker_result"]
