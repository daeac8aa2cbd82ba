"""The trace list's policy column names a retrieval's verification policy by what it
serves. Walk finding: a retrieval sent with no policy (the default, supported claims
only) was listed as "custom (on the trace's page)"."""

from __future__ import annotations

import pytest
from django.urls import reverse

from verifier.models import Trace
from verifier.retrieval_ranking import VerificationPolicy

pytestmark = pytest.mark.django_db


def _trace(workspace, query: str, policy: VerificationPolicy) -> None:
    Trace.objects.create(
        workspace=workspace,
        query=query,
        document={"version": 1, "operation": "retrieve", "verification_policy": policy.to_dict()},
    )


def _row(html: str, query: str) -> str:
    start = html.index(query)
    return html[start : html.index("</tr>", start)]


def test_a_retrieval_policy_is_named_by_what_it_serves(auditor_client, workspace):
    _trace(
        workspace,
        "asked with no policy",
        VerificationPolicy.from_request(policy=None, require_verified=False),
    )
    _trace(
        workspace,
        "asked for more",
        VerificationPolicy.from_request(
            policy={
                "include": ["supported", "inferred"],
                "min_trust_score": 60,
                "exclude_flagged": False,
            },
            require_verified=False,
        ),
    )
    _trace(
        workspace,
        "asked verified only",
        VerificationPolicy.from_request(policy=None, require_verified=True),
    )

    html = auditor_client.get(reverse("audit:trace-list")).content.decode()

    assert "custom (on the trace" not in html
    assert "<td>default (serves Supported, Inferred, Unverified, Contradicted)</td>" in _row(
        html, "asked with no policy"
    )
    assert "<td>serves Supported, Inferred; trust score ≥ 60; flagged claims too</td>" in _row(
        html, "asked for more"
    )
    assert "<td>serves Supported; verified only</td>" in _row(html, "asked verified only")
