"""Validate and remediate stages.

Validate, per batch of claims not yet classified: Layer 1 binding (the submitted quote,
else evidence search in the cited source), Layer 2 judging (coverage gaps for anything
the judge omits), then rule-set scoring with the rule set active for the claim's domain
pack. Dimension scores come from the documented offline heuristics
(``verifier.scoring.dimension_heuristics``) over the bound span and the verdict; the
rule set's weights and policy turn them into supported / weak / unsupported. A batch is
one transaction, so a crash leaves it unclassified and the rerun redoes it whole.

Remediate, per batch: claims classified weak or unsupported whose state allows repair
get the one repair pass (``claim_remediate``: narrow, re-bind, re-judge, else
soft-exclude). Repaired text is re-embedded and re-classified.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.db import connection

from verifier.models import Claim, EvidenceBinding, IngestJob, Verdict, Workspace
from verifier.scoring.dimension_heuristics import dimension_scores
from verifier.scoring.rulesets import classify, overall_score
from verifier.selectors.rules import ActiveRules, rule_set_active
from verifier.services.ingest_group import claims_embed
from verifier.services.remediation import REMEDIABLE_STATES, claim_remediate
from verifier.services.verification import claims_verify


def _spans(ids: list[int]) -> dict[int, str]:
    rows = EvidenceBinding.objects.filter(claim_id__in=ids, is_active=True)
    return dict(rows.values_list("claim_id", "quote"))


def _verdicts(ids: list[int]) -> dict[int, tuple[str, float]]:
    rows = (
        Verdict.objects.filter(claim_id__in=ids, reviewer__isnull=True)
        .latest_per_claim()
        .values_list("claim_id", "label", "confidence")
    )
    return {pk: (label, confidence) for pk, label, confidence in rows}


def claims_classify(
    *, workspace: Workspace, claims: Iterable[Claim], policy: str | None = None
) -> None:
    """Score each claim on the six dimensions and classify it under the rule set active
    for its source's domain pack, with that activation's policy (or ``policy``, a
    policy name the caller checked with ``rule_set_policies``)."""
    claims = list(claims)
    ids = [c.pk for c in claims]
    spans, verdicts = _spans(ids), _verdicts(ids)
    rules_by_pack: dict[str, ActiveRules] = {}
    for claim in claims:
        pack = claim.source.domain_pack
        if pack not in rules_by_pack:
            rules_by_pack[pack] = rule_set_active(workspace=workspace, domain_pack=pack)
        rules = rules_by_pack[pack]
        label, confidence = verdicts.get(claim.pk, (None, None))
        scores = dimension_scores(
            claim_text=claim.text,
            span_text=spans.get(claim.pk),
            verdict_label=label,
            verdict_confidence=confidence,
        )
        claim.quality = classify(rules.definition, scores, policy or rules.policy)
        claim.quality_score = round(overall_score(rules.definition, scores), 6)
        claim.flagged = claim.quality != "supported"
    _store_quality(claims)


_STORE_QUALITY = f"""
UPDATE {Claim._meta.db_table} AS c
SET quality = v.quality, quality_score = v.score, flagged = v.flagged
FROM unnest(%s::bigint[], %s::text[], %s::float8[], %s::boolean[]) AS v(id, quality, score, flagged)
WHERE c.id = v.id
"""


def _store_quality(claims: list[Claim]) -> None:
    """``bulk_update`` of quality, quality_score and flagged in one plain statement."""
    if not claims:
        return
    with connection.cursor() as cursor:
        cursor.execute(
            _STORE_QUALITY,
            [
                [c.pk for c in claims],
                [c.quality for c in claims],
                [c.quality_score for c in claims],
                [c.flagged for c in claims],
            ],
        )


def claims_validate(*, job: IngestJob, claims: list[Claim]) -> int:
    """Bind, judge and classify the claims that are not classified yet."""
    pending = [c for c in claims if not c.quality]
    if not pending:
        return 0
    claims_verify(claims=pending)
    claims_classify(workspace=job.workspace, claims=pending)
    return len(pending)


def claims_remediate(*, job: IngestJob, claims: list[Claim]) -> int:
    """One repair pass for weak/unsupported claims that are not excluded or contradicted."""
    candidates = [
        c
        for c in claims
        if c.quality in ("weak", "unsupported")
        and c.state in REMEDIABLE_STATES
        and not c.exclusion_reason
    ]
    repaired = []
    for claim in candidates:
        outcome = claim_remediate(claim=claim)
        if outcome.repaired_text is not None and not outcome.excluded:
            repaired.append(outcome.claim)
    if repaired:
        for claim in repaired:
            claim.embedding = None
        claims_embed(claims=repaired)
        claims_classify(workspace=job.workspace, claims=repaired)
    return len(candidates)
