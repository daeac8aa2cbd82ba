"""A trace page links each seed claim to its claim page; a seed whose claim is not in
this workspace (another's, or gone) is plain text."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from tests.factories import make_claim, make_source
from verifier.models import Trace

pytestmark = pytest.mark.django_db


def test_seed_claims_link_to_their_pages_in_this_workspace_only(
    auditor_client, workspace, source, other_workspace
):
    mine = make_claim(source, "Sediment settles where the current slows.")
    theirs = make_claim(make_source(other_workspace), "The delta shrinks.")
    trace = Trace.objects.create(
        workspace=workspace,
        query="how does the delta grow?",
        document={
            "version": 1,
            "seeds": [
                {"claim_id": mine.public_id, "text": mine.text, "score": 0.9},
                {"claim_id": theirs.public_id},
                {"id": "claim:gone"},
            ],
        },
    )
    page = auditor_client.get(reverse("audit:trace-detail", args=[trace.trace_id]))
    assert page.status_code == 200
    body = page.content.decode()
    seeds = re.search(r"<dt>Seed claims</dt><dd>(.*?)</dd>", body, re.S)
    assert seeds is not None
    items = re.findall(r"<li>(.*?)</li>", seeds.group(1))
    mine_url = reverse("audit:claim-detail", args=[mine.public_id])
    assert items == [
        f'<a href="{mine_url}"><code>{mine.public_id}</code></a>',
        f"<code>{theirs.public_id}</code>",
        "<code>claim:gone</code>",
    ]
