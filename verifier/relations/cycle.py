"""One verification cycle over candidate relations: SR-MKG for every candidate, VoG
for the borderline ones up to ``vog_max_candidates`` VoG calls (a borderline relation
without evidence text is ``vog_no_evidence`` and makes no call), the SR-MKG score for
the borderline relations beyond the cap.

Levels (each decision records one): ``srmkg_accept``, ``srmkg_reject``,
``vog_grounded``, ``vog_partial``, ``vog_rejected``, ``vog_no_evidence``,
``vog_unavailable``, ``srmkg_cap``. Only ``srmkg_accept``, ``vog_grounded`` and
``srmkg_cap`` accept; a capped or rejected relation needs review.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from verifier.judges.base import Judge
from verifier.relations import srmkg, vog

LEVEL_ACCEPT: Final = "srmkg_accept"
LEVEL_REJECT: Final = "srmkg_reject"
LEVEL_CAP: Final = "srmkg_cap"
SOURCE_SRMKG: Final = "srmkg"
SOURCE_VOG: Final = "vog"
SOURCE_CAP: Final = "cap"


@dataclass(frozen=True)
class RelationCandidate:
    key: str
    from_ref: Any
    to_ref: Any
    relation_type: str
    confidence: float
    source_text: str = ""
    target_text: str = ""
    statement: str = ""  # the relation as a sentence for VoG; default "<from> <type> <to>"
    contradiction: bool = False  # grounded when the evidence contradicts the statement
    # the TO end is a claim: VoG asks whether source_text supports target_text
    target_is_claim: bool = False


@dataclass(frozen=True)
class RelationDecision:
    key: str
    components: srmkg.Components
    score: float
    srmkg_decision: srmkg.Decision
    level: str
    source: str
    accepted: bool
    vog_verdict: str | None = None
    vog_confidence: float | None = None
    vog_score: float | None = None
    note: str = ""
    calibrated: bool = False
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def label(self) -> str:
        return "accept" if self.accepted else "reject"

    @property
    def needs_review(self) -> bool:
        return not self.accepted or self.level == LEVEL_CAP

    @property
    def hallucination_blocked(self) -> bool:
        """VoG looked at the evidence and did not find the relation grounded."""
        return self.level in (vog.LEVEL_REJECTED, vog.LEVEL_PARTIAL)


def candidate_components(
    *,
    from_ref: Any,
    to_ref: Any,
    confidence: float,
    relation_type: str,
    neighbours: Mapping[Any, set[Any] | frozenset[Any]],
) -> srmkg.Components:
    """The SR-MKG components of a relation ``from_ref`` → ``to_ref`` in the graph of
    ``neighbours`` (each endpoint's neighbours, the other endpoint left out; missing →
    isolated): what the cycle scores, and what a reviewer's decision logs when the
    automatic one was not logged."""
    empty: frozenset[Any] = frozenset()
    return srmkg.components(
        base_confidence=confidence,
        relation_type=relation_type,
        neighbours_a=neighbours.get(from_ref, empty) - {to_ref},
        neighbours_b=neighbours.get(to_ref, empty) - {from_ref},
    )


def verify_relations(
    candidates: Sequence[RelationCandidate],
    neighbours: Mapping[Any, set[Any] | frozenset[Any]],
    settings: srmkg.VerificationSettings,
    judge: Judge | None,
    calibration: srmkg.Calibration | None = None,
) -> list[RelationDecision]:
    """Decisions for ``candidates`` in input order. ``neighbours`` maps an endpoint to
    its neighbour set in the graph the candidates would join (missing → isolated)."""
    scored: list[tuple[RelationCandidate, srmkg.Components, float, srmkg.Decision]] = []
    for c in candidates:
        parts = candidate_components(
            from_ref=c.from_ref,
            to_ref=c.to_ref,
            confidence=c.confidence,
            relation_type=c.relation_type,
            neighbours=neighbours,
        )
        value = srmkg.score(parts, settings, calibration)
        scored.append((c, parts, value, srmkg.decide(value, settings)))

    questions = [
        vog.VogQuestion(
            key=c.key,
            statement=c.statement
            or vog.relation_statement(str(c.from_ref), c.relation_type, str(c.to_ref)),
            source_text=c.source_text,
            target_text=c.target_text,
            contradiction=c.contradiction,
            target_is_claim=c.target_is_claim,
        )
        for c, _, _, d in scored
        if d == "vog"
    ]
    to_ask, _beyond = vog.vog_within_cap(questions, settings.vog_max_candidates)
    asked = {q.key for q in to_ask}
    outcomes = vog.vog_ask(judge, to_ask)
    calibrated = calibration is not None
    decisions: list[RelationDecision] = []
    for c, parts, value, decision in scored:

        def made(level: str, source: str, accepted: bool, **more: Any) -> RelationDecision:
            return RelationDecision(
                key=c.key,  # noqa: B023 - used immediately, inside this iteration
                components=parts,  # noqa: B023
                score=value,  # noqa: B023
                srmkg_decision=decision,  # noqa: B023
                level=level,
                source=source,
                accepted=accepted,
                calibrated=calibrated,
                **more,
            )

        if decision == "accept":
            decisions.append(made(LEVEL_ACCEPT, SOURCE_SRMKG, True))
        elif decision == "reject":
            decisions.append(made(LEVEL_REJECT, SOURCE_SRMKG, False))
        elif c.key not in asked:
            note = "VoG cap reached; accepted at its SR-MKG score"
            decisions.append(made(LEVEL_CAP, SOURCE_CAP, True, note=note))
        else:
            out = outcomes[c.key]
            decisions.append(
                made(
                    out.level,
                    SOURCE_VOG,
                    out.grounded,
                    vog_verdict=out.verdict,
                    vog_confidence=out.confidence,
                    vog_score=out.vog_score,
                    note=out.note,
                )
            )
    return decisions
