"""The RAG audit list shows every audit a page at a time, and an audit's verdict has
words that explain it."""

from __future__ import annotations

import pytest
from django.urls import reverse

from audit.paging import CONSOLE_PAGE_SIZE
from verifier.models import RagAudit
from verifier.vocabulary import explanation

pytestmark = pytest.mark.django_db


def _audits(workspace, n, verdict="faithful"):
    RagAudit.objects.bulk_create(
        RagAudit(
            workspace=workspace,
            answer=f"Answer {i}.",
            chunks=[{"id": "c1", "text": "Text."}],
            result={"claims": []},
            verdict=verdict,
        )
        for i in range(n)
    )


def test_the_index_lists_every_audit_a_page_at_a_time(reviewer_client, workspace):
    _audits(workspace, CONSOLE_PAGE_SIZE + 2)
    first = reviewer_client.get(reverse("audit-rag:index")).content.decode()
    assert f"{CONSOLE_PAGE_SIZE + 2} in all" in first and 'rel="next"' in first
    second = reviewer_client.get(reverse("audit-rag:index"), {"page": 2}).content.decode()
    assert second.count('<td class="rag-faithful">') == 2


@pytest.mark.parametrize("verdict", ["faithful", "unfaithful", "contradicted"])
def test_audit_verdicts_have_explanations(verdict):
    assert explanation("outcome", verdict)


def test_the_detail_heading_explains_the_verdict(reviewer_client, workspace):
    _audits(workspace, 1, verdict="unfaithful")
    audit = RagAudit.objects.get(workspace=workspace)
    page = reviewer_client.get(reverse("audit-rag:detail", args=[audit.pk])).content.decode()
    words = explanation("outcome", "unfaithful")
    assert words and f'title="{words}"' in page
