"""What the console shows right after a new version of a source, whichever door the
version came through (issue 39, point 1): the claims bound to the old version are
unverified · stale_source in the claims list, the exports, the home counts and the
review queue's "stale source" chip, before anyone opens them."""

from __future__ import annotations

import csv
import io
import re

import pytest

from tests.factories import DEFAULT_TEXT
from tests.verifier.api.conftest import client_for
from tests.verifier.services.test_source_supersede import supported
from verifier.models import Claim

pytestmark = pytest.mark.django_db

# The new version no longer has the claims' quoted words (a version that still has them
# binds them again at the document doors: tests/verifier/api/test_source_list.py).
NEW_TEXT = DEFAULT_TEXT.replace("Sediment settles", "Fine sediment drifts")
N = 3


def _api_source(workspace, source, client):
    response = client_for(workspace).post(
        "/connect/v1/sources",
        {"ref": source.ref, "text": NEW_TEXT},
        content_type="application/json",
    )
    assert response.status_code == 201


def _api_ingest(workspace, source, client):
    body = {"sources": [{"ref": source.ref, "text": NEW_TEXT}], "extract": False}
    response = client_for(workspace).post(
        "/connect/v1/ingest-jobs", body, content_type="application/json"
    )
    assert response.status_code == 202


def _console_upload(workspace, source, client):
    # The console names a pasted text's source after its title: "Marrow delta" is
    # source:marrow_delta, the fixture's source.
    response = client.post(
        "/ingest/", {"title": "Marrow delta", "text": NEW_TEXT, "format": "text"}
    )
    assert response.status_code == 302


def _claims_verify(workspace, source, client):
    body = {
        "sources": [{"ref": source.ref, "text": NEW_TEXT}],
        "claims": [{"text": "Fine sediment drifts.", "source": source.ref}],
    }
    response = client_for(workspace).post(
        "/connect/v1/claims/verify", body, content_type="application/json"
    )
    assert response.status_code == 200


DOORS = {
    "api_source": _api_source,
    "api_ingest": _api_ingest,
    "console_upload": _console_upload,
    "claims_verify": _claims_verify,
}


def _home_counts(client) -> dict[str, int]:
    html = client.get("/").content.decode()
    tiles = re.findall(r'<span class="n">(\d+)</span> <span class="label">(\w+)</span>', html)
    return {state.lower(): int(n) for n, state in tiles}  # the labels: "Supported"


@pytest.mark.parametrize("door", DOORS)
def test_old_claims_show_unverified_everywhere_right_after_a_new_version(
    door, workspace, source, reviewer_client
):
    old = [supported(source, f"Sediment settles where the current slows ({i}).") for i in range(N)]
    assert _home_counts(reviewer_client)["supported"] == N

    DOORS[door](workspace, source, reviewer_client)

    old_ids = {c.public_id for c in old}
    assert set(
        Claim.objects.filter(public_id__in=old_ids).values_list("state", "state_reason")
    ) == {("unverified", "stale_source")}
    # Home counts: none of them supported any more.
    counts = _home_counts(reviewer_client)
    assert counts["supported"] == Claim.objects.filter(state="supported").count()
    assert counts["unverified"] >= N
    # The claims list, filtered by state, as a person reads it.
    listed = reviewer_client.get("/audit/claims/?state=supported").content.decode()
    assert not any(pid in listed for pid in old_ids)
    stale = reviewer_client.get("/audit/claims/?state=unverified").content.decode()
    assert all(pid in stale for pid in old_ids)
    # The CSV export.
    body = b"".join(reviewer_client.get("/audit/claims/export.csv").streaming_content)
    rows = {r["claim_id"]: r for r in csv.DictReader(io.StringIO(body.decode()))}
    assert {rows[pid]["state"] for pid in old_ids} == {"unverified"}
    # The review queue's "stale source" chip counts every one of them.
    queue = reviewer_client.get("/review/").content.decode()
    chip = re.search(r'data-reason="stale_source"[^>]*>[^<]*<span class="n"[^>]*>(\d+)<', queue)
    assert chip is not None and int(chip.group(1)) == N
