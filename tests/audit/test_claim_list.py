"""The claim list: filters, export links, read-only console."""

from __future__ import annotations

import pytest
from django.urls import reverse

from tests.factories import make_claim

pytestmark = pytest.mark.django_db


def test_claim_list_filters_and_keeps_url_names(auditor_client, supported_claim, source):
    make_claim(source, "Salt marsh grasses trap silt at high tide.")
    url = reverse("audit:claim-list")
    html = auditor_client.get(url, {"state": "supported"}).content.decode()
    assert supported_claim.public_id in html
    assert "Salt marsh" not in html
    assert "export.jsonl?state=supported" in html
    empty = auditor_client.get(url, {"q": "nothing-like-this"}).content.decode()
    assert "No claims match these filters" in empty


def test_audit_pages_are_read_only(auditor_client, supported_claim):
    url = reverse("audit:claim-detail", args=[supported_claim.public_id])
    assert auditor_client.post(url).status_code == 405
    assert auditor_client.post(reverse("audit:claim-list")).status_code == 405


def test_signed_out_visitors_are_sent_to_login(client, supported_claim):
    response = client.get(reverse("audit:claim-detail", args=[supported_claim.public_id]))
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]
