"""A refused bulk decision (nothing selected) shows the list in the filter the reviewer
was working in, not the whole unfiltered list."""

from __future__ import annotations

import pytest

from tests.factories import make_claim, make_source
from verifier.models import ClaimRelation
from verifier.services.relation_verify import relations_verify

pytestmark = pytest.mark.django_db


def test_a_bulk_refusal_keeps_the_filter(reviewer_client, workspace):
    src = make_source(workspace)
    rows = []
    for i, kind in enumerate(("supports", "supports", "contradicts")):
        a = make_claim(src, text=f"Sediment settles in basin {i}.")
        b = make_claim(src, text=f"Silt collects in basin {i}.")
        rows.append(
            ClaimRelation.objects.create(
                workspace=workspace, from_claim=a, to_claim=b, kind=kind, confidence=0.6
            )
        )
    relations_verify(workspace=workspace, relations=rows, judge=None)  # isolated → reject

    response = reviewer_client.post(
        "/review/relations/bulk/",
        {"decision": "accept", "scope": "selection", "kind": "contradicts", "level": "", "q": ""},
    )

    assert response.status_code == 422
    body = response.content.decode()
    assert "Select at least one relation." in body
    assert '<option value="contradicts" selected>' in body
    assert body.count('id="relation-') == 1
