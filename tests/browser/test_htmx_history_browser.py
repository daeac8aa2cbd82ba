"""Chromium: a URL that answers both a page and, to htmx, a part of one, always comes back
as the page — after Back, Forward, a reload or in a new tab.

htmx fetches the part under the page's own URL (a chip, a pagination link, a RAG claim,
the previous review item: ``hx-push-url``; a job's panel polling its page's URL). Unless
the answer says ``Vary: HX-Request``, the browser's HTTP cache keeps that bare part as
the answer for the URL, and Back or Forward from another page showed it without the
layout: no navigation, no heading, no main landmark, no styles.
"""

from __future__ import annotations

import re
from urllib.parse import urljoin

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import login_browser
from tests.factories import make_source, make_user, make_workspace
from tests.review.conftest import queue_claim
from verifier.models import AuditPackJob, IngestJob, VerificationJob
from verifier.services.rag_audit import rag_audit_run

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# A page of the console that htmx never fetches a part of: where the walk goes between.
ELSEWHERE = "/glossary/"

COUNT_POLLS = """() => {
  window.polls = 0;
  document.body.addEventListener("htmx:afterRequest", () => { window.polls += 1; });
}"""


def _assert_whole_page(page, *, heading: str, content: str) -> None:
    """The layout is there (main navigation, one <h1>, the main landmark) around
    ``content`` (a selector that must be visible in it)."""
    expect(page.get_by_role("navigation", name="Main")).to_have_count(1)
    expect(page.get_by_role("main")).to_have_count(1)
    expect(page.get_by_role("heading", level=1)).to_have_count(1)
    expect(page.get_by_role("heading", level=1)).to_contain_text(heading)
    expect(page.locator(f"main {content}").first).to_be_visible()


def _traverse(page, step) -> None:
    """Back or Forward (``step``), then wait for the document the browser shows: onto an
    entry htmx pushed in the same document, htmx reloads the page (it keeps no history
    snapshots: base.html), and the next step must not cut that reload short."""
    page.evaluate("window.walkedAway = true")
    step()
    page.wait_for_function("() => !window.walkedAway")
    page.wait_for_load_state()


def _walk_history(page, live_server, *, heading: str, content: str) -> None:
    """From the URL htmx pushed (or polled): away to another page, Back, Back again,
    Forward, Forward to the other page and Back, then a reload: each time the whole page."""
    here = page.url
    page.goto(f"{live_server.url}{ELSEWHERE}")
    expect(page.get_by_role("heading", level=1)).to_have_text("Glossary")
    _traverse(page, page.go_back)
    assert page.url == here
    _assert_whole_page(page, heading=heading, content=content)
    _traverse(page, page.go_back)  # the page the walk started on
    expect(page.get_by_role("main")).to_have_count(1)
    _traverse(page, page.go_forward)
    assert page.url == here
    _assert_whole_page(page, heading=heading, content=content)
    _traverse(page, page.go_forward)
    expect(page.get_by_role("heading", level=1)).to_have_text("Glossary")
    _traverse(page, page.go_back)
    assert page.url == here
    _assert_whole_page(page, heading=heading, content=content)
    page.reload()
    _assert_whole_page(page, heading=heading, content=content)


def _open_in_new_tab(page, href: str, *, heading: str, content: str) -> None:
    """The link's href (what "Open in new tab" opens) gives the whole page."""
    tab = page.context.new_page()
    try:
        tab.goto(urljoin(page.url, href))
        _assert_whole_page(tab, heading=heading, content=content)
    finally:
        tab.close()


def test_queue_chip_and_page_link_come_back_as_the_queue_page(browser_page, live_server):
    page = browser_page
    workspace = make_workspace("history-queue")
    reviewer = make_user("rita", workspace=workspace, role="reviewer")
    source = make_source(workspace, ref="source:plain")
    gap = queue_claim(source, "coverage_gap", text="A riskier coverage gap.")
    # one more than a page (review.selectors.queue.QUEUE_PAGE_SIZE) of one reason
    for n in range(51):
        queue_claim(source, "no_evidence", text=f"Claim number {n} has no evidence.")
    login_browser(page, live_server, reviewer)

    page.goto(f"{live_server.url}/review/")
    chip = page.locator('a[data-reason="no_evidence"]')
    chip_href = chip.get_attribute("href")
    chip.click()  # htmx swaps the results and pushes the chip's URL
    expect(page).to_have_url(re.compile(r"reason=no_evidence"))
    expect(page.locator(f'tr[data-claim="{gap.public_id}"]')).to_have_count(0)
    _walk_history(page, live_server, heading="Review queue", content="table.review-queue")
    expect(page.locator(f'tr[data-claim="{gap.public_id}"]')).to_have_count(0)
    _open_in_new_tab(page, chip_href, heading="Review queue", content="table.review-queue")

    next_link = page.locator('.pagination a[rel="next"]')
    next_href = next_link.get_attribute("href")
    next_link.click()  # keyset pagination: htmx too
    expect(page).to_have_url(re.compile(r"after="))
    expect(page.locator("tr[data-claim]")).to_have_count(1)
    _walk_history(page, live_server, heading="Review queue", content="table.review-queue")
    expect(page.locator("tr[data-claim]")).to_have_count(1)
    _open_in_new_tab(page, next_href, heading="Review queue", content="table.review-queue")


