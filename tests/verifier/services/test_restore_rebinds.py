"""A claim excluded while a new version of its source was ingested is bound and judged
again when it is restored, as the re-binding job would have done (that job skips
excluded claims): restored, a claim whose words are unchanged in the new version is
current again, one whose words changed stays stale for a reviewer."""

from __future__ import annotations

import pytest

from review.selectors.item import review_item_change
from review.services import review_restore
from tests.factories import make_claim, make_source
from verifier.models import EvidenceBinding, StateEvent
from verifier.services.binding import claim_bind
from verifier.services.claim_state import claim_exclude
from verifier.services.judging import claims_judge
from verifier.services.sources import source_claims_rebind, source_upsert

pytestmark = pytest.mark.django_db

KEPT = "Dredging the main channel starves the outer marsh of mud."
CHANGED = "Sediment settles where the current slows."
TEXT = f"The Marrow River delta gains land in wet years. {CHANGED} {KEPT}"
TEXT_V2 = TEXT.replace(CHANGED, "Sediment drifts out to sea in fast water.")


def _judged_claim(source, sentence):
    claim = make_claim(source, sentence, submitted_quote=sentence)
    claim_bind(claim=claim)
    claims_judge(claims=[claim], cause="test")
    claim.refresh_from_db()
    return claim


def _excluded_through_v2(workspace, reviewer):
    source = make_source(workspace, ref="source:delta", text=TEXT)
    kept, changed = _judged_claim(source, KEPT), _judged_claim(source, CHANGED)
    before = {kept.pk: (kept.state, kept.state_reason)}
    for claim in (kept, changed):
        claim_exclude(claim=claim, reason="checking", actor=reviewer)
    write = source_upsert(workspace=workspace, ref=source.ref, text=TEXT_V2)
    assert source_claims_rebind(version=write.version, why="new version v2") == []
    return kept, changed, write.version, before


def _restore(claim, reviewer):
    version = review_item_change(claim=claim).version
    return review_restore(claim=claim, reviewer=reviewer, expected_version=version)


def _active(claim) -> EvidenceBinding:
    return EvidenceBinding.objects.get(claim=claim, is_active=True)


def test_restored_claim_with_unchanged_words_is_bound_and_judged_in_the_new_version(
    workspace, reviewer
):
    kept, _, v2, before = _excluded_through_v2(workspace, reviewer)
    assert before[kept.pk][0] == "supported"

    decision = _restore(kept, reviewer)

    kept.refresh_from_db()
    assert (kept.state, kept.state_reason) == before[kept.pk]
    assert (decision.state.value, decision.reason.value) == before[kept.pk]
    binding = _active(kept)
    assert binding.source_version_id == v2.pk and binding.quote == KEPT
    causes = list(
        StateEvent.objects.filter(claim=kept).order_by("pk").values_list("cause", flat=True)
    )
    assert "restored" in causes
    assert any(cause.endswith("in v2 (restored)") for cause in causes)


def test_restored_claim_whose_words_changed_stays_stale(workspace, reviewer):
    _, changed, v2, _ = _excluded_through_v2(workspace, reviewer)

    _restore(changed, reviewer)

    changed.refresh_from_db()
    assert (changed.state, changed.state_reason) == ("unverified", "stale_source")
    assert _active(changed).source_version_id != v2.pk


def test_restore_without_a_new_version_binds_nothing(workspace, reviewer):
    source = make_source(workspace, ref="source:delta", text=TEXT)
    claim = _judged_claim(source, KEPT)
    before = (claim.state, claim.state_reason)
    bindings = EvidenceBinding.objects.filter(claim=claim).count()
    claim_exclude(claim=claim, reason="checking", actor=reviewer)

    _restore(claim, reviewer)

    claim.refresh_from_db()
    assert (claim.state, claim.state_reason) == before
    assert EvidenceBinding.objects.filter(claim=claim).count() == bindings
