"""Times and days in the console, for a team spread over time zones (reviewers in Los
Angeles and Auckland, auditors in Berlin): every time shown says UTC and is UTC, and a
"day" (the Decisions page's, a reviewer's "decided today") is a UTC day, as the pages
say, whatever zone the server runs in (``TIME_ZONE``) or has active.

The server zone is moved here to Los Angeles or Auckland so that a time rendered in the
active zone, or a day cut at its midnight, shows: with ``TIME_ZONE = "UTC"`` both read
the same."""

from __future__ import annotations

import csv
import io
import re
from datetime import UTC, datetime, time, timedelta

import pytest
from django.utils import timezone

from review.models import ReviewLease
from review.selectors.home import review_progress
from review.services import review_decide, review_lease_claim
from tests.factories import make_source
from tests.review.conftest import queue_claim, seen
from tests.verifier.api.conftest import DELTA_TEXT, judged_claim
from verifier.templatetags.vocabulary import utc

pytestmark = pytest.mark.django_db


def _utc_hhmm(moment: datetime) -> str:
    return f"{moment.astimezone(UTC):%H:%M} UTC"


def test_the_utc_filter_says_utc_whatever_zone_is_active():
    moment = datetime(2026, 3, 29, 0, 30, 5, tzinfo=UTC)
    with timezone.override("Pacific/Auckland"):
        assert utc(moment) == "2026-03-29 00:30 UTC"
        assert utc(moment, "seconds") == "2026-03-29 00:30:05 UTC"
        assert utc(moment, "time") == "00:30 UTC"
        assert utc(None, "time") == ""


def test_a_lease_end_is_shown_in_utc_as_it_says(settings, reviewer_client, reviewer, source):
    """The item's lease line and the Decisions page's "holding … until" said "UTC"
    beside a time in the server's zone."""
    settings.TIME_ZONE = "America/Los_Angeles"
    claim = queue_claim(source, "contradicted")
    assert review_lease_claim(claim=claim, reviewer=reviewer, served_reason="test") is not None
    item = reviewer_client.get(f"/review/item/{claim.public_id}/").content.decode()
    until = _utc_hhmm(ReviewLease.objects.get(claim=claim).expires_at)
    assert f"Leased to you until {until} (" in item
    team = reviewer_client.get("/review/decisions/").content.decode()
    assert re.search(rf'until <time datetime="[^"]+">{until}</time>', team), team


@pytest.fixture
def late_utc_decision(monkeypatch, settings, reviewer, source):
    """A decision at 23:40 UTC yesterday (already today in Auckland), seen at 00:30 UTC
    today, with the server in Auckland's zone."""
    settings.TIME_ZONE = "Pacific/Auckland"
    today = timezone.now().astimezone(UTC).date()
    seen_at = datetime.combine(today, time(0, 30), tzinfo=UTC)
    decided_at = seen_at - timedelta(minutes=50)
    claim = queue_claim(source, "contradicted", text="The marsh keeps pace.")
    monkeypatch.setattr(timezone, "now", lambda: decided_at)
    review_decide(
        claim=claim, reviewer=reviewer, decision="supported", expected_version=seen(claim)
    )
    monkeypatch.setattr(timezone, "now", lambda: seen_at)
    return claim


def test_the_decisions_page_lists_a_decision_on_its_utc_day(reviewer_client, late_utc_decision):
    today = timezone.now().date()
    yesterday = today - timedelta(days=1)
    listed = reviewer_client.get(f"/review/decisions/?day={yesterday}").content.decode()
    assert "Days and times are UTC." in listed
    assert 'id="decisions"' in listed and late_utc_decision.public_id in listed
    on_today = reviewer_client.get(f"/review/decisions/?day={today}").content.decode()
    assert late_utc_decision.public_id not in on_today
    assert f"No reviewer decided a claim on {today}" in on_today


def test_decided_today_counts_from_midnight_utc(workspace, reviewer, late_utc_decision):
    progress = review_progress(workspace=workspace, reviewer=reviewer)
    assert (progress.today, progress.last_hour) == (0, 1)


def test_a_day_after_todays_utc_day_is_refused_naming_today_in_utc(reviewer_client):
    """In Auckland it is already tomorrow for half the UTC day: "up to today" alone read
    as a refusal of today."""
    today = timezone.now().astimezone(UTC).date()
    body = reviewer_client.get(f"/review/decisions/?day={today + timedelta(days=1)}")
    text = body.content.decode()
    assert ">Day (UTC)</label>" in text
    assert (
        f'id="id_day_error">Enter a day from 1970-01-01 up to today, {today} UTC: '
        "no decision is made later." in text
    )


@pytest.mark.parametrize(
    "value",
    ["2026-03-29T02:30", "2026-03-29T02:30+02:00", "2026-03-29T00:30Z", "2026-02-30", "29/03"],
)
def test_a_day_that_is_not_a_date_is_an_error_beside_the_field(reviewer_client, value):
    """A time, with or without an offset (a time Berlin's clocks skip included), or a
    date that does not exist: the field's error, never a 500 or a guessed day."""
    response = reviewer_client.get("/review/decisions/", {"day": value})
    assert response.status_code == 200
    assert 'id="id_day_error">Enter a day as a date, such as 2026-06-10.' in (
        response.content.decode()
    )


def test_the_csv_export_says_its_judged_at_column_is_utc(auditor_client, workspace):
    """An auditor in Berlin opening the CSV reads "…Z"; the page offering it says what
    the Z means."""
    source = make_source(workspace, text=DELTA_TEXT)
    judged_claim(source, "The Marrow River delta gains land in wet years.")
    export = auditor_client.get("/audit/claims/export.csv").getvalue().decode()
    rows = list(csv.DictReader(io.StringIO(export)))
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z", rows[0]["judged_at"])
    page = auditor_client.get("/audit/claims/").content.decode()
    notes = re.search(r'<details class="export-notes">.*?</details>', page, re.S).group(0)
    assert "<code>judged_at</code></dt><dd>When the judge answered, in UTC" in notes
