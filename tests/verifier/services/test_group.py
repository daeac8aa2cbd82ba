"""The group stage's near-duplicate search against a brute-force reference: the most
similar EARLIER claim of the same workspace, ties to the lowest id, clusters as stars
around their oldest claim, whatever the column-block size."""

from __future__ import annotations

import numpy as np
import pytest

from tests.factories import make_claim, make_source, make_workspace
from verifier.embeddings import EMBEDDING_DIMENSIONS
from verifier.models import Claim
from verifier.selectors import near_duplicates
from verifier.services import ingest_group
from verifier.services.ingest_group import GROUP_COSINE_THRESHOLD, claims_group

pytestmark = pytest.mark.django_db


def _vectors(rng: np.random.Generator, n: int) -> np.ndarray:
    """Random directions, with every third one a small perturbation of an earlier one
    (a near-duplicate above the threshold) and one exact repeat (a tie)."""
    out = rng.standard_normal((n, EMBEDDING_DIMENSIONS))
    for i in range(3, n, 3):
        out[i] = out[int(rng.integers(0, i))] + rng.standard_normal(EMBEDDING_DIMENSIONS) * 0.1
    out[n - 1] = out[1]
    return out


def _claims_with(workspace, vectors: np.ndarray) -> list[Claim]:
    source = make_source(workspace)
    return [
        make_claim(source, f"claim {i}", embedding=[float(x) for x in v])
        for i, v in enumerate(vectors)
    ]


def _reference(vectors: np.ndarray) -> list[int | None]:
    """Brute force in float64: index of each claim's cluster root, or None."""
    unit = vectors / np.linalg.norm(vectors, axis=1)[:, None]
    roots: list[int | None] = []
    for i in range(len(unit)):
        if i == 0:
            roots.append(None)
            continue
        sims = unit[:i] @ unit[i]
        j = int(np.argmax(sims))  # first maximum: the lowest id wins a tie
        if sims[j] < GROUP_COSINE_THRESHOLD:
            roots.append(None)
        else:
            roots.append(roots[j] if roots[j] is not None else j)
    return roots


@pytest.mark.parametrize("block", [4, 7, 8192])
def test_grouping_matches_brute_force_in_batches(monkeypatch, block):
    monkeypatch.setattr(near_duplicates, "GROUP_COLUMN_BLOCK", block)
    rng = np.random.default_rng(11)
    vectors = _vectors(rng, 40)
    workspace = make_workspace()
    claims = _claims_with(workspace, vectors)
    other = make_workspace()  # identical vectors in another workspace never group with these
    _claims_with(other, vectors[:5])

    for first in range(0, len(claims), 9):  # batches in id order, as the stage runs them
        batch = list(Claim.objects.filter(pk__in=[c.pk for c in claims[first : first + 9]]))
        claims_group(claims=sorted(batch, key=lambda c: c.pk))

    position = {c.pk: i for i, c in enumerate(claims)}
    stored = dict(Claim.objects.filter(workspace=workspace).values_list("pk", "duplicate_of_id"))
    got = [None if stored[c.pk] is None else position[stored[c.pk]] for c in claims]
    expected = _reference(vectors)
    assert got == expected
    assert sum(r is not None for r in expected) >= 10  # the fixture really has clusters
    assert got[-1] == (expected[1] if expected[1] is not None else 1)  # the exact repeat


def test_regrouping_is_idempotent():
    rng = np.random.default_rng(5)
    claims = _claims_with(make_workspace(), _vectors(rng, 12))
    claims_group(claims=list(Claim.objects.filter(pk__in=[c.pk for c in claims]).order_by("pk")))
    first = list(Claim.objects.order_by("pk").values_list("pk", "duplicate_of_id"))
    claims_group(claims=list(Claim.objects.filter(pk__in=[c.pk for c in claims]).order_by("pk")))
    assert list(Claim.objects.order_by("pk").values_list("pk", "duplicate_of_id")) == first


