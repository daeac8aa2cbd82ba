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
    OuterRef,
    QuerySet,
    Subquery,
    Value,
    When,
)
from django.db.models.functions import Round

from verifier.models import Claim, Verdict
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
    """``queryset`` annotated with ``latest_answer_percent``: the latest verdict's
    confidence in whole percent, rounded as the console shows it
    (``vocabulary.confidence_percent``), where that verdict is a model's answer
    (supports or contradicts); NULL for an abstention, a failure, a withdrawal, a
    reviewer's decision and a claim without a verdict, which have no confidence to show."""
    if "latest_answer_percent" not in queryset.query.annotations:
        answer = Case(
            When(
                label__in=sorted(ANSWER_VERDICTS),
                reviewer__isnull=True,
                then=Round(F("confidence") * Value(100.0)),
            ),
            default=None,
            output_field=FloatField(),
        )
        rows = (
            Verdict.objects.filter(claim_id=OuterRef("pk"))
            .latest_first()
            .annotate(answer_percent=answer)
            .values("answer_percent")
        )
        queryset = queryset.annotate(
            latest_answer_percent=Subquery(rows[:1], output_field=FloatField())
        )
    return cast("QuerySet[WithAnnotations[Claim, LatestVerdictColumns]]", queryset)
