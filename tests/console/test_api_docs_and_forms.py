"""The API docs load from the app (issue 40.4); small things seen (issue 40.8)."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from verifier.api.curl_examples import EXAMPLES
from verifier.models import ApiKey
from verifier.selectors.workspaces import api_key_authenticate
from verifier.services.workspaces import api_key_create

pytestmark = pytest.mark.django_db


def test_swagger_ui_is_served_from_static_under_the_strict_csp(client):
    response = client.get("/connect/v1/docs")
    assert response.status_code == 200
    page = response.content.decode()
    assert "cdn.jsdelivr.net" not in page and "https://" not in page
    assert "/static/drf_spectacular_sidecar/swagger-ui-dist/swagger-ui-bundle.js" in page
    assert "<style" not in page and "<script>" not in page  # no inline style or script
    csp = response["Content-Security-Policy"]
    assert "unsafe-inline" not in csp and "cdn" not in csp
    assert "script-src 'self'" in csp and "style-src 'self'" in csp
    bundle = client.get("/static/drf_spectacular_sidecar/swagger-ui-dist/swagger-ui-bundle.js")
    assert bundle.status_code == 200


def test_the_schema_description_carries_a_curl_example_per_family(client):
    schema = client.get("/connect/v1/schema", {"format": "json"}).json()
    description = schema["info"]["description"]
    for example in EXAMPLES:
        assert f"### {example.family}" in description
    assert description.count("```sh") == len(EXAMPLES)


def test_api_keys_page_links_the_docs_shows_curl_and_makes_and_revokes_keys(
    admin_client_ws, workspace
):
    page = admin_client_ws.get(reverse("audit:api-keys")).content.decode()
    assert 'href="/connect/v1/docs"' in page
    assert page.count('class="curl-example"') == len(EXAMPLES) >= 8
    nav = page.split('<nav aria-label="Main">')[1].split("</nav>")[0]
    assert 'href="/audit/api-keys/"' in nav and 'href="/connect/v1/docs"' in nav

    made = admin_client_ws.post(
        reverse("audit:api-key-new"), {"name": "ci", "scope": "read"}, follow=True
    )
    assert made.redirect_chain == [(reverse("audit:api-keys"), 302)]
    assert made.status_code == 200 and made["Cache-Control"] == "no-store"
    raw = re.search(r'<pre id="new-key"[^>]*>([^<]+)</pre>', made.content.decode()).group(1)
    key = api_key_authenticate(raw_key=raw)
    assert key is not None and key.name == "ci" and key.scope == "read"
    again = admin_client_ws.get(reverse("audit:api-keys")).content.decode()
    assert raw not in again  # shown once

    admin_client_ws.post(reverse("audit:api-key-revoke", args=[key.pk]), {"confirmed": "1"})
    assert ApiKey.objects.get(pk=key.pk).revoked_at is not None
    assert api_key_authenticate(raw_key=raw) is None
    bad = admin_client_ws.post(reverse("audit:api-key-new"), {"name": "", "scope": "root"})
    assert bad.status_code == 422 and ApiKey.objects.count() == 1


def test_api_keys_page_is_for_admins(reviewer_client, auditor_client):
    assert reviewer_client.get(reverse("audit:api-keys")).status_code == 403
    assert auditor_client.get(reverse("audit:api-keys")).status_code == 403


def test_the_trust_trend_chart_has_labelled_axes(auditor_client, workspace):
    from tests.audit.test_traces_quality import _report
    from verifier.models import IngestJob

    for supported in (95, 50):
        IngestJob.objects.create(
            workspace=workspace, status="succeeded", quality_report=_report(supported, 4, 1, 0)
        )
    page = auditor_client.get("/audit/quality/").content.decode()
    y_axis = page.split('id="chart-y-axis"')[1].split("</g>")[0]
    x_axis = page.split('id="chart-x-axis"')[1].split("</g>")[0]
    assert [t for t in re.findall(r">(\d+)</text>", y_axis)] == ["0", "50", "90", "100"]
    assert "Trust score" in y_axis
    assert len(re.findall(r">#\d+</text>", x_axis)) == 2 and "Ingest job" in x_axis


@pytest.mark.parametrize("path", ["/ingest/", "/verify/", "/audit/rag/", "/audit/memory/"])
def test_input_forms_share_one_layout(admin_client_ws, path):
    page = admin_client_ws.get(path).content.decode()
    form = re.search(r'<form method="post"[^>]*enctype="multipart/form-data"[^>]*>', page)
    assert form is not None and "form-card" in form.group(0), path


def test_revoking_an_unknown_or_another_workspaces_key_is_a_404_with_a_message(
    admin_client_ws, other_workspace
):
    theirs = api_key_create(workspace=other_workspace, name="theirs", scope="read").api_key
    for key_id in (999999, theirs.pk):
        response = admin_client_ws.post(
            reverse("audit:api-key-revoke", args=[key_id]), {"confirmed": "1"}
        )
        assert response.status_code == 404
        page = response.content.decode()
        assert '<li class="message-error">No such key in this workspace.</li>' in page
        assert 'id="api-key-form"' in page  # the keys page itself, not a bare 404
    assert ApiKey.objects.get(pk=theirs.pk).revoked_at is None


def test_without_script_a_revoke_asks_first_on_a_page_of_its_own(admin_client_ws):
    made = admin_client_ws.post(
        reverse("audit:api-key-new"), {"name": "nightly", "scope": "read"}, follow=True
    )
    raw = re.search(r'<pre id="new-key"[^>]*>([^<]+)</pre>', made.content.decode()).group(1)
    key = api_key_authenticate(raw_key=raw)
    url = reverse("audit:api-key-revoke", args=[key.pk])
    asked = admin_client_ws.post(url)  # what a browser without script sends
    page = asked.content.decode()
    assert asked.status_code == 200 and "Revoke the key “nightly”?" in page
    assert 'name="confirmed" value="1"' in page and f'action="{url}"' in page
    assert ApiKey.objects.get(pk=key.pk).revoked_at is None  # nothing done yet
    assert admin_client_ws.post(url, {"confirmed": "1"}).status_code == 302
    assert ApiKey.objects.get(pk=key.pk).revoked_at is not None
