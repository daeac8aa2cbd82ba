"""Rule-set tuning: permissions, validation, impact preview, activation."""

from __future__ import annotations

import pytest
from django.urls import reverse

from audit.forms import RuleSetForm
from tests.audit.conftest import QUOTE, judge
from tests.factories import make_binding, make_claim
from verifier.models import RuleSet, RuleSetActivation
from verifier.scoring.rulesets import CORE_V1
from verifier.selectors.rules import rule_set_active, rule_set_impact, rule_set_label
from verifier.services.ingest_validate import claims_classify

pytestmark = pytest.mark.django_db


def _form_data(**changes):
    data = {k: v for k, v in RuleSetForm.initial_from(CORE_V1).items()}
    data.update({"note": "", "domain_pack": "", "policy": "balanced"})
    data.update(changes)
    return data


@pytest.mark.parametrize("client_name", ["auditor_client", "reviewer_client"])
def test_only_admins_reach_the_rules_pages(request, client_name, admin_client_ws):
    client = request.getfixturevalue(client_name)
    for name in ("audit:rules", "audit:rule-set-new", "audit:rule-set-diff"):
        assert client.get(reverse(name)).status_code == 403
        assert admin_client_ws.get(reverse(name)).status_code == 200
    response = client.post(reverse("audit:rule-set-new"), _form_data(action="save"))
    assert response.status_code == 403
    response = client.post(
        reverse("audit:rule-set-builtin-activate"), {"policy": "strict", "domain_pack": ""}
    )
    assert response.status_code == 403
    assert not RuleSetActivation.objects.exists()


def test_auditors_read_but_cannot_see_the_rules_link(auditor_client, admin_client_ws):
    assert b'href="/audit/rules/"' not in auditor_client.get(reverse("audit:claim-list")).content
    assert b'href="/audit/rules/"' in admin_client_ws.get(reverse("audit:claim-list")).content


def test_weights_must_sum_to_one_and_values_stay_in_unit_range(admin_client_ws):
    response = admin_client_ws.post(
        reverse("audit:rule-set-new"),
        _form_data(weight_logical_structure=0.5, strict_weak_threshold=1.5, action="preview"),
    )
    html = response.content.decode()
    assert response.status_code == 422
    assert "Ensure this value is less than or equal to 1.0" in html
    response = admin_client_ws.post(
        reverse("audit:rule-set-new"), _form_data(weight_logical_structure=0.5, action="save")
    )
    assert "weights sum to" in response.content.decode()
    assert not RuleSet.objects.exists()


def _claims(source, n=4):
    """Judged claims, classed by the rules in force as ingest classes them (the preview
    counts the claims an activation would class again: those with a class)."""
    claims = []
    for _ in range(n):
        claim = make_claim(source, QUOTE)
        judge(claim, confidence=0.55, binding=make_binding(claim, QUOTE))
        claims.append(claim)
    claims_classify(workspace=source.workspace, claims=claims)
    return claims


def test_preview_counts_flips_without_writing(admin_client_ws, source):
    claims = _claims(source)
    response = admin_client_ws.post(
        reverse("audit:rule-set-new"),
        _form_data(balanced_min_overall_score=0.99, balanced_weak_threshold=0.1, action="preview"),
    )
    html = response.content.decode()
    assert 'id="flip-list"' in html
    assert all(c.public_id in html for c in claims)
    assert f"<strong>{len(claims)}</strong> of {len(claims)} claims would change class" in html
    assert not RuleSet.objects.exists() and not RuleSetActivation.objects.exists()


def test_preview_partial_for_htmx(admin_client_ws, source):
    _claims(source, 1)
    response = admin_client_ws.post(
        reverse("audit:rule-set-new"),
        _form_data(balanced_min_overall_score=0.99, action="preview"),
        HTTP_HX_REQUEST="true",
    )
    html = response.content.decode()
    assert "<html" not in html and 'id="flip-list"' in html


