"""The rule-set editor answers invalid values as the other admin forms do: 422 with the
form's errors, each said once, at the top of the form (linked to its fields)."""

from __future__ import annotations

import pytest
from django.urls import reverse

from audit.forms import RuleSetForm
from verifier.models import RuleSet
from verifier.scoring.rulesets import CORE_V1

pytestmark = pytest.mark.django_db

NEW = "audit:rule-set-new"


def _form_data(**changes: object) -> dict[str, object]:
    data: dict[str, object] = dict(RuleSetForm.initial_from(CORE_V1))
    data.update({"note": "", "domain_pack": "", "policy": "balanced"})
    data.update(changes)
    return data


def _weights_error(html: str) -> str:
    start = html.index("weights sum to")
    return html[start : html.index("</li>", start)]


def test_saving_weights_that_do_not_total_one_answers_422_with_the_error_once(admin_client_ws):
    response = admin_client_ws.post(
        reverse(NEW), _form_data(weight_logical_structure=0.5, action="save")
    )
    html = response.content.decode()
    assert response.status_code == 422
    message = _weights_error(html)
    assert html.count(message) == 1
    # at the top of the form, before the fields and the impact preview, linked to a weight
    errors = html.split('id="form-errors"')[1].split('id="id_name"')[0]
    assert message in errors and 'role="alert"' in errors
    assert f'href="#{RuleSetForm(base=CORE_V1).first_weight().auto_id}"' in errors
    assert html.index(message) < html.index("Impact preview")
    assert not RuleSet.objects.exists()


def test_an_invalid_field_on_save_answers_422_and_links_the_field(admin_client_ws):
    response = admin_client_ws.post(
        reverse(NEW), _form_data(strict_weak_threshold=1.5, action="save")
    )
    html = response.content.decode()
    assert response.status_code == 422
    errors = html.split('id="form-errors"')[1].split('id="id_name"')[0]
    assert 'href="#id_strict_weak_threshold"' in errors
    assert html.count("fix the highlighted fields") == 1


def test_an_htmx_preview_sends_the_errors_to_the_top_once(admin_client_ws):
    response = admin_client_ws.post(
        reverse(NEW),
        _form_data(weight_logical_structure=0.5, action="preview"),
        HTTP_HX_REQUEST="true",
    )
    html = response.content.decode()
    assert response.status_code == 422  # swapped in: base.html's responseHandling
    message = _weights_error(html)
    assert html.count(message) == 1
    assert '<div id="form-errors" hx-swap-oob="true">' in html
    # fixed, the preview clears the block at the top
    fixed = admin_client_ws.post(reverse(NEW), _form_data(action="preview"), HTTP_HX_REQUEST="true")
    assert fixed.status_code == 200
    assert '<div id="form-errors" hx-swap-oob="true"></div>' in fixed.content.decode()
