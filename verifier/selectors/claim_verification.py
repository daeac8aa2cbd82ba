"""Reads for claim verification batches: per-claim results in request order, and jobs."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from django.db import connection
from django.db.models import Count, QuerySet
from django.http import Http404
from django.urls import reverse

from verifier.models import (
    Claim,
    EvidenceBinding,
    MatchKind,
    Source,
    SourceVersion,
    Trace,
    VerificationJob,
    Workspace,
)
from verifier.scoring.quality import quality_class
from verifier.selectors.envelopes import (
    active_binding,
    claims_for_envelopes,
    judge_item,
    latest_verdict,
    served_verdict_of,
)
from verifier.selectors.permalinks import binding_permalink
from verifier.states import StateReason, reason_in_words

# A quote that did not bind in its cited source is looked up in this many other sources
# of the workspace (the ones that contain it are named: a misattribution).
MISATTRIBUTION_LOOKUP_LIMIT = 3


# The job's trace is recorded when it ends, under an id fixed by the job, so the job's
# answer can name it without a column of its own.
_JOB_TRACE_NAMESPACE: Final = uuid.UUID("5b0f3c1e-6a7d-4d36-9a41-3f1c9e2b7d10")


def verification_job_trace_id(*, job_id: int) -> uuid.UUID:
    """The id of the trace verification job ``job_id`` records when it ends."""
    return uuid.uuid5(_JOB_TRACE_NAMESPACE, f"verification-job:{job_id}")


def verification_job_trace(*, job: VerificationJob) -> uuid.UUID | None:
    """The trace the job recorded (it does when it ends), or None while it has none."""
    trace_id = verification_job_trace_id(job_id=job.pk)
    if not job.finished:
        return None
    recorded = Trace.objects.filter(workspace_id=job.workspace_id, trace_id=trace_id).exists()
    return trace_id if recorded else None


def verification_job_get(*, workspace: Workspace, job_id: int) -> VerificationJob:
    job = VerificationJob.objects.filter(workspace=workspace, pk=job_id).first()
    if job is None:
        raise Http404("No such verification job in this workspace.")
    return job


def verification_job_list(*, workspace: Workspace) -> QuerySet[VerificationJob]:
    return VerificationJob.objects.filter(workspace=workspace).defer("items")


def verification_job_summary(*, job: VerificationJob) -> dict[str, Any]:
    """Counts for a job page: claims, errors, and states of its stored claims."""
    ids = [i["claim_id"] for i in job.items if i.get("claim_id")]
    states = dict(
        Claim.objects.filter(workspace_id=job.workspace_id, public_id__in=ids)
        .values_list("state")
        .annotate(n=Count("id"))
        .order_by("state")
    )
    return {
        "claims": len(job.items),
        "errors": sum(1 for i in job.items if i.get("error")),
        "states": states,
    }


def _claims(workspace: Workspace, public_ids: Sequence[str]) -> dict[str, Claim]:
    rows = claims_for_envelopes(
        Claim.objects.filter(workspace=workspace, public_id__in=list(public_ids))
    )
    return {c.public_id: c for c in rows}


# Where the quotes of claims with nothing bound are, for a page of results in one query
# whatever its rows: each quote (``unnest``) against the workspace's source versions that
# contain it (``strpos``, the exact, case-sensitive substring ``text__contains`` reads):
# every version of the claim's cited source, and the current version (no later version of
# its source) of the others, at most MISATTRIBUTION_LOOKUP_LIMIT of them by ref.
_WHEREABOUTS = f"""
WITH q AS (
  SELECT * FROM unnest(%s::bigint[], %s::text[], %s::bigint[]) AS q(claim_id, quote, source_id)
), found AS (
  SELECT q.claim_id, s.ref, v.number, v.source_id = q.source_id AS cited,
    NOT EXISTS (
      SELECT 1 FROM {SourceVersion._meta.db_table} n
      WHERE n.source_id = v.source_id AND n.number > v.number
    ) AS is_current
  FROM q
  JOIN {SourceVersion._meta.db_table} v ON strpos(v.text, q.quote) > 0
  JOIN {Source._meta.db_table} s ON s.id = v.source_id AND s.workspace_id = %s
), ranked AS (
  SELECT found.*, row_number() OVER (PARTITION BY claim_id, cited ORDER BY ref, number DESC) AS nth
  FROM found WHERE cited OR is_current
)
SELECT claim_id, ref, number, cited, is_current FROM ranked
WHERE cited AND nth = 1 OR NOT cited AND nth <= %s
ORDER BY claim_id, cited, nth
"""


@dataclass(frozen=True)
class QuoteWhereabouts:
    """Where the quote of a claim with nothing bound is: ``elsewhere``, the refs of other
    sources of the workspace whose current version contains it (a misattribution; a text
    a source no longer has is none), in ref order; ``earlier``, the number of the latest
    version of the cited source that contains it when that is not its current one (the
    source changed since), else None."""

    elsewhere: list[str] = field(default_factory=list)
    earlier: int | None = None


def quote_whereabouts(claims: Sequence[Claim]) -> dict[int, QuoteWhereabouts]:
    """{claim pk: where its quote is} for those of ``claims`` (of one workspace) with a
    quote and nothing bound; one query for all of them."""
    # a claim twice on a page (one ``external_id`` sent twice) is looked up once
    unbound = list(
        {c.pk: c for c in claims if c.submitted_quote and active_binding(c) is None}.values()
    )
    if not unbound:
        return {}
    out = {c.pk: QuoteWhereabouts() for c in unbound}
    with connection.cursor() as cursor:
        cursor.execute(
            _WHEREABOUTS,
            [
                [c.pk for c in unbound],
                [c.submitted_quote for c in unbound],
                [c.source_id for c in unbound],
                unbound[0].workspace_id,
                MISATTRIBUTION_LOOKUP_LIMIT,
            ],
        )
        rows = cursor.fetchall()
    for claim_id, ref, number, cited, is_current in rows:
        here = out[claim_id]
        if not cited:
            here.elsewhere.append(ref)
        elif not is_current:
            out[claim_id] = QuoteWhereabouts(elsewhere=here.elsewhere, earlier=number)
    return out


def _quote_whereabouts(claim: Claim, where: QuoteWhereabouts) -> str:
    """Where the quote of a claim with nothing bound is, said after its reason (which
    says the quote is not in the cited source's current version): in an earlier version
    of that source (it changed since), in other sources of the workspace (a
    misattribution), or "" when neither."""
    said = []
    earlier, elsewhere = where.earlier, where.elsewhere
    if earlier is not None:
        said.append(
            f"The quote is in version {earlier} of {claim.source.ref}, which has changed since."
        )
    if elsewhere:
        lead = "It is also in" if earlier is not None else "The quote is in"
        said.append(f"{lead} {', '.join(elsewhere)}: the claim cites the wrong source.")
    return " ".join(said)


def _span(binding: EvidenceBinding) -> dict[str, Any]:
    version = binding.source_version
    return {
        "quote": binding.quote,
        "start": binding.start,
        "end": binding.end,
        "match": binding.match,
        "score": round(binding.score, 4) if binding.match == MatchKind.FUZZY else None,
        "occurrences": binding.occurrences,
        "bound_by": binding.bound_by,
        "source_version": version.number,
        "source_hash": binding.source_hash,
        "permalink": binding_permalink(binding),
    }


def claim_result(claim: Claim, *, whereabouts: QuoteWhereabouts | None = None) -> dict[str, Any]:
    """One verified claim as the API, the CLI and the console report it (best loaded by
    ``claims_for_envelopes``; a page of them passes each its ``quote_whereabouts``, looked
    up for the whole page at once). ``ResultSerializer`` (``verifier.api.claim_verification``)
    declares exactly these keys and those of ``verification_results``' rows."""
    binding = active_binding(claim)
    verdict = latest_verdict(claim)
    # The envelope's judge, serialized by the one function that serializes it everywhere
    # (its calibrator included); the flat keys below are read from it.
    judge = judge_item(served_verdict_of(verdict)) if verdict is not None else None
    # The stored reason's words, as the claim's envelope and the console give them;
    # for a quote not bound, followed by where the quote is, when it is anywhere.
    reason_text = reason_in_words(claim.state_reason, quote=claim.submitted_quote)
    misattributed_to: list[str] = []
    if binding is None and claim.submitted_quote:
        if whereabouts is None:
            whereabouts = quote_whereabouts([claim]).get(claim.pk, QuoteWhereabouts())
        misattributed_to = list(whereabouts.elsewhere)
        said = _quote_whereabouts(claim, whereabouts)
        if said:
            reason_text = f"{reason_text} {said}"
    return {
        "claim_id": claim.public_id,
        "external_id": claim.external_id or None,
        "text": claim.text,
        "source": claim.source.ref,
        "state": claim.state,
        "reason": claim.state_reason,
        "reason_text": reason_text,
        # The envelope's rule: no confidence for a verdict that gave no answer.
        "verdict": judge["verdict"] if judge is not None else None,
        "confidence": judge["confidence"] if judge is not None else None,
        "verdict_id": verdict.pk if verdict is not None else None,
        "judge_model": judge["model"] if judge is not None else None,
        "judge": judge,
        # The class as the quality report counts it: capped by the state.
        "quality": quality_class(claim.state, claim.quality),
        "misattributed_to": misattributed_to,
        "span": _span(binding) if binding is not None else None,
        "permalink": reverse("audit:claim-detail", kwargs={"public_id": claim.public_id}),
        "metadata": claim.metadata or {},
    }


def verification_unfinished(claim: Claim, *, reused: bool) -> bool:
    """Whether a claim of a claims/verify request has no result yet: one it stored that
    is not classified yet, or one stored earlier (``reused``) that no judge has read
    yet — another request's verification still running, or one that failed before it
    judged (its stored "unverified, not judged yet" is not a result) — or whose cited
    source changed since it was bound (``stale_source``: its stored result is about a
    text the source no longer has, so the request verifies it again, against the
    current version; verified, it is never stale). A reused claim a judge has read
    keeps its stored result otherwise."""
    if reused and claim.state_reason == StateReason.STALE_SOURCE:
        return True
    if claim.quality:
        return False
    return not reused or claim.state_reason == StateReason.NOT_JUDGED


def verification_results(
    *, workspace: Workspace, items: Sequence[dict[str, Any]], include_pending: bool = True
) -> list[dict[str, Any]]:
    """Results in request order from job-style items (``{"index", "external_id",
    "claim_id", "reused"}`` or ``{"index", "external_id", "error"}``); a claim not
    verified yet reads ``pending`` (``verification_unfinished``). Every row echoes the
    ``external_id`` the request gave (null when it gave none), the key an application
    correlates its rows by."""
    claims = _claims(workspace, [i["claim_id"] for i in items if i.get("claim_id")])
    shown = [
        claims[i["claim_id"]]
        for i in items
        if i.get("claim_id") in claims
        and not verification_unfinished(claims[i["claim_id"]], reused=bool(i.get("reused")))
    ]
    where = quote_whereabouts(shown)
    out: list[dict[str, Any]] = []
    for item in items:
        row: dict[str, Any] = {"index": item["index"]}
        claim = claims.get(item.get("claim_id") or "")
        if claim is None:
            row.update(
                status="error", external_id=item.get("external_id") or None, error=item.get("error")
            )
        elif verification_unfinished(claim, reused=bool(item.get("reused"))):
            if not include_pending:
                continue
            row.update(
                status="pending", claim_id=claim.public_id, external_id=claim.external_id or None
            )
        else:
            row.update(
                status="verified",
                reused=bool(item.get("reused")),
                **claim_result(claim, whereabouts=where.get(claim.pk, QuoteWhereabouts())),
            )
        out.append(row)
    return out
