"""A new source version demotes every claim bound to the earlier one, at once, through the
one state writer (issue 39, point 1): set-based, append-only, in the version's transaction."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, InternalError, connection, transaction
from django.test.utils import CaptureQueriesContext

from tests.factories import DEFAULT_TEXT, make_binding, make_claim, make_source
from verifier.models import Claim, StateEvent, Verdict
from verifier.services.claim_state import claim_state_refresh
from verifier.services.sources import source_upsert

pytestmark = pytest.mark.django_db

QUOTE = "Sediment settles where the current slows."


def supported(source, text: str, *, label: str = "entailed", confidence: float = 0.9) -> Claim:
    claim = make_claim(source, text)
    binding = make_binding(claim, QUOTE)
    Verdict.objects.create(
        claim=claim,
        binding=binding,
        judge_model="heuristic-entailment-v1",
        judge_family="heuristic",
        prompt_version=1,
        label=label,
        confidence=confidence,
    )
    claim_state_refresh(claim=claim, cause="test verdict")
    claim.refresh_from_db()
    return claim


def _states(source) -> set[tuple[str, str]]:
    return set(Claim.objects.filter(source=source).values_list("state", "state_reason"))


def test_new_version_demotes_every_bound_claim_with_an_event(source):
    claims = [supported(source, f"Sediment settles, {i}.") for i in range(5)]
    contradicted = supported(source, "Sediment never settles.", label="contradicted")
    unbound = make_claim(source, "Nothing is bound to this one.")
    assert {c.state for c in claims} == {"supported"}

    write = source_upsert(
        workspace=source.workspace, ref=source.ref, text=DEFAULT_TEXT + " A new sentence."
    )

    assert write.created_version
    for claim in claims:
        claim.refresh_from_db()
        assert (claim.state, claim.state_reason) == ("unverified", "stale_source")
        event = StateEvent.objects.filter(claim=claim).order_by("-id").first()
        assert (event.from_state, event.to_state, event.reason) == (
            "supported",
            "unverified",
            "stale_source",
        )
        assert event.cause == "new version v2 of the cited source"
    # A contradiction stays one (a re-check never softens it); nothing bound: nothing to do.
    contradicted.refresh_from_db()
    assert contradicted.state == "contradicted"
    unbound.refresh_from_db()
    assert (unbound.state, unbound.state_reason) == ("unverified", "not_judged")
    assert not StateEvent.objects.filter(claim=unbound).exists()


def test_identical_text_and_other_sources_are_left_alone(workspace, source):
    claim = supported(source, "Sediment settles where the current slows.")
    other = make_source(workspace, ref="source:other")
    events = StateEvent.objects.count()
    source_upsert(workspace=workspace, ref=source.ref, text=DEFAULT_TEXT)  # no new version
    source_upsert(workspace=workspace, ref=other.ref, text=DEFAULT_TEXT + " Changed.")
    claim.refresh_from_db()
    assert claim.state == "supported" and StateEvent.objects.count() == events


def _upsert_queries(source, n: int) -> int:
    for i in range(n):
        supported(source, f"Sediment settles, claim {i}.")
    with CaptureQueriesContext(connection) as ctx:
        source_upsert(
            workspace=source.workspace, ref=source.ref, text=DEFAULT_TEXT + f" Version {n}."
        )
    assert _states(source) == {("unverified", "stale_source")}
    return len(ctx.captured_queries)


def test_demotion_is_set_based_the_same_statements_for_3_or_60_claims(workspace):
    few = _upsert_queries(make_source(workspace, ref="source:few"), 3)
    many = _upsert_queries(make_source(workspace, ref="source:many"), 60)
    assert few == many


def test_state_history_stays_append_only(source):
    claim = supported(source, "Sediment settles where the current slows.")
    source_upsert(workspace=source.workspace, ref=source.ref, text=DEFAULT_TEXT + " More.")
    event = StateEvent.objects.filter(claim=claim).order_by("-id").first()
    with pytest.raises((IntegrityError, InternalError)), transaction.atomic():
        StateEvent.objects.filter(pk=event.pk).update(cause="rewritten")


def test_a_failed_write_keeps_the_claims_as_they_were(source):
    claim = supported(source, "Sediment settles where the current slows.")
    with pytest.raises(RuntimeError), transaction.atomic():
        source_upsert(workspace=source.workspace, ref=source.ref, text=DEFAULT_TEXT + " More.")
        raise RuntimeError("the caller's transaction fails after the upsert")
    claim.refresh_from_db()
    assert claim.state == "supported" and source.versions.count() == 1
