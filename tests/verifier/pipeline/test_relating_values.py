"""The relate stage's rule for two claims that state different values (a number, a year,
a month): never ``supports`` — ``contradicts`` when they are otherwise comparable."""

from __future__ import annotations

import pytest

from tests.factories import make_claim, make_source
from verifier.models import ClaimRelation, IngestJob
from verifier.pipeline.relating import is_negated, relation_kind
from verifier.services.evidence_search import content_concepts
from verifier.services.graph_relate import claims_relate

HARROW = "Harrow Reservoir was completed in 1952."


@pytest.mark.parametrize(
    ("a", "b", "kind"),
    [
        # different values of one thing
        (HARROW, "Harrow Reservoir was completed in 1955.", "contradicts"),
        (
            "The Harrow dam was raised in 1964 to hold more water.",
            "The Harrow dam was raised in 1966 to hold more water.",
            "contradicts",
        ),
        (
            "Harrow Reservoir holds 400 tonnes of silt.",
            "Harrow Reservoir holds 450 tonnes of silt.",
            "contradicts",
        ),
        (
            "Harrow Reservoir opened on 3 June 1952.",
            "Harrow Reservoir opened on 4 June 1952.",
            "contradicts",
        ),
        (
            "Harrow Reservoir opened in June 1952.",
            "Harrow Reservoir opened in July 1952.",
            "contradicts",
        ),
        ("Harrow Reservoir holds 2,300 tonnes.", "Harrow Reservoir holds 2300 tonnes.", "supports"),
        # the same values, or one claim only adding a value
        (HARROW, "Harrow Reservoir was completed in 1952.", "supports"),
        (HARROW, "Harrow Reservoir was completed in 1952 for 3 million.", "supports"),
        # incomparable: another unit, or a negation beside the other value
        (
            "The old Harrow dam wall is 300 metres long.",
            "The old Harrow dam wall is 984 feet long.",
            None,
        ),
        (HARROW, "Harrow Reservoir was not completed in 1955.", None),
        # negation alone, as before
        (HARROW, "Harrow Reservoir was not completed in 1952.", "contradicts"),
        # no overlap, no relation
        (HARROW, "Harrow Town Hall burned down in 1955.", None),
    ],
)
def test_relation_kind(a, b, kind):
    got = relation_kind(content_concepts(a), content_concepts(b), is_negated(a), is_negated(b))
    assert got == kind
    swapped = relation_kind(content_concepts(b), content_concepts(a), is_negated(b), is_negated(a))
    assert swapped == kind


@pytest.mark.django_db
def test_claims_with_different_years_are_not_related_as_support(workspace):
    old = make_claim(make_source(workspace), HARROW)
    new = make_claim(make_source(workspace), "Harrow Reservoir was completed in 1955.")
    claims_relate(job=IngestJob.objects.create(workspace=workspace), claims=[old, new])
    rows = ClaimRelation.objects.filter(workspace=workspace, from_claim=new, to_claim=old)
    assert set(rows.values_list("kind", flat=True)) == {"contradicts"}
