"""The worker's subclaims (``subclaims_of``, over ``verifier.rag.decompose``): a
predicate atom gets the clause's subject, never a garbled piece of the first atom."""

from __future__ import annotations

import pytest

from verifier.services.claim_worker_request import subclaims_of


@pytest.mark.parametrize(
    ("claim", "subclaims"),
    [
        (
            "She kept the light for twenty-six years and trained both of her sons as "
            "assistant keepers",
            [
                "She kept the light for twenty-six years",
                "She trained both of her sons as assistant keepers",
            ],
        ),
        (
            "She kept the light for 26 years and trained both of her sons.",
            ["She kept the light for 26 years", "She trained both of her sons"],
        ),
        (
            "He kept the lamp lit for twenty years and painted the tower.",
            ["He kept the lamp lit for twenty years", "He painted the tower"],
        ),
        (
            "HNSW always outperforms IVF and is the only index that scales.",
            ["HNSW always outperforms IVF", "HNSW is the only index that scales"],
        ),
        (
            "The Halden Point lighthouse was built in 1871 and was electrified in 1923.",
            [
                "The Halden Point lighthouse was built in 1871",
                "The Halden Point lighthouse was electrified in 1923",
            ],
        ),
        (
            "The capital of France is Paris and has two airports.",
            ["The capital of France is Paris", "The capital of France has two airports"],
        ),
    ],
)
def test_subclaims(claim, subclaims):
    assert subclaims_of(claim) == subclaims
