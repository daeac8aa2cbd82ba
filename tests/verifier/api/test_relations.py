"""``GET /connect/v1/relations``: an application reads the relations between its claims
and how each was verified (integrator walk: relations could only be read in the console)."""

from __future__ import annotations

import pytest

from tests.factories import make_claim, make_source
from tests.verifier.api.conftest import client_for
from verifier.models import ClaimRelation

pytestmark = pytest.mark.django_db


@pytest.fixture
def relations(workspace):
    source = make_source(workspace, ref="source:reservoir")
    a = make_claim(source, "Harrow Reservoir was completed in 1952.")
    b = make_claim(source, "Harrow Reservoir was completed in 1955.")
    c = make_claim(source, "Harrow Reservoir holds 40 million cubic metres.")
    rejected = ClaimRelation.objects.create(
        workspace=workspace,
        from_claim=a,
        to_claim=b,
        kind="contradicts",
        verification="rejected",
        verification_level="srmkg_reject",
        verification_score=0.21,
        needs_review=True,
    )
    accepted = ClaimRelation.objects.create(
        workspace=workspace,
        from_claim=a,
        to_claim=c,
        kind="elaborates",
        verification="accepted",
        verification_level="srmkg_accept",
        verification_score=0.74,
    )
    return {"a": a, "b": b, "c": c, "rejected": rejected, "accepted": accepted}


def test_relations_are_listed_newest_first_with_their_verification(workspace, relations):
    body = client_for(workspace).get("/connect/v1/relations").json()
    first, second = body["results"]
    assert (first["id"], second["id"]) == (relations["accepted"].pk, relations["rejected"].pk)
    assert first["from_claim"] == {
        "id": relations["a"].public_id,
        "text": relations["a"].text,
        "state": relations["a"].state,
    }
    assert (first["verification"], first["verification_level"]) == ("accepted", "srmkg_accept")
    assert second["needs_review"] is True and second["verification_score"] == 0.21


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("verification=rejected", ["rejected"]),
        ("kind=elaborates", ["accepted"]),
        ("needs_review=true", ["rejected"]),
        ("needs_review=false", ["accepted"]),
    ],
)
def test_filters_narrow_the_list(workspace, relations, query, expected):
    body = client_for(workspace).get(f"/connect/v1/relations?{query}").json()
    assert [r["id"] for r in body["results"]] == [relations[name].pk for name in expected]


def test_a_claims_relations_are_those_at_either_end(workspace, relations):
    api = client_for(workspace)
    of_b = api.get(f"/connect/v1/relations?claim={relations['b'].public_id}").json()
    assert [r["id"] for r in of_b["results"]] == [relations["rejected"].pk]
    of_a = api.get(f"/connect/v1/relations?claim={relations['a'].public_id}").json()
    assert len(of_a["results"]) == 2


def test_bad_filters_are_400s_and_another_workspace_sees_nothing(
    workspace, other_workspace, relations
):
    api = client_for(workspace)
    for query, field in (("verification=maybe", "verification"), ("kind=x", "kind")):
        response = api.get(f"/connect/v1/relations?{query}")
        assert response.status_code == 400
        assert response.json()["error"]["details"] == {"field": field}
    assert api.get("/connect/v1/relations?colour=red").status_code == 400
    assert client_for(other_workspace).get("/connect/v1/relations").json()["results"] == []
