from __future__ import annotations

import pytest

from tests.factories import make_claim
from tests.verifier.services.conftest import CORAL, ScriptedJudge
from verifier.models import EvidenceBinding, EvidenceCandidate, Source
from verifier.services.binding import BindingRejected, claim_bind, claim_bind_span
from verifier.services.claim_state import claim_recheck_on_read
from verifier.services.judging import claims_judge
from verifier.services.sources import source_upsert

pytestmark = pytest.mark.django_db


def _roundtrip(binding: EvidenceBinding) -> None:
    version = binding.source_version
    assert version.text[binding.start : binding.end] == binding.quote
    assert binding.source_hash == version.sha256
    assert binding.is_active


def test_exact_quote_binds_with_offsets(coral):
    claim = make_claim(coral, "Norway closed reef areas in 1999.")
    outcome = claim_bind(claim=claim, quote="Norway closed several reef areas to trawling in 1999.")
    assert outcome.reason is None
    b = outcome.binding
    assert (b.match, b.score, b.bound_by) == ("exact", 1.0, "quote")
    assert b.start == CORAL.index("Norway closed")
    _roundtrip(b)


def test_normalized_quote_stores_original_text(coral):
    claim = make_claim(coral)
    outcome = claim_bind(
        claim=claim, quote="NORWAY  closed several reef areas to trawling in 1999."
    )
    b = outcome.binding
    assert b.match == "normalized"
    assert b.quote == "Norway closed several reef areas to trawling in 1999."
    _roundtrip(b)


def test_fuzzy_quote_is_labelled_with_score(coral):
    claim = make_claim(coral)
    outcome = claim_bind(
        claim=claim, quote="Norway closed several reef area to trawling in the year 1999."
    )
    b = outcome.binding
    assert b.match == "fuzzy"
    assert 0.85 <= b.score < 1.0
    _roundtrip(b)


def test_rebinding_deactivates_previous_binding(coral):
    claim = make_claim(coral)
    first = claim_bind(claim=claim, quote="they host no symbiotic algae").binding
    second = claim_bind(claim=claim, quote="Norway closed several reef areas").binding
    first.refresh_from_db()
    assert not first.is_active and second.is_active
    assert claim.bindings.filter(is_active=True).count() == 1


def test_misattributed_quote_does_not_bind(coral, kelp):
    claim = make_claim(coral, "Giant kelp grows fast.")
    outcome = claim_bind(claim=claim, quote="Giant kelp is among the fastest-growing organisms")
    assert outcome.binding is None
    assert outcome.reason == "quote_not_found"
    claims_judge(claims=[claim], judge=ScriptedJudge("entailed", 0.99))
    claim.refresh_from_db()
    assert claim.state != "supported"


def test_evidence_search_binds_best_sentence_and_keeps_alternatives(coral):
    claim = make_claim(coral, "In 1999 Norway shut several coral reef areas to trawlers.")
    outcome = claim_bind(claim=claim)
    b = outcome.binding
    assert b.bound_by == "evidence_search" and b.match == "exact"
    assert b.quote == "Norway closed several reef areas to trawling in 1999."
    _roundtrip(b)
    stored = list(EvidenceCandidate.objects.filter(claim=claim))
    assert stored and stored == outcome.candidates
    for cand in stored:
        assert CORAL[cand.start : cand.end] == cand.quote
        assert not (cand.start < b.end and b.start < cand.end)


def test_no_candidate_gives_no_evidence(coral):
    claim = make_claim(coral, "Quarterly bond yields in Brazilian municipal finance rose sharply.")
    outcome = claim_bind(claim=claim)
    assert outcome.binding is None and outcome.reason == "no_evidence"
    claim.refresh_from_db()
    assert (claim.state, claim.state_reason) == ("unverified", "no_evidence")


@pytest.mark.parametrize(
    "quote,reason",
    [
        ("", "invalid_quote"),
        ("   ", "invalid_quote"),
        ("bad \ud800 surrogate", "invalid_quote"),
        ("x" * (len(CORAL) + 1), "invalid_quote"),
        ("nothing like this appears anywhere", "quote_not_found"),
    ],
)
def test_bad_quotes_give_reasons_not_exceptions(coral, quote, reason):
    claim = make_claim(coral)
    outcome = claim_bind(claim=claim, quote=quote)
    assert outcome.binding is None and outcome.reason == reason


def test_source_without_versions(workspace):
    bare = Source.objects.create(workspace=workspace, ref="source:empty", title="Empty")
    claim = make_claim(bare)
    outcome = claim_bind(claim=claim, quote="Norway")
    assert outcome.reason == "no_source_version"
    with pytest.raises(BindingRejected) as exc:
        claim_bind_span(claim=claim, start=0, end=3, actor=None)
    assert exc.value.code == "no_source_version"


def test_new_version_makes_binding_stale_and_rebind_fixes_it(workspace, coral):
    claim = make_claim(coral, "Norway closed several reef areas to trawling in 1999.")
    claim_bind(claim=claim, quote="Norway closed several reef areas to trawling in 1999.")
    claims_judge(claims=[claim], judge=ScriptedJudge("entailed", 0.9))
    claim.refresh_from_db()
    assert claim.state == "supported"

    source_upsert(workspace=workspace, ref=coral.ref, text="Preface. " + CORAL)
    decision = claim_recheck_on_read(claim=claim)
    assert decision is not None
    claim.refresh_from_db()
    assert (claim.state, claim.state_reason) == ("unverified", "stale_source")
    # re-check never promotes
    assert claim_recheck_on_read(claim=claim) is None

    outcome = claim_bind(claim=claim, quote="Norway closed several reef areas to trawling in 1999.")
    assert outcome.binding.source_version.number == 2
    _roundtrip(outcome.binding)
    claim.refresh_from_db()
    assert claim.state == "supported"  # same quote text: the verdict still applies


def test_rebind_to_different_text_needs_rejudging(coral):
    claim = make_claim(coral, "Norway closed several reef areas to trawling in 1999.")
    claim_bind(claim=claim, quote="Norway closed several reef areas to trawling in 1999.")
    claims_judge(claims=[claim], judge=ScriptedJudge("entailed", 0.9))
    claim_bind(claim=claim, quote="they host no symbiotic algae")
    claim.refresh_from_db()
    assert claim.state != "supported"


def test_reviewer_span_binds_exactly(coral, reviewer):
    claim = make_claim(coral)
    start = CORAL.index("Norway")
    binding = claim_bind_span(claim=claim, start=start, end=start + 6, actor=reviewer)
    assert (binding.bound_by, binding.match, binding.quote) == ("reviewer", "exact", "Norway")
    assert binding.bound_by_user == reviewer
    _roundtrip(binding)


@pytest.mark.parametrize("start,end", [(-1, 3), (5, 5), (9, 2), (0, len(CORAL) + 1)])
def test_reviewer_span_out_of_range_is_rejected(coral, reviewer, start, end):
    claim = make_claim(coral)
    with pytest.raises(BindingRejected) as exc:
        claim_bind_span(claim=claim, start=start, end=end, actor=reviewer)
    assert exc.value.code == "offsets_out_of_range"
    assert not claim.bindings.exists()
