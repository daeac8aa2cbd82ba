"""The Quality page's κ table, "by the claim's reason before the decision": a reviewer
who decides a claim by selecting its span in the source binds that span first, and the
binding re-resolves the claim (a state event of its own, "bind: reviewer selection")
just before the decision. The reason before the decision is why the claim was in the
queue — "No evidence found" — not the "Not judged yet" the reviewer's own selection
left for a moment."""

from __future__ import annotations

import pytest

from audit.selectors import reviewer_agreement
from review.services import review_decide
from tests.factories import make_user
from tests.review.conftest import QUOTE, queue_claim, seen
from verifier.models import StateEvent

pytestmark = pytest.mark.django_db


def test_a_decision_on_a_selected_span_keeps_the_reason_it_was_queued_for(workspace, source):
    claim = queue_claim(source, "no_evidence", text=QUOTE)
    assert claim.state_reason == "no_evidence"
    reviewer = make_user("rita", workspace=workspace, role="reviewer")
    start = source.versions.get().text.index(QUOTE)
    review_decide(
        claim=claim,
        reviewer=reviewer,
        expected_version=seen(claim),
        decision="supported",
        span=(start, start + len(QUOTE)),
        span_text=QUOTE,
    )
    # the selection's own state event came between the queue and the decision
    causes = list(
        StateEvent.objects.filter(claim=claim).order_by("at", "id").values_list("cause", flat=True)
    )
    assert "bind: reviewer selection" in causes

    (row,) = reviewer_agreement(workspace=workspace).by_reason
    assert (row.label, row.decisions) == ("No evidence found", 1)
