from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from tests.factories import make_claim, make_source, make_workspace
from tests.verifier.services.conftest import CORAL, ScriptedJudge
from verifier.models import StateEvent, Verdict
from verifier.services.binding import claim_bind
from verifier.services.judging import claims_judge

pytestmark = pytest.mark.django_db

QUOTE = "Norway closed several reef areas to trawling in 1999."


def test_rejudge_appends_verdicts_of_the_configured_judge_through_the_state_service(settings):
    settings.SPANPROOF_JUDGE = {"backend": "nli", "batch_size": 10}
    workspace = make_workspace("rejudge")
    source = make_source(workspace, ref="source:coral", text=CORAL)
    claim = make_claim(
        source, QUOTE
    )  # verbatim: entailed by the trained judge without a model call
    claim_bind(claim=claim, quote=QUOTE)
    other = make_claim(source, "Cold-water corals host no symbiotic algae.")
    claim_bind(claim=other, quote="they host no symbiotic algae")
    claims_judge(claims=[claim], judge=ScriptedJudge("abstained", 0.5))
    claims_judge(claims=[other], judge=ScriptedJudge("entailed", 0.9))
    claim.refresh_from_db()
    assert claim.state == "unverified"
    events_before = StateEvent.objects.filter(claim=claim).count()

    out = StringIO()
    call_command("rejudge", "--workspace", "rejudge", "--state", "unverified", stdout=out)

    assert "1 claims of rejudge re-judged by spanproof-nli-v1" in out.getvalue()
    labels = list(
        Verdict.objects.filter(claim=claim).order_by("pk").values_list("judge_model", flat=True)
    )
    assert labels == ["scripted-judge-1", "spanproof-nli-v1"]  # appended, never rewritten
    assert Verdict.objects.filter(claim=other).count() == 1  # not in the chosen state
    claim.refresh_from_db()
    assert claim.state == "supported"
    assert StateEvent.objects.filter(claim=claim).count() == events_before + 1


def test_rejudge_unknown_workspace_is_a_clear_error():
    with pytest.raises(CommandError, match="no workspace"):
        call_command("rejudge", "--workspace", "nope")
