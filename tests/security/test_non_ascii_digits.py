"""A number read from a query string or a form field is ASCII digits
(``verifier.untrusted_input.decimal_int``): "²" and "٣" pass ``str.isdigit`` but not
``int`` (or read as another number), and each such field was a 500 (attack probe)."""

from __future__ import annotations

import pytest

from tests.factories import make_claim
from verifier.untrusted_input import decimal_int

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("12", 12),
        ("0", 0),
        ("²", None),
        ("٣", None),
        ("1²", None),
        ("", None),
        (" 1", None),
        ("-1", None),
        ("1" * 19, None),
        (None, None),
        (12, None),
    ],
)
def test_decimal_int_reads_only_ascii_digits(value, expected):
    assert decimal_int(value) == expected


def test_console_fields_with_a_superscript_digit_are_no_500(
    auditor_client, admin_client_ws, reviewer_client, source
):
    claim = make_claim(source, "Sediment settles where the current slows.")
    sid = source.pk
    gets = [
        (auditor_client, f"/audit/sources/{sid}/?v=²"),
        (auditor_client, f"/audit/sources/{sid}/diff/?from=1&to=²"),
        (auditor_client, f"/audit/sources/{sid}/?span=²-5"),
        (auditor_client, f"/audit/sources/{sid}/?span=1-²"),
        (auditor_client, f"/audit/sources/{sid}/?at=²"),
        (auditor_client, "/audit/claims/?page=²"),
        (auditor_client, "/audit/claims/?after=².1"),
        (auditor_client, "/audit/claims/?after=1.²"),
        (auditor_client, "/audit/claims/?job=²"),
        (auditor_client, "/audit/traces/?page=²"),
        (auditor_client, "/audit/activity/?page=²"),
        (reviewer_client, "/review/?page=²"),
        (reviewer_client, f"/review/item/{claim.public_id}/?at=²"),
        (admin_client_ws, "/audit/rules/diff/?a=²&b=1"),
        (admin_client_ws, "/audit/rules/new/?from=²"),
    ]
    for client, url in gets:
        assert client.get(url).status_code < 500, url
    posts = [
        (admin_client_ws, "/audit/rules/new/?from=²", {}),
        (reviewer_client, "/review/relations/bulk/", {"decision": "accept", "relations": "²"}),
        (
            reviewer_client,
            "/review/bulk/",
            {"action": "assign", "assignee": "²", "claims": claim.public_id},
        ),
    ]
    for client, url, data in posts:
        assert client.post(url, data).status_code < 500, url