def test_save_then_confirm_records_a_new_version_and_its_activation_with_who_and_when(
    admin_client_ws, admin_user, workspace, source
):
    response = admin_client_ws.post(
        reverse("audit:rule-set-new"),
        _form_data(
            name="Delta rules",
            balanced_min_overall_score=0.7,
            domain_pack="general",
            note="stricter for rivers",
            action="save",
        ),
    )
    assert response.status_code == 302
    rule_set = RuleSet.objects.get(workspace=workspace)
    assert (rule_set.name, rule_set.version, rule_set.created_by) == ("Delta rules", 1, admin_user)
    assert not RuleSetActivation.objects.exists()  # saving is not activating
    detail = admin_client_ws.get(response["Location"]).content.decode()
    assert (
        'value="general"' in detail
        and '<option value="balanced" selected>Balanced</option>' in detail
    )
    activate = reverse("audit:rule-set-activate", args=[rule_set.pk])
    target = {"domain_pack": "general", "policy": "balanced"}
    assert admin_client_ws.post(activate, target).status_code == 200  # the confirmation
    assert not RuleSetActivation.objects.exists()
    assert admin_client_ws.post(activate, {**target, "confirm": "1"}).status_code == 302
    activation = RuleSetActivation.objects.get()
    assert activation.activated_by == admin_user and activation.activated_at is not None
    assert (activation.domain_pack, activation.policy) == ("general", "balanced")
    active = rule_set_active(workspace=workspace, domain_pack="general")
    assert active.rule_set == rule_set
    assert active.definition.policy("balanced").min_overall_score == 0.7
    # a second save makes version 2 with its parent, and the diff page shows the change
    admin_client_ws.post(
        reverse("audit:rule-set-new") + f"?from={rule_set.pk}",
        _form_data(
            name="Delta rules",
            balanced_min_overall_score=0.8,
            action="save",
            **{"from": rule_set.pk},
        ),
    )
    v2 = RuleSet.objects.get(workspace=workspace, version=2)
    assert v2.parent == rule_set
    html = admin_client_ws.get(reverse("audit:rule-set-detail", args=[v2.pk])).content.decode()
    assert 'class="changed"' in html and "0.7" in html and "0.8" in html
    rules_html = admin_client_ws.get(reverse("audit:rules")).content.decode()
    assert "Delta rules v2" in rules_html and admin_user.username in rules_html


def test_activate_builtin_and_existing_version(admin_client_ws, workspace):
    """The built-in goes through the same confirmation (flip list) as any version, and a
    ticked new pack is made only once confirmed (reviewer walk 4)."""
    fields = {"policy": "strict", "new_domain_pack": "law", "create_pack": "1"}
    page = admin_client_ws.post(reverse("audit:rule-set-builtin-activate"), fields)
    body = page.content.decode()
    assert page.status_code == 200 and 'id="confirm-activate"' in body
    assert 'id="new-pack-notice"' in body
    assert not RuleSetActivation.objects.exists()
    rule_set = RuleSet.objects.get(workspace=None)
    response = admin_client_ws.post(
        reverse("audit:rule-set-activate", args=[rule_set.pk]), {**fields, "confirm": "1"}
    )
    assert response.status_code == 302
    activation = RuleSetActivation.objects.get()
    assert activation.rule_set.workspace_id is None and activation.policy == "strict"
    bad = admin_client_ws.post(
        reverse("audit:rule-set-activate", args=[activation.rule_set.pk]), {"policy": "yolo"}
    )
    assert bad.status_code == 302 and RuleSetActivation.objects.count() == 1


def test_rule_set_of_another_workspace_is_404(admin_client_ws, other_workspace):
    from audit.services import rule_set_create

    foreign = rule_set_create(workspace=other_workspace, definition=CORE_V1)
    assert (
        admin_client_ws.get(reverse("audit:rule-set-detail", args=[foreign.pk])).status_code == 404
    )
    response = admin_client_ws.post(
        reverse("audit:rule-set-activate", args=[foreign.pk]), {"policy": "balanced"}
    )
    assert response.status_code == 404


def test_impact_selector_matrix_adds_up(workspace, source):
    _claims(source, 3)
    make_claim(source, "Unbound claim with nothing behind it.")
    impact = rule_set_impact(
        workspace=workspace, domain_pack="", definition=CORE_V1, policy="strict"
    )
    # the unbound claim has no class yet: an activation does not class it, it is apart
    assert (impact.total, impact.unclassified) == (3, 1)
    assert sum(impact.before.values()) == sum(impact.after.values()) == 3
    assert impact.moved == sum(
        n for old, row in impact.matrix.items() for new, n in row.items() if old != new
    )
    assert len(impact.flips) == impact.moved


def test_rule_set_names_never_read_core_v1_v1_and_all_packs_is_explicit(admin_client_ws, workspace):
    from audit.services import rule_set_create

    stored = rule_set_create(workspace=workspace, definition=CORE_V1)
    assert rule_set_label(stored) == "Core v1"  # a workspace's own "Core v1", version 1
    html = admin_client_ws.get(reverse("audit:rules")).content.decode()
    assert "Core v1 v1" not in html
    assert f'<a href="{reverse("audit:rule-set-detail", args=[stored.pk])}">Core v1</a>' in html
    assert '<option value="" selected>all packs</option>' in html


def test_save_stores_a_draft_without_activating_it(admin_client_ws):
    response = admin_client_ws.post(
        reverse("audit:rule-set-new"), _form_data(name="Delta draft", action="save")
    )
    draft = RuleSet.objects.get(name="Delta draft")
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("audit:rule-set-detail", args=[draft.pk]))
    assert not RuleSetActivation.objects.exists()
    page = admin_client_ws.get(response["Location"]).content.decode()
    assert "as a draft: it is not active" in page


