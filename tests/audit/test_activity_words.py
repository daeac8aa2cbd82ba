"""The activity log in words: every kind of line reads its codes (a member's role, an API
key's scope, a rule set's policy, a webhook's events) in the one vocabulary's words, with
the explanation beside them, and keeps a code only where an auditor needs it. The roles'
and scopes' words are the ones the members and API-key forms offer: one table.
Real database, real services."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest

from audit.services import rule_set_activate, rule_set_create
from tests.factories import make_user
from verifier import vocabulary
from verifier.models import ActivityAction, ApiScope, Role
from verifier.scoring.rulesets import CORE_V1, POLICY_NAMES
from verifier.services.activity import activity_record
from verifier.services.webhooks import webhook_create, webhook_turn_off
from verifier.services.workspaces import (
    api_key_create,
    api_key_revoke,
    member_add,
    member_remove,
    member_role_change,
)

pytestmark = pytest.mark.django_db
PAGE = "/audit/activity/"


@pytest.fixture(autouse=True)
def local_receivers(settings):
    settings.SPANPROOF_WEBHOOK_ALLOW_HTTP = True
    settings.SPANPROOF_WEBHOOK_ALLOWED_NETWORKS = ["127.0.0.1/32"]


def _one_line_of_each_kind(workspace) -> None:
    make_user("rosa")
    rosa = member_add(workspace=workspace, username="rosa", role="reviewer")
    member_role_change(membership=rosa, role="auditor")
    member_remove(membership=rosa)
    made = api_key_create(workspace=workspace, name="support-bot", scope="read")
    api_key_revoke(workspace=workspace, key_id=made.api_key.pk)
    hook = webhook_create(
        workspace=workspace,
        url="http://127.0.0.1:9/hook",
        secret="s3cret-for-the-console",
        events=["job.completed"],
        threshold=80,
    )
    webhook_turn_off(webhook=hook)
    saved = rule_set_create(
        workspace=workspace, definition=replace(CORE_V1, name="Delta rules"), note="stricter"
    )
    rule_set_activate(
        workspace=workspace, rule_set=saved, domain_pack="", policy="strict", actor=None
    )
    # a calibrator's lines, with the particulars its service records (fitting one is slow)
    for action in (ActivityAction.CALIBRATOR_ACTIVATED, ActivityAction.CALIBRATOR_DEACTIVATED):
        activity_record(
            workspace=workspace,
            action=action,
            target="reviewer calibrator v1 (heuristic-entailment-v1)",
            details={"calibrator_id": 1},
        )


def _particulars(html: str) -> dict[str, str]:
    """Each line's kind (as the page names it) and its particulars cell."""
    table = html[html.index('id="activity"') :]
    rows = re.findall(
        r"<tr><td><time[^>]*>[^<]*</time></td>\s*<td>([^<]*)</td>\s*<td>.*?</td>\s*"
        r"<td>(.*?)</td>\s*<td>",
        table,
        re.S,
    )
    return {kind: " ".join(cell.split()) for kind, cell in rows}


def test_every_kind_of_line_reads_its_codes_in_words(admin_client_ws, auditor_client, workspace):
    _one_line_of_each_kind(workspace)
    lines = _particulars(auditor_client.get(PAGE).content.decode())
    assert set(lines) == set(ActivityAction.labels), "one line of each kind"

    reviewer = vocabulary.explanation("role", "reviewer")
    auditor = vocabulary.explanation("role", "auditor")
    assert lines["Member added"] == f'as <span title="{reviewer}">Reviewer</span>'
    assert lines["Role changed"] == (
        f'<span title="{reviewer}">Reviewer</span> → <span title="{auditor}">Auditor</span>'
    )
    assert lines["Member taken out"] == f'was <span title="{auditor}">Auditor</span>'
    read = vocabulary.explanation("api_key_scope", "read")
    for kind in ("API key made", "API key revoked"):
        assert lines[kind].endswith(f' · scope <span title="{read}">Read</span>'), lines[kind]
        assert lines[kind].startswith("<code>sp_"), "the key's prefix, which tells keys apart"
    # the event a receiver reads stays a code beside its words
    assert (
        '<span title="An ingest job finished; the delivery carries its report.">'
        in (lines["Webhook added"])
    )
    assert "(<code>job.completed</code>)" in lines["Webhook added"]
    strict = vocabulary.explanation("policy", "strict")
    assert lines["Rule set put in force"] == (
        f'for all packs, policy <span title="{strict}">Strict</span>'
    )
    # nothing of the particulars outside a <code> element is a bare code
    for kind, cell in lines.items():
        words = re.sub(r"<code>.*?</code>|<[^>]+>", " ", cell)
        assert "_" not in words, (kind, cell)
        assert not re.search(r"\b(reviewer|auditor|read|strict)\b", words), (kind, cell)


def test_a_code_the_vocabulary_lacks_still_reads_as_words(auditor_client, workspace):
    # a line written before a role or a policy was renamed: shown, never hidden
    activity_record(
        workspace=workspace,
        action=ActivityAction.RULE_SET_ACTIVATED,
        target="Old rules v1",
        details={"rule_set_id": 1, "domain_pack": "", "policy": "very_old_policy"},
    )
    lines = _particulars(auditor_client.get(PAGE).content.decode())
    assert lines["Rule set put in force"] == (
        'for all packs, policy <span title="">Very old policy</span>'
    )


def test_roles_scopes_and_policies_have_words_and_the_forms_read_the_same_table():
    assert set(vocabulary.KINDS["role"]) == set(Role.values)
    assert set(vocabulary.KINDS["api_key_scope"]) == set(ApiScope.values)
    assert set(vocabulary.KINDS["policy"]) == set(POLICY_NAMES)
    for kind in ("role", "api_key_scope", "policy"):
        for found in vocabulary.KINDS[kind].values():
            assert found.label and found.explanation.endswith("."), found
    # the member and API-key forms (their choices are these) offer the vocabulary's words
    assert Role.choices == vocabulary.choices("role")
    assert ApiScope.choices == vocabulary.choices("api_key_scope")


def test_the_header_names_the_members_role_in_words(auditor_client):
    html = auditor_client.get(PAGE).content.decode()
    explained = vocabulary.explanation("role", "auditor")
    assert f'<span class="role role-auditor" title="Your role: {explained}">Auditor</span>' in html
