"""The relations review refuses a search longer than the claim searches allow (as typed,
or as compared once folded), next to its field, and lists nothing; a bulk decision sent
with such a search decides nothing."""

from __future__ import annotations

import pytest

from tests.factories import make_claim, make_source
from verifier.models import ClaimRelation
from verifier.selectors.text_search import SEARCH_MAX_CHARS
from verifier.services.relation_verify import relations_verify

pytestmark = pytest.mark.django_db

TYPED_TOO_LONG = "a" * (SEARCH_MAX_CHARS + 1)
FOLDS_TOO_LONG = "\ufdfa" * 12  # 12 typed, 216 compared


@pytest.fixture
def flagged(workspace):
    """A relation waiting for review whose claim holds the first 200 characters of each
    long query (and the whole of the typed one)."""
    src = make_source(workspace)
    a = make_claim(src, text="a" * 300)
    b = make_claim(src, text="Salt marsh grasses trap silt at high tide.")
    r = ClaimRelation.objects.create(
        workspace=workspace, from_claim=a, to_claim=b, kind="supports", confidence=0.6
    )
    relations_verify(workspace=workspace, relations=[r], judge=None)  # isolated → reject
    r.refresh_from_db()
    assert r.needs_review
    return r


@pytest.mark.parametrize("query", [TYPED_TOO_LONG, FOLDS_TOO_LONG])
def test_a_too_long_search_is_refused_beside_its_field(reviewer_client, flagged, query):
    answer = reviewer_client.get("/review/relations/", {"q": query})
    assert answer.status_code == 200  # a GET list, as the claim list answers a bad q
    html = answer.content.decode()
    assert 'aria-invalid="true" aria-describedby="relations-q-error"' in html
    assert 'id="relations-q-error"' in html and f"at most {SEARCH_MAX_CHARS}" in html
    assert f'id="relation-{flagged.pk}"' not in html
    assert "No relations are listed until the search is fixed" in html


def test_a_search_of_the_limit_still_lists(reviewer_client, flagged):
    html = reviewer_client.get("/review/relations/", {"q": "a" * SEARCH_MAX_CHARS}).content
    assert f'id="relation-{flagged.pk}"' in html.decode()


def test_a_bulk_decision_with_a_too_long_search_decides_nothing(reviewer_client, flagged):
    answer = reviewer_client.post(
        "/review/relations/bulk/",
        {"decision": "accept", "scope": "filter", "q": TYPED_TOO_LONG, "confirm": "1"},
    )
    assert answer.status_code == 400
    html = answer.content.decode()
    assert 'aria-describedby="relations-q-error"' in html and "Nothing decided" in html
    flagged.refresh_from_db()
    assert flagged.needs_review and flagged.verification != "accepted"
