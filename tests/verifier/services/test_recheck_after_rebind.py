"""The read-time re-check demotes a claim it read as supported whose span it found stale
(a new version of the source came). Between that reading and the demotion, the new
version's re-binding job may bind the claim in the current version and judge it again
(supported on a current span), or a reviewer may decide it (``contradicted``): the
demotion is decided again under the claim's row lock, from the claim as it is then, so
neither is overwritten with ``unverified · stale_source``. The reading and the job are
run in that order here; the re-check is handed what it read, as a page of the claims
API hands the checks it made for the page."""

from __future__ import annotations

import pytest

from review.services import review_decide
from tests.factories import make_claim
from tests.review.conftest import seen
from verifier.models import Claim
from verifier.selectors.claim_state import claim_binding_check, claim_state_inputs
from verifier.services.binding import claim_bind
from verifier.services.claim_state import claim_recheck_on_read
from verifier.services.judging import claims_judge
from verifier.services.sources import source_claims_rebind, source_upsert
from verifier.state_policy import state_policy
from verifier.states import resolve_state

pytestmark = pytest.mark.django_db

QUOTE = "Sediment settles where the current slows."


def _supported(source) -> Claim:
    claim = make_claim(source, QUOTE, submitted_quote=QUOTE)
    claim_bind(claim=claim)
    claims_judge(claims=[claim])
    claim.refresh_from_db()
    assert claim.state == "supported", claim.state_reason
    return claim


def _stored_as_the_state_function_says(claim: Claim) -> tuple[str, str]:
    claim.refresh_from_db()
    decision = resolve_state(claim_state_inputs(claim=claim)[0], state_policy())
    assert (claim.state, claim.state_reason) == (decision.state.value, decision.reason.value)
    return claim.state, claim.state_reason


def _read_then_new_version(source) -> tuple[Claim, object, object]:
    """A reader's view of a supported claim, the new version that came after it read
    the claim, and the re-check of its span the reader then made (stale)."""
    claim = _supported(source)
    read = Claim.objects.get(pk=claim.pk)  # what the reader holds: supported
    text = source.versions.get().text
    version = source_upsert(workspace=source.workspace, ref=source.ref, text=f"{text} More.")
    check = claim_binding_check(claim=read)
    assert check.status != "fresh"
    return read, check, version.version


def test_a_claim_bound_again_and_judged_since_it_was_read_is_not_demoted(source):
    read, check, version = _read_then_new_version(source)
    source_claims_rebind(version=version, why="sources API: new version v2")

    claim_recheck_on_read(claim=read, check=check)

    assert _stored_as_the_state_function_says(read) == ("supported", "entailed")


def test_a_reviewers_decision_since_it_was_read_is_not_overwritten(source, reviewer):
    read, check, _ = _read_then_new_version(source)
    claim = Claim.objects.get(pk=read.pk)
    review_decide(
        claim=claim, reviewer=reviewer, decision="contradicted", expected_version=seen(claim)
    )

    claim_recheck_on_read(claim=read, check=check)

    assert _stored_as_the_state_function_says(read)[0] == "contradicted"
