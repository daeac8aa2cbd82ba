"""Trace pages and the quality page."""

from __future__ import annotations

import re
import uuid

import pytest
from django.urls import reverse

from tests.factories import make_claim, make_source, make_workspace
from verifier.models import IngestJob, Trace, TraceClaim, ValidatorRun
from verifier.scoring.quality import QualityCounts, quality_report
from verifier.scoring.trust import TRUST_FACTOR_LABELS, TrustInputs, trust_score

pytestmark = pytest.mark.django_db


def _trace(workspace, source, **kw):
    trace = Trace.objects.create(
        workspace=workspace,
        query=kw.get("query", "how does the delta grow?"),
        document={
            "version": 1,
            "policy": {"name": "strict", "require_verified": True},
            "seeds": [{"id": "claim:seed"}],
            "expansion": {"hops": 1},
        },
    )
    kept = make_claim(source, "Sediment settles where the current slows.")
    dropped = make_claim(source, "The delta shrinks.")
    TraceClaim.objects.create(
        trace=trace, claim=kept, included=True, verification_state="supported"
    )
    TraceClaim.objects.create(
        trace=trace,
        claim=dropped,
        included=False,
        exclusion_reason="verification_gate",
        verification_state="unverified",
    )
    return trace, kept, dropped


def test_trace_list_and_detail(auditor_client, workspace, source):
    trace, kept, dropped = _trace(workspace, source)
    listing = auditor_client.get(reverse("audit:trace-list")).content.decode()
    assert "how does the delta grow?" in listing and "strict" in listing
    html = auditor_client.get(reverse("audit:trace-detail", args=[trace.trace_id])).content.decode()
    assert kept.public_id in html and dropped.public_id in html
    assert "Held back by the verification policy" in html  # words, not the code
    assert "claim:seed" in html and "hops" in html
    assert f"/connect/v1/traces/{trace.trace_id}/export?format=json" in html


def test_trace_of_another_workspace_is_404(auditor_client, other_workspace):
    trace, _, _ = _trace(other_workspace, make_source(other_workspace))
    url = reverse("audit:trace-detail", args=[trace.trace_id])
    assert auditor_client.get(url).status_code == 404
    missing = reverse("audit:trace-detail", args=[uuid.uuid4()])
    assert auditor_client.get(missing).status_code == 404


def test_trace_list_empty_state(auditor_client):
    assert b"No traces yet" in auditor_client.get(reverse("audit:trace-list")).content


def _report(supported, weak, unsupported, gaps):
    counts = QualityCounts(
        supported=supported,
        weak=weak,
        unsupported=unsupported,
        coverage_gaps=gaps,
        remediation_drops=None,
        bound=supported + weak,
        unbound=unsupported,
        no_evidence=0,
    )
    trust = trust_score(
        TrustInputs(
            total_claims=100,
            embedded_claims=100,
            verified_claims=90,
            orphan_claims=10,
            vector_index_present=True,
            vector_index_used=True,
            relations=80,
            supports_relations=70,
            contradicts_relations=10,
            high_severity_issues=1,
        )
    )
    return {"quality": quality_report(counts).to_dict(), "trust": trust.to_dict()}


def test_quality_page_shows_scores_g2_unknowns_trend_and_queue_links(auditor_client, workspace):
    good = IngestJob.objects.create(
        workspace=workspace, status="succeeded", quality_report=_report(95, 4, 1, 3)
    )
    bad = IngestJob.objects.create(
        workspace=workspace, status="succeeded", quality_report=_report(50, 30, 20, None)
    )
    IngestJob.objects.create(workspace=workspace, status="running")
    ValidatorRun.objects.create(  # benchmark runs live in throwaway bench-* workspaces
        workspace=make_workspace("bench-20260610"),
        fixture="planted.json",
        judge_model="heuristic",
        metrics={"claims": 40, "recall": {"all": {"recall_strict": 1.0}}, "false_flag_rate": 0.145},
    )
    html = auditor_client.get(reverse("audit:quality")).content.decode()
    assert "<polyline" in html and 'role="group"' in html
    assert f"/review/?ingest_job={good.pk}&amp;job={good.pk}&amp;reason=coverage_gap" in html
    assert f"/audit/claims/?job={bad.pk}&amp;quality=unsupported" in html
    assert "unknown" in html  # bad job's coverage gaps were not recorded
    assert "supported 50% &lt; 90%" in html  # G2 shortfall, escaped
    assert "embedding_coverage" in html  # factor breakdown
    assert "False-flag rate on known-good" in html and "14.5%" in html and "100.0%" in html
    assert "the job is running" in html


