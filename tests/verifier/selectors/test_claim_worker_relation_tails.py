"""The tails of the knowledge-graph relations that reached a claim (relation-object
mismatch of ``POST /worker/verify``): read from entities and their co-mention edges."""

from __future__ import annotations

import pytest

from tests.factories import make_claim, make_source, make_workspace
from verifier.models import Entity, EntityRelation
from verifier.selectors.claim_worker import worker_relation_tails

pytestmark = pytest.mark.django_db


def _graph(workspace, claims: dict[str, list[str]], edges: list[tuple[str, str]]):
    """Claims mentioning the named entities, and co-mention edges between them."""
    source = make_source(workspace)
    entities = {}
    made = {}
    for text, names in claims.items():
        claim = make_claim(source, text)
        made[text] = claim
        for name in names:
            if name not in entities:
                entities[name] = Entity.objects.create(
                    workspace=workspace, name=name, normalized_name=name.lower()
                )
            entities[name].claims.add(claim)
    for a, b in edges:
        first, second = sorted((entities[a], entities[b]), key=lambda e: e.pk)
        EntityRelation.objects.create(workspace=workspace, from_entity=first, to_entity=second)
    return made


def test_tails_follow_edges_from_the_named_entities(django_assert_num_queries):
    workspace = make_workspace()
    claims = _graph(
        workspace,
        {
            "painted": ["Halden Point", "Anna Kessel"],
            "both": ["Halden Point", "Marrow River", "Anna Kessel"],
            "alone": ["Halden Point"],
            "unlinked": ["Halden Point", "Lisbon"],  # no edge recorded
            "elsewhere": ["Lisbon", "Porto"],  # reached through a claim relation
            "nothing": [],
        },
        [
            ("Halden Point", "Anna Kessel"),
            ("Halden Point", "Marrow River"),
            ("Marrow River", "Anna Kessel"),
        ],
    )
    pks = {text: claim.pk for text, claim in claims.items()}
    with django_assert_num_queries(2):
        tails = worker_relation_tails(
            workspace=workspace,
            claim_pks=pks.values(),
            normalized_names=["halden point", "marrow river"],
        )
    assert tails[pks["painted"]] == {"Anna Kessel"}
    # two named entities linked: each is the other's tail
    assert tails[pks["both"]] == {"Halden Point", "Marrow River", "Anna Kessel"}
    assert pks["alone"] not in tails
    assert pks["unlinked"] not in tails
    assert tails[pks["elsewhere"]] == {"Lisbon", "Porto"}
    assert pks["nothing"] not in tails


def test_another_workspaces_graph_is_never_read():
    mine, theirs = make_workspace(), make_workspace()
    claims = _graph(theirs, {"painted": ["Halden Point", "Anna Kessel"]}, [])
    assert (
        worker_relation_tails(
            workspace=mine, claim_pks=[claims["painted"].pk], normalized_names=["halden point"]
        )
        == {}
    )


def test_nothing_asked_is_no_query(django_assert_num_queries):
    workspace = make_workspace()
    with django_assert_num_queries(0):
        tails = worker_relation_tails(workspace=workspace, claim_pks=[], normalized_names=["x"])
    assert tails == {}
