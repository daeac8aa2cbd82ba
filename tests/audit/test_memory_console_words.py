"""The memory pages name a claim's lane and its drift in words (verifier/vocabulary.py),
not in codes, and list every check a page at a time."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from audit.paging import CONSOLE_PAGE_SIZE
from verifier.memory.drift import DRIFT_CATEGORIES
from verifier.models import MemoryCheck
from verifier.services.memory import memory_verify
from verifier.vocabulary import KINDS

pytestmark = pytest.mark.django_db

TRANSCRIPT = json.dumps(
    [
        {"speaker": "user", "text": "Databases?"},
        {"speaker": "assistant", "text": "We might migrate some databases if the tests pass."},
    ]
)


def test_every_drift_category_and_lane_has_words():
    assert set(KINDS["drift"]) == set(DRIFT_CATEGORIES)
    assert set(KINDS["memory_lane"]) == {"verbatim", "summarized", "implicit", "undeclared"}


def test_the_pages_name_lane_and_drift_in_words(reviewer_client, workspace, reviewer):
    write = memory_verify(
        workspace=workspace,
        agent="assistant",
        message="I mentioned that we will definitely migrate all databases.",
        transcript_data=TRANSCRIPT,
        actor=reviewer,
    )
    check = write.checks[0]
    assert "conditionality_removed" in check.drift_categories

    index = reviewer_client.get(reverse("memory:index")).content.decode()
    assert "Condition dropped" in index and "Summarized" in index
    assert ">conditionality_removed<" not in index and "conditionality_removed," not in index

    page = reviewer_client.get(reverse("memory:check", args=[check.pk])).content.decode()
    assert "summarized claim" in page and "Condition dropped" in page
    assert 'title="conditionality_removed' not in page  # the highlight's tooltip too


def test_the_index_lists_every_check_a_page_at_a_time(reviewer_client, workspace):
    MemoryCheck.objects.bulk_create(
        MemoryCheck(
            workspace=workspace,
            agent="assistant",
            agent_key="assistant",
            message=f"I said 'point {i}'.",
            claim_text=f"point {i}",
            claim_start=8,
            claim_end=8 + len(f"point {i}"),
            claim_type="verbatim",
            outcome="unsupported:no_match",
            result={},
        )
        for i in range(CONSOLE_PAGE_SIZE + 3)
    )
    first = reviewer_client.get(reverse("memory:index")).content.decode()
    assert f"{CONSOLE_PAGE_SIZE + 3} in all" in first and 'rel="next"' in first
    second = reviewer_client.get(reverse("memory:index"), {"page": 2}).content.decode()
    assert second.count("/audit/memory/checks/") == 3


def test_the_agent_rates_are_named_in_words(reviewer_client, workspace):
    MemoryCheck.objects.bulk_create(
        MemoryCheck(
            workspace=workspace,
            agent="assistant",
            agent_key="assistant",
            message=f"I said 'point {i}'.",
            claim_text=f"point {i}",
            claim_start=8,
            claim_end=8 + len(f"point {i}"),
            claim_type="verbatim",
            outcome="supported:exact",
            result={},
        )
        for i in range(12)
    )
    check = MemoryCheck.objects.filter(workspace=workspace).first()
    page = reviewer_client.get(reverse("memory:check", args=[check.pk])).content.decode()
    assert "Drift rate" in page and "Support rate" in page and "Coverage rate" in page
    assert "<dt>drift_rate</dt>" not in page
    assert "12 evaluated claims" in page