def test_quality_page_empty_state(auditor_client):
    html = auditor_client.get(reverse("audit:quality")).content.decode()
    assert "No ingest jobs yet" in html and "No validator benchmark" in html


@pytest.mark.parametrize(
    "shape",
    [
        lambda q, t: {"quality": q, "trust": t},
        lambda q, t: {**q, "trust_score": t},
        lambda q, t: {**q, **t},
        lambda q, t: {**q, "trust_score": t["score"]},
    ],
)
def test_quality_summary_reads_the_report_shapes(shape):
    from audit.selectors import quality_summary

    report = _report(90, 8, 2, None)
    summary = quality_summary(shape(report["quality"], report["trust"]))
    assert summary["trust_score"] == report["trust"]["score"]
    assert (summary["supported"], summary["weak"], summary["unsupported"]) == (90, 8, 2)
    assert summary["coverage_gaps"] is None  # unknown stays unknown
    assert summary["g2_passed"] is True
    assert quality_summary(None) is None


def test_a_job_with_nothing_validated_is_unknown_not_zero(auditor_client, workspace):

    from verifier.scoring.quality import QualityCounts, quality_report

    first = IngestJob.objects.create(
        workspace=workspace, status="succeeded", quality_report=_report(95, 4, 1, 0)
    )
    empty_counts = QualityCounts(
        supported=0,
        weak=0,
        unsupported=0,
        coverage_gaps=0,
        remediation_drops=None,
        bound=0,
        unbound=0,
        no_evidence=0,
    )
    nothing = IngestJob.objects.create(
        workspace=workspace,
        status="succeeded",
        quality_report={
            "quality": quality_report(empty_counts).to_dict(),
            "trust": {"score": 0, "factors": []},
        },
    )
    last = IngestJob.objects.create(
        workspace=workspace, status="succeeded", quality_report=_report(90, 5, 5, 0)
    )
    html = auditor_client.get(reverse("audit:quality")).content.decode()
    row = html.split(f'id="job-{nothing.pk}"')[1].split("</tr>")[0]
    cells = re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)
    assert cells[0].startswith("unknown") and "nothing validated" in cells[0]  # trust score
    assert cells[4] == "unknown"  # G2: not measured, not "fail"
    assert "fail" not in row
    # The trend breaks at the unknown job: two lines, no dot at 0, a gap marker.
    assert len(re.findall(r"<polyline", html)) == 2
    assert f"Job {nothing.pk}: unknown (nothing validated)" in html
    assert f"Job {first.pk}:" in html and f"Job {last.pk}:" in html
    assert "not</em> measure whether the sources themselves are true" in html
    assert "It is not the share of supported claims" in html


def test_quality_page_names_the_trust_factors_in_words(auditor_client, workspace):
    IngestJob.objects.create(
        workspace=workspace, status="succeeded", quality_report=_report(95, 4, 1, 3)
    )
    html = auditor_client.get(reverse("audit:quality")).content.decode()
    factors = html[html.index("factors</summary>") :]
    factors = factors[: factors.index("</details>")]
    for name, label in TRUST_FACTOR_LABELS.items():
        assert f'<td title="{name}">{label}</td>' in factors
    assert len(re.findall(r"<tr><td", factors)) == len(TRUST_FACTOR_LABELS)
    assert "the bar</text>" not in html  # the trend's line at 90 is not the G2 bar


