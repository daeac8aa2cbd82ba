"""The queue's risk order lives in one place and no schema holds it (issue 43.1): the
state writer stores each reason's rank beside it, so a reason moved in the order (here
through ``settings.SPANPROOF_QUEUE_REASON_RISK_ORDER``) is ranked, chipped and filtered
where it now stands, without a migration; ``migrate`` re-ranks the claims stored before
the change."""

from __future__ import annotations

import re

from django.core.management import call_command

from tests.factories import make_binding, make_claim
from tests.review.conftest import QUOTE
from verifier.models import Claim
from verifier.services.claim_state import claim_state_refresh, claims_queue_rank_sync
from verifier.state_policy import queue_rank
from verifier.states import QUEUE_REASON_RISK_ORDER

BUILT_IN = [r.value for r in QUEUE_REASON_RISK_ORDER]
# ``not_judged`` (a fresh span, no verdict yet) is last in the built-in order; a
# deployment moves it up to second.
WITH_NOT_JUDGED = [BUILT_IN[0], "not_judged", *(r for r in BUILT_IN[1:] if r != "not_judged")]


def _not_judged(source, text: str) -> Claim:
    claim = make_claim(source, text)
    make_binding(claim, QUOTE)
    claim_state_refresh(claim=claim, cause="test setup")
    claim.refresh_from_db()
    assert (claim.state, claim.state_reason) == ("unverified", "not_judged")
    return claim


def _stored_ranks_agree() -> bool:
    return all(
        rank == queue_rank(reason)
        for reason, rank in Claim.objects.values_list("state_reason", "queue_rank")
    )


def test_a_reason_moved_in_settings_is_ranked_chipped_and_filtered(
    settings, reviewer_client, source, make_queue_claim
):
    abstained = make_queue_claim("abstained", text="An abstained claim.")
    contradicted = make_queue_claim("contradicted", text="A contradicted claim.")
    waiting = [_not_judged(source, f"Claim {i} waits for the judge.") for i in range(2)]
    assert Claim.objects.get(pk=waiting[0].pk).queue_rank == BUILT_IN.index("not_judged")
    assert Claim.objects.get(pk=abstained.pk).queue_rank == BUILT_IN.index("abstained")

    settings.SPANPROOF_QUEUE_REASON_RISK_ORDER = WITH_NOT_JUDGED
    # What ``migrate`` runs after a deploy: the stored claims take their new ranks.
    call_command("migrate", verbosity=0)
    assert _stored_ranks_agree()
    assert Claim.objects.get(pk=waiting[0].pk).queue_rank == 1
    assert Claim.objects.get(pk=abstained.pk).queue_rank == WITH_NOT_JUDGED.index("abstained")
    assert claims_queue_rank_sync() == 0  # nothing left to re-rank

    # A claim the writer moves to the new reason afterwards is ranked as it is written.
    later = make_claim(source, "A claim bound after the change.")
    claim_state_refresh(claim=later, cause="test setup")  # nothing bound: no_evidence
    make_binding(later, QUOTE)
    claim_state_refresh(claim=later, cause="bound")
    later.refresh_from_db()
    assert (later.state_reason, later.queue_rank) == ("not_judged", 1)

    body = reviewer_client.get("/review/?reason=not_judged").content.decode()
    assert 'data-reason="not_judged" aria-current="true"' in body
    assert re.search(r'data-reason="not_judged"[^>]*>Not judged yet <span class="n">3', body)
    listed = set(re.findall(r"claim:[0-9a-z]{12}", body))
    assert {c.public_id for c in [*waiting, later]} <= listed
    assert abstained.public_id not in listed and contradicted.public_id not in listed

    # The default queue ranks the new reason where the order puts it.
    body = reviewer_client.get("/review/").content.decode()
    order = [m for m in re.findall(r"claim:[0-9a-z]{12}", body)]
    first = {pk: order.index(pk) for pk in order[::-1]}
    assert first[contradicted.public_id] < first[waiting[0].public_id] < first[abstained.public_id]


def test_an_unknown_reason_in_the_order_is_a_system_check_error(settings):
    from verifier.checks import queue_reason_order_valid

    settings.SPANPROOF_QUEUE_REASON_RISK_ORDER = ["contradicted", "stale_sauce", "contradicted"]
    messages = [e.msg for e in queue_reason_order_valid()]
    assert any("'stale_sauce'" in m for m in messages)
    assert any("'contradicted' is listed more than once" in m for m in messages)
    settings.SPANPROOF_QUEUE_REASON_RISK_ORDER = None
    assert queue_reason_order_valid() == []


def test_every_state_write_stores_the_rank_of_its_reason(make_queue_claim):
    from tests.review.conftest import REASON_RECIPES

    for reason in REASON_RECIPES:
        make_queue_claim(reason)
    assert _stored_ranks_agree()
    assert claims_queue_rank_sync() == 0


def test_claims_waiting_for_the_judge_have_their_own_chip(
    reviewer_client, source, make_queue_claim
):
    """Every claim the queue counts is under one of its chips: the ones not judged yet
    too (last in the built-in order)."""
    make_queue_claim("abstained", text="An abstained claim.")
    waiting = _not_judged(source, "A claim that waits for the judge.")
    body = reviewer_client.get("/review/").content.decode()
    assert re.search(r'data-reason="not_judged"[^>]*>Not judged yet <span class="n">1', body)
    chips = [
        int(n) for n in re.findall(r'data-reason="[a-z_]+"[^>]*>[^<]+<span class="n">(\d+)', body)
    ]
    assert sum(chips) == 2, chips
    body = reviewer_client.get("/review/?reason=not_judged").content.decode()
    assert set(re.findall(r"claim:[0-9a-z]{12}", body)) == {waiting.public_id}
