"""Job pages' figures read truthfully and alike: a progress bar says 100% only when the
work is done (floored, ``chunked_percent``), claims by state are listed in the console's one
order with every state shown, and a trace says how long its steps took in words."""

from __future__ import annotations

import re

import pytest
from django.template import Context, Template
from django.urls import reverse

from tests.audit.test_traces_quality import _report
from tests.factories import make_claim, make_source
from verifier.models import (
    ClaimStateChoices,
    IngestJob,
    IngestStage,
    Trace,
    VerificationJob,
    VerificationJobStatus,
)
from verifier.selectors.ingest import job_progress_rows
from verifier.time_words import duration_words

pytestmark = pytest.mark.django_db

ORDER = [state.value for state in ClaimStateChoices]


def _percent(html: str) -> str:
    found = re.search(r'<progress class="progress" max="100" value="(\d+)"', html)
    assert found is not None
    return found.group(1)


@pytest.mark.parametrize(("done", "shown"), [(994, "99"), (995, "99"), (999, "99"), (5, "0")])
def test_a_running_verify_job_never_reads_100_percent(reviewer_client, workspace, done, shown):
    job = VerificationJob.objects.create(
        workspace=workspace, status=VerificationJobStatus.RUNNING, total=1000, done=done
    )
    html = reviewer_client.get(reverse("verify:job", args=[job.pk])).content.decode()
    assert _percent(html) == shown


def test_a_succeeded_verify_job_reads_100_percent(reviewer_client, workspace):
    job = VerificationJob.objects.create(
        workspace=workspace, status=VerificationJobStatus.SUCCEEDED, total=1000, done=1000
    )
    html = reviewer_client.get(reverse("verify:job", args=[job.pk])).content.decode()
    assert _percent(html) == "100"


def test_an_ingest_stage_reads_100_percent_only_when_done(workspace):
    job = IngestJob.objects.create(
        workspace=workspace,
        stage=IngestStage.VALIDATE,
        progress={
            IngestStage.EXTRACT: {"done": 200, "total": 200},
            IngestStage.VALIDATE: {"done": 199, "total": 200},
            IngestStage.EMBED: {"done": 1, "total": 3},
        },
    )
    rows = {row["stage"]: row["percent"] for row in job_progress_rows(job)}
    assert rows[IngestStage.EXTRACT] == 100
    assert rows[IngestStage.VALIDATE] == 99
    assert rows[IngestStage.EMBED] == 33


def test_the_verify_job_tiles_list_every_state_in_the_console_order(reviewer_client, workspace):
    source = make_source(workspace, ref="source:tiles")
    claims = [
        make_claim(source, f"Claim {n}.", state=state)
        for n, state in enumerate(["unverified", "contradicted", "supported", "supported"])
    ]
    job = VerificationJob.objects.create(
        workspace=workspace,
        status=VerificationJobStatus.SUCCEEDED,
        total=4,
        done=4,
        items=[{"index": i, "claim_id": c.public_id} for i, c in enumerate(claims)],
    )
    html = reviewer_client.get(reverse("verify:job", args=[job.pk])).content.decode()
    tiles = html[html.index('aria-label="Claims by state"') :]
    tiles = tiles[: tiles.index("</ul>")]
    found = re.findall(r'class="state state-(\w+)"[^>]*>[^<]*</span> (\d+)</li>', tiles)
    assert found == [
        ("supported", "2"),
        ("inferred", "0"),
        ("unverified", "1"),
        ("contradicted", "1"),
        ("excluded", "0"),
    ]


def test_the_states_at_the_end_of_an_ingest_job_read_in_the_console_order(
    auditor_client, workspace
):
    report = _report(90, 8, 2, 1)
    # as PostgreSQL's jsonb hands a stored report back: shortest keys first
    report["states"] = {"excluded": 1, "inferred": 2, "supported": 3, "unverified": 4}
    job = IngestJob.objects.create(workspace=workspace, status="succeeded", quality_report=report)
    html = auditor_client.get(reverse("ingest:job", args=[job.pk])).content.decode()
    line = re.search(r'<p id="states-at-end">(.*?)</p>', html, re.S)
    assert line is not None
    assert line.group(1) == (
        f"States at the end of job #{job.pk}: 3 supported · 2 inferred · 4 unverified · "
        "0 contradicted · 1 excluded"
    )


@pytest.mark.parametrize(
    ("ms", "words"),
    [
        (None, ""),
        (0.4, "0.4 ms"),
        (38.2, "38 ms"),
        (44.5, "45 ms"),
        (999.6, "1 s"),
        (1234.0, "1.2 s"),
        (59_949, "59.9 s"),
        (60_000, "1 min"),
        (411_538.7, "6 min 52 s"),
        (7_512_000, "2 h 5 min"),
    ],
)
def test_a_duration_in_words(ms, words):
    assert duration_words(ms) == words
    assert Template("{{ ms|duration }}").render(Context({"ms": ms})) == words


def test_the_trace_page_says_its_steps_time_in_words(auditor_client, workspace):
    trace = Trace.objects.create(
        workspace=workspace,
        operation="claims_verify",
        query="700 claims",
        document={
            "version": 1,
            "operation": "claims_verify",
            "steps": [{"name": "verify", "ms": 411_538.7}],
            "timing": {"total_ms": 411_538.7},
        },
    )
    html = auditor_client.get(reverse("audit:trace-detail", args=[trace.trace_id])).content
    heading = re.search(r'<h2 id="steps-h">(.*?)</h2>', html.decode(), re.S)
    assert heading is not None and heading.group(1) == "Steps (6 min 52 s in all)"


def test_state_order_filter_is_the_counts_order():
    out = Template("{% for s, n in counts|in_state_order %}{{ s }}={{ n }};{% endfor %}").render(
        Context({"counts": {"excluded": 1, "supported": 2}})
    )
    assert out == "supported=2;inferred=0;unverified=0;contradicted=0;excluded=1;"
    assert ORDER == ["supported", "inferred", "unverified", "contradicted", "excluded"]
