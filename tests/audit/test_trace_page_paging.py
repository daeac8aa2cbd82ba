"""The trace page of a big trace: its long lists (steps, spans used, claims considered)
a page at a time, each paged on its own and counted whole; the whole document a link
away (the JSON the API answers, which a member's session opens), never inlined. A
1,000-claim verification trace's page was 4.4 MB of HTML (bench/trace_page.py)."""

from __future__ import annotations

import html as html_lib
import json
import re

import pytest
from django.db import connection
from django.test import Client, TestCase
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from audit.paging import CONSOLE_PAGE_SIZE
from tests.factories import make_claim, make_source, make_user
from tests.verifier.api.conftest import client_for
from verifier.models import Trace, TraceClaim

pytestmark = pytest.mark.django_db

N = 2 * CONSOLE_PAGE_SIZE + 20  # three pages: 50, 50, 20
SENTENCE = "Record {n} says the delta grew by {n} metres."
RESULT_ONLY = "recorded-in-the-result-only"


def _sentences(n: int) -> list[str]:
    return [SENTENCE.format(n=i) for i in range(n)]


def _steps(children: int) -> list[dict]:
    """submit, verify (with ``children`` bind steps inside it), store."""
    return [
        {"name": "submit", "ms": 1.5, "detail": {"claims": children}},
        {
            "name": "verify",
            "ms": 40.25,
            "steps": [
                {"name": f"bind {i}", "ms": 0.5, "detail": {"claim": i}} for i in range(children)
            ],
        },
        {"name": "store", "ms": 2.75},
    ]


def _trace(workspace, source, claims, *, spans: int, steps: int) -> Trace:
    """A claims/verify trace considering ``claims`` (every other one included), listing
    ``spans`` spans (the claims' quotes, in turn) and ``steps`` + 3 steps."""
    version = source.versions.get()
    listed = []
    for i in range(spans):
        claim = claims[i % len(claims)]
        start = version.text.index(claim.text)
        listed.append(
            {
                "claim_id": claim.public_id,
                "source_ref": source.ref,
                "source_version": version.number,
                "source_hash": version.sha256,
                "start": start,
                "end": start + len(claim.text),
                "quote": claim.text,
                "match": "exact",
            }
        )
    trace = Trace.objects.create(
        workspace=workspace,
        operation="claims_verify",
        query=f"{len(claims)} claims",
        document={
            "version": 1,
            "operation": "claims_verify",
            "request": {"claims_total": len(claims)},
            "seeds": [{"claim_id": claims[0].public_id}],
            "spans": listed,
            "result": {"note": RESULT_ONLY},
            "steps": _steps(steps),
            "timing": {"total_ms": 44.5},
        },
    )
    TraceClaim.objects.bulk_create(
        TraceClaim(
            trace=trace,
            claim=claim,
            included=i % 2 == 0,
            exclusion_reason="" if i % 2 == 0 else "verification_gate",
            verification_state="supported",
        )
        for i, claim in enumerate(claims)
    )
    return trace


@pytest.fixture
def long_source(workspace):
    return make_source(workspace, ref="source:ledger", text=" ".join(_sentences(2 * N)))


@pytest.fixture
def claims(long_source):
    return [make_claim(long_source, text) for text in _sentences(N)]


def _url(trace, query: str = "") -> str:
    return reverse("audit:trace-detail", args=[trace.trace_id]) + query


