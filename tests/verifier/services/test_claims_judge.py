from __future__ import annotations

import pytest

from tests.factories import make_claim
from tests.verifier.services.conftest import ScriptedJudge
from verifier.models import StateEvent, Verdict
from verifier.services.binding import claim_bind
from verifier.services.judging import claims_judge
from verifier.services.verification import claims_verify

pytestmark = pytest.mark.django_db

QUOTE = "Norway closed several reef areas to trawling in 1999."


def test_verdicts_are_appended_with_judge_attribution(coral):
    claim = make_claim(coral, QUOTE)
    claim_bind(claim=claim, quote=QUOTE)
    judge = ScriptedJudge("entailed", 0.9)
    (first,) = claims_judge(claims=[claim], judge=judge)
    assert (first.judge_model, first.judge_family, first.prompt_version) == (
        "scripted-judge-1",
        "scripted",
        7,
    )
    assert first.binding == claim.bindings.get(is_active=True)
    claim.refresh_from_db()
    assert claim.state == "supported"

    (second,) = claims_judge(claims=[claim], judge=ScriptedJudge("contradicted", 0.8))
    assert second.label == "contradicted"
    assert Verdict.objects.filter(claim=claim).count() == 2
    first.refresh_from_db()
    assert (first.label, first.confidence) == ("entailed", 0.9)  # never rewritten
    claim.refresh_from_db()
    assert claim.state == "contradicted"
    assert StateEvent.objects.filter(claim=claim, to_state="contradicted").exists()


def test_claim_without_span_never_reaches_the_judge(coral, kelp):
    claim = make_claim(coral, "Giant kelp grows fast.")
    claim_bind(claim=claim, quote="Giant kelp is among the fastest-growing organisms")
    judge = ScriptedJudge("entailed", 1.0)
    (verdict,) = claims_judge(claims=[claim], judge=judge)
    assert judge.seen == []
    assert (verdict.label, verdict.note, verdict.confidence) == (
        "abstained",
        "no_bound_evidence",
        0,
    )
    assert (verdict.judge_model, verdict.judge_family) == ("scripted-judge-1", "scripted")
    claim.refresh_from_db()
    assert claim.state == "unverified"


def test_judge_sees_bound_quote_first(coral):
    claim = make_claim(coral, "Norway shut several reef areas to trawlers in 1999.")
    claim_bind(claim=claim)
    judge = ScriptedJudge()
    claims_judge(claims=[claim], judge=judge)
    (item,) = judge.seen
    assert item.spans[0] == QUOTE and len(item.spans) <= 3


def test_omitted_items_become_coverage_gaps_never_supported(coral):
    kept = make_claim(coral, "Norway closed several reef areas to trawling in 1999.")
    dropped = make_claim(coral, "Cold-water corals host no symbiotic algae.")
    claim_bind(claim=kept, quote=QUOTE)
    claim_bind(claim=dropped, quote="they host no symbiotic algae")
    judge = ScriptedJudge("entailed", 0.95, omit={dropped.text})
    verdicts = claims_judge(claims=[kept, dropped], judge=judge)
    assert [v.label for v in verdicts] == ["entailed", "coverage_gap"]
    dropped.refresh_from_db()
    kept.refresh_from_db()
    assert (dropped.state, dropped.state_reason) == ("unverified", "coverage_gap")
    assert kept.state == "supported"
    # the omitted item was re-asked once
    assert [i.claim for i in judge.seen].count(dropped.text) == 2


def test_claims_verify_runs_the_chain_with_submitted_quotes(coral, kelp):
    quoted = make_claim(coral, "Norway closed reef areas.", submitted_quote=QUOTE)
    searched = make_claim(coral, "In 1999 Norway shut several reef areas to trawling.")
    misattributed = make_claim(
        coral, "Sea otters were almost hunted to extinction during the maritime fur trade."
    )
    claims_verify(claims=[quoted, searched, misattributed], judge=ScriptedJudge("entailed", 0.9))
    for claim in (quoted, searched, misattributed):
        claim.refresh_from_db()
    assert quoted.bindings.get(is_active=True).bound_by == "quote"
    assert searched.bindings.get(is_active=True).bound_by == "evidence_search"
    assert quoted.state == searched.state == "supported"
    # Only the cited source is searched; a scripted "entailed" cannot rescue a claim
    # whose best window there is unrelated, or whose search found nothing.
    binding = misattributed.bindings.filter(is_active=True).first()
    assert binding is None or "otter" not in binding.quote


def test_judge_gets_the_title_and_the_sentence_before_the_span(coral):
    claim = make_claim(coral, "Norway shut several reef areas to trawlers in 1999.")
    claim_bind(claim=claim, quote=QUOTE)
    judge = ScriptedJudge()
    judge.reads_context = True
    claims_judge(claims=[claim], judge=judge)
    (item,) = judge.seen
    assert item.context == (
        "A document. Unlike their tropical relatives, they host no symbiotic algae."
    )
    assert QUOTE not in item.context  # context resolves names; it is not evidence


def test_judges_that_do_not_read_context_are_spared_building_it(coral):
    claim = make_claim(coral, "Norway shut several reef areas to trawlers in 1999.")
    claim_bind(claim=claim, quote=QUOTE)
    judge = ScriptedJudge()
    claims_judge(claims=[claim], judge=judge)
    (item,) = judge.seen
    assert item.context == ""
