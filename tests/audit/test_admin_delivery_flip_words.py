"""Seen walking the admin pages on the demo data: the webhooks page names how a delivery
went in words (not the stored code), the rule-set impact's flip list names states and
classes as the claim list does, and the built-in rule set's row in the version history
does not offer a comparison with itself."""

from __future__ import annotations

import pytest
from django.urls import reverse

from audit.forms import RuleSetForm
from tests.factories import make_user
from verifier.models import Claim, Membership, WebhookDelivery
from verifier.scoring.rulesets import CORE_V1
from verifier.services.webhooks import webhook_create
from verifier.vocabulary import label

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def local_receivers(settings):
    settings.SPANPROOF_WEBHOOK_ALLOW_HTTP = True
    settings.SPANPROOF_WEBHOOK_ALLOWED_NETWORKS = ["127.0.0.1/32"]


@pytest.mark.parametrize("status", ["pending", "retrying", "delivered", "failed", "cancelled"])
def test_the_latest_delivery_reads_in_words(admin_client_ws, workspace, status):
    hook = webhook_create(
        workspace=workspace,
        url="http://127.0.0.1:9/hook",
        secret="s3cret-for-the-console",
        events=["job.completed"],
    )
    WebhookDelivery.objects.create(webhook=hook, event="job.completed", payload={}, status=status)
    page = admin_client_ws.get(reverse("audit:webhooks")).content.decode()
    row = page.split('<table id="webhooks">')[1].split("</tbody>")[0]
    words = label("webhook_delivery", status)
    assert f"<td>{words} · " in row, row
    assert f"<td>{status} · " not in row


def _strict_everything(**changes):
    """A preview whose Balanced policy classes every claim unsupported."""
    data = dict(RuleSetForm.initial_from(CORE_V1))
    data.update({"note": "", "domain_pack": "", "policy": "balanced", "action": "preview"})
    data.update({"balanced_min_overall_score": "1", "balanced_weak_threshold": "1"})
    data.update(changes)
    return data


def test_the_flip_list_names_states_and_classes_in_words(admin_client_ws, supported_claim):
    Claim.objects.filter(pk=supported_claim.pk).update(quality="supported")
    html = admin_client_ws.post(reverse("audit:rule-set-new"), _strict_everything()).content
    html = html.decode()
    flips = html.split('<table id="flip-list">')[1].split("</table>")[0]
    assert "<td>Supported</td>" in flips and "<td>supported</td>" not in flips, flips
    assert "<strong>Unsupported</strong>" in flips, flips
    matrix = html.split('<table class="matrix">')[1].split("</table>")[0]
    assert '<th scope="col">Weak</th>' in matrix and '<th scope="row">Supported</th>' in matrix


def test_the_built_in_row_is_not_compared_with_itself(admin_client_ws):
    admin_client_ws.post(
        reverse("audit:rule-set-builtin-activate"),
        {"domain_pack": "", "policy": "balanced", "confirm": "1"},
    )
    page = admin_client_ws.get(reverse("audit:rules")).content.decode()
    history = page.split('id="history-h"')[1].split("</section>")[0]
    assert "Core v1 (built-in)" in history
    assert "diff vs Core v1 (built-in)" not in history, history


def test_a_failed_delivery_says_how_many_tries_and_why(admin_client_ws, workspace):
    """The receiver answered 500 five times: the page said only that it failed, and
    nowhere in the console could an admin read why."""
    hook = webhook_create(
        workspace=workspace,
        url="http://127.0.0.1:9/hook",
        secret="s3cret-for-the-console",
        events=["job.completed"],
    )
    older = WebhookDelivery.objects.create(
        webhook=hook, event="job.completed", payload={}, status="delivered"
    )
    older.attempts.create(number=1, status_code=200, error="")
    latest = WebhookDelivery.objects.create(
        webhook=hook, event="job.completed", payload={}, status="failed"
    )
    for number in range(1, 6):
        latest.attempts.create(number=number, status_code=500, error="HTTP 500")
    page = admin_client_ws.get(reverse("audit:webhooks")).content.decode()
    row = page.split('<table id="webhooks">')[1].split("</tbody>")[0]
    assert "Failed, given up" in row
    assert "5 tries; the last: HTTP 500" in row, row


def test_a_delivery_not_tried_yet_says_no_tries(admin_client_ws, workspace):
    hook = webhook_create(
        workspace=workspace,
        url="http://127.0.0.1:9/hook",
        secret="s3cret-for-the-console",
        events=["job.completed"],
    )
    WebhookDelivery.objects.create(webhook=hook, event="job.completed", payload={})
    row = admin_client_ws.get(reverse("audit:webhooks")).content.decode()
    row = row.split('<table id="webhooks">')[1].split("</tbody>")[0]
    assert "Waiting to be sent" in row and "tries" not in row and "the last:" not in row


SELF_OUT = "Take yourself out of Workspace acme? You lose access to it at once"


def test_taking_yourself_out_warns_that_you_lose_access(admin_client_ws, admin_user, workspace):
    """The question read "Take ada out …? Their decisions and notes stay." to ada herself:
    nothing said that confirming closes the workspace to her at once."""
    make_user("bea", workspace=workspace, role="admin")
    mine = Membership.objects.get(user=admin_user, workspace=workspace)
    page = admin_client_ws.get(reverse("audit:members")).content.decode()
    own_row = page.split('<th scope="row">ada (you)</th>')[1].split("</tr>")[0]
    assert f'data-confirm="{SELF_OUT}' in own_row, own_row
    other_row = page.split('<th scope="row">bea</th>')[1].split("</tr>")[0]
    assert "Take bea out of Workspace acme? Their decisions and notes stay." in other_row
    asked = admin_client_ws.post(reverse("audit:member-remove", args=[mine.pk])).content.decode()
    assert SELF_OUT in asked and "Their decisions" not in asked
    assert Membership.objects.filter(pk=mine.pk).exists()
    done = admin_client_ws.post(
        reverse("audit:member-remove", args=[mine.pk]), {"confirmed": "1"}, follow=True
    ).content.decode()
    assert "You are no longer a member of Workspace acme; your decisions stay." in done
    assert not Membership.objects.filter(pk=mine.pk).exists()


def test_the_threshold_field_is_named_for_the_trust_score_it_compares(admin_client_ws):
    """The field read "Quality threshold" while its event and its help speak of the trust
    score: two names for one number."""
    page = admin_client_ws.get(reverse("audit:webhooks")).content.decode()
    assert '<label for="id_threshold">Trust score threshold (0–100)</label>' in page
    assert "Quality threshold" not in page
