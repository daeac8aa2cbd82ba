"""The counts an admin is told on activating a calibrator are the counts the activation
then makes: the confirmation page's and the message's, against the background job's
"read", "verdicts appended" and "changed state" — with claims in scope the judge cannot
read (their bound span is no longer fresh), which the job reads and leaves as they are.
The message once said the change was applied to every claim in scope ("235 claims it may
decide") while the job changed fewer."""

from __future__ import annotations

import pytest
from django.contrib.messages import get_messages
from django.test import Client
from django.urls import reverse

from tests.factories import make_user, tamper
from tests.verifier.calibrators.conftest import unjudged_claims
from verifier.judges import build_judge
from verifier.models import CalibratorChangeJob
from verifier.selectors.calibrators import calibrator_activation_preview
from verifier.services.judge_calibrators import judge_calibrator_fit
from verifier.services.judging import claims_judge

pytestmark = pytest.mark.django_db


def test_the_preview_and_the_message_count_what_the_activation_changes(
    reviewed, django_capture_on_commit_callbacks
):
    judge = build_judge({"backend": "heuristic"})
    # Three judged claims whose source text changed under them: in scope, unreadable.
    stale = unjudged_claims(reviewed.workspace, kinds=("reworded",), indexes=range(16, 19))
    claims_judge(claims=list(stale.values()), judge=judge)
    version = next(iter(stale.values())).source.versions.order_by("-number").first()
    tamper(version, version.text.replace("bridge", "viaduct"))

    row = judge_calibrator_fit(workspace=reviewed.workspace).row
    admin = make_user("ada-admin", workspace=reviewed.workspace, role="admin")
    client = Client()
    client.force_login(admin)

    preview = calibrator_activation_preview(workspace=reviewed.workspace, row=row, judge=judge)
    plan = preview.plan
    assert plan is not None and not preview.partial
    assert preview.read - plan.scanned == len(stale)
    assert plan.appends and plan.flips and len(plan.flips) < preview.in_scope

    page = client.post(reverse("audit:calibrator-activate", args=[row.pk])).content.decode()
    counts = page.split('id="preview-counts">')[1].split("</p>")[0]
    assert f"{preview.in_scope} claims of this workspace are in its scope" in counts
    assert f"{len(stale)} of them have no fresh bound span" in counts
    assert f"the judge read the other {plan.scanned} again" in counts
    assert f"verdict history of {len(plan.appends)} claims" in counts
    assert f"and {len(plan.flips)} claims change state" in counts

    with django_capture_on_commit_callbacks(execute=True):
        done = client.post(reverse("audit:calibrator-activate", args=[row.pk]), {"confirm": "1"})
    job = CalibratorChangeJob.objects.get(calibrator=row)
    assert job.status == "succeeded"
    # the preview's counts are the job's
    assert (job.total, job.done) == (preview.in_scope, preview.read)
    assert (job.appended, job.moved) == (len(plan.appends), len(plan.flips))
    # the message counts the claims the job reads, and says so; it promises no decisions
    (message,) = [str(m) for m in get_messages(done.wsgi_request)]
    assert f"The {job.total} claims in its scope are being read again" in message
    assert "it may decide" not in message