def test_stored_vectors_are_the_model_vectors_bit_for_bit():
    from verifier.embeddings import embed_texts
    from verifier.selectors.claims import claim_stored_vectors
    from verifier.services.ingest_group import claims_embed

    source = make_source(make_workspace())
    texts = ["Sediment settles where the current slows.", "Oyster reefs shelter young fish."]
    claims = [make_claim(source, t) for t in texts]
    loaded = list(Claim.objects.filter(pk__in=[c.pk for c in claims]).defer("embedding"))
    assert claims_embed(claims=loaded) == 2
    assert claims_embed(claims=loaded) == 0  # nothing missing any more
    stored = claim_stored_vectors(claim_pks=[c.pk for c in claims])
    expected = embed_texts(texts)
    for claim, vector in zip(claims, expected, strict=True):
        assert stored[claim.pk].dtype == np.float32
        assert np.array_equal(stored[claim.pk], vector)
        # and the ORM reads the same values back through VectorField's text form
        assert np.array_equal(
            np.asarray(Claim.objects.get(pk=claim.pk).embedding, dtype=np.float32), vector
        )


def test_a_second_vector_write_in_the_same_transaction_replaces_the_first():
    """The binary-COPY staging rows of one write are gone before the next: a claim
    written twice keeps the second vector, not whichever staged row a join meets first."""
    from verifier.selectors.claims import claim_stored_vectors

    claim = make_claim(make_source(make_workspace()), "Reed beds slow the floodwater.")
    first, second = np.eye(2, EMBEDDING_DIMENSIONS, dtype=np.float32)
    for vector in (first, second):
        claim.embedding = vector
        ingest_group._store_embeddings([claim])
    assert np.array_equal(claim_stored_vectors(claim_pks=[claim.pk])[claim.pk], second)


# --- the index path (workspaces with many published claims before the batch) ---------


def _group_in_batches(claims: list[Claim], size: int) -> None:
    for first in range(0, len(claims), size):
        batch = Claim.objects.filter(pk__in=[c.pk for c in claims[first : first + size]])
        claims_group(claims=list(batch.order_by("pk")))


def _roots(claims: list[Claim]) -> list[int | None]:
    position = {c.pk: i for i, c in enumerate(claims)}
    stored = dict(Claim.objects.filter(pk__in=position).values_list("pk", "duplicate_of_id"))
    return [None if stored[c.pk] is None else position[stored[c.pk]] for c in claims]


def test_index_path_finds_the_roots_the_exact_path_finds(monkeypatch):
    """Above the switch point the published earlier claims come from the HNSW index (on a
    set this small its scan visits every claim, so it must agree with brute force):
    unpublished earlier claims and the batch's own are still compared exactly, published
    LATER claims and another workspace's identical vectors are never neighbours."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    monkeypatch.setattr(near_duplicates, "INDEX_MIN_PUBLISHED", 5)
    monkeypatch.setattr(near_duplicates, "INDEX_PUBLISHED_PER_CLAIM", 0)
    rng = np.random.default_rng(11)
    vectors = _vectors(rng, 40)
    workspace = make_workspace()
    source = make_source(workspace)
    claims = [
        make_claim(source, f"claim {i}", embedding=[float(x) for x in v], published=i % 4 != 0)
        for i, v in enumerate(vectors)
    ]
    other = make_source(make_workspace())
    for i, v in enumerate(vectors[:5]):
        make_claim(other, f"other {i}", embedding=[float(x) for x in v], published=True)

    with CaptureQueriesContext(connection) as queries:
        _group_in_batches(claims, 9)
    assert _lateral_statements(queries) == 4  # each batch after the first: 6+ published before

    expected = _reference(vectors)
    assert _roots(claims) == expected
    assert sum(r is not None for r in expected) >= 10

    _group_in_batches(claims, 9)  # a rerun converges on the same rows
    assert _roots(claims) == expected


def _lateral_statements(queries) -> int:
    return sum("CROSS JOIN LATERAL" in q["sql"] for q in queries.captured_queries)


def test_the_index_is_asked_from_enough_published_claims_per_batch_claim(monkeypatch):
    """The switch point: INDEX_MIN_PUBLISHED plus INDEX_PUBLISHED_PER_CLAIM per claim of
    the batch published earlier claims; below it the exact path answers."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    monkeypatch.setattr(near_duplicates, "INDEX_MIN_PUBLISHED", 1)
    monkeypatch.setattr(near_duplicates, "INDEX_PUBLISHED_PER_CLAIM", 2)
    source = make_source(make_workspace())
    vectors = _vectors(np.random.default_rng(3), 12)
    claims = [
        make_claim(source, f"claim {i}", embedding=[float(x) for x in v], published=True)
        for i, v in enumerate(vectors)
    ]
    asked = []
    for first, last in [(0, 4), (4, 8), (8, 10), (10, 12)]:
        with CaptureQueriesContext(connection) as queries:
            batch = Claim.objects.filter(pk__in=[c.pk for c in claims[first:last]])
            claims_group(claims=list(batch.order_by("pk")))
        asked.append(_lateral_statements(queries))
    # 0 and 4 published before a batch of 4 (9 needed); 8 and 10 before a batch of 2 (5)
    assert asked == [0, 0, 1, 1]
    assert _roots(claims) == _reference(vectors)


