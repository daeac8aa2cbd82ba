"""The Quality page's "reviewers and the judge": how often the workspace's reviewers
agree with the judge, and with each other (Cohen's κ with its counts,
``verifier.scoring.agreement``), and the reviewer calibrators' curve.

* Human–judge: for each claim a reviewer decided (supported, contradicted or not stated by
  the source), their first decision against the judge's answer just before it (the latest
  model verdict before the decision that no calibrator gave): ``entailed`` counts as
  supported, ``contradicted`` as contradicted — whatever the confidence — and an
  abstention or a coverage gap as no answer (counted, not in κ). Overall, per judge model
  and per reason: the claim's state reason just before the decision (why it was in the
  queue).
* "Not stated by the source" (``not_stated``) is a reviewer's third answer: the span neither
  states the claim nor its opposite. No judge gives it, so against a judge's answer it is
  always a disagreement — with its ``supported`` (the reviewer found the claim not
  supported), and with its ``contradicted`` too (the reviewer found the span silent, not
  contrary). κ is taken over the three answers; each row says how many of its decisions
  were "not stated".
* Reviewer–reviewer: claims two reviewers decided, each one's latest decision, the first
  two reviewers to decide (the same three answers).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from django.db import connection

from verifier import vocabulary
from verifier.models import Verdict, Workspace
from verifier.scoring.agreement import Agreement, cohen_kappa
from verifier.selectors.calibrators import CurvePoint, calibrator_curve
from verifier.states import (
    HUMAN_DECISION_LABELS,
    NOT_STATED,
    WITHDRAWN,
    human_verdict_in_force,
    reason_description,
)

# The judge's answers, and a reviewer's (``not_stated`` is a reviewer's alone).
ANSWER = {"entailed": "supported", "contradicted": "contradicted"}
HUMAN_ANSWER = {**ANSWER, NOT_STATED: "not stated"}
# The decision labels as an SQL list: ('entailed', 'contradicted', 'not_stated').
_DECISION_LABELS_SQL = "(" + ", ".join(f"'{label}'" for label in HUMAN_DECISION_LABELS) + ")"

# A reviewer's decision ``v`` that an undo took back (``_withdrawn_decision_ids``, the
# state writer's rule), passed in as an array.
_NOT_WITHDRAWN = """NOT (v."id" = ANY(%s::bigint[]))"""

# Per claim: its first human decision still in force, the judge's answer before it, the
# reason before it. A decision made on a span the reviewer selected bound that span
# first, and the binding re-resolved the claim (``claim_bind_span``): the reason before
# such a decision is the one before the selected span was bound (``selected_at``), not the
# one the reviewer's own selection left for a moment.
_HUMAN_JUDGE_SQL = f"""
WITH human AS (
    SELECT DISTINCT ON (v."claim_id") v."claim_id", v."id", v."label", v."at",
           CASE WHEN v."bound_selection" THEN b."created_at" END AS "selected_at"
    FROM "verifier_verdict" v JOIN "verifier_claim" c ON c."id" = v."claim_id"
    LEFT JOIN "verifier_evidencebinding" b ON b."id" = v."binding_id"
    WHERE c."workspace_id" = %s AND v."reviewer_id" IS NOT NULL
      AND v."label" IN {_DECISION_LABELS_SQL} AND {_NOT_WITHDRAWN}
    ORDER BY v."claim_id", v."at", v."id"
)
SELECT h."label", m."judge_model", m."label", e."reason"
FROM human h
LEFT JOIN LATERAL (
    SELECT mv."judge_model", mv."label" FROM "verifier_verdict" mv
    WHERE mv."claim_id" = h."claim_id" AND mv."reviewer_id" IS NULL
      AND mv."calibrator_id" IS NULL AND (mv."at", mv."id") < (h."at", h."id")
    ORDER BY mv."at" DESC, mv."id" DESC LIMIT 1
) m ON TRUE
LEFT JOIN LATERAL (
    SELECT se."reason" FROM "verifier_stateevent" se
    WHERE se."claim_id" = h."claim_id" AND se."at" <= h."at"
      AND (h."selected_at" IS NULL OR se."at" < h."selected_at")
    ORDER BY se."at" DESC, se."id" DESC LIMIT 1
) e ON TRUE
"""

# Per claim two reviewers decided: the latest decision in force of each of the first two.
_REVIEWER_PAIRS_SQL = f"""
WITH latest AS (
    SELECT DISTINCT ON (v."claim_id", v."reviewer_id") v."claim_id", v."reviewer_id",
           v."label", min(v."at") OVER (PARTITION BY v."claim_id", v."reviewer_id") AS first_at
    FROM "verifier_verdict" v JOIN "verifier_claim" c ON c."id" = v."claim_id"
    WHERE c."workspace_id" = %s AND v."reviewer_id" IS NOT NULL
      AND v."label" IN {_DECISION_LABELS_SQL} AND {_NOT_WITHDRAWN}
    ORDER BY v."claim_id", v."reviewer_id", v."at" DESC, v."id" DESC
), ranked AS (
    SELECT "claim_id", "label",
           row_number() OVER (PARTITION BY "claim_id" ORDER BY first_at, "reviewer_id") AS n
    FROM latest
)
SELECT a."label", b."label" FROM ranked a JOIN ranked b
    ON b."claim_id" = a."claim_id" AND a.n = 1 AND b.n = 2
