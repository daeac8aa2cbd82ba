"""One definition of each count (issue 39, point 2): the home page, the exports, the job
page and its quality report, the quality page and the rule-set preview count the same
claims by the same states, and nothing counts an unverified or contradicted claim as
supported — even when the rule set classed every claim "supported" (job #1 of the issue:
"Supported 1172 (100 %)" beside 2 contradicted and 28 unverified)."""

from __future__ import annotations

import csv
import io
import re
from collections import Counter

import pytest
from django.urls import reverse

from tests.audit.conftest import QUOTE, judge
from tests.audit.test_rules import _form_data
from tests.factories import make_binding, make_claim
from verifier.models import Claim, IngestJob
from verifier.scoring.rulesets import CORE_V1
from verifier.selectors.claims import claim_state_counts
from verifier.selectors.rules import rule_set_impact
from verifier.services.claim_state import claim_exclude
from verifier.services.ingest_store import ingest_job_report

pytestmark = pytest.mark.django_db

EXPECTED = {"supported": 2, "inferred": 1, "unverified": 1, "contradicted": 1, "excluded": 1}


@pytest.fixture
def job(workspace, source, admin_user):
    """A finished job whose six claims the rule set all classed "supported"."""
    job = IngestJob.objects.create(workspace=workspace, status="running", label="delta")
    for _ in range(2):
        claim = make_claim(source, QUOTE, ingest_job=job)
        judge(claim, binding=make_binding(claim, QUOTE))
    stale = make_claim(source, QUOTE, ingest_job=job)  # bound to text that changed since
    judge(stale, binding=make_binding(stale, QUOTE, source_hash="0" * 64))
    contradicted = make_claim(source, "Sediment never settles.", ingest_job=job)
    judge(contradicted, label="contradicted", binding=make_binding(contradicted, QUOTE))
    inferred = make_claim(source, "Silt settles in slow water.", ingest_job=job)
    judge(inferred)  # entailed, nothing bound
    excluded = make_claim(source, QUOTE, ingest_job=job)
    judge(excluded, binding=make_binding(excluded, QUOTE))
    claim_exclude(claim=excluded, reason="duplicate", actor=admin_user)
    Claim.objects.filter(ingest_job=job).update(quality="supported")
    job.quality_report = ingest_job_report(job=job)
    job.status = "succeeded"
    job.save(update_fields=["quality_report", "status"])
    return job


def _tiles(html: str, marker: str = "") -> dict[str, int]:
    if marker:
        html = html[html.index(marker) :]
        html = html[: html.index("</ul>")]
    found = re.findall(r'<span class="n">(\d+)</span> <span class="label">(\w+)</span>', html)
    return {state.lower(): int(n) for n, state in found}  # codes or their labels


def test_every_page_counts_the_same_states(job, workspace, admin_client_ws):
    assert claim_state_counts(workspace=workspace) == EXPECTED
    # The home page.
    assert _tiles(admin_client_ws.get("/").content.decode()) == EXPECTED
    # The exports: one row per claim, its state.
    body = b"".join(admin_client_ws.get("/audit/claims/export.csv").streaming_content).decode()
    exported = Counter(row["state"] for row in csv.DictReader(io.StringIO(body)))
    assert {s: exported.get(s, 0) for s in EXPECTED} == EXPECTED
    # The job page: its claims now, and the report's states at the end of the job.
    page = admin_client_ws.get(reverse("ingest:job", args=[job.pk])).content.decode()
    assert _tiles(page, 'id="states-now"') == EXPECTED
    assert job.quality_report["states"] == EXPECTED
    assert f"Quality report at the end of job #{job.pk}" in page
    # The quality page's "claims now" column.
    quality = admin_client_ws.get(reverse("audit:quality")).content.decode()
    cell = quality[quality.index('class="states-now"') :]
    cell = cell[: cell.index("</td>")]
    now = {s.lower(): int(n) for n, s in re.findall(r">(\d+) (\w+)</a>", cell)}  # labels
    assert now == EXPECTED
    # The rule-set preview.
    preview = admin_client_ws.post(reverse("audit:rule-set-new"), _form_data(action="preview"))
    line = re.search(
        r'id="impact-states">The claims by state now: ([^.]+)\.', preview.content.decode()
    )
    shown = {s: int(n) for n, s in re.findall(r"(\d+) (\w+)", line.group(1))}
    assert shown == EXPECTED


def test_the_report_never_counts_an_unsupported_state_as_supported(job):
    quality = job.quality_report["quality"]
    # The two supported claims; the stale and the inferred one are weak at best, the
    # contradicted one unsupported, the excluded one not validated.
    assert (quality["supported"], quality["weak"], quality["unsupported"]) == (2, 2, 1)
    assert quality["total"] == 5 and quality["g2"]["passed"] is False


def test_the_rule_set_preview_never_counts_an_unverified_claim_as_supported(job, workspace):
    impact = rule_set_impact(
        workspace=workspace, domain_pack="", definition=CORE_V1, policy="lenient"
    )
    assert impact.before["supported"] <= EXPECTED["supported"]
    assert impact.after["supported"] <= EXPECTED["supported"]
    assert impact.states == EXPECTED
    assert impact.total == 5 and impact.not_validated == 1


def test_the_claim_list_quality_filter_is_the_capped_class(job, admin_client_ws):
    html = admin_client_ws.get(f"/audit/claims/?job={job.pk}&quality=supported").content.decode()
    states = re.findall(r'<span class="state state-(\w+)"', html)
    assert states == ["supported", "supported"]
