import pytest
from django.db import IntegrityError, InternalError, connection, transaction

from tests.factories import make_claim
from verifier.models import StateEvent, Verdict

REJECTED = (IntegrityError, InternalError)


@pytest.fixture
def verdict(source):
    claim = make_claim(source)
    return Verdict.objects.create(
        claim=claim,
        judge_model="m",
        judge_family="f",
        prompt_version=1,
        label="entailed",
        confidence=0.9,
    )


@pytest.fixture
def state_event(source):
    claim = make_claim(source)
    return StateEvent.objects.create(
        claim=claim, from_state="unverified", to_state="supported", cause="test"
    )


def test_verdict_update_is_rejected(verdict):
    with pytest.raises(REJECTED, match="append-only"), transaction.atomic():
        Verdict.objects.filter(pk=verdict.pk).update(label="contradicted")
    verdict.refresh_from_db()
    assert verdict.label == "entailed"


def test_verdict_delete_is_rejected(verdict):
    with pytest.raises(REJECTED, match="append-only"), transaction.atomic():
        verdict.delete()
    assert Verdict.objects.filter(pk=verdict.pk).exists()


def test_verdict_raw_sql_update_is_rejected(verdict):
    with pytest.raises(REJECTED), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("UPDATE verifier_verdict SET confidence = 0.1 WHERE id = %s", [verdict.pk])


def test_state_event_update_and_delete_are_rejected(state_event):
    with pytest.raises(REJECTED), transaction.atomic():
        StateEvent.objects.filter(pk=state_event.pk).update(to_state="excluded")
    with pytest.raises(REJECTED), transaction.atomic():
        StateEvent.objects.filter(pk=state_event.pk).delete()
    state_event.refresh_from_db()
    assert state_event.to_state == "supported"


def test_appending_more_history_is_allowed(verdict):
    Verdict.objects.create(
        claim=verdict.claim, judge_model="m", judge_family="f", label="abstained", confidence=0.2
    )
    assert verdict.claim.verdicts.count() == 2