def test_a_rag_claim_comes_back_as_the_audit_page(browser_page, live_server):
    page = browser_page
    workspace = make_workspace("history-rag")
    auditor = make_user("ada", workspace=workspace, role="auditor")
    chunks = '{"id": "c1", "text": "Tarn Point Light was first lit on 3 November 1858."}\n'
    answer = "Tarn Point Light was first lit on 3 November 1858 [c1]. It is blue [c1]."
    audit = rag_audit_run(workspace=workspace, answer=answer, chunks=chunks).audit
    login_browser(page, live_server, auditor)

    page.goto(f"{live_server.url}/audit/rag/{audit.pk}/")
    link = page.locator("#rag-answer a").nth(1)
    href = link.get_attribute("href")
    link.click()
    expect(page).to_have_url(re.compile(rf"/audit/rag/{audit.pk}/claims/1/$"))
    _walk_history(page, live_server, heading=f"RAG audit {audit.pk}", content="#rag-claim")
    expect(page.locator("#rag-claim")).to_contain_text("It is blue")
    _open_in_new_tab(page, href, heading=f"RAG audit {audit.pk}", content="#rag-claim")


def test_the_previous_review_item_comes_back_as_the_item_page(browser_page, live_server):
    """The item page is also never stored (``no-store``: it shows a lease); Vary keeps
    its part out of the page's place should that ever change."""
    page = browser_page
    workspace = make_workspace("history-item")
    reviewer = make_user("rita", workspace=workspace, role="reviewer")
    source = make_source(workspace, ref="source:plain")
    first = queue_claim(source, "coverage_gap", text="The riskier claim comes first.")
    queue_claim(source, "no_evidence", text="The second claim waits.")
    login_browser(page, live_server, reviewer)

    page.goto(f"{live_server.url}/review/")
    page.get_by_role("button", name="Start reviewing").click()
    expect(page.locator("#review-item")).to_have_attribute("data-claim", first.public_id)
    page.locator("#btn-skip").click()
    previous = page.locator("#link-previous")
    href = previous.get_attribute("href")
    previous.click()
    expect(page.locator("#review-item")).to_have_attribute("data-claim", first.public_id)
    expect(page).to_have_url(re.compile(re.escape(first.public_id)))
    _walk_history(page, live_server, heading=first.text, content="#review-item")
    expect(page.locator("#review-item")).to_have_attribute("data-claim", first.public_id)
    _open_in_new_tab(page, href, heading=first.text, content="#review-item")


@pytest.mark.parametrize("kind", ["ingest", "verify", "pack"])
def test_a_polled_job_page_comes_back_whole_after_the_job_ended(
    browser_page, live_server, settings, kind
):
    """The job page's panel polls the page's own URL: the last part it fetched (the
    job's end) must not become the page that Back shows."""
    settings.CELERY_TASK_ALWAYS_EAGER = False  # no worker: the test ends the job
    page = browser_page
    workspace = make_workspace(f"history-{kind}")
    login_browser(page, live_server, make_user("ada", workspace=workspace, role="auditor"))
    if kind == "ingest":
        job = IngestJob.objects.create(workspace=workspace)
        url, heading, panel = f"/ingest/jobs/{job.pk}/", f"Ingest job #{job.pk}", "#job-progress"
        end = {"status": "succeeded"}
    elif kind == "verify":
        job = VerificationJob.objects.create(workspace=workspace, total=3)
        url, heading, panel = f"/verify/jobs/{job.pk}/", f"Verification #{job.pk}", "#verify-job"
        end = {"status": "succeeded", "done": 3}
    else:
        job = AuditPackJob.objects.create(workspace=workspace, scope={"scope": "claims"}, total=3)
        url, heading, panel = f"/audit/pack/jobs/{job.pk}/", f"Audit pack #{job.pk}", "#pack-job"
        end = {"status": "failed", "error": "the disk is full"}

    page.goto(f"{live_server.url}{ELSEWHERE}")  # where Back from the job page goes
    page.goto(f"{live_server.url}{url}")
    page.evaluate(COUNT_POLLS)
    page.wait_for_function("() => window.polls >= 2")
    type(job).objects.filter(pk=job.pk).update(**end)
    expect(page.locator(f"{panel} .status-{end['status']}").first).to_be_visible()
    _walk_history(page, live_server, heading=heading, content=f".status-{end['status']}")
