"""An auditor's walk of packs: a pack of a job exported while its claims were still
unresolved passes, and a pack whose lines were only reordered fails, saying so."""

from __future__ import annotations

import pytest

from tests.factories import make_claim, make_source
from tests.verifier.audit_pack.conftest import jsonl, unzip, write_jsonl, write_pack
from verifier.audit_pack import check
from verifier.audit_pack.check import check_pack, render_report
from verifier.audit_pack.scope import PackScope
from verifier.models import Claim

pytestmark = pytest.mark.django_db


def test_a_claim_not_yet_resolved_passes_in_its_initial_state(workspace, tmp_path):
    # What an ingest job's extraction leaves before it judges: a claim, no event yet.
    source = make_source(workspace, ref="source:still_ingesting")
    claim = make_claim(source, "The river flooded in 1998.")
    assert (claim.state, claim.state_reason) == check.INITIAL_STATE
    assert not claim.state_events.exists()
    pack = write_pack(workspace, tmp_path / "pack.zip", PackScope(kind="source", source=source.ref))
    report = check_pack(pack)
    assert report.ok, render_report(report)


def test_a_claim_with_no_event_that_records_another_state_still_fails(workspace, tmp_path):
    source = make_source(workspace, ref="source:still_ingesting")
    claim = make_claim(source, "The river flooded in 1998.")
    Claim.objects.filter(pk=claim.pk).update(state="unverified", state_reason="no_evidence")
    pack = write_pack(workspace, tmp_path / "pack.zip", PackScope(kind="source", source=source.ref))
    report = check_pack(pack)
    states = [p.message for p in report.problems if p.check == "states"]
    assert any("its state events end at unverified/not_judged" in m for m in states), states


def test_reordered_lines_are_named_as_moved_not_as_changed(workspace, tmp_path):
    source = make_source(workspace, ref="source:several")
    ids = [make_claim(source, f"Claim number {i}.").public_id for i in range(3)]
    folder = unzip(write_pack(workspace, tmp_path / "pack.zip"), tmp_path / "unzipped")
    rows = jsonl(folder, check.CLAIMS_FILE)
    assert sorted(r["id"] for r in rows) == sorted(ids)
    write_jsonl(folder, check.CLAIMS_FILE, list(reversed(rows)))
    report = check_pack(folder)
    assert not report.ok
    files = [p.message for p in report.problems if p.check == "files"]
    assert any("its lines are in another order (2 moved); no record changed" in m for m in files)
    assert any(f"line 1 ({rows[2]['id']}): this record was line 3" in m for m in files), files
    assert not any("changed (now" in m or "fields were added" in m for m in files), files
