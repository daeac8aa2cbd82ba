"""The rule-set preview counts exactly the claims an activation would class again: the
claims with a class now, of the chosen pack (for "all packs", less the packs with rules
of their own); a claim with no class yet is counted apart, and the demo's claims have
classes for it to work on."""

from __future__ import annotations

import dataclasses
from io import StringIO

import pytest
from django.core.management import call_command
from django.urls import reverse

from audit.forms import RuleSetForm
from audit.services import rule_set_activate, rule_set_builtin_ensure
from tests.audit.conftest import QUOTE, judge
from tests.factories import make_binding, make_claim, make_source
from verifier.models import Claim, Verdict, Workspace
from verifier.scoring.rulesets import CORE_V1, Policy
from verifier.selectors.rules import rule_set_impact
from verifier.services.ingest_validate import claims_classify

pytestmark = pytest.mark.django_db


def _judged(source, n):
    claims = []
    for _ in range(n):
        claim = make_claim(source, QUOTE)
        judge(claim, confidence=0.55, binding=make_binding(claim, QUOTE))
        claims.append(claim)
    return claims


def _form_data(**changes):
    data = dict(RuleSetForm.initial_from(CORE_V1))
    data.update({"note": "", "domain_pack": "", "policy": "balanced"})
    data.update(changes)
    return data


def test_a_claim_with_no_class_yet_is_counted_apart(workspace, admin_client_ws):
    source = make_source(workspace, text=f"{QUOTE} More text.")
    classed = _judged(source, 2)
    claims_classify(workspace=workspace, claims=classed)
    _judged(source, 1)  # a job's, still validating: no class yet

    preview = rule_set_impact(
        workspace=workspace, domain_pack="", definition=CORE_V1, policy="balanced"
    )
    assert (preview.total, preview.unclassified, preview.not_validated) == (2, 1, 0)
    assert sum(preview.before.values()) == 2

    html = admin_client_ws.post(
        reverse("audit:rule-set-new"),
        _form_data(balanced_min_overall_score=0.99, balanced_weak_threshold=0.1, action="preview"),
    ).content.decode()
    assert "<strong>2</strong> of 2 claims would change class" in html
    assert "1 claim has no class yet" in html
    assert "not yet classified" not in html  # excluded ones alone are "in no class"


def test_all_packs_leaves_out_the_packs_with_rules_of_their_own(workspace, admin_user):
    ecology = make_source(workspace, text=f"{QUOTE} Ecology.")
    ecology.domain_pack = "ecology"
    ecology.save(update_fields=["domain_pack"])
    general = make_source(workspace, text=f"{QUOTE} General.")
    claims = _judged(ecology, 2) + _judged(general, 1)
    claims_classify(
        workspace=workspace,
        claims=Claim.objects.filter(pk__in=[c.pk for c in claims]).select_related("source"),
    )
    rule_set_activate(
        workspace=workspace,
        rule_set=rule_set_builtin_ensure(),
        domain_pack="ecology",
        policy="strict",
        actor=admin_user,
    )
    preview = rule_set_impact(
        workspace=workspace, domain_pack="", definition=CORE_V1, policy="lenient"
    )
    # ecology keeps its own rules whatever "all packs" gets: only the general claim moves
    assert (preview.total, preview.own_packs, preview.own_pack_claims) == (1, ["ecology"], 2)


def test_the_demo_claims_have_classes_and_the_preview_reads_them():
    call_command("load_demo", stdout=StringIO())
    workspace = Workspace.objects.get(slug="demo")
    demo = Claim.objects.filter(workspace=workspace)
    assert demo.count() == 17
    assert not demo.filter(quality="").exists()
    assert set(demo.values_list("quality", flat=True)) <= {"supported", "weak", "unsupported"}
    verdicts_before = Verdict.objects.count()
    # loading again classes nothing twice and judges nothing again
    call_command("load_demo", stdout=StringIO())
    assert Verdict.objects.count() == verdicts_before
    strict = dataclasses.replace(
        CORE_V1,
        policies=tuple(
            Policy("balanced", 0.9, 0.8) if p.name == "balanced" else p for p in CORE_V1.policies
        ),
    )
    preview = rule_set_impact(
        workspace=workspace, domain_pack="", definition=strict, policy="balanced"
    )
    assert preview.unclassified == 0
    assert preview.total == demo.exclude(state="excluded").count() == 16
    assert preview.moved > 0  # a stricter policy moves some demo claims
