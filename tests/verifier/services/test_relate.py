"""The relate stage's writes: entity memberships, and relations to the newest claims
that mention the same entity (a bounded window, never another workspace's claims)."""

from __future__ import annotations

import pytest

from tests.factories import make_claim, make_source
from verifier.models import ClaimRelation, Entity, IngestJob
from verifier.services import graph_relate
from verifier.services.graph_relate import claims_relate

pytestmark = pytest.mark.django_db

SHELTERS = "Halden Point shelters young fish in wet years."


def _relations(workspace) -> set[tuple[int, int, str]]:
    rows = ClaimRelation.objects.filter(workspace=workspace)
    return set(rows.values_list("from_claim_id", "to_claim_id", "kind"))


def _relate(workspace, claims) -> None:
    job = IngestJob.objects.create(workspace=workspace)
    claims_relate(job=job, claims=sorted(claims, key=lambda c: c.pk))


def test_claims_sharing_an_entity_support_or_contradict_the_older_one(workspace):
    a = make_claim(make_source(workspace), SHELTERS)
    b = make_claim(make_source(workspace), "Halden Point shelters the young fish in wet years.")
    c = make_claim(make_source(workspace), "Halden Point does not shelter young fish in wet years.")
    _relate(workspace, [a, b, c])

    assert _relations(workspace) == {
        (b.pk, a.pk, "supports"),
        (c.pk, a.pk, "contradicts"),
        (c.pk, b.pk, "contradicts"),
    }
    entity = Entity.objects.get(workspace=workspace, normalized_name="halden point")
    assert set(entity.claims.values_list("pk", flat=True)) == {a.pk, b.pk, c.pk}


def test_only_the_newest_mentions_of_an_entity_are_compared(workspace, monkeypatch):
    first = make_claim(make_source(workspace), SHELTERS)
    second = make_claim(make_source(workspace), SHELTERS.replace("wet", "dry"))
    _relate(workspace, [first, second])
    assert _relations(workspace) == {(second.pk, first.pk, "supports")}

    # The window holds the newest two mentions: the new claim itself and ``second``.
    monkeypatch.setattr(graph_relate, "ENTITY_NEIGHBOURS", 2)
    third = make_claim(make_source(workspace), SHELTERS.replace("young", "small"))
    _relate(workspace, [third])
    assert (third.pk, second.pk, "supports") in _relations(workspace)
    assert (third.pk, first.pk, "supports") not in _relations(workspace)

    monkeypatch.setattr(graph_relate, "ENTITY_NEIGHBOURS", 3)
    _relate(workspace, [third])
    assert (third.pk, first.pk, "supports") in _relations(workspace)


def test_claims_of_another_workspace_are_never_related(workspace, other_workspace):
    theirs = make_claim(make_source(other_workspace), SHELTERS)
    _relate(other_workspace, [theirs])
    mine = make_claim(make_source(workspace), SHELTERS)
    _relate(workspace, [mine])

    assert not _relations(workspace)
    assert (
        not ClaimRelation.objects.filter(to_claim=theirs)
        .exclude(from_claim__workspace=other_workspace)
        .exists()
    )
