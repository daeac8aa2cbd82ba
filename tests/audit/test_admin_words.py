"""The admin pages read the one vocabulary: the Rules page names the quality dimensions
in words (the words the rule-set form and its comparisons use, from one table), and the
webhooks page names its events in words, not codes."""

from __future__ import annotations

import pytest
from django.urls import reverse

from audit.forms import RuleSetForm
from verifier import vocabulary
from verifier.models import WebhookEvent
from verifier.scoring.rulesets import CORE_V1, DIMENSIONS
from verifier.services.webhooks import webhook_create


def test_every_dimension_and_webhook_event_has_words():
    for kind, codes in (("dimension", DIMENSIONS), ("webhook_event", WebhookEvent.values)):
        for code in codes:
            found = vocabulary.KINDS[kind].get(code)
            assert found is not None, (kind, code)
            assert found.label and "_" not in found.label and "." not in found.label
            assert found.explanation.endswith("."), (kind, code)
    assert vocabulary.explanation("dimension", "logical_structure") == (
        CORE_V1.dimension("logical_structure").description
    )


def test_the_rule_set_form_reads_the_vocabularys_words():
    form = RuleSetForm(base=CORE_V1)
    labels = [row[0] for row in form.dimension_rows()]
    assert labels == [vocabulary.label("dimension", key) for key in DIMENSIONS]
    assert form.fields["weight_scope_calibration"].label == "Scope calibration weight"


@pytest.mark.django_db
def test_the_rules_page_names_the_dimensions_in_words(admin_client_ws):
    page = admin_client_ws.get(reverse("audit:rules")).content.decode()
    for key in DIMENSIONS:
        assert f'<th scope="row">{vocabulary.label("dimension", key)}</th>' in page
        assert key not in page


@pytest.fixture
def local_receivers(settings):
    settings.SPANPROOF_WEBHOOK_ALLOW_HTTP = True
    settings.SPANPROOF_WEBHOOK_ALLOWED_NETWORKS = ["127.0.0.1/32"]


@pytest.mark.django_db
def test_the_webhooks_page_names_the_events_in_words(admin_client_ws, workspace, local_receivers):
    webhook_create(
        workspace=workspace,
        url="http://127.0.0.1:9/hook",
        secret="s3cret-for-the-console",
        events=["job.completed", "job.quality_below_threshold"],
    )
    page = admin_client_ws.get(reverse("audit:webhooks")).content.decode()
    row = page.split('<table id="webhooks">')[1].split("</table>")[0]
    assert "<td>Ingest job finished; Quality below the bar</td>" in row
    assert "job.completed" not in row and "job.quality_below_threshold" not in row
    form = page.split('id="webhook-form"')[1]
    assert "Verification finished</label>" in form and "verification.completed</label>" not in form
