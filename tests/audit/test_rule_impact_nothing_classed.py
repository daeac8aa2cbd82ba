"""The rule-set preview in a workspace with no classed claim says that no claim has a
class to change, not "0 of 0 claims would change class"."""

from __future__ import annotations

import pytest
from django.urls import reverse

from audit.forms import RuleSetForm
from verifier.scoring.rulesets import CORE_V1

pytestmark = pytest.mark.django_db


def test_a_preview_with_no_claim_says_so(workspace, admin_client_ws):
    data = dict(RuleSetForm.initial_from(CORE_V1))
    data.update(
        note="",
        domain_pack="",
        policy="balanced",
        balanced_min_overall_score=0.99,
        action="preview",
    )
    html = admin_client_ws.post(reverse("audit:rule-set-new"), data).content.decode()
    assert "of 0 claims" not in html
    assert 'id="impact-none"' in html
    assert "has a class this version could change, so none would move" in html