def test_index_scan_looks_past_another_workspaces_nearer_copies(monkeypatch):
    """60 copies in another workspace are nearer to the new claim than its own
    workspace's near-duplicate (more than one ef_search round): the iterative scan goes
    past them to it. A claim whose only near copies are elsewhere gets none."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    monkeypatch.setattr(near_duplicates, "INDEX_MIN_PUBLISHED", 1)
    monkeypatch.setattr(near_duplicates, "INDEX_PUBLISHED_PER_CLAIM", 1)
    rng = np.random.default_rng(23)
    near, elsewhere = rng.standard_normal((2, EMBEDDING_DIMENSIONS))

    def around(v: np.ndarray, noise: float) -> list[float]:
        return [float(x) for x in v + rng.standard_normal(EMBEDDING_DIMENSIONS) * noise]

    other = make_source(make_workspace())
    for i in range(60):
        make_claim(other, f"copy {i}", embedding=around(near, 0.05), published=True)
        make_claim(other, f"elsewhere {i}", embedding=around(elsewhere, 0.05), published=True)
    source = make_source(make_workspace())
    for i in range(10):
        make_claim(source, f"far {i}", embedding=around(np.zeros(384), 1.0), published=True)
    own = make_claim(source, "own", embedding=around(near, 0.3), published=True)
    new = [
        make_claim(source, "new", embedding=[float(x) for x in near]),
        make_claim(source, "alone", embedding=[float(x) for x in elsewhere]),
    ]
    with CaptureQueriesContext(connection) as queries:
        _group_in_batches(new, 2)
    assert _lateral_statements(queries) == 1
    stored = Claim.objects.filter(pk__in=[c.pk for c in new]).order_by("pk")
    assert list(stored.values_list("duplicate_of_id", flat=True)) == [own.pk, None]


def test_the_index_statement_scans_the_hnsw_index_without_a_sort():
    """Sorting is off for the statement, so even with no statistics (a fresh table) the
    plan is the HNSW scan per claim, never a sort of the workspace per claim; and the
    settings do not outlive it."""
    from django.db import connection

    from verifier.selectors.near_duplicates import index_scan_plan

    source = make_source(make_workspace())
    vectors = _vectors(np.random.default_rng(7), 6)
    claims = [
        make_claim(source, f"claim {i}", embedding=[float(x) for x in v], published=True)
        for i, v in enumerate(vectors)
    ]
    plan = index_scan_plan(
        workspace_id=source.workspace_id,
        claim_pks=[c.pk for c in claims],
        min_cosine=GROUP_COSINE_THRESHOLD,
    )
    assert "claim_embedding_hnsw" in plan
    assert "Sort" not in plan
    with connection.cursor() as cursor:
        cursor.execute("SELECT current_setting('enable_sort')")
        assert cursor.fetchone()[0] == "on"
