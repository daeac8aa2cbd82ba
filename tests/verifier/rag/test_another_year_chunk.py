"""POST /connect/v1/rag/audit: a chunk about another year does not contradict a claim.

Seed 003: a claim is contradicted when "a chunk explicitly disagrees". A chunk giving
Acme's revenue in 2023 says nothing against a claim about its revenue in 2022, so an
answer that c1 states word for word was `unfaithful` ("c1 supports it, but contradicted
by c2: number_mismatch: 2022 vs 2023"). A chunk with the same year and another amount
still contradicts. The real database, binder and default judge."""

from __future__ import annotations

import json

import pytest

from tests.verifier.api.conftest import client_for

URL = "/connect/v1/rag/audit"
ANSWER = "Acme's revenue in 2022 was 5 million euros [c1]."
C1 = "Acme's revenue in 2022 was 5 million euros."


def audit(api, *chunks: tuple[str, str]) -> dict:
    body = "".join(json.dumps({"id": i, "text": t}) + "\n" for i, t in chunks)
    response = api.post(
        URL, data=json.dumps({"answer": ANSWER, "chunks": body}), content_type="application/json"
    )
    assert response.status_code == 200, response.content
    return response.json()


@pytest.fixture
def api(workspace):
    return client_for(workspace)


@pytest.mark.django_db
def test_a_chunk_about_another_year_is_no_contradiction(api):
    body = audit(api, ("c1", C1), ("c2", "Acme's revenue in 2023 was 7 million euros."))
    (claim,) = body["claims"]
    assert body["verdict"] == "faithful", claim
    assert claim["verdict"] == "supported"
    assert claim["supported_by"] == ["c1"]
    assert "contradicted" not in claim.get("note", "")


@pytest.mark.django_db
def test_a_chunk_with_the_same_year_and_another_amount_still_contradicts(api):
    body = audit(api, ("c1", C1), ("c2", "Acme's revenue in 2022 was 7 million euros."))
    (claim,) = body["claims"]
    assert body["verdict"] == "unfaithful"
    assert claim["verdict"] == "contradicted"
    assert "contradicted by c2" in claim["note"]
