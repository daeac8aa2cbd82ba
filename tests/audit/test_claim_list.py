"""The claim list: filters, export links, read-only console."""

from __future__ import annotations

import pytest
from django.urls import reverse

from tests.factories import make_claim
from tests.paging_walk import walk_back, walk_forward

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


def _list_ids(body: str) -> list[str]:
    import re

    # (a claim's link carries the list's place, for its page's way back: ``?list=``)
    return re.findall(r'href="/audit/claims/(claim:[a-z0-9]+)/(?:\?list=[^"]*)?"', body)


def test_claim_list_keyset_pages_see_every_claim_once_with_ties(auditor_client, source):
    """Newest first by (created_at, id): forward by rel=next and back by rel=prev,
    every claim once although many share a creation instant."""
    from django.utils import timezone

    from verifier.models import Claim

    claims = [make_claim(source, f"Claim number {i} about the delta.") for i in range(113)]
    instants = [timezone.now() - timezone.timedelta(hours=h) for h in (1, 2, 3)]
    for i, claim in enumerate(claims):
        Claim.objects.filter(pk=claim.pk).update(created_at=instants[i % 3])
    expected = list(
        Claim.objects.filter(pk__in=[c.pk for c in claims])
        .order_by("-created_at", "-id")
        .values_list("public_id", flat=True)
    )
    url = reverse("audit:claim-list")
    seen, sizes, body = walk_forward(auditor_client, url, _list_ids)
    assert sizes == [50, 50, 13]
    assert seen == expected
    assert "Page 3 of 3 · 113 in all" in body
    back = walk_back(auditor_client, url, body, _list_ids)
    assert back == expected[:100]
    # a filter is kept across pages
    body = auditor_client.get(reverse("audit:claim-list"), {"q": "number 1"}).content.decode()
    assert "in all" in body


def test_claim_list_count_past_the_cap_is_estimated_and_says_so(
    auditor_client, source, monkeypatch
):
    from django.db import connection

    from verifier.selectors import counts

    for i in range(12):
        make_claim(source, f"Claim number {i} about the delta.")
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE verifier_claim")
    body = auditor_client.get(reverse("audit:claim-list")).content.decode()
    assert "12 in all" in body and "estimated" not in body
    monkeypatch.setattr(counts, "COUNT_CAP", 5)
    body = auditor_client.get(reverse("audit:claim-list")).content.decode()
    import re

    assert re.search(
        r"Page 1 · (about [\d,]+|more than 5) in all \(estimated; counted exactly up to 5\)",
        body,
    )


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"state": "bogus"}, "state"),
        ({"reason": "not a reason"}, "reason"),
        ({"job": "abc"}, "job"),
    ],
)
def test_an_invalid_filter_is_said_next_to_its_field(
    auditor_client, supported_claim, params, field
):
    """Not a silent "No claims match" (auditor walk M6): the API's rule for a claim
    list's filters, the error beside the field, and exports refused the same way."""
    html = auditor_client.get(reverse("audit:claim-list"), params).content.decode()
    assert "No claims match" not in html and supported_claim.public_id not in html
    assert f'id="filter-{field}-error"' in html and 'aria-invalid="true"' in html
    assert "cannot be applied" in html
    export = auditor_client.get(reverse("audit:claim-export-csv"), params)
    assert export.status_code == 400 and field in export.content.decode()


def test_a_reason_may_be_typed_as_its_label(auditor_client, source):
    from tests.audit.conftest import judge

    claim = make_claim(source, "The delta floods every spring.")
    judge(claim, label="contradicted", confidence=0.9)
    assert claim.state_reason == "contradicted"
    url = reverse("audit:claim-list")
    html = auditor_client.get(url, {"reason": "contradicted by the span"}).content.decode()
    assert claim.public_id in html and "cannot be applied" not in html
    assert 'value="contradicted"' in html  # the field now reads as the code
