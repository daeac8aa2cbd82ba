"""The Decisions page (/review/decisions/): a team walk found no page where a lead reads
who decided which claim today, how far each reviewer got, or where a reviewer finds the
claim a colleague decided this morning (the activity log leaves decisions out, the
queue lists only undecided claims, and progress is only one's own)."""

from __future__ import annotations

import re
from datetime import timedelta
from html import unescape

import pytest
from django.test import Client
from django.utils import timezone
from django.utils.html import strip_tags

from review.models import ReviewAssignment
from review.selectors.home import review_home_actions, review_progress
from review.services import review_bulk_assign, review_decide, review_lease_claim, review_undo
from tests.factories import make_source, make_user
from tests.review.conftest import queue_claim, seen

pytestmark = pytest.mark.django_db


def _decide(claim, reviewer, decision, note=""):
    claim.refresh_from_db()
    review_decide(
        claim=claim, reviewer=reviewer, decision=decision, note=note, expected_version=seen(claim)
    )


def _client(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _words(cell: str) -> str:
    return " ".join(unescape(strip_tags(cell)).split())


def _rows(body: str) -> dict[tuple[str, str], list[str]]:
    """The decisions table's rows: (claim id, reviewer) → the row's cells in words."""
    table = re.search(r'<table id="decisions">(.*?)</table>', body, re.S)
    assert table is not None, "the page lists decisions"
    rows: dict[tuple[str, str], list[str]] = {}
    for row in re.findall(r"<tr data-claim=.*?</tr>", table.group(1), re.S):
        cells = [_words(c) for c in re.findall(r"<td.*?</td>", row, re.S)]
        claim_id = re.search(r'data-claim="([^"]+)"', row).group(1)
        key = (claim_id, cells[1] + (" undo" if cells[3] == "Undo" else ""))
        rows[key] = cells
    return rows


def _team(body: str) -> dict[str, list[str]]:
    table = re.search(r'<table id="team-day">(.*?)</table>', body, re.S)
    assert table is not None, "the page shows the team's day"
    team = {}
    for row in re.findall(r"<tr data-member=.*?</tr>", table.group(1), re.S):
        name = re.search(r'data-member="([^"]+)"', row).group(1)
        team[name] = [_words(c) for c in re.findall(r"<td.*?</td>", row, re.S)]
    return team


@pytest.fixture
def team(workspace, reviewer, admin_user):
    omar = make_user("omar", workspace=workspace, role="reviewer")
    lena = make_user("lena", workspace=workspace, role="reviewer")
    return {"rita": reviewer, "omar": omar, "lena": lena, "ada": admin_user}


@pytest.fixture
def day_of_work(team, source):
    """rita supports a claim; omar contradicts one and undoes it; lena says a third is
    not stated and omar then contradicts it (his decision replaces hers)."""
    kept = queue_claim(source, "contradicted", text="The delta gains land.")
    undone = queue_claim(source, "contradicted", text="The marsh keeps pace.")
    replaced = queue_claim(source, "abstained", text="Salt reaches the lagoons.")
    _decide(kept, team["rita"], "supported", note="span says so")
    _decide(undone, team["omar"], "contradicted")
    review_undo(claim=undone, reviewer=team["omar"])
    _decide(replaced, team["lena"], "not_stated")
    _decide(replaced, team["omar"], "contradicted")
    return {"kept": kept, "undone": undone, "replaced": replaced}


def test_the_lead_reads_who_decided_what_today_and_what_became_of_it(
    admin_client_ws, team, day_of_work
):
    body = admin_client_ws.get("/review/decisions/").content.decode()
    rows = _rows(body)
    kept, undone, replaced = (day_of_work[k].public_id for k in ("kept", "undone", "replaced"))
    assert len(rows) == 5  # four decisions and one undo
    assert rows[(kept, "rita")][3:] == ["Supports", "Stands.", "Supported", "span says so"]
    assert rows[(undone, "omar")][3] == "Contradicts"
    assert rows[(undone, "omar")][4].startswith("Undone at ")
    assert rows[(undone, "omar undo")][4].startswith("Withdrew their decision of ")
    assert rows[(undone, "omar undo")][4].endswith("(Contradicts).")
    lena = rows[(replaced, "lena")]
    assert lena[3] == "Not stated"
    assert lena[4].startswith("Replaced by omar's decision of ") and lena[4].endswith(
        "(Contradicts)."
    )
    assert rows[(replaced, "omar")][3:5] == ["Contradicts", "Stands."]
    # the day field shows the day listed (today when none is asked for)
    day_field = re.search(r'<input[^>]*name="day"[^>]*>', body).group(0)
    assert f'value="{timezone.localdate().isoformat()}"' in day_field
    # each claim links to its item, where the verdict history is
    assert f'href="/review/item/{kept}/"' in body
    # no code on the page: the answers and states are labelled
    listed = strip_tags(re.search(r'<table id="decisions">(.*?)</table>', body, re.S).group(1))
    for code in ("entailed", "not_stated", "withdrawn", "human_"):
        assert code not in listed


def test_each_reviewers_day_agrees_with_their_own_progress_and_yours(
    admin_client_ws, workspace, team, day_of_work, source
):
    # lena has two claims assigned and holds a lease on a third (her "Yours": 3)
    waiting = [queue_claim(source, "abstained", text=f"Waiting {i}.") for i in range(3)]
    review_bulk_assign(
        workspace=workspace, claims=waiting[:2], assignee_id=team["lena"].pk, by=team["ada"]
    )
    review_lease_claim(claim=waiting[2], reviewer=team["lena"], served_reason="next")
    # an assignment of a claim decided since is no longer theirs in the queue
    review_bulk_assign(
        workspace=workspace,
        claims=[day_of_work["kept"]],
        assignee_id=team["rita"].pk,
        by=team["ada"],
    )
    assert ReviewAssignment.objects.count() == 3
    team_day = _team(admin_client_ws.get("/review/decisions/").content.decode())
    assert set(team_day) == {"ada", "lena", "omar", "rita"}
    for name, user in team.items():
        progress = review_progress(workspace=workspace, reviewer=user)
        yours = {
            a.key: a.count
            for a in review_home_actions(workspace=workspace, user=user, role="reviewer")
        }["mine"]
        decided, _undone, _last, queue_left, _holding = team_day[name]
        assert int(decided) == progress.today, name
        assert int(queue_left) == yours.n, name
    assert team_day["omar"][:2] == ["1", "1"]  # two decisions, one undone
    assert team_day["lena"][3] == "3"
    assert team_day["lena"][4].startswith(waiting[2].public_id + " until ")
    assert team_day["ada"][0] == "0" and team_day["ada"][2] == "none"


def test_a_reviewer_finds_what_a_colleague_decided_today(team, day_of_work):
    """rita (no blind review) looks up omar's decisions: only his are listed."""
    body = _client(team["rita"]).get("/review/decisions/?reviewer=omar").content.decode()
    rows = _rows(body)
    assert {who for _claim, who in rows} == {"omar", "omar undo"}
    assert "Decisions on" in body and "by omar" in body
    # his row in the team table links to this list, the filter kept for the day
    day = timezone.localdate().isoformat()
    assert f'href="?reviewer=omar&amp;day={day}" aria-current="true"' in body


def test_blind_review_hides_what_others_decided_on_claims_i_have_not(
    workspace, team, day_of_work, source
):
    rita = team["rita"]
    rita.memberships.filter(workspace=workspace).update(blind_review=True)
    body = _client(rita).get("/review/decisions/").content.decode()
    rows = _rows(body)
    kept, replaced = day_of_work["kept"].public_id, day_of_work["replaced"].public_id
    # her own decision: shown
    assert rows[(kept, "rita")][3:6] == ["Supports", "Stands.", "Supported"]
    # others' on a claim she has not decided: who and when, not what
    lena = rows[(replaced, "lena")]
    assert lena[3] == "hidden (blind review)" and lena[5] == "hidden (blind review)"
    assert "Contradicts" not in lena[4] and lena[4].startswith("Replaced by omar's decision")
    assert rows[(replaced, "omar")][3] == "hidden (blind review)"


def test_a_day_without_decisions_says_so(admin_client_ws, team, day_of_work):
    yesterday = (timezone.localdate() - timedelta(days=1)).isoformat()
    body = admin_client_ws.get(f"/review/decisions/?day={yesterday}").content.decode()
    assert f"No reviewer decided a claim on {yesterday}." in body
    assert 'id="decisions"' not in body
    # the team's day is still shown, all at zero
    assert {row[0] for row in _team(body).values()} == {"0"}
    body = admin_client_ws.get("/review/decisions/?reviewer=ada").content.decode()
    assert "ada made no decision on" in body


def test_an_invalid_filter_lists_nothing_and_says_why_beside_its_field(
    admin_client_ws, team, day_of_work
):
    for query, field, said in (
        ("reviewer=nobody", "reviewer", "No reviewer or admin of this workspace is called that"),
        ("day=yesterday", "day", "Enter a day as a date"),
        ("day=9999-12-31", "day", "Enter a day from 1970-01-01 up to today"),
        ("day=1969-12-31", "day", "Enter a day from 1970-01-01 up to today"),
    ):
        response = admin_client_ws.get(f"/review/decisions/?{query}")
        assert response.status_code == 200, query
        body = response.content.decode()
        assert 'id="decisions"' not in body and 'id="team-day"' not in body, query
        assert "This filter is invalid, so no decisions are listed" in body, query
        assert f'id="id_{field}_error">{said}' in body, query
        tag = re.search(rf'<(?:input|select)[^>]*id="id_{field}"[^>]*>', body).group(0)
        assert 'aria-invalid="true"' in tag, query


def test_another_workspaces_decisions_are_not_listed(
    admin_client_ws, other_workspace, team, day_of_work
):
    stranger = make_user("sam", workspace=other_workspace, role="reviewer")
    theirs = queue_claim(make_source(other_workspace, ref="source:far"), "contradicted")
    _decide(theirs, stranger, "supported")
    body = admin_client_ws.get("/review/decisions/").content.decode()
    assert theirs.public_id not in body and "sam" not in _team(body)
    assert "sam" not in admin_client_ws.get("/review/decisions/?reviewer=sam").content.decode()


def test_the_page_reads_the_same_number_of_queries_for_few_and_many_decisions(
    admin_client_ws, team, source
):
    def count_queries() -> int:
        from django.db import connection
        from django.test.utils import CaptureQueriesContext

        with CaptureQueriesContext(connection) as captured:
            assert admin_client_ws.get("/review/decisions/").status_code == 200
        return len(captured)

    _decide(queue_claim(source, "contradicted", text="One."), team["rita"], "supported")
    few = count_queries()
    for i, name in enumerate(("omar", "lena", "rita", "omar", "lena", "ada")):
        claim = queue_claim(source, "contradicted", text=f"Claim {i}.")
        _decide(claim, team[name], "contradicted")
        review_lease_claim(claim=claim, reviewer=team[name], served_reason="next")
    assert count_queries() == few
    assert few <= 12
