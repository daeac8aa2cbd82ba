"""The verdict a claim's state rests on, in SQL: what the queue's filters and rows read.

The rule is the state writer's (``verifier.selectors.claim_state.claim_state_inputs``):
the reviewer's decision in force (``verifier.states.human_verdict_in_force``: each
``withdrawn`` verdict, an undo, takes back the latest decision before it that no earlier
withdrawal took back) where it still judges the active evidence
(``verifier.states.verdict_judges_active``, ``verdict_applies``), else the latest model
verdict where it still judges it, else none. :data:`VERDICT_IN_FORCE_SQL` spells it once;
the queue's filters annotate it (:class:`VerdictInForce`) and the queue's rows join on it
(``review.selectors.queue``), so the Judge column, the judge-model filter and the
confidence filter read the same verdict. ``tests/review/test_verdict_in_force.py`` holds
it equal to the Python rule.

The columns are annotated only where a query needs them: the queue's keyset and count
queries do without them unless a filter reads one (judge model, confidence).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypedDict, cast

from django.db.models import (
    Case,
    F,
    FloatField,
    Func,
    IntegerField,
    OuterRef,
    QuerySet,
    Subquery,
    Value,
    When,
)
from django.db.models.functions import Round

from verifier.models import Claim, EvidenceBinding, Verdict
from verifier.states import NO_BOUND_EVIDENCE_NOTE, WITHDRAWN
from verifier.vocabulary import ANSWER_VERDICTS

if TYPE_CHECKING:
    from django_stubs_ext import WithAnnotations

_VERDICT = Verdict._meta.db_table
_BINDING = EvidenceBinding._meta.db_table
assert WITHDRAWN.isidentifier()  # spelled into the SQL below as a literal

# Whether the verdict ``{v}`` (its ``binding_id``) still judges the active binding ``ab``
# (``verdict_judges_active``): recorded with no binding, against the active one, or
# about the same quote; never when nothing is bound any more.
_APPLIES = (
    '({v}."binding_id" IS NULL OR (ab."id" IS NOT NULL AND ({v}."binding_id" = ab."id" OR '
    f'(SELECT jb."quote" FROM "{_BINDING}" jb WHERE jb."id" = {{v}}."binding_id") = ab."quote")))'
)

# The id of the verdict the state of claim ``%(claim)s`` rests on (NULL: none). The
# standing decision, read newest first: a decision stands when the withdrawals after it
# are no more than the decisions after it (each later withdrawal takes back a later
# decision first; this is ``human_verdict_in_force``'s stack read from the other end).
VERDICT_IN_FORCE_SQL = (
    "(SELECT COALESCE("
    f'CASE WHEN vif_h."id" IS NOT NULL AND {_APPLIES.format(v="vif_h")} THEN vif_h."id" END, '
    f'CASE WHEN vif_m."id" IS NOT NULL AND {_APPLIES.format(v="vif_m")} THEN vif_m."id" END) '
    'FROM (SELECT %(claim)s AS "claim_id") vif_c '
    "LEFT JOIN LATERAL ("
    f'SELECT b."id", b."quote" FROM "{_BINDING}" b '
    'WHERE b."claim_id" = vif_c."claim_id" AND b."is_active" LIMIT 1'
    ") ab ON TRUE "
    "LEFT JOIN LATERAL ("
    f'SELECT d."id", d."binding_id" FROM "{_VERDICT}" d '
    'WHERE d."claim_id" = vif_c."claim_id" AND d."reviewer_id" IS NOT NULL '
    f"AND d.\"label\" <> '{WITHDRAWN}' AND ("
    f"SELECT COUNT(*) FILTER (WHERE n.\"label\" = '{WITHDRAWN}') "
    f"- COUNT(*) FILTER (WHERE n.\"label\" <> '{WITHDRAWN}') "
    f'FROM "{_VERDICT}" n WHERE n."claim_id" = d."claim_id" '
    'AND n."reviewer_id" IS NOT NULL AND (n."at", n."id") > (d."at", d."id")'
    ') <= 0 ORDER BY d."at" DESC, d."id" DESC LIMIT 1'
    ") vif_h ON TRUE "
    "LEFT JOIN LATERAL ("
    f'SELECT m."id", m."binding_id" FROM "{_VERDICT}" m '
    'WHERE m."claim_id" = vif_c."claim_id" AND m."reviewer_id" IS NULL '
    'ORDER BY m."at" DESC, m."id" DESC LIMIT 1'
    ") vif_m ON TRUE)"
)
assert "%" not in VERDICT_IN_FORCE_SQL.replace("%(claim)s", "")


def verdict_in_force_sql(claim: str) -> str:
    """:data:`VERDICT_IN_FORCE_SQL` for the claim id column ``claim`` (raw SQL text,
    e.g. ``'c."id"'``)."""
    return VERDICT_IN_FORCE_SQL % {"claim": claim}


class VerdictInForce(Func):
    """The id of the verdict the claim's state rests on (:data:`VERDICT_IN_FORCE_SQL`),
    of the claim id expression it is given (``VerdictInForce(F("pk"))``)."""

    template = verdict_in_force_sql("%(expressions)s")
    output_field = IntegerField()


class VerdictInForceColumns(TypedDict, total=False):
    """The columns a claim carries once annotated here."""

    judge_model_in_force: str | None
    answer_percent_in_force: float | None


def _with_in_force_id(queryset: QuerySet[Claim]) -> QuerySet[Claim]:
    if "verdict_in_force_id" in queryset.query.annotations:
        return queryset
    return queryset.alias(verdict_in_force_id=VerdictInForce(F("pk")))


def _in_force(column: str) -> QuerySet[Verdict, dict[str, Any]]:
    return Verdict.objects.filter(pk=OuterRef("verdict_in_force_id")).values(column)


def with_judge_model_in_force(
    queryset: QuerySet[Claim],
) -> QuerySet[WithAnnotations[Claim, VerdictInForceColumns]]:
    """``queryset`` annotated with ``judge_model_in_force``: the judge model of the
    verdict the claim's state rests on (``human:<username>`` for a reviewer's decision,
    the calibrated judge for a reviewer calibrator's answer); NULL without one, and for
    the abstention recorded for a claim with no bound span (``judge_not_asked``: no
    model was asked, and the Judge column names none). After an undo it is the judge's
    again, as the queue's Judge column says."""
    if "judge_model_in_force" not in queryset.query.annotations:
        asked = _in_force("judge_model").exclude(
            reviewer__isnull=True, label="abstained", note=NO_BOUND_EVIDENCE_NOTE
        )
        queryset = _with_in_force_id(queryset).annotate(judge_model_in_force=Subquery(asked[:1]))
    return cast("QuerySet[WithAnnotations[Claim, VerdictInForceColumns]]", queryset)


