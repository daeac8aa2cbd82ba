from __future__ import annotations

import json

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from verifier.models import ValidatorRun, Workspace

pytestmark = pytest.mark.django_db

FIXTURE = {
    "sources": [
        {
            "id": "coral",
            "title": "Corals",
            "text": "Cold-water corals host no symbiotic algae. "
            "Norway closed several reef areas to trawling in 1999. "
            "Some colonies may keep calcifying under lower pH.",
        },
        {
            "id": "kelp",
            "title": "Kelp",
            "text": "Sea otters were hunted almost to extinction during the maritime fur trade.",
        },
    ],
    "claims": [
        {
            "id": "s1",
            "source_id": "coral",
            "label": "supported",
            "text": "Norway closed several reef areas to trawling in 1999.",
        },
        {
            "id": "c1",
            "source_id": "coral",
            "label": "unsupported",
            "tier": "contradicted",
            "text": "Norway did not close any reef areas to trawling in 1999.",
        },
        {
            "id": "o1",
            "source_id": "coral",
            "label": "unsupported",
            "tier": "overstated",
            "text": "All colonies keep calcifying under lower pH.",
        },
        {
            "id": "m1",
            "source_id": "coral",
            "label": "unsupported",
            "tier": "misattributed",
            "evidence_source_id": "kelp",
            "text": "Sea otters were hunted almost to extinction during the maritime fur trade.",
        },
        {
            "id": "f1",
            "source_id": "kelp",
            "label": "unsupported",
            "tier": "fabricated",
            "text": "Sea otters were first protected by a treaty signed in Lisbon in 1862.",
        },
        {
            "id": "b1",
            "source_id": "kelp",
            "label": "supported",
            "beyond_window": True,
            "text": "Sea otters use rocks as tools to crack open shellfish.",
        },
    ],
}


@pytest.fixture
def fixture_path(tmp_path):
    path = tmp_path / "tiny.json"
    path.write_text(json.dumps(FIXTURE))
    return path


def test_efficacy_json_reports_metrics_and_stores_a_run(fixture_path, capsys):
    call_command("verifier_efficacy", str(fixture_path), "--json", skip_checks=True)
    out = json.loads(capsys.readouterr().out)
    metrics = out["metrics"]
    assert metrics["claims"] == 6
    for tier in ("fabricated", "overstated", "misattributed", "contradicted"):
        assert metrics["recall"][tier]["recall_strict"] == 1.0, tier
        assert metrics["recall"][tier]["recall_with_coverage"] == 1.0
    assert metrics["false_flag_rate"] == 0.0
    assert metrics["affirm_unseen_rate"] == 0.0
    assert metrics["bound"] + metrics["no_evidence"] <= 6
    states = {row["id"]: row["state"] for row in out["per_claim"]}
    assert states["s1"] == "supported" and states["m1"] != "supported"
    run = ValidatorRun.objects.get(pk=out["validator_run"])
    assert run.metrics["claims"] == 6 and len(run.per_claim) == 6
    assert run.workspace.slug.startswith("bench-")


def test_efficacy_runs_twice_in_fresh_workspaces(fixture_path, capsys):
    call_command("verifier_efficacy", str(fixture_path), "--runs", "2", skip_checks=True)
    text = capsys.readouterr().out
    assert "recall_strict" in text and "false_flag_rate" in text
    assert Workspace.objects.filter(slug__startswith="bench-").count() == 2
    assert ValidatorRun.objects.get().runs == 2


def test_bad_fixture_is_a_command_error(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"sources": [], "claims": []}))
    with pytest.raises(CommandError, match="sources"):
        call_command("verifier_efficacy", str(bad), skip_checks=True)
