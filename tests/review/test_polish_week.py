"""The Decisions page went one day at a time; an admin wants the week at a glance. It
now shows each reviewer's and admin's decisions per UTC day over the seven days ending
on the chosen day, and their undos, in a fixed number of queries, with an empty state
when nobody decided anything that week."""

from __future__ import annotations

import re
from datetime import UTC, datetime, time, timedelta
from html import unescape

import pytest
from django.utils import timezone
from django.utils.html import strip_tags

from review.selectors.decisions import review_team
from review.services import review_decide, review_undo
from tests.factories import make_user
from tests.review.conftest import queue_claim, seen

pytestmark = pytest.mark.django_db


def _words(cell: str) -> str:
    return " ".join(unescape(strip_tags(cell)).split())


def _week(body: str) -> tuple[str, list[str], dict[str, list[str]]]:
    """The week table: its caption, its column headings, and member → the row's cells."""
    table = re.search(r'<table id="team-week">(.*?)</table>', body, re.S)
    assert table is not None, "the page shows the team's week"
    caption = _words(re.search(r"<caption[^>]*>(.*?)</caption>", table.group(1), re.S).group(1))
    heads = [_words(h) for h in re.findall(r'<th scope="col">(.*?)</th>', table.group(1), re.S)]
    rows = {}
    for row in re.findall(r"<tr data-member=.*?</tr>", table.group(1), re.S):
        name = re.search(r'data-member="([^"]+)"', row).group(1)
        assert re.search(r'<th scope="row">', row), "each member's name heads its row"
        rows[name] = [_words(c) for c in re.findall(r"<td.*?</td>", row, re.S)]
    return caption, heads, rows


def _decide(monkeypatch, at, claim, reviewer, decision="supported"):
    monkeypatch.setattr(timezone, "now", lambda: at)
    claim.refresh_from_db()
    review_decide(claim=claim, reviewer=reviewer, decision=decision, expected_version=seen(claim))


@pytest.fixture
def noon(monkeypatch):
    """Noon UTC today, when the page is read (23:30 UTC a day is still that day)."""
    today = datetime.now(UTC).date()
    at = datetime.combine(today, time(12, 0), tzinfo=UTC)
    monkeypatch.setattr(timezone, "now", lambda: at)
    return at


@pytest.fixture
def week_of_work(monkeypatch, noon, workspace, reviewer, admin_user, source):
    """rita: one decision two days ago, two today of which she undid one; lena: one
    seven days ago (outside the week) and one six days ago at 23:30 UTC; omar: none."""
    lena = make_user("lena", workspace=workspace, role="reviewer")
    make_user("omar", workspace=workspace, role="reviewer")
    claims = [queue_claim(source, "abstained", text=f"Claim {i}.") for i in range(5)]
    _decide(monkeypatch, noon - timedelta(days=2), claims[0], reviewer)
    _decide(monkeypatch, noon - timedelta(hours=1), claims[1], reviewer)
    _decide(monkeypatch, noon - timedelta(minutes=30), claims[2], reviewer, "contradicted")
    review_undo(claim=claims[2], reviewer=reviewer)
    _decide(monkeypatch, noon - timedelta(days=7), claims[3], lena)
    late = datetime.combine((noon - timedelta(days=6)).date(), time(23, 30), tzinfo=UTC)
    _decide(monkeypatch, late, claims[4], lena)
    monkeypatch.setattr(timezone, "now", lambda: noon)
    return noon