def test_trace_pages_word_their_codes_and_link_spans(auditor_client, workspace, source):
    """The list's intro covers every door; operations and states in words; each span
    listed links to its highlighted span on the source page (auditor walk L6)."""
    from tests.factories import make_binding
    from verifier.selectors.permalinks import binding_permalink

    claim = make_claim(source, "Sediment settles where the current slows.")
    binding = make_binding(claim, "Sediment settles where the current slows.")
    version = binding.source_version
    trace = Trace.objects.create(
        workspace=workspace,
        operation="claims_verify",
        query="",
        document={
            "version": 1,
            "operation": "claims_verify",
            "spans": [
                {
                    "claim_id": claim.public_id,
                    "source_ref": source.ref,
                    "source_version": version.number,
                    "source_hash": version.sha256,
                    "start": binding.start,
                    "end": binding.end,
                    "quote": binding.quote,
                    "match": "exact",
                },
                {"claim_id": "claim:gone", "source_ref": "source:elsewhere", "start": 0, "end": 4},
            ],
        },
    )
    TraceClaim.objects.create(
        trace=trace, claim=claim, included=True, verification_state="supported"
    )
    listing = auditor_client.get(reverse("audit:trace-list")).content.decode()
    assert "One per retrieval" not in listing and "claims verified" in listing
    assert "Claims verified</td>" in listing and ">claims_verify<" not in listing
    html = auditor_client.get(reverse("audit:trace-detail", args=[trace.trace_id])).content.decode()
    spans = html.split('id="trace-spans"')[1].split("</table>")[0]
    assert f'href="{binding_permalink(binding)}"'.replace("&", "&amp;") in spans
    # the claim, the offsets and the quote of the span found; none for the other (its
    # claim and source are not in this workspace)
    assert spans.count("<a ") == 3
    claim_url = reverse("audit:claim-detail", args=[claim.public_id])
    assert f'<a href="{claim_url}"><code>{claim.public_id}</code></a>' in spans
    assert "<code>claim:gone</code>" in spans and "claim:gone/" not in spans
    assert ">Exact<" in spans
    assert "<dd>Claims verified" in html


def test_the_ingest_job_page_labels_factors_as_the_quality_page_does(admin_client_ws, workspace):
    """One vocabulary (auditor walk L10): no raw factor codes on the job page."""
    job = IngestJob.objects.create(
        workspace=workspace, status="succeeded", quality_report=_report(95, 4, 1, 3)
    )
    html = admin_client_ws.get(reverse("ingest:job", args=[job.pk])).content.decode()
    table = html.split("Trust score factors")[1].split("</table>")[0]
    for code, label in TRUST_FACTOR_LABELS.items():
        assert f">{label}</td>" in table and f">{code}<" not in table


def test_a_job_with_no_claims_now_says_none_not_a_blank_cell(auditor_client, workspace, source):
    """ "Claims now" was an empty list, a blank cell, for a job none of whose claims
    are left; a job with claims lists them by state."""
    empty = IngestJob.objects.create(
        workspace=workspace, status="succeeded", quality_report=_report(0, 0, 0, None)
    )
    full = IngestJob.objects.create(
        workspace=workspace, status="succeeded", quality_report=_report(1, 0, 0, 0)
    )
    claim = make_claim(source, ingest_job=full)
    html = auditor_client.get(reverse("audit:quality")).content.decode()

    def claims_now(job: IngestJob) -> str:
        row = html.split(f'id="job-{job.pk}"')[1].split("</tr>")[0]
        return re.search(r'<td class="states-now">(.*?)</td>', row, re.S).group(1).strip()

    assert claims_now(empty) == "none"
    assert f"1 {claim.get_state_display()}</a>" in claims_now(full)  # the state's word


def test_the_benchmark_runs_pager_keeps_the_jobs_page(auditor_client, workspace):
    """Its links were "?runs_page=N" alone, so paging the runs sent the jobs list back to
    its first page."""
    from audit.quality_views import JOBS_PAGE_SIZE

    for n in range(JOBS_PAGE_SIZE + 1):
        IngestJob.objects.create(workspace=workspace, status="succeeded", quality_report=None)
        ValidatorRun.objects.create(
            workspace=make_workspace(f"bench-2026061{n:02d}"),
            fixture="planted.json",
            judge_model="heuristic",
            metrics={"claims": 40},
        )
    html = auditor_client.get(reverse("audit:quality") + "?page=2").content.decode()
    nav = html.split('aria-label="Benchmark pages"')[1].split("</nav>")[0]
    assert 'href="?page=2&amp;runs_page=2#runs-h"' in nav
