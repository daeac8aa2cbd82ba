"""The claim list's Quality filter says its classes in words, and a claim's page leads
back to the list as the auditor left it (auditor walk: the options were lowercase codes;
the "Claims" breadcrumb dropped the filters and the page)."""

from __future__ import annotations

import html as html_lib
import re
from urllib.parse import parse_qs, urlsplit

import pytest
from django.urls import reverse

from tests.factories import make_claim

pytestmark = pytest.mark.django_db


def _quality_options(page: str) -> list[tuple[str, str]]:
    select = page.split('<select name="quality"', 1)[1].split("</select>", 1)[0]
    return re.findall(r'<option value="([^"]*)"[^>]*>([^<]*)</option>', select)


def test_the_quality_filter_offers_its_classes_in_words(auditor_client):
    page = auditor_client.get(reverse("audit:claim-list")).content.decode()
    assert _quality_options(page) == [
        ("", "any"),
        ("supported", "Supported"),
        ("weak", "Weak"),
        ("unsupported", "Unsupported"),
    ]
    chosen = auditor_client.get(reverse("audit:claim-list"), {"quality": "weak"}).content
    assert re.search(r'<option value="weak" selected[^>]*>Weak</option>', chosen.decode())


def _claim_link(page: str, public_id: str) -> str:
    prefix = reverse("audit:claim-detail", args=[public_id])
    found = re.search(rf'<a href="({re.escape(prefix)}[^"]*)" dir="auto">', page)
    assert found, "the claim is not linked from the list"
    return html_lib.unescape(found.group(1))


def _crumb(page: str) -> str:
    found = re.search(r'<a href="([^"]*)" id="crumb-claims">Claims</a>', page)
    assert found
    return html_lib.unescape(found.group(1))


def test_the_claim_page_leads_back_to_the_list_as_it_was(auditor_client, source):
    claim = make_claim(source, "Coarser sand settles first where the current slows.")
    params = {"state": claim.state, "q": "sand settles", "page": "1"}
    listing = auditor_client.get(reverse("audit:claim-list"), params).content.decode()
    link = _claim_link(listing, claim.public_id)
    assert urlsplit(link).path == reverse("audit:claim-detail", args=[claim.public_id])

    detail = auditor_client.get(link)
    assert detail.status_code == 200
    back = urlsplit(_crumb(detail.content.decode()))
    assert back.path == reverse("audit:claim-list") and not back.netloc
    assert parse_qs(back.query) == {k: [v] for k, v in params.items()}


def test_an_unfiltered_list_leads_back_to_the_plain_list(auditor_client, source):
    claim = make_claim(source, "Coarser sand settles first where the current slows.")
    listing = auditor_client.get(reverse("audit:claim-list")).content.decode()
    link = _claim_link(listing, claim.public_id)
    assert link == reverse("audit:claim-detail", args=[claim.public_id])
    page = auditor_client.get(link).content.decode()
    assert _crumb(page) == reverse("audit:claim-list")


@pytest.mark.parametrize(
    ("carried", "kept"),
    [
        # only the list's own parameters travel back; anything else is dropped
        ("next=https://evil.example/&state=unverified", "state=unverified"),
        ("//evil.example/claims", ""),
        ("https://evil.example/?state=unverified", ""),
        ("state=" + "x" * 5000, ""),
        ("q=%00&job=3", "job=3"),
        ("excel=1&after=abc", "after=abc"),
    ],
)
def test_the_way_back_carries_only_the_lists_own_parameters(auditor_client, source, carried, kept):
    claim = make_claim(source, "Coarser sand settles first where the current slows.")
    url = reverse("audit:claim-detail", args=[claim.public_id])
    response = auditor_client.get(url, {"list": carried})
    assert response.status_code == 200
    back = _crumb(response.content.decode())
    assert back == reverse("audit:claim-list") + (f"?{kept}" if kept else "")