def test_the_week_shows_each_members_decisions_per_utc_day_and_undos(
    settings, admin_client_ws, week_of_work
):
    # In Auckland lena's 23:30 UTC decision is already the next day: the week counts
    # UTC days, as the page says.
    settings.TIME_ZONE = "Pacific/Auckland"
    today = week_of_work.date()
    first = today - timedelta(days=6)
    body = admin_client_ws.get("/review/decisions/").content.decode()
    caption, heads, rows = _week(body)
    assert caption == (f"Decisions per day (UTC) of each reviewer and admin, {first} to {today}")
    assert heads[0] == "Member" and heads[-2:] == ["Week", "Undone"]
    assert len(heads) == 1 + 7 + 2
    assert heads[-3] == today.strftime("%a %-d %b")  # the chosen day last
    # per day oldest first, then the week's sum, then the undos
    assert rows["rita"] == ["0", "0", "0", "0", "1", "0", "1", "2", "1"]
    assert rows["lena"] == ["1", "0", "0", "0", "0", "0", "0", "1", "0"]
    assert rows["omar"] == ["0"] * 9
    assert rows["ada"] == ["0"] * 9
    # the day's cell is the team's day's Decided
    team = re.search(r'<tr data-member="rita">.*?<td class="decided">(\d+)</td>', body, re.S)
    assert team is not None and team.group(1) == rows["rita"][6]
    # a day's heading opens that day, and the reviewer filter is kept
    assert f'href="?day={first}"' in body
    one = admin_client_ws.get(f"/review/decisions/?reviewer=rita&day={today}").content.decode()
    assert f'href="?reviewer=rita&amp;day={first}"' in one


def test_the_week_ends_on_the_chosen_day(admin_client_ws, week_of_work):
    day = week_of_work.date() - timedelta(days=2)
    body = admin_client_ws.get(f"/review/decisions/?day={day}").content.decode()
    _, _, rows = _week(body)
    assert rows["rita"][6] == "1"  # the chosen day is the last column
    # the week of eight to two days before today: lena's two days are its second and third
    assert rows["lena"][:3] == ["0", "1", "1"]
    assert rows["rita"][7:] == ["1", "0"]


def test_the_week_costs_a_fixed_number_of_queries(
    django_assert_num_queries, workspace, week_of_work, source, monkeypatch
):
    # The team's day and week: the members, the week's verdicts counted by person and
    # UTC day (the day's counts among them), what is theirs in the queue (two), their holds.
    with django_assert_num_queries(5):
        small = review_team(workspace=workspace, day=week_of_work.date()).week
    # More people deciding on more days: the same queries.
    for n in range(4):
        person = make_user(f"extra{n}", workspace=workspace, role="reviewer")
        claim = queue_claim(source, "abstained", text=f"Extra {n}.")
        _decide(monkeypatch, week_of_work - timedelta(days=n + 1), claim, person)
    monkeypatch.setattr(timezone, "now", lambda: week_of_work)
    with django_assert_num_queries(5):
        big = review_team(workspace=workspace, day=week_of_work.date()).week
    assert len(big.members) == len(small.members) + 4
    assert sum(m.decided for m in big.members) == sum(m.decided for m in small.members) + 4


def test_a_week_nobody_decided_anything_says_so(admin_client_ws, week_of_work):
    day = week_of_work.date() - timedelta(days=30)
    first = day - timedelta(days=6)
    body = admin_client_ws.get(f"/review/decisions/?day={day}").content.decode()
    assert 'id="team-week"' not in body
    empty = re.search(r'<p class="empty" id="week-empty">(.*?)</p>', body, re.S)
    assert empty is not None
    assert _words(empty.group(1)) == (
        f"Nobody decided a claim from {first} to {day} (UTC). The week before."
    )
    assert f'href="?day={day - timedelta(days=7)}"' in empty.group(1)


def test_a_former_reviewers_week_is_still_counted(
    admin_client_ws, week_of_work, workspace, source, monkeypatch
):
    """Someone who decided this week and is no reviewer now is listed after the team,
    so the week's sums hold every decision the list below shows."""
    gone = make_user("gus", workspace=workspace, role="reviewer")
    claim = queue_claim(source, "abstained", text="Decided by gus.")
    _decide(monkeypatch, week_of_work - timedelta(hours=2), claim, gone)
    monkeypatch.setattr(timezone, "now", lambda: week_of_work)
    gone.memberships.update(role="auditor")
    _, _, rows = _week(admin_client_ws.get("/review/decisions/").content.decode())
    assert list(rows)[-1] == "gus" and rows["gus"][-2:] == ["1", "0"]
