"""The CSV export for Excel: ``?excel=1`` starts the same CSV with a UTF-8 byte-order mark
(Excel reads a CSV without one in the legacy code page and garbles accented and
non-Latin text); the default CSV stays clean UTF-8 for programs, its first bytes the
header. The claim list offers both links, each with the list's filters."""

from __future__ import annotations

import csv
import io
import re

import pytest
from django.urls import reverse

from audit.exports import CSV_COLUMNS
from tests.factories import make_claim

pytestmark = pytest.mark.django_db

ACCENTED = "Die Überschwemmung von 1962 erreichte São Tomé; 東京 と Ελλάδα."


def _raw(response) -> bytes:
    assert response.status_code == 200
    return b"".join(response.streaming_content)


def test_the_default_csv_has_no_byte_order_mark(auditor_client, source):
    make_claim(source, ACCENTED)
    body = _raw(auditor_client.get(reverse("audit:claim-export-csv")))
    assert body.startswith(b"claim_id,text,")
    rows = list(csv.reader(io.StringIO(body.decode("utf-8"))))
    assert tuple(rows[0]) == CSV_COLUMNS and rows[1][1] == ACCENTED


def test_the_csv_for_excel_starts_with_a_utf8_byte_order_mark_and_is_otherwise_the_same(
    auditor_client, source
):
    make_claim(source, ACCENTED)
    plain = _raw(auditor_client.get(reverse("audit:claim-export-csv"), {"state": "unverified"}))
    response = auditor_client.get(
        reverse("audit:claim-export-csv"), {"state": "unverified", "excel": "1"}
    )
    excel = _raw(response)
    assert excel.startswith(b"\xef\xbb\xbfclaim_id,")
    assert excel[3:] == plain
    assert re.search(r'filename="claims-\d{8}T\d{6}Z-excel\.csv"', response["Content-Disposition"])
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    # Excel's reading: UTF-8 with its signature gives back the text as written
    rows = list(csv.reader(io.StringIO(excel.decode("utf-8-sig"))))
    assert tuple(rows[0]) == CSV_COLUMNS and rows[1][1] == ACCENTED


@pytest.mark.parametrize("value", ["yes", "2", "true"])
def test_an_excel_value_that_means_nothing_is_refused_by_name(auditor_client, source, value):
    response = auditor_client.get(reverse("audit:claim-export-csv"), {"excel": value})
    assert response.status_code == 400
    assert response.content.decode().startswith("excel: use excel=1")


def test_excel_zero_is_the_plain_csv_and_jsonl_ignores_excel(auditor_client, source):
    make_claim(source, ACCENTED)
    body = _raw(auditor_client.get(reverse("audit:claim-export-csv"), {"excel": "0"}))
    assert body.startswith(b"claim_id,")
    jsonl = _raw(auditor_client.get(reverse("audit:claim-export-jsonl"), {"excel": "1"}))
    assert jsonl.startswith(b"{")


def test_the_claim_list_offers_both_csv_links_with_its_filters(auditor_client, source):
    make_claim(source, ACCENTED)
    html = auditor_client.get(
        reverse("audit:claim-list"), {"state": "unverified", "excel": "1"}
    ).content.decode()
    base = reverse("audit:claim-export-csv")
    links = re.findall(rf'<a href="{re.escape(base)}\?([^"]*)"', html)
    # the plain CSV keeps the filter and never carries excel=1 from the list's address
    assert links == ["state=unverified", "state=unverified&amp;excel=1"]
    assert 'id="export-csv-excel" aria-describedby="export-excel-note">CSV for Excel</a>' in html
    assert 'id="export-excel-note"' in html
