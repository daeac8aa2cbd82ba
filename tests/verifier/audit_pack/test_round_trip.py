from __future__ import annotations

from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command

from tests.verifier.audit_pack.conftest import jsonl, unzip
from verifier.audit_pack import check
from verifier.audit_pack.check import check_pack, render_report
from verifier.models import Claim, Workspace

pytestmark = pytest.mark.django_db


def test_the_demo_workspace_round_trips_through_the_checker(tmp_path: Path):
    """The demo data through the real chain, exported by the command, passes the checker:
    every state, spans, verdicts and events included."""
    call_command("load_demo", stdout=StringIO())
    out = tmp_path / "demo.zip"
    printed = StringIO()
    call_command("audit_pack", workspace="demo", out=str(out), stdout=printed)
    report = check_pack(out)
    assert report.ok, render_report(report)
    demo = Workspace.objects.get(slug="demo")
    assert report.counts["claims"] == Claim.objects.filter(workspace=demo).count()
    states = {row["state"] for row in jsonl(unzip(out, tmp_path / "demo"), check.CLAIMS_FILE)}
    assert states == {"supported", "inferred", "unverified", "contradicted", "excluded"}
    assert f"key id {report.meta['key_id']}" in printed.getvalue()
