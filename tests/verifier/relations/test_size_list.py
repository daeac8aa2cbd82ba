"""``GET /connect/v1/relations`` at the largest page: every relation once across the
cursor pages, ``page_size`` over 200 served as 200, and the queries of a page fixed
whatever its size (no query per row)."""

from __future__ import annotations

import pytest

from tests.factories import make_claim, make_source
from tests.verifier.api.conftest import client_for
from verifier.models import ClaimRelation

pytestmark = pytest.mark.django_db

RELATIONS = 260


@pytest.fixture
def relations(workspace):
    source = make_source(workspace)
    claims = [
        make_claim(source, text=f"Sediment settles in basin {i} 🎉.") for i in range(RELATIONS + 1)
    ]
    return ClaimRelation.objects.bulk_create(
        ClaimRelation(
            workspace=workspace,
            from_claim=claims[i],
            to_claim=claims[i + 1],
            kind="supports",
            confidence=0.6,
        )
        for i in range(RELATIONS)
    )


def test_the_cursor_pages_give_every_relation_once_newest_first(
    workspace, relations, django_assert_max_num_queries
):
    api = client_for(workspace)
    url, seen, sizes = "/connect/v1/relations?page_size=201", [], []
    while url:
        with django_assert_max_num_queries(12):
            response = api.get(url)
        assert response.status_code == 200, response.content
        body = response.json()
        sizes.append(len(body["results"]))
        seen += [row["id"] for row in body["results"]]
        url = (body["next"] or "").removeprefix("http://testserver")
    assert sizes == [200, RELATIONS - 200]
    assert seen == sorted((r.pk for r in relations), reverse=True)
    last = body["results"][-1]
    assert last["from_claim"]["text"] == "Sediment settles in basin 0 🎉."