def with_answer_percent_in_force(
    queryset: QuerySet[Claim],
) -> QuerySet[WithAnnotations[Claim, VerdictInForceColumns]]:
    """``queryset`` annotated with ``answer_percent_in_force``: the confidence, in whole
    percent rounded as the console shows it (``vocabulary.confidence_percent``), of the
    verdict the claim's state rests on, as the queue's confidence column shows it, where
    that is a model's answer (supports or contradicts). NULL for an abstention, a
    failure, a claim without a verdict in force, and a claim a reviewer's decision
    decides, which have no confidence to show. A reviewer's undo appends a ``withdrawn``
    verdict: it takes the decision back, so the judge's answer counts again; a verdict
    about other words than those bound now counts for nothing."""
    if "answer_percent_in_force" not in queryset.query.annotations:
        answer = Case(
            When(
                label__in=sorted(ANSWER_VERDICTS),
                then=Round(F("confidence") * Value(100.0)),
            ),
            default=None,
            output_field=FloatField(),
        )
        model_answer = (
            Verdict.objects.filter(pk=OuterRef("verdict_in_force_id"), reviewer__isnull=True)
            .annotate(answer_percent=answer)
            .values("answer_percent")
        )
        queryset = _with_in_force_id(queryset).annotate(
            answer_percent_in_force=Subquery(model_answer[:1], output_field=FloatField())
        )
    return cast("QuerySet[WithAnnotations[Claim, VerdictInForceColumns]]", queryset)
