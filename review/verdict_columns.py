"""The latest verdict's columns as annotations on claims, added only where a query needs them.

Each is a correlated subquery (the claim's verdict by ``-at, -id``, index
``verdict_claim_latest``). The queue's keyset and count queries do without them unless a
filter reads one (judge model, confidence), so they compile and run without five
subqueries they would not use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypedDict, cast

from django.db.models import (
    Case,
    CharField,
    F,
    FloatField,
    IntegerField,
    OuterRef,
    QuerySet,
    Subquery,
    Sum,
    Value,
    When,
)
from django.db.models.functions import Coalesce, Round

from verifier.models import Claim, Verdict
from verifier.states import WITHDRAWN
from verifier.vocabulary import ANSWER_VERDICTS

if TYPE_CHECKING:
    from django_stubs_ext import WithAnnotations

# annotation name -> (verdict column, output field)
LATEST_VERDICT_COLUMNS: dict[str, tuple[str, Any]] = {
    "latest_judge_model": ("judge_model", CharField),
    "latest_confidence": ("confidence", FloatField),
}


class LatestVerdictColumns(TypedDict, total=False):
    """The columns above as a claim carries them (those ``with_latest_verdict`` added)."""

    latest_judge_model: str | None
    latest_confidence: float | None
    latest_answer_percent: float | None


def latest_verdict(field: str, output_field: Any) -> Subquery:
    """The claim's latest verdict's ``field``, as a subquery on ``OuterRef("pk")``."""
    rows = Verdict.objects.filter(claim_id=OuterRef("pk")).latest_first().values(field)
    return Subquery(rows[:1], output_field=output_field)


def with_latest_verdict(
    queryset: QuerySet[Claim], *names: str
) -> QuerySet[WithAnnotations[Claim, LatestVerdictColumns]]:
    """``queryset`` annotated with the named columns of :data:`LATEST_VERDICT_COLUMNS`
    it does not carry yet."""
    missing = {
        name: latest_verdict(LATEST_VERDICT_COLUMNS[name][0], LATEST_VERDICT_COLUMNS[name][1]())
        for name in names
        if name not in queryset.query.annotations
    }
    annotated = queryset.annotate(**missing) if missing else queryset
    return cast("QuerySet[WithAnnotations[Claim, LatestVerdictColumns]]", annotated)


def with_latest_answer_percent(
    queryset: QuerySet[Claim],
) -> QuerySet[WithAnnotations[Claim, LatestVerdictColumns]]:
    """``queryset`` annotated with ``latest_answer_percent``: the confidence, in whole
    percent rounded as the console shows it (``vocabulary.confidence_percent``), of the
    verdict the claim's state stands on now, as the queue's confidence column shows it
    (``review.selectors.queue.deciding_verdict``): the latest model verdict where it is
    an answer (supports or contradicts) and no reviewer's decision is in force. NULL for
    an abstention, a failure, a claim without a model verdict, and a claim a reviewer's
    decision decides, which have no confidence to show. A reviewer's undo appends a
    ``withdrawn`` verdict: it takes the decision back, so the judge's answer counts again
    (each withdrawal takes back one decision: a decision is in force while a claim has
    more decisions than withdrawals, as ``verifier.states.human_verdict_in_force``)."""
    if "latest_answer_percent" not in queryset.query.annotations:
        answer = Case(
            When(
                label__in=sorted(ANSWER_VERDICTS),
                then=Round(F("confidence") * Value(100.0)),
            ),
            default=None,
            output_field=FloatField(),
        )
        model_answer = (
            Verdict.objects.filter(claim_id=OuterRef("pk"), reviewer__isnull=True)
            .latest_first()
            .annotate(answer_percent=answer)
            .values("answer_percent")
        )
        decisions_in_force = (
            Verdict.objects.filter(claim_id=OuterRef("pk"), reviewer__isnull=False)
            .order_by()
            .values("claim_id")
            .annotate(
                net=Sum(
                    Case(
                        When(label=WITHDRAWN, then=Value(-1)),
                        default=Value(1),
                        output_field=IntegerField(),
                    )
                )
            )
            .values("net")
        )
        queryset = queryset.alias(
            human_decisions_in_force=Coalesce(
                Subquery(decisions_in_force, output_field=IntegerField()), Value(0)
            )
        ).annotate(
            latest_answer_percent=Case(
                When(human_decisions_in_force__gt=0, then=Value(None)),
                default=Subquery(model_answer[:1], output_field=FloatField()),
                output_field=FloatField(),
            )
        )
    return cast("QuerySet[WithAnnotations[Claim, LatestVerdictColumns]]", queryset)
