"""Dates on the Connect API, as a team spread over time zones meets them: every timestamp
is RFC 3339 in UTC ending in ``Z`` (a client in Auckland or Los Angeles converts one
value, never guesses a zone), and the API has no date filter: ``?since=``, ``?until=``
and ``?created_after=`` are refused as unknown parameters (400 naming the parameter,
never 500 and never silently ignored, which would answer every row), whatever the value
(with an offset, a ``Z``, none, a time Berlin's clocks skip, or no date at all)."""

from __future__ import annotations

import re

import pytest

from tests.verifier.api.conftest import judged_claim
from verifier.models import ActivityAction
from verifier.services.activity import activity_record

pytestmark = pytest.mark.django_db

RFC3339_UTC = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$")


@pytest.mark.parametrize("name", ["since", "until", "created_after"])
@pytest.mark.parametrize(
    "value",
    [
        "2026-03-29T02:30",  # no offset; a time Europe/Berlin's clocks skip that night
        "2026-03-29T02:30+02:00",
        "2026-03-29T00:30Z",
        "2026-02-30",
        "yesterday",
    ],
)
@pytest.mark.parametrize("url", ["/connect/v1/claims", "/connect/v1/activity"])
def test_a_date_filter_the_api_lacks_is_refused_naming_it(api, url, name, value):
    response = api.get(url, {name: value})
    assert response.status_code == 400, (url, name, value)
    error = response.json()["error"]
    assert (error["code"], error["details"]) == ("unknown_field", {"field": name})


def test_timestamps_are_rfc3339_in_utc(api, workspace, delta):
    judged_claim(delta, "The delta gains land in wet years.")
    activity_record(workspace=workspace, action=ActivityAction.MEMBER_ADDED, target="rita")
    claim = api.get("/connect/v1/claims").json()["results"][0]
    assert RFC3339_UTC.match(claim["judge"]["at"]), claim["judge"]
    [event] = api.get("/connect/v1/activity").json()["results"]
    assert RFC3339_UTC.match(event["created_at"]), event
    source = api.get("/connect/v1/sources").json()["results"][0]
    assert RFC3339_UTC.match(source["created_at"]), source