def _get(client, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200, url
    return response.content.decode()


def _table(page: str, heading_id: str) -> str:
    """The table of the section headed ``heading_id``."""
    found = re.search(rf'aria-labelledby="{heading_id}".*?</table>', page, re.S)
    return found.group() if found else ""


def _considered(page: str) -> list[str]:
    """The claim ids of the considered table's rows, in order."""
    return re.findall(r'<code class="muted">(claim:[^<]+)</code>', _table(page, "considered-h"))


def _spans(page: str) -> list[str]:
    """The offsets of the spans table's rows, in order."""
    return re.findall(r">(\[\d+, \d+\))<", _table(page, "spans-h"))


def _steps_shown(page: str) -> list[tuple[str, str]]:
    """(name, time or 'continued ...') of each step the page lists, in order (the name as
    recorded: the page shows it beside its label)."""
    tree = page[page.index('id="trace-steps"') : page.index('aria-labelledby="asked-h"')]
    return re.findall(
        r'<span class="step-name"[^>]*>[^<]+</span> <code class="muted step-code">([^<]+)</code> '
        r'<span class="step-ms">([^<]+)</span>',
        tree,
    )


def _nav(page: str, label: str) -> str:
    found = re.search(rf'<nav class="pagination" aria-label="{label}">.*?</nav>', page, re.S)
    assert found, label
    return found.group()


def _link(page: str, label: str, rel: str) -> str | None:
    found = re.search(rf'<a href="([^"]+)" rel="{rel}">', _nav(page, label))
    return html_lib.unescape(found[1]) if found else None


CLAIMS_NAV = "Pages of the claims considered"
SPANS_NAV = "Pages of the spans used"
STEPS_NAV = "Pages of the steps"


def test_a_big_trace_page_shows_a_page_of_each_list_counted_whole(
    auditor_client, workspace, long_source, claims
):
    trace = _trace(workspace, long_source, claims, spans=N, steps=N)
    page = _get(auditor_client, _url(trace))
    assert _considered(page) == [c.public_id for c in claims[0::2]][:CONSOLE_PAGE_SIZE]
    assert len(_spans(page)) == CONSOLE_PAGE_SIZE
    assert len(_steps_shown(page)) == CONSOLE_PAGE_SIZE
    # Counted whole: the headings and each list's own navigation.
    assert f"(60 included, {N} in all)" in page and f"Spans used ({N})" in page
    assert f"Page 1 of 3 · {N} in all" in _nav(page, CLAIMS_NAV)
    assert f"Page 1 of 3 · {N} in all" in _nav(page, SPANS_NAV)
    assert f"Page 1 of 3 · {N + 3} in all" in _nav(page, STEPS_NAV)
    # The document is not repeated on the page: what only it holds is a link away.
    assert RESULT_ONLY not in page and "<details>" not in page
    assert f'href="/connect/v1/traces/{trace.trace_id}"' in page
    # The page does not grow with the trace: ten times the spans and steps, same size.
    bigger = _trace(workspace, long_source, claims, spans=10 * N, steps=10 * N)
    bigger_page = _get(auditor_client, _url(bigger))
    assert len(_spans(bigger_page)) == len(_steps_shown(bigger_page)) == CONSOLE_PAGE_SIZE
    assert len(bigger_page.encode()) < 1.05 * len(page.encode())


def test_each_list_pages_forward_and_back_on_its_own(
    auditor_client, workspace, long_source, claims
):
    trace = _trace(workspace, long_source, claims, spans=N, steps=N)
    base = _url(trace)
    first = _get(auditor_client, base)
    assert _link(first, CLAIMS_NAV, "prev") is None
    seen: list[str] = []
    page, url = first, base
    for number in (1, 2, 3):
        rows = _considered(page)
        assert len(rows) == (CONSOLE_PAGE_SIZE if number < 3 else N - 2 * CONSOLE_PAGE_SIZE)
        assert _spans(page) == _spans(first)  # the other lists stay where they were
        seen += rows
        following = _link(page, CLAIMS_NAV, "next")
        if number == 3:
            assert following is None
            break
        assert following is not None and following.endswith("#considered-h")
        url = base + following.removesuffix("#considered-h")
        page = _get(auditor_client, url)
    # Every claim considered, once each, included first.
    included = [c.public_id for c in claims[0::2]]
    assert seen == included + [c.public_id for c in claims[1::2]]
    # The spans page on their own, keeping the claims' page.
    spans_next = _link(page, SPANS_NAV, "next")
    assert spans_next is not None and "claims_page=3" in spans_next
    moved = _get(auditor_client, base + spans_next.removesuffix("#spans-h"))
    assert _considered(moved) == _considered(page) and _spans(moved) != _spans(first)
    # And back: Previous twice from the claims' last page is the first page again.
    back = moved
    for _ in range(2):
        previous = _link(back, CLAIMS_NAV, "prev")
        assert previous is not None
        back = _get(auditor_client, base + previous.removesuffix("#considered-h"))
    assert _considered(back) == _considered(first)
    spans_back = _link(back, SPANS_NAV, "prev")
    assert spans_back is not None
    assert _spans(_get(auditor_client, base + spans_back.removesuffix("#spans-h"))) == _spans(first)
    # A number past the end is the last page; one that is no number the first.
    assert _considered(_get(auditor_client, base + "?claims_page=99")) == seen[-20:]
    for bad in ("abc", "²", "-1"):
        assert _considered(_get(auditor_client, f"{base}?claims_page={bad}"))[0] == seen[0]


def test_a_page_of_steps_inside_a_step_shows_that_step_as_continued(
    auditor_client, workspace, long_source, claims
):
    trace = _trace(workspace, long_source, claims[:2], spans=0, steps=N)
    names: list[str] = []
    url = _url(trace)
    for number in (1, 2, 3):
        page = _get(auditor_client, url)
        shown = _steps_shown(page)
        if number > 1:  # the page opens inside "verify", shown again without its time
            assert shown[0] == ("verify", "continued from the page before")
            tree = page[page.index('id="trace-steps"') :]
            verify = tree[tree.index('step-code">verify</code>') :]
            assert verify.index('<ol class="trace-steps">') < verify.index(">bind ")
        names += [name for name, ms in shown if not ms.startswith("continued")]
        following = _link(page, STEPS_NAV, "next")
        if following is not None:
            url = _url(trace) + following.removesuffix("#steps-h")
    assert following is None
    assert shown[-1] == ("store", "3 ms")  # the last page ends with the last step
    assert names == ["submit", "verify", *(f"bind {i}" for i in range(N)), "store"]


def test_the_pages_queries_do_not_grow_with_the_trace(
    auditor_client, workspace, long_source, claims
):
    small = _trace(workspace, long_source, claims[:2], spans=2, steps=1)
    big = _trace(workspace, long_source, claims, spans=10 * N, steps=10 * N)
    counts = []
    for url in (
        _url(small),
        _url(big),
        _url(big, "?claims_page=2&spans_page=3&steps_page=7"),
    ):
        with CaptureQueriesContext(connection) as queries:
            page = _get(auditor_client, url)
        assert len(_considered(page)) <= CONSOLE_PAGE_SIZE
        assert len(_spans(page)) <= CONSOLE_PAGE_SIZE
        counts.append(len(queries))
    # session, user, membership; the trace with its counts, a page of its claims, the
    # seeds' claims, the page of spans' claims and their source versions
    assert counts[0] == counts[1] == counts[2] <= 8


def test_the_whole_document_is_a_link_away_for_members_only(
    auditor_client, workspace, other_workspace
):
    """A real claims/verify trace: the page links the JSON; the auditor's session opens
    it and gets what the API answers a key; others get a 403 or 404."""
    sentences = _sentences(CONSOLE_PAGE_SIZE + 10)
    source = make_source(workspace, ref="source:record", text=" ".join(sentences))
    body = {"claims": [{"text": s, "source": source.ref, "quote": s} for s in sentences]}
    with TestCase.captureOnCommitCallbacks(execute=True):
        answer = client_for(workspace).post(
            "/connect/v1/claims/verify", json.dumps(body), content_type="application/json"
        )
    assert answer.status_code == 200, answer.content
    trace = Trace.objects.get(workspace=workspace, operation="claims_verify")
    page = _get(auditor_client, _url(trace))
    assert len(_considered(page)) == len(_spans(page)) == CONSOLE_PAGE_SIZE
    assert '"result"' not in page and "&quot;result&quot;" not in page
    view = re.search(r'<a href="([^"]+)">View the whole document</a>', page)
    export = re.search(r'<a class="button" href="([^"]+)" download>Export JSON</a>', page)
    assert view and export
    view_url, export_url = html_lib.unescape(view[1]), html_lib.unescape(export[1])
    api_answer = client_for(workspace, "read").get(f"/connect/v1/traces/{trace.trace_id}")
    assert api_answer.status_code == 200
    opened = auditor_client.get(view_url)
    assert opened.status_code == 200 and opened["Content-Type"].startswith("application/json")
    assert opened.json() == api_answer.json()
    assert len(opened.json()["document"]["spans"]) == len(sentences)  # all of them
    downloaded = auditor_client.get(export_url)
    assert downloaded.status_code == 200
    assert downloaded["Content-Disposition"].startswith("attachment")
    assert json.loads(downloaded.content) == api_answer.json()
    # Others: a member of another workspace (404, as for a missing trace), a signed-in
    # person of no workspace (403), no one signed in (sign-in page; the API's 401).
    outsider = Client()
    outsider.force_login(make_user(workspace=other_workspace, role="auditor"))
    nobody = Client()
    nobody.force_login(make_user())
    for url in (_url(trace), view_url, export_url):
        assert outsider.get(url).status_code == 404, url
        assert nobody.get(url).status_code == 403, url
    assert Client().get(_url(trace)).status_code == 302
    assert Client().get(view_url).status_code == 401
    assert Client().get(export_url).status_code == 401
