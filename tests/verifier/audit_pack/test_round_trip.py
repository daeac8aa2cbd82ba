from __future__ import annotations

import shlex
import subprocess
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from audit.exports import envelope_of
from tests.verifier.audit_pack.conftest import jsonl, unzip, write_pack
from verifier.audit_pack import check
from verifier.audit_pack.check import check_pack, render_report
from verifier.models import Claim, Workspace
from verifier.scoring.quality import quality_class

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
    # the check it prints runs as printed (it named a check.py not in any folder)
    said = printed.getvalue().split("Check it with: ", 1)[1].split(" (or", 1)[0]
    ran = subprocess.run(shlex.split(said), capture_output=True, text=True, timeout=120)
    assert ran.returncode == 0, ran.stdout + ran.stderr


@pytest.mark.parametrize(
    ("options", "named"),
    [
        ({"state": "bogus"}, "state"),
        ({"state": "Supported"}, "state"),
        ({"trace": "not-a-uuid"}, "trace"),
    ],
)
def test_the_command_refuses_a_filter_the_api_refuses(tmp_path: Path, workspace, options, named):
    """One rule with the API: an unknown state is refused by name, not written as a signed
    0-claim pack that checks PASSED (auditor walk M3)."""
    out = tmp_path / "pack.zip"
    with pytest.raises(CommandError, match=named):
        call_command("audit_pack", workspace=workspace.slug, out=str(out), **options)
    assert not out.exists() and not (tmp_path / "pack.zip.part").exists()


def test_quality_and_trust_score_are_what_every_other_output_shows(tmp_path: Path, history):
    """claims.jsonl carries the class capped by the state and the envelope's trust score,
    not the raw columns: an abstained claim the rule set classed "supported" reads "weak"
    with the envelope's computed score, never "supported" / null (auditor walk M4)."""
    claims = history["claims"]
    Claim.objects.filter(pk__in=[c.pk for c in claims.values()]).update(quality="supported")
    pack = write_pack(history["source"].workspace, tmp_path / "pack.zip")
    assert check_pack(pack).ok
    rows = {r["id"]: r for r in jsonl(unzip(pack, tmp_path / "pack"), check.CLAIMS_FILE)}
    for claim in Claim.objects.filter(pk__in=[c.pk for c in claims.values()]):
        row = rows[claim.public_id]
        assert row["quality"] == quality_class(claim.state, claim.quality)
        assert row["trust_score"] == envelope_of(claim)["trust_score"]
    abstained = rows[claims["abstained"].public_id]
    assert (abstained["state"], abstained["quality"]) == ("unverified", "weak")
    assert isinstance(abstained["trust_score"], int)
    assert rows[claims["excluded"].public_id]["quality"] is None


def test_a_decision_undone_checks_as_the_state_writer_resolved_it(tmp_path: Path, reviewer):
    """An undo appends a ``withdrawn`` verdict: the checker takes back the decision it
    withdraws, as the state writer does, instead of reading the withdrawal as the
    decision in force (states walk, H1)."""
    from review.services import review_decide, review_undo
    from tests.factories import make_source
    from tests.review.conftest import queue_claim, seen

    workspace = reviewer.memberships.get().workspace
    claim = queue_claim(make_source(workspace, ref="source:undo"), "contradicted")
    review_decide(
        claim=claim, reviewer=reviewer, decision="supported", expected_version=seen(claim)
    )
    review_undo(claim=claim, reviewer=reviewer)
    claim.refresh_from_db()
    assert (claim.state, claim.verdicts.order_by("-at", "-id").first().label) == (
        "contradicted",
        "withdrawn",
    )
    report = check_pack(write_pack(workspace, tmp_path / "pack.zip"))
    assert report.ok, render_report(report)
