"""The whole Layer-1 + Layer-2 chain for a set of claims: bind, judge, state."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from django.db import connection, transaction

from verifier.engine import get_judge
from verifier.judges import Judge
from verifier.models import Claim, EvidenceBinding, Source
from verifier.services.binding import claim_bind, claims_bind
from verifier.services.claim_state import ClaimStates
from verifier.services.evidence_search import cached_span_vectors, embed_claim_texts
from verifier.services.judging import claim_vectors, claims_judge
from verifier.services.traces import TraceSteps, maybe_step


def source_versions_hold(*, source_ids: Iterable[int]) -> None:
    """Keep the sources' current versions current until the transaction ends: their rows
    locked FOR SHARE, which a new version's writer (``source_upsert``, FOR NO KEY UPDATE)
    waits for, and which concurrent verifications of the same sources share. Taken in the
    stored refs' order (code points, as every door that stores several sources locks
    them), before any claim's row.

    A claim bound in the version read as current while a new version was being stored
    was bound in the earlier one and committed after that version's writer re-resolved
    the claims bound to earlier versions, and after its re-binding job had read the
    source's claims: neither saw it, so it stayed ``stale_source`` although its words
    were unchanged (or ``supported`` on a superseded version)."""
    ids = sorted(set(source_ids))
    if not ids:
        return
    table = connection.ops.quote_name(Source._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(
            f'SELECT "id" FROM {table} WHERE "id" = ANY(%s) ORDER BY "ref" COLLATE "C", "id" '
            "FOR SHARE",
            [ids],
        )


@transaction.atomic
def claims_verify(
    *, claims: Sequence[Claim], judge: Judge | None = None, steps: TraceSteps | None = None
) -> None:
    """Bind each claim in its cited source (its submitted quote, else evidence search),
    judge them all in batches, and refresh every state (the bind and judge steps each
    refresh, as ``claim_bind`` and ``claims_judge`` do). One transaction: a failure
    leaves none of the claims bound or judged. The claims' stored embeddings spare the
    judge from re-embedding their texts. ``steps``: the caller's trace, which gets the
    embed, bind and judge steps with their times."""
    claims = list(claims)
    if not claims:
        return
    # before the claims' rows: a new version of a cited source waits for these bindings
    # (and re-resolves them), or these bindings wait for it (and bind in it)
    source_versions_hold(source_ids=(c.source_id for c in claims))
    judge = judge or get_judge()
    vectors = claim_vectors(claims)
    if len({c.pk for c in claims}) != len(claims):  # a claim listed twice: bound twice
        for claim in claims:
            claim_bind(claim=claim)
        claims_judge(claims=claims, judge=judge, cause="verified", vectors=vectors)
        return
    # Each claim's state is refreshed after binding and after judging, with both state
    # events recorded; the row is written once.
    states = ClaimStates(claims)
    # Texts without a stored embedding are embedded once, in one batch: evidence
    # search and the judge both read them.
    missing = [c.text for c in claims if c.text not in vectors]
    with maybe_step(steps, "embed", texts=len(missing)):
        vectors.update(embed_claim_texts(missing))
    with maybe_step(steps, "bind", claims=len(claims)) as detail:
        outcomes = claims_bind(claims=claims, states=states, vectors=vectors)
        detail["bound"] = sum(1 for o in outcomes if o.binding is not None)
    # A span evidence search bound is one of its windows, whose embedding it already
    # has: the judge reuses it instead of embedding the span again.
    by_version: dict[int, list[EvidenceBinding]] = {}
    for outcome in outcomes:
        if outcome.binding is not None:
            by_version.setdefault(outcome.binding.source_version_id, []).append(outcome.binding)
    for bindings in by_version.values():
        version = bindings[0].source_version
        vectors.update(
            cached_span_vectors(
                text=version.text, sha256=version.sha256, spans=[(b.start, b.end) for b in bindings]
            )
        )
    with maybe_step(steps, "judge", claims=len(claims), judge=judge.model_id):
        claims_judge(claims=claims, judge=judge, cause="verified", vectors=vectors, states=states)
    with maybe_step(steps, "state"):
        states.flush()
