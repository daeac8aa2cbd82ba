"""Putting a rule set in force re-classes the stored claims it covers, as the flip list
the admin was shown said (states walk, H4: the classes stayed as the old rule set gave
them while every page named the new one)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from audit.services import rule_set_activate, rule_set_create
from tests.factories import make_source
from tests.verifier.api.conftest import DELTA_TEXT, judged_claim
from verifier.models import Claim
from verifier.scoring.rulesets import CORE_V1, Policy
from verifier.services.ingest_validate import claims_classify
from verifier.services.quality_reclass import claims_reclass

pytestmark = pytest.mark.django_db

SENTENCES = [
    "Sediment settles where the current slows.",
    "Salt marsh grasses trap silt at high tide.",
]


def _harsh():
    """Core v1 with every policy out of reach: nothing is supported under it."""
    return replace(
        CORE_V1,
        name="Walk harsh",
        display_name="",
        policies=tuple(Policy(p.name, 1.0, 1.0) for p in CORE_V1.policies),
    )


def _put_in_force(workspace, rule_set, domain_pack: str) -> None:
    rule_set_activate(
        workspace=workspace,
        rule_set=rule_set,
        domain_pack=domain_pack,
        policy=CORE_V1.default_policy,
        actor=None,
    )


def test_activation_re_classes_the_packs_claims_after_commit(
    workspace, django_capture_on_commit_callbacks
):
    source = make_source(workspace, ref="source:marrow_river", text=DELTA_TEXT)
    claims = [judged_claim(source, s, quote=s) for s in SENTENCES]
    claims_classify(workspace=workspace, claims=Claim.objects.filter(pk__in=[c.pk for c in claims]))
    assert set(Claim.objects.values_list("quality", flat=True)) == {"supported"}
    unclassified = judged_claim(
        source, "Storm surges can strip a season of growth in a single night."
    )
    Claim.objects.filter(pk=unclassified.pk).update(quality="")  # a job's, still validating

    harsh = rule_set_create(workspace=workspace, definition=_harsh())
    with django_capture_on_commit_callbacks(execute=True):
        _put_in_force(workspace, harsh, "")
    qualities = dict(Claim.objects.values_list("pk", "quality"))
    assert {qualities[c.pk] for c in claims} == {"unsupported"}
    assert qualities[unclassified.pk] == ""  # left to its job
    assert claims_reclass(workspace_id=workspace.pk, domain_pack="") == 2  # again: same


def test_a_pack_activation_re_classes_that_pack_only(workspace, django_capture_on_commit_callbacks):
    med = make_source(workspace, ref="source:med", text=DELTA_TEXT)
    med.domain_pack = "med"
    med.save(update_fields=["domain_pack"])
    other = make_source(workspace, ref="source:other", text=DELTA_TEXT)
    claims = [judged_claim(src, SENTENCES[0], quote=SENTENCES[0]) for src in (med, other)]
    claims_classify(workspace=workspace, claims=Claim.objects.filter(pk__in=[c.pk for c in claims]))
    harsh = rule_set_create(workspace=workspace, definition=_harsh())
    with django_capture_on_commit_callbacks(execute=True):
        _put_in_force(workspace, harsh, "med")
    qualities = dict(Claim.objects.values_list("source__ref", "quality"))
    assert qualities == {"source:med": "unsupported", "source:other": "supported"}
