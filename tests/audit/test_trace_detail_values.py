"""A trace step's facts say their values in words where the vocabulary has a kind for
that fact (``vocabulary.TRACE_STEP_DETAIL_VALUES``): the classify step's policy, the
RAG audit's verdict, the claim worker's cache reason. Counts and model names read as
recorded. Traces are written by the real services."""

from __future__ import annotations

import html
import re

import pytest
from django.template.loader import render_to_string
from django.urls import reverse

from tests.audit.test_rag_console_truth import ANSWER, CHUNKS
from verifier import vocabulary
from verifier.models import Trace
from verifier.services.claim_verification import (
    ClaimSubmission,
    SourceSubmission,
    claims_submit_and_verify,
)
from verifier.services.rag_audit import rag_audit_run

pytestmark = pytest.mark.django_db

SOURCE_TEXT = "Coarser sand settles first where the current slows at the river mouth."


def _details(page: str) -> str:
    steps = page.split('id="trace-steps"', 1)[1].split("</div>", 1)[0]
    shown = " · ".join(re.findall(r'<small class="muted step-detail">(.*?)</small>', steps))
    return html.unescape(re.sub(r' (title|data-code)="[^"]*"', "", shown))


def test_the_classify_steps_policy_reads_in_words(auditor_client, workspace):
    batch = claims_submit_and_verify(
        workspace=workspace,
        claims=[ClaimSubmission(text=SOURCE_TEXT, source="source:delta_values")],
        sources=[SourceSubmission(ref="source:delta_values", text=SOURCE_TEXT)],
    )
    page = auditor_client.get(reverse("audit:trace-detail", args=[batch.trace_id])).content
    details = _details(page.decode())
    words = vocabulary.label("trace_step_policy", "active")
    assert words != "active"
    assert f"<span>Policy</span>: <span>{words}</span>" in details, details
    assert "<span>Policy</span>: active" not in details
    assert "<span>Claims</span>: 1" in details  # a count reads as recorded
    assert 'data-code="active"' in page.decode()


def test_the_rag_audits_verdict_reads_in_words(auditor_client, workspace):
    write = rag_audit_run(workspace=workspace, answer=ANSWER, chunks=CHUNKS)
    verdict = write.result.verdict
    trace = Trace.objects.filter(workspace=workspace).order_by("-pk").first()
    assert trace is not None
    page = auditor_client.get(reverse("audit:trace-detail", args=[trace.trace_id])).content
    details = _details(page.decode())
    words = vocabulary.label("outcome", verdict)
    assert words != verdict
    assert f"<span>Verdict</span>: <span>{words}</span>" in details, details
    assert f"<span>Verdict</span>: {verdict}" not in details


def test_the_cache_steps_reason_reads_in_words_and_unknown_values_as_recorded():
    steps = [
        {"name": "cache_precheck", "ms": 1.0, "detail": [("reason", "no_cached_result")]},
        {"name": "judge", "ms": 2.0, "detail": [("judge", "heuristic-1"), ("reason", "x_y")]},
    ]
    page = render_to_string("audit/partials/trace_steps.html", {"steps": steps})
    details = _details(f'<div id="trace-steps">{page}</div>')
    words = vocabulary.label("worker_cache", "no_cached_result")
    assert f"<span>Why</span>: <span>{words}</span>" in details, details
    assert "<span>Judge model</span>: heuristic-1" in details
    assert "<span>Why</span>: x_y" in details  # not a code of its kind: as recorded
    assert f'title="{vocabulary.explanation("worker_cache", "no_cached_result")}"' in page
