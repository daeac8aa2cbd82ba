"""The Relations page's "Decisions" line: relations accepted unchecked (``srmkg_cap``) are
accepted ones, so the line says they are among the accepted, never as a second count
beside them that adds up to more decisions than there are."""

from __future__ import annotations

import re

import pytest

from tests.factories import make_claim, make_source
from verifier.models import ClaimRelation, RelationDecision

pytestmark = pytest.mark.django_db


def _decided(workspace, src, i: int, *, level: str, source: str, label: str) -> None:
    relation = ClaimRelation.objects.create(
        workspace=workspace,
        from_claim=make_claim(src, text=f"From claim {i}."),
        to_claim=make_claim(src, text=f"To claim {i}."),
        kind="supports",
        confidence=0.6,
    )
    RelationDecision.objects.create(
        workspace=workspace,
        relation=relation,
        relation_type="supports",
        base=0.6,
        jaccard=0.5,
        type_boost=1.0,
        isolated=0.0,
        score=0.5,
        level=level,
        source=source,
        label=label,
        needs_review=level != "vog_grounded",
    )


def test_accepted_unchecked_are_counted_among_the_accepted(reviewer_client, workspace):
    src = make_source(workspace)
    for i in range(2):
        _decided(workspace, src, i, level="vog_grounded", source="vog", label="accept")
    for i in range(2, 5):
        _decided(workspace, src, i, level="srmkg_cap", source="cap", label="accept")
    _decided(workspace, src, 5, level="srmkg_reject", source="srmkg", label="reject")

    html = reviewer_client.get("/review/relations/").content.decode()
    line = re.search(r"<dt>Decisions</dt><dd>(.*?)</dd>", html, re.S).group(1)
    words = re.sub(r"<[^>]+>", "", line)
    # 6 decisions: 5 accepted (3 of them unchecked), 1 rejected — not "5 accepted, 3
    # accepted unchecked", which reads as 8 of 6
    assert words.startswith("6 (5 accepted, 3 of them unchecked")
    assert "accepted unchecked" not in words
