"""One item's "Send back to the judge" sent twice at once, from one page (a double click,
or two reviewers on the same version): the second is checked after the first has
judged, so it is refused as stale (``StaleItem``, a 409) and the judge's answer is
appended once. Checked in a transaction of its own, both passed the check before either
judged, and the history read the same answer twice. Two threads on the real database,
each with its own connection."""

from __future__ import annotations

import threading

import pytest

from review.services import StaleItem, review_rejudge_one
from tests.factories import make_user
from tests.races import at_first_statement, run_together, waiting_for
from tests.review.conftest import queue_claim, seen
from verifier.models import Verdict

APPEND_VERDICT = ('INSERT INTO "verifier_verdict"',)


@pytest.mark.django_db(transaction=True)
def test_the_same_page_sent_back_twice_at_once_is_judged_once(source, reviewer):
    other = make_user("omar", workspace=source.workspace, role="reviewer")
    claim = queue_claim(source, "abstained")
    version = seen(claim)
    judged_before = Verdict.objects.filter(claim=claim, reviewer__isnull=True).count()
    second_judging = threading.Event()

    def send_back(by):
        return lambda: review_rejudge_one(claim=claim, reviewer=by, expected_version=version)

    errors = run_together(
        # the first waits (a while) for the second to reach the judge too
        (
            send_back(reviewer),
            at_first_statement(*APPEND_VERDICT, before=waiting_for(second_judging)),
        ),
        (send_back(other), at_first_statement(*APPEND_VERDICT, before=second_judging.set)),
    )

    assert [type(e) for e in errors] == [StaleItem], errors
    judged = Verdict.objects.filter(claim=claim, reviewer__isnull=True).count()
    assert judged == judged_before + 1
