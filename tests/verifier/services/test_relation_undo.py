"""Undoing a reviewer's relation decision (``relation_review_undo``): the relation is back
where it was before the decision, the log only grows (a ``withdrawn`` row), a second
undo and an undo after someone decided again are refused, and statistics and
calibration skip the withdrawn decision and its withdrawal."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.management import call_command

from tests.factories import make_claim, make_source, make_user
from verifier.models import ClaimRelation, RelationDecision
from verifier.relations.calibration import CalibrationRefused
from verifier.selectors.relation_verification import (
    relation_decision_list,
    relation_stats_get,
    relations_for_review,
)
from verifier.services.relation_verify import (
    RelationReviewError,
    relation_review_decide,
    relation_review_undo,
    relations_verify,
    srmkg_calibrate,
)

pytestmark = pytest.mark.django_db


def _rejected(workspace, first: str, second: str) -> ClaimRelation:
    """A relation between two new claims that the graph check rejected (isolated
    claims), waiting for review."""
    src = make_source(workspace)
    r = ClaimRelation.objects.create(
        workspace=workspace,
        from_claim=make_claim(src, text=first),
        to_claim=make_claim(src, text=second),
        kind="supports",
        confidence=0.6,
    )
    relations_verify(workspace=workspace, relations=[r], judge=None)
    r.refresh_from_db()
    assert (r.verification, r.verification_level, r.needs_review) == (
        "rejected",
        "srmkg_reject",
        True,
    )
    return r


@pytest.fixture
def waiting(workspace):
    """A relation the graph check rejected (isolated claims), waiting for review."""
    return _rejected(
        workspace,
        "Sediment settles where the current slows.",
        "Salt marsh grasses trap silt at high tide.",
    )


@pytest.fixture
def omar(workspace):
    return make_user("omar", workspace=workspace, role="reviewer")


def _state(relation):
    relation.refresh_from_db()
    return (
        relation.verification,
        relation.verification_level,
        relation.verification_score,
        relation.needs_review,
        relation.reviewed_by_id,
        relation.reviewed_at,
    )


def _labels(relation):
    return list(relation.decisions.order_by("pk").values_list("source", "label"))


def test_undo_puts_the_relation_back_and_appends_a_withdrawal(workspace, waiting, reviewer):
    before = _state(waiting)
    relation_review_decide(relation=waiting, reviewer=reviewer, accept=True)
    decision = waiting.decisions.order_by("-pk").first()
    assert _state(waiting)[:2] == ("accepted", "reviewer")
    assert waiting not in relations_for_review(workspace=workspace)

    row = relation_review_undo(relation=waiting, reviewer=reviewer, decision_id=decision.pk)

    assert _state(waiting) == before
    assert (row.verification, row.needs_review, row.reviewed_by_id) == ("rejected", True, None)
    assert waiting in relations_for_review(workspace=workspace)
    # append-only: the decision stays, a withdrawal follows it
    assert _labels(waiting) == [
        ("srmkg", "reject"),
        ("reviewer", "accept"),
        ("reviewer", "withdrawn"),
    ]
    withdrawal = waiting.decisions.order_by("-pk").first()
    assert withdrawal.reviewer == reviewer and withdrawal.needs_review
    assert withdrawal.note == f"undo: withdraws decision {decision.pk} (accept)"
    # the decision it withdraws and the withdrawal are no longer listed; the first stands
    assert list(relation_decision_list(workspace=workspace).values_list("label", flat=True)) == [
        "reject"
    ]
    assert relation_decision_list(workspace=workspace, include_withdrawn=True).count() == 3


def test_a_second_undo_is_refused_and_writes_nothing(waiting, reviewer):
    relation_review_decide(relation=waiting, reviewer=reviewer, accept=False)
    relation_review_undo(relation=waiting, reviewer=reviewer)
    state, log = _state(waiting), _labels(waiting)
    with pytest.raises(RelationReviewError) as refused:
        relation_review_undo(relation=waiting, reviewer=reviewer)
    assert refused.value.code == "nothing_to_undo"
    assert "has no reviewer's decision to undo: it is waiting for review" in str(refused.value)
    assert (_state(waiting), _labels(waiting)) == (state, log)


def test_nothing_to_undo_on_a_relation_no_reviewer_decided(waiting, reviewer):
    with pytest.raises(RelationReviewError) as refused:
        relation_review_undo(relation=waiting, reviewer=reviewer)
    assert refused.value.code == "nothing_to_undo"
    assert _labels(waiting) == [("srmkg", "reject")]


def test_undo_after_someone_else_decided_again_is_refused(waiting, reviewer, omar):
    relation_review_decide(relation=waiting, reviewer=reviewer, accept=True)
    shown = waiting.decisions.order_by("-pk").first().pk  # what rita's page showed
    relation_review_undo(relation=waiting, reviewer=reviewer)
    relation_review_decide(relation=waiting, reviewer=omar, accept=False)  # omar, meanwhile
    state, log = _state(waiting), _labels(waiting)

    with pytest.raises(RelationReviewError) as refused:  # rita's stale button
        relation_review_undo(relation=waiting, reviewer=reviewer, decision_id=shown)
    assert refused.value.code == "decided_meanwhile"
    assert "was decided again meanwhile (rejected by omar at " in str(refused.value)
    with pytest.raises(RelationReviewError) as refused:  # rita, without the page's id
        relation_review_undo(relation=waiting, reviewer=reviewer)
    assert refused.value.code == "decided_meanwhile"
    assert (_state(waiting), _labels(waiting)) == (state, log)
    assert waiting.reviewed_by == omar


def test_only_the_reviewer_who_decided_may_undo_not_an_admin(
    workspace, waiting, reviewer, admin_user
):
    relation_review_decide(relation=waiting, reviewer=reviewer, accept=True)
    state = _state(waiting)
    with pytest.raises(RelationReviewError) as refused:
        relation_review_undo(relation=waiting, reviewer=admin_user)
    assert refused.value.code == "not_yours"
    assert "only the reviewer who decided can undo it" in str(refused.value)
    assert _state(waiting) == state


def test_undo_is_refused_after_the_window(waiting, reviewer, settings):
    settings.SPANPROOF_REVIEW_UNDO_SECONDS = 300
    relation_review_decide(relation=waiting, reviewer=reviewer, accept=True)
    decision = waiting.decisions.order_by("-pk").first()
    RelationDecision.objects.filter(pk=decision.pk).update(
        created_at=decision.created_at - timedelta(seconds=301)
    )
    with pytest.raises(RelationReviewError) as refused:
        relation_review_undo(relation=waiting, reviewer=reviewer)
    assert refused.value.code == "undo_expired"
    assert _state(waiting)[:2] == ("accepted", "reviewer")


def test_an_undo_after_a_redecision_goes_back_to_the_automatic_decision(waiting, omar, reviewer):
    """rita accepts, undoes; omar rejects, undoes: the graph check's reject is in force
    again (the last decision that is not a reviewer's), not rita's accept."""
    before = _state(waiting)
    relation_review_decide(relation=waiting, reviewer=reviewer, accept=True)
    relation_review_undo(relation=waiting, reviewer=reviewer)
    relation_review_decide(relation=waiting, reviewer=omar, accept=False)
    relation_review_undo(relation=waiting, reviewer=omar)
    assert _state(waiting) == before
    assert relation_decision_list(workspace=waiting.workspace).count() == 1


def test_undo_restores_an_acceptance_past_the_cap(workspace, reviewer):
    """A relation accepted unchecked (``srmkg_cap``): the undo puts it back to accepted at
    that level, still waiting for review."""
    src = make_source(workspace)
    r = ClaimRelation.objects.create(
        workspace=workspace,
        from_claim=make_claim(src, text="First claim."),
        to_claim=make_claim(src, text="Second claim."),
        kind="supports",
        confidence=0.6,
        verification="accepted",
        verification_level="srmkg_cap",
        verification_score=0.55,
        needs_review=True,
    )
    _log(workspace, r, label="accept", level="srmkg_cap", source="cap")
    relation_review_decide(relation=r, reviewer=reviewer, accept=False)
    assert _state(r)[:2] == ("rejected", "reviewer")
    relation_review_undo(relation=r, reviewer=reviewer)
    assert _state(r) == ("accepted", "srmkg_cap", 0.55, True, None, None)


def _log(workspace, relation, *, label, level="vog_grounded", source="vog", jaccard=0.5):
    return RelationDecision.objects.create(
        workspace=workspace,
        relation=relation,
        relation_type="supports",
        base=0.6,
        jaccard=jaccard,
        type_boost=1.0,
        isolated=0.0,
        score=0.5,
        level=level,
        source=source,
        label=label,
        needs_review=relation is not None,
    )


def _capped(workspace, src, i):
    r = ClaimRelation.objects.create(
        workspace=workspace,
        from_claim=make_claim(src, text=f"Capped from {i}."),
        to_claim=make_claim(src, text=f"Capped to {i}."),
        kind="supports",
        confidence=0.6,
        verification="accepted",
        verification_level="srmkg_cap",
        needs_review=True,
    )
    _log(workspace, r, label="accept", level="srmkg_cap", source="cap", jaccard=0.01 * i)
    return r


def test_calibration_ignores_a_withdrawn_reject_and_its_withdrawal(workspace, reviewer):
    """Every standing decision accepts; a reviewer's reject, undone, must not give
    calibration a second class (counted, it and its "withdrawn" row would be two
    rejects). Once another reviewer's reject stands, calibration has both classes."""
    src = make_source(workspace)
    for i in range(60):
        _log(workspace, None, label="accept", jaccard=0.01 * i)
    r = _capped(workspace, src, 1)
    relation_review_decide(relation=r, reviewer=reviewer, accept=False)
    relation_review_undo(relation=r, reviewer=reviewer)

    with pytest.raises(CalibrationRefused, match="only one class"):
        srmkg_calibrate(workspace=workspace, dry_run=True)

    other = _capped(workspace, src, 2)
    relation_review_decide(relation=other, reviewer=reviewer, accept=False)
    out = srmkg_calibrate(workspace=workspace, dry_run=True)
    # 60 + two cap accepts + one standing reject; the withdrawn pair left out
    assert out["n_train"] + out["n_test"] == 63


def test_stats_skip_a_withdrawn_decision_and_its_withdrawal(workspace, waiting, reviewer, omar):
    relation_review_decide(relation=waiting, reviewer=reviewer, accept=True)
    relation_review_undo(relation=waiting, reviewer=reviewer)
    stats = relation_stats_get(workspace=workspace)
    assert (stats["decisions"], stats["accepted"]) == (1, 0)
    assert stats["by_level"] == {"srmkg_reject": 1}
    relation_review_decide(relation=waiting, reviewer=omar, accept=True)
    stats = relation_stats_get(workspace=workspace, days=1)
    assert (stats["decisions"], stats["accepted"]) == (2, 1)
    assert stats["by_level"] == {"srmkg_reject": 1, "reviewer": 1}


def test_the_stats_command_lists_only_standing_decisions(workspace, waiting, reviewer, capsys):
    relation_review_decide(relation=waiting, reviewer=reviewer, accept=True)
    relation_review_undo(relation=waiting, reviewer=reviewer)
    call_command("relation_stats", "--workspace", workspace.slug, "--raw")
    out = capsys.readouterr().out
    assert '"withdrawn"' not in out and '"decisions": 1' in out


def test_a_withdrawn_decision_stays_out_once_its_relation_is_deleted(workspace, waiting, reviewer):
    """Deleting a relation empties ``relation`` on its log rows; the withdrawal still names
    the decision it took back, so that accept never counts again (it did when the pair
    was matched by the relation's log order)."""
    relation_review_decide(relation=waiting, reviewer=reviewer, accept=True)
    decision = waiting.decisions.order_by("-pk").first()
    relation_review_undo(relation=waiting, reviewer=reviewer)
    waiting.delete()

    assert RelationDecision.objects.filter(workspace=workspace, relation=None).count() == 3
    stats = relation_stats_get(workspace=workspace)
    assert (stats["decisions"], stats["accepted"]) == (1, 0)
    assert stats["by_level"] == {"srmkg_reject": 1}
    assert decision.pk not in set(
        relation_decision_list(workspace=workspace).values_list("pk", flat=True)
    )


def test_calibration_ignores_a_withdrawn_decision_of_a_deleted_relation(workspace, reviewer):
    src = make_source(workspace)
    for i in range(60):
        _log(workspace, None, label="accept", jaccard=0.01 * i)
    r = _capped(workspace, src, 1)
    relation_review_decide(relation=r, reviewer=reviewer, accept=False)
    relation_review_undo(relation=r, reviewer=reviewer)
    r.delete()

    with pytest.raises(CalibrationRefused, match="only one class"):
        srmkg_calibrate(workspace=workspace, dry_run=True)


@pytest.fixture
def unlogged(workspace, settings):
    """A relation the graph check rejected with decision logging turned off: no log row."""
    settings.SPANPROOF_RELATION_VERIFICATION = {"srmkg_log_decisions": False}
    r = _rejected(
        workspace, "Tides carry fine silt upstream.", "Fine silt settles in the upper estuary."
    )
    assert not r.decisions.exists()
    return r


def test_undo_works_with_decision_logging_turned_off(workspace, unlogged, reviewer):
    before = _state(unlogged)
    relation_review_decide(relation=unlogged, reviewer=reviewer, accept=True)
    decision = unlogged.decisions.get()
    # the reviewer's decision is logged with the relation's components as the cycle
    # computes them (isolated claims), and what it replaced
    assert (decision.source, decision.label, decision.base, decision.isolated) == (
        "reviewer",
        "accept",
        0.6,
        1.0,
    )
    assert decision.score == before[2]
    assert (decision.replaced_verification, decision.replaced_level) == (
        "rejected",
        "srmkg_reject",
    )

    relation_review_undo(relation=unlogged, reviewer=reviewer, decision_id=decision.pk)

    assert _state(unlogged) == before
    assert _labels(unlogged) == [("reviewer", "accept"), ("reviewer", "withdrawn")]
    assert unlogged.decisions.order_by("-pk").first().withdraws == decision
    assert relation_stats_get(workspace=workspace)["decisions"] == 0


def test_undo_puts_back_what_the_decision_replaced_not_an_older_logged_decision(
    workspace, waiting, reviewer
):
    """The log's last automatic row is not always the state the reviewer replaced (a
    later cycle with logging off): the undo restores the state the decision replaced."""
    ClaimRelation.objects.filter(pk=waiting.pk).update(
        verification="accepted", verification_level="srmkg_cap"
    )
    relation_review_decide(relation=waiting, reviewer=reviewer, accept=False)
    relation_review_undo(relation=waiting, reviewer=reviewer)
    assert _state(waiting)[:4] == ("accepted", "srmkg_cap", waiting.verification_score, True)


def test_the_migration_links_existing_withdrawals(workspace, waiting, reviewer):
    """0039's data step: a withdrawal logged before the link existed gets it (from its
    note, else the row before it in the relation's log)."""
    import importlib

    from django.apps import apps

    migration = importlib.import_module("verifier.migrations.0039_relation_decision_withdraws")
    relation_review_decide(relation=waiting, reviewer=reviewer, accept=True)
    decision = waiting.decisions.order_by("-pk").first()
    relation_review_undo(relation=waiting, reviewer=reviewer)
    withdrawal = waiting.decisions.order_by("-pk").first()
    RelationDecision.objects.filter(pk=withdrawal.pk).update(withdraws=None)
    waiting.delete()  # the log order cannot pair them any more: the note does

    migration.link_withdrawals(apps, None)

    withdrawal.refresh_from_db()
    assert withdrawal.withdraws_id == decision.pk
    assert relation_stats_get(workspace=workspace)["accepted"] == 0