def test_form_shows_the_running_weight_total(admin_client_ws):
    html = admin_client_ws.get(reverse("audit:rule-set-new")).content.decode()
    assert "Weights total: 1.00 ✓" in html
    bad = admin_client_ws.post(
        reverse("audit:rule-set-new"), _form_data(weight_logical_structure=0.5, action="preview")
    ).content.decode()
    assert "— must be 1.00" in bad


def test_activating_a_stored_version_asks_for_confirmation_with_the_flip_list(
    admin_client_ws, workspace, source
):
    from audit.services import rule_set_create

    _claims(source, 2)
    stored = rule_set_create(workspace=workspace, definition=CORE_V1)
    url = reverse("audit:rule-set-activate", args=[stored.pk])
    page = admin_client_ws.post(url, {"policy": "strict", "domain_pack": ""})
    assert page.status_code == 200
    html = page.content.decode()
    assert "<h1>Activate Core v1?</h1>" in html and "all packs" in html
    assert 'id="impact-result"' in html and "Flip list" in html
    assert not RuleSetActivation.objects.exists()
    done = admin_client_ws.post(url, {"policy": "strict", "domain_pack": "", "confirm": "1"})
    assert done.status_code == 302
    assert RuleSetActivation.objects.get().rule_set == stored


def test_a_domain_pack_is_chosen_from_the_workspaces_and_a_typo_never_becomes_one(
    admin_client_ws, workspace, source
):
    """Issue 40.6: "histroy" is refused; a new pack is created only when confirmed."""
    from audit import services

    rule_set = services.rule_set_builtin_ensure()
    activate = reverse("audit:rule-set-activate", args=[rule_set.pk])
    page = admin_client_ws.get(reverse("audit:rule-set-detail", args=[rule_set.pk])).content
    assert b'<select name="domain_pack">' in page and b'<option value="general"' in page
    # Typed into the old free-text field: refused, nothing activated.
    typo = admin_client_ws.post(
        activate, {"policy": "strict", "domain_pack": "histroy", "confirm": "1"}, follow=True
    )
    assert "“histroy” is not a domain pack of this workspace" in typo.content.decode()
    assert not RuleSetActivation.objects.exists()
    # Typed as a new pack without ticking "create": the confirmation refuses it.
    unticked = admin_client_ws.post(activate, {"policy": "strict", "new_domain_pack": "history"})
    body = unticked.content.decode()
    assert 'id="new-pack-refused"' in body and 'id="confirm-activate"' not in body
    # Ticked: the confirmation says it creates the pack; confirming does.
    ticked = admin_client_ws.post(
        activate, {"policy": "strict", "new_domain_pack": "history", "create_pack": "1"}
    )
    assert 'id="new-pack-notice"' in ticked.content.decode()
    admin_client_ws.post(
        activate,
        {"policy": "strict", "new_domain_pack": "history", "create_pack": "1", "confirm": "1"},
    )
    assert RuleSetActivation.objects.get().domain_pack == "history"
    # Now it is one of the workspace's packs.
    page = admin_client_ws.get(reverse("audit:rule-set-detail", args=[rule_set.pk])).content
    assert b'<option value="history"' in page


def test_weight_totals_print_without_float_artefacts():
    from dataclasses import replace

    from verifier.scoring.rulesets import validate_definition

    # 0 + 0.05 + 0.2 + 0.2 + 0.15 + 0.1 sums (in floats) to 0.7000000000000001.
    weights = (0.0, 0.05, 0.2, 0.2, 0.15, 0.1)
    dims = tuple(replace(d, weight=w) for d, w in zip(CORE_V1.dimensions, weights, strict=True))
    errors = validate_definition(replace(CORE_V1, dimensions=dims))
    message = next(e for e in errors if e.startswith("weights sum to"))
    assert message == "weights sum to 0.7, not 1"


def test_an_htmx_preview_with_an_invalid_field_shows_the_error_beside_it(admin_client_ws):
    """Not "fix the highlighted fields" with nothing highlighted (reviewer walk 5): every
    field comes back out of band, the invalid one with its error and aria-invalid."""
    response = admin_client_ws.post(
        reverse("audit:rule-set-new"),
        _form_data(strict_weak_threshold=1.5, action="preview"),
        HTTP_HX_REQUEST="true",
    )
    html = response.content.decode()
    assert "<html" not in html and "fix the highlighted fields" in html
    field = html.split('id="field-strict_weak_threshold"')[1].split("</span></span>")[0]
    assert 'hx-swap-oob="true"' in field and 'aria-invalid="true"' in field
    assert "Ensure this value is less than or equal to 1.0" in field
    assert 'id="field-name" hx-swap-oob="true"' in html  # a valid field, cleared
    # The full page has the same containers, without out-of-band markers.
    page = admin_client_ws.get(reverse("audit:rule-set-new")).content.decode()
    assert 'id="field-strict_weak_threshold"' in page and "hx-swap-oob" not in page