"""


@dataclass(frozen=True)
class AgreementRow:
    """One row of the human–judge table."""

    label: str
    hint: str  # the label in words ('' when it says it all)
    agreement: Agreement  # over the decisions the judge had answered
    decisions: int  # human decisions in the row
    judge_no_answer: int  # of them, where the judge had abstained or had no answer
    not_stated: int  # of them, "not stated by the source" (a disagreement where answered)


@dataclass(frozen=True)
class ReviewerAgreement:
    overall: AgreementRow
    by_judge_model: list[AgreementRow]
    by_reason: list[AgreementRow]
    between_reviewers: Agreement
    curves: dict[str, list[CurvePoint]]


def _row(label: str, pairs: Iterable[tuple[str, str | None]], hint: str = "") -> AgreementRow:
    pairs = list(pairs)
    answered = [(human, judge) for human, judge in pairs if judge is not None]
    return AgreementRow(
        label=label,
        hint=hint,
        agreement=cohen_kappa(answered),
        decisions=len(pairs),
        judge_no_answer=len(pairs) - len(answered),
        not_stated=sum(human == HUMAN_ANSWER[NOT_STATED] for human, _ in pairs),
    )


def _withdrawn_decision_ids(workspace: Workspace) -> list[int]:
    """The workspace's human decisions that an undo took back, by the state writer's rule
    (:func:`verifier.states.human_verdict_in_force`): each withdrawal takes back the
    latest decision before it that no earlier withdrawal took back — so two undos in a
    row take back a reviewer's last two decisions. Read for the claims with an undo only
    (one query)."""
    undone = Verdict.objects.filter(
        claim__workspace=workspace, reviewer__isnull=False, label=WITHDRAWN
    ).values("claim_id")
    by_claim: dict[int, list[Verdict]] = defaultdict(list)
    for verdict in (
        Verdict.objects.filter(claim_id__in=undone, reviewer__isnull=False)
        .only("pk", "claim_id", "label", "at")
        .latest_first_by_claim()
    ):
        by_claim[verdict.claim_id].append(verdict)
    taken_back: list[int] = []
    for human in by_claim.values():  # newest first
        for at, verdict in enumerate(human):
            if verdict.label == WITHDRAWN:
                taken = human_verdict_in_force(human[at + 1 :])
                if taken is not None:
                    taken_back.append(taken.pk)
    return taken_back


def reviewer_agreement(*, workspace: Workspace) -> ReviewerAgreement:
    """The Quality page's agreement section for ``workspace`` (four queries)."""
    withdrawn = _withdrawn_decision_ids(workspace)
    with connection.cursor() as cursor:
        cursor.execute(_HUMAN_JUDGE_SQL, [workspace.pk, withdrawn])
        decided = cursor.fetchall()
        cursor.execute(_REVIEWER_PAIRS_SQL, [workspace.pk, withdrawn])
        reviewer_pairs = cursor.fetchall()
    rows = [
        (HUMAN_ANSWER[human], ANSWER.get(judge or ""), model or "no judge verdict", reason or "")
        for human, model, judge, reason in decided
    ]
    by_model: dict[str, list[tuple[str, str | None]]] = {}
    by_reason: dict[str, list[tuple[str, str | None]]] = {}
    for human, judge, model, reason in rows:
        by_model.setdefault(model, []).append((human, judge))
        by_reason.setdefault(reason, []).append((human, judge))
    return ReviewerAgreement(
        overall=_row("all decisions", ((h, j) for h, j, _, _ in rows)),
        by_judge_model=[_row(model, pairs) for model, pairs in sorted(by_model.items())],
        by_reason=[
            _row(
                vocabulary.label("reason", reason) if reason else "unknown",
                pairs,
                reason_description(reason),
            )
            for reason, pairs in sorted(by_reason.items())
        ],
        between_reviewers=cohen_kappa(
            (HUMAN_ANSWER[a], HUMAN_ANSWER[b]) for a, b in reviewer_pairs
        ),
        curves=calibrator_curve(workspace=workspace),
    )
