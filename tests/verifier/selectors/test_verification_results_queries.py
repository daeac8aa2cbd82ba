"""A page of claims/verify results reads where the quotes that did not bind are in a fixed
number of queries, whatever its rows, and says the same as one look-up per claim did."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.models import Exists, OuterRef
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from tests.factories import make_claim, make_source
from verifier.models import Claim, SourceVersion, VerificationJob, VerificationJobStatus
from verifier.selectors.claim_verification import (
    MISATTRIBUTION_LOOKUP_LIMIT,
    claim_result,
    verification_results,
)
from verifier.services.sources import source_upsert

pytestmark = pytest.mark.django_db

QUOTE = "The Halden Point lamp was electrified in 1923."
OTHER = "Nothing about lamps here."


def _one_by_one(claim: Claim) -> tuple[list[str], int | None]:
    """The per-claim look-ups the results made before (the reference answers)."""
    newer = SourceVersion.objects.filter(
        source_id=OuterRef("source_id"), number__gt=OuterRef("number")
    )
    elsewhere = list(
        SourceVersion.objects.filter(~Exists(newer))
        .filter(source__workspace_id=claim.workspace_id, text__contains=claim.submitted_quote)
        .exclude(source_id=claim.source_id)
        .order_by("source__ref")
        .values_list("source__ref", flat=True)[:MISATTRIBUTION_LOOKUP_LIMIT]
    )
    versions = SourceVersion.objects.filter(source_id=claim.source_id)
    current = versions.order_by("-number").values_list("number", flat=True).first()
    found = (
        versions.filter(text__contains=claim.submitted_quote)
        .order_by("-number")
        .values_list("number", flat=True)
        .first()
    )
    return elsewhere, (found if found is not None and found != current else None)


@pytest.fixture
def claims(workspace):
    # Where the quotes are: five other sources hold QUOTE now (more than the look-up
    # limit), one held it in an earlier version only, one cited source changed since.
    for n in range(5):
        make_source(workspace, ref=f"source:z{n}", text=f"Part {n}. {QUOTE}")
    gone = make_source(workspace, ref="source:a-gone", text=f"Once. {QUOTE}")
    source_upsert(workspace=workspace, ref=gone.ref, text="Rewritten without it.", title="t")
    changed = make_source(workspace, ref="source:changed", text=f"First. {QUOTE}")
    source_upsert(workspace=workspace, ref=changed.ref, text="Second. Other words.", title="t")
    source_upsert(workspace=workspace, ref=changed.ref, text="Third. Other words.", title="t")
    plain = make_source(workspace, ref="source:plain", text=OTHER)
    quotes = [QUOTE, "Part 3.", "lamp was", "LAMP WAS", "Rewritten", "50%_\\ lamp", "First."]
    made = []
    for n in range(30):
        source = (changed, plain, gone)[n % 3]
        made.append(
            make_claim(
                source,
                f"Claim {n}.",
                submitted_quote=quotes[n % len(quotes)],
                quality="unsupported",
                external_id=f"e{n}",
            )
        )
    return made


def _items(claims):
    return [
        {"index": i, "external_id": c.external_id, "claim_id": c.public_id, "reused": False}
        for i, c in enumerate(claims)
    ]


def test_a_page_of_results_reads_quote_whereabouts_in_fixed_queries(workspace, claims):
    with CaptureQueriesContext(connection) as three:
        verification_results(workspace=workspace, items=_items(claims[:3]))
    with CaptureQueriesContext(connection) as thirty:
        rows = verification_results(workspace=workspace, items=_items(claims))
    assert len(thirty) == len(three)
    assert len(rows) == 30 and all(r["status"] == "verified" for r in rows)


def test_the_page_says_what_the_per_claim_look_ups_said(workspace, claims):
    # every claim twice, as a batch that sends one external_id twice lists it
    rows = verification_results(workspace=workspace, items=_items(claims + claims))
    assert rows[30:] == [{**row, "index": row["index"] + 30} for row in rows[:30]]
    rows = rows[:30]
    seen_earlier = seen_elsewhere = False
    for claim, row in zip(claims, rows, strict=True):
        elsewhere, earlier = _one_by_one(claim)
        assert row["misattributed_to"] == elsewhere
        seen_elsewhere |= bool(elsewhere)
        seen_earlier |= earlier is not None
        if earlier is not None:
            assert f"The quote is in version {earlier} of {claim.source.ref}" in row["reason_text"]
        else:
            assert "which has changed since" not in row["reason_text"]
        # one claim alone reads the same as on a page
        assert claim_result(claim) == {
            k: v for k, v in row.items() if k not in ("index", "status", "reused")
        }
    assert seen_earlier and seen_elsewhere
    assert rows[0]["misattributed_to"] == ["source:z0", "source:z1", "source:z2"]
    assert rows[0]["reason_text"].endswith(
        "The quote is in version 1 of source:changed, which has changed since. It is also in "
        "source:z0, source:z1, source:z2: the claim cites the wrong source."
    )


def _job_page_queries(client, workspace, claims) -> int:
    job = VerificationJob.objects.create(
        workspace=workspace,
        status=VerificationJobStatus.SUCCEEDED,
        total=len(claims),
        done=len(claims),
        items=_items(claims),
    )
    with CaptureQueriesContext(connection) as queries:
        response = client.get(reverse("verify:job", args=[job.pk]))
    assert response.status_code == 200
    assert response.content.decode().count("the claim cites the wrong source") == sum(
        1 for c in claims if _one_by_one(c)[0]
    )
    return len(queries)


def test_the_console_job_page_does_not_grow_with_its_rows(reviewer_client, workspace, claims):
    assert _job_page_queries(reviewer_client, workspace, claims[:3]) == _job_page_queries(
        reviewer_client, workspace, claims
    )
