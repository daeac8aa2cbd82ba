"""The trace page says its steps, their facts, the judge and the policy in words (auditor
walk: ``vector_search_and_load``, ``claims: 1``, ``model:`` and the policy's raw JSON were
shown as stored). Traces are written by the real services."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from verifier import vocabulary
from verifier.services.claim_verification import (
    ClaimSubmission,
    SourceSubmission,
    claims_submit_and_verify,
)
from verifier.services.retrieval import context_retrieve

pytestmark = pytest.mark.django_db

SOURCE_TEXT = "Coarser sand settles first where the current slows at the river mouth."


def _section(html: str, start: str, end: str) -> str:
    return html.split(start, 1)[1].split(end, 1)[0]


def _without_titles(html: str) -> str:
    return re.sub(r' title="[^"]*"', "", html)


def _shown_step_names(steps_html: str) -> list[str]:
    return re.findall(r'<span class="step-name"[^>]*>([^<]*)</span>', steps_html)


def test_a_retrieval_trace_shows_its_steps_and_policy_in_words(auditor_client, workspace):
    answer = context_retrieve(workspace=workspace, query="Where does the sand settle?")
    html = auditor_client.get(
        reverse("audit:trace-detail", args=[answer["trace_id"]])
    ).content.decode()
    steps = _section(html, 'id="trace-steps"', "</div>")
    shown = _shown_step_names(steps)
    assert shown and "Vector search" in shown and "Rank and apply the policy" in shown
    assert not any("_" in name or name.islower() for name in shown), shown
    # the code stays beside its label for an auditor who knows it
    assert '<code class="muted step-code">vector_search_and_load</code>' in steps
    assert f'title="{vocabulary.explanation("trace_step", "seed")}"' in steps

    policy = _section(html, 'id="trace-policy"', "</dd>\n  <dt>Seed claims")
    assert ">States served</dt><dd>Supported, Inferred, Unverified, Contradicted</dd>" in policy
    assert ">Flagged claims left out</dt><dd>yes</dd>" in policy
    assert ">Verified claims only</dt><dd>no</dd>" in policy
    # the policy as recorded is one click away, not the first thing read
    raw = _section(policy, "<details>", "</details>")
    assert "&quot;min_trust_score&quot;: 0" in raw
    assert "min_trust_score" not in _without_titles(policy.replace(raw, ""))


def test_a_door_trace_shows_its_steps_facts_and_judge_in_words(auditor_client, workspace):
    batch = claims_submit_and_verify(
        workspace=workspace,
        claims=[ClaimSubmission(text=SOURCE_TEXT, source="source:delta_words")],
        sources=[SourceSubmission(ref="source:delta_words", text=SOURCE_TEXT)],
    )
    html = auditor_client.get(reverse("audit:trace-detail", args=[batch.trace_id])).content.decode()
    steps = _section(html, 'id="trace-steps"', "</div>")
    shown = _shown_step_names(steps)
    assert {"Record the claims", "Verify", "Bind the quotes", "Judge"} <= set(shown), shown
    assert not any("_" in name or name.islower() for name in shown), shown
    details = " ".join(re.findall(r'<small class="muted step-detail">(.*?)</small>', steps))
    details = _without_titles(details)
    assert "<span>Claims</span>: 1" in details and "<span>Bound</span>: 1" in details
    assert not re.search(r"(^|[\s·])(claims|bound|sources): ", details), details

    judge = _without_titles(_section(html, 'id="trace-judge"', "</dd>"))
    assert "<span>Model</span>: <code>" in judge and "<span>Kind of judge</span>: <code>" in judge
    assert "model: " not in judge and "family: " not in judge
