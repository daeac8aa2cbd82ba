"""Seen walking the rule-set and members pages as an admin: a policy is named in the
vocabulary's words (as the activity log names it), a weak threshold above the supported
one is said beside its field in the form's words, and the members table has a name and
row headers."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from audit.forms import RuleSetForm
from tests.audit.test_traces_quality import _report
from tests.factories import make_claim
from verifier.models import IngestJob, RuleSet
from verifier.scoring.rulesets import CORE_V1

pytestmark = pytest.mark.django_db


def _form_data(**changes):
    data = dict(RuleSetForm.initial_from(CORE_V1))
    data.update({"note": "", "domain_pack": "", "policy": "balanced"})
    data.update(changes)
    return data


def test_the_rules_pages_name_policies_as_the_activity_log_does(admin_client_ws):
    page = admin_client_ws.get(reverse("audit:rules")).content.decode()
    assert "<td>Balanced</td>" in page  # the pack table
    assert "<strong>Strict</strong> supported" in page
    assert '<option value="balanced" selected>Balanced</option>' in page
    assert "(default Balanced)" in page and "(balanced)" not in page
    form = admin_client_ws.get(reverse("audit:rule-set-new")).content.decode()
    assert '<tr><th scope="row">Lenient</th>' in form
    assert re.search(r'<option value="strict"[^>]*>Strict</option>', form)
    assert "Strict: supported at ≥" in form and "strict: supported" not in form

    saved = admin_client_ws.post(
        reverse("audit:rule-set-new"), _form_data(name="Delta", action="save")
    )
    rule_set = RuleSet.objects.get()
    activate = reverse("audit:rule-set-activate", args=[rule_set.pk])
    confirm = admin_client_ws.post(activate, {"domain_pack": "", "policy": "lenient"})
    html = confirm.content.decode()
    assert "with the <strong>Lenient</strong> policy" in html
    assert "the active Core v1 (built-in) (Balanced)" in html
    assert saved.status_code == 302
    done = admin_client_ws.post(
        activate, {"domain_pack": "", "policy": "lenient", "confirm": "1"}, follow=True
    )
    assert "with the Lenient policy; " in done.content.decode()


@pytest.mark.parametrize("htmx", [False, True])
def test_a_weak_threshold_above_supported_is_said_at_its_field(admin_client_ws, htmx):
    headers = {"HTTP_HX_REQUEST": "true"} if htmx else {}
    response = admin_client_ws.post(
        reverse("audit:rule-set-new"),
        _form_data(balanced_min_overall_score=0.3, action="preview"),
        **headers,
    )
    html = response.content.decode()
    assert "weak_threshold exceeds" not in html and "policy 'balanced'" not in html
    field = html.split('id="field-balanced_weak_threshold"')[1].split("</span></span>")[0]
    assert "Above “supported at ≥” (0.3)" in field and 'aria-invalid="true"' in field
    assert not RuleSet.objects.exists()


def test_the_members_table_has_a_name_and_row_headers(admin_client_ws):
    page = admin_client_ws.get(reverse("audit:members")).content.decode()
    assert '<table id="members" aria-labelledby="members-h">' in page
    assert '<tr><th scope="row">ada (you)</th>' in page


def test_the_quality_page_names_job_statuses_and_states_in_words(admin_client_ws, source):
    job = IngestJob.objects.create(
        workspace=source.workspace, status="degraded", quality_report=_report(95, 4, 1, 3)
    )
    make_claim(source, ingest_job=job, state="supported")
    make_claim(source, "Boats moor inside.", ingest_job=job, state="unverified")
    IngestJob.objects.create(workspace=source.workspace, status="queued")
    html = admin_client_ws.get(reverse("audit:quality")).content.decode()
    assert '<span class="muted">Degraded · ' in html and "degraded ·" not in html
    assert "the job is queued" in html
    now = html.split('class="states-now">')[1].split("</td>")[0]
    assert ">1 Supported</a>" in now and ">1 Unverified</a>" in now, now


def test_a_refused_new_pack_comes_back_typed_with_its_policy(admin_client_ws):
    refused = admin_client_ws.post(
        reverse("audit:rule-set-builtin-activate"),
        {"domain_pack": "", "new_domain_pack": "marine", "policy": "strict"},
    ).content.decode()
    assert 'id="new-pack-refused"' in refused
    back = re.search(r'<a href="([^"]+)" id="choose-again">', refused).group(1)
    back = back.replace("&amp;", "&")
    assert "policy=strict" in back and "new_domain_pack=marine" in back
    page = admin_client_ws.get(back).content.decode()
    assert '<option value="strict" selected>Strict</option>' in page
    assert '<details class="new-pack" open>' in page
    assert re.search(r'<input name="new_domain_pack"[^>]* value="marine">', page)


def test_the_calibrators_list_names_a_status_in_words(admin_client_ws, workspace, settings):
    from tests.verifier.calibrators.conftest import build_reviewed_workspace, pin_heuristic
    from verifier.services.judge_calibrators import judge_calibrator_fit

    pin_heuristic(settings)
    build_reviewed_workspace(workspace, names=6, decided=6)
    assert judge_calibrator_fit(workspace=workspace).row is not None
    page = admin_client_ws.get(reverse("audit:calibrators")).content.decode()
    row = page.split('<table id="calibrators">')[1].split("</tbody>")[0]
    assert "<td>Proposed" in row and "<td>proposed" not in row


def test_calibrator_flips_and_agreement_by_reason_read_in_words(
    admin_client_ws, workspace, settings
):
    from tests.verifier.calibrators.conftest import build_reviewed_workspace, pin_heuristic
    from verifier.services.judge_calibrators import judge_calibrator_fit

    pin_heuristic(settings)
    build_reviewed_workspace(workspace, names=16)
    row = judge_calibrator_fit(workspace=workspace).row
    confirm = admin_client_ws.post(reverse("audit:calibrator-activate", args=[row.pk]), {})
    html = confirm.content.decode()
    queued = html.split('<table id="flips-queued">')[1].split("</table>")[0]
    assert '<td>Unverified <span class="muted">(Judge undecided)</span></td>' in queued
    assert "<td>No answer " in queued and "(abstained)" not in queued
    decided = html.split('<table id="flips-decided">')[1].split("</table>")[0]
    assert "(Judge and reviewers disagree)" in decided and "judge_reviewers_disagree" not in decided

    quality = admin_client_ws.get(reverse("audit:quality")).content.decode()
    assert re.search(r'<th scope="row" title="[^"]*">Judge undecided</th>', quality)
    assert ">abstained</th>" not in quality and ">entailed</th>" not in quality
