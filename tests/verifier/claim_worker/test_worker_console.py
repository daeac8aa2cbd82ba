"""The worker console page: run a verification, read the diagnostics in the seed's
debugging order."""

from __future__ import annotations

import re

from django.utils.html import escape

from tests.verifier.claim_worker.test_worker_verify_api import corpus  # noqa: F401  (fixture)
from verifier import vocabulary
from verifier.models import Claim

PAGE = "/worker/console"


def test_reviewer_runs_a_verification_and_reads_diagnostics_in_order(reviewer_client, corpus):  # noqa: F811
    assert reviewer_client.get(PAGE).status_code == 200
    resp = reviewer_client.post(
        PAGE,
        {
            "claim": "The Halden Point lighthouse was built in 1871.",
            "top_k": 5,
            "domain": "general",
        },
    )
    assert resp.status_code == 200
    html = resp.content.decode()
    assert "Verdict: True</h2>" in html
    steps = [
        "1. Admissible evidence",
        "2. Claim breakdown",
        "3. Trust",
        "4. Top evidence",
        "5. Binary gates",
    ]
    positions = [html.index(step) for step in steps]
    assert positions == sorted(positions)
    assert "admissible_evidence_ratio" in html


def test_the_verdict_and_the_breakdown_read_as_words_not_codes(reviewer_client, corpus):  # noqa: F811
    """Walk finding: the page showed "Verdict: TRUE" and statuses like "STRONGLY_VALID";
    people read the vocabulary's labels, the API code only as a code beside them."""
    resp = reviewer_client.post(
        PAGE,
        {
            "claim": "The Halden Point lighthouse was built in 1871.",
            "top_k": 5,
            "domain": "general",
        },
    )
    html = resp.content.decode()
    heading = html[html.index('id="verdict-h"') :]
    assert heading[: heading.index("</h2>")].endswith("Verdict: True")
    assert escape(vocabulary.explanation("worker_verdict", "TRUE")) in html
    assert 'href="/glossary/#worker_verdict-true"' in html
    breakdown = html[html.index('id="step2-h"') : html.index('id="step3-h"')]
    statuses = re.findall(
        r"<td title=\"[^\"]*\">([^<]*)<code class=\"muted\">(\w+)</code>", breakdown
    )
    assert statuses, breakdown
    for shown, code in statuses:
        assert shown.strip() == vocabulary.label("segment", code)
        assert "_" not in shown and shown.strip() != code


def test_bad_top_k_is_a_form_error(reviewer_client, corpus):  # noqa: F811
    resp = reviewer_client.post(PAGE, {"claim": "x", "top_k": 40, "domain": "general"})
    assert resp.status_code == 200
    assert "Verdict:" not in resp.content.decode()
    assert "less than or equal to 20" in resp.content.decode()


def test_auditors_read_the_page_but_cannot_run_verifications(auditor_client):
    assert auditor_client.get(PAGE).status_code == 200
    response = auditor_client.post(PAGE, {"claim": "x", "top_k": 5, "domain": "general"})
    assert response.status_code == 403
    assert not Claim.objects.exists()


# --- codes read as words (the worker console showed trust_route, status, stance raw) ----

# Every code the worker's answer carries that the page shows, by vocabulary kind.
WORKER_CODES = {
    "worker_status": ["completed", "completed_from_cache"],
    "worker_cache": [
        "hit",
        "trust_insufficient",
        "no_cached_result",
        "expired",
        "judge_changed",
        "mode_changed",
        "evidence_changed",
        "not_binary",
        "low_confidence",
        "state_disagrees",
    ],
    "worker_trust_mode": ["adaptive", "confidence"],
    "worker_route": [
        "no_evidence",
        "low_count_override",
        "confidence_mode",
        "adaptive_override",
        "strict_high_coverage",
        "strict_medium_coverage",
        "gates_not_met",
        "below_min_evidence",
        "weak_relevance_guard",
    ],
    "worker_trust_state": ["confirmed", "provisional", "revoked", "evidence_insufficiency"],
    "worker_stance": ["supports", "contradicts", "neutral"],
    "worker_adjustment": [
        "boost_kg_overlap",
        "boost_entity_kg",
        "boost_kg_anchor",
        "multihop_kg_hint_capped",
        "boost_negation_anchor",
        "anchor_weak",
        "backfill_weak",
        "object_mismatch",
        "focus_mismatch",
        "subject_mismatch",
        "relation_object_mismatch",
        "reporting_style",
        "uncertainty",
        "floor",
    ],
    "worker_reconciliation": [
        "strong_contradiction_forced_false",
        "mixed_signal_band",
        "binary_gate_false_weak",
        "binary_gate_trust_insufficient",
        "binary_gate_anchor",
        "binary_gate_predicate",
        "hedged_evidence_blocks_true",
        "absolute_quantifier_guard",
        "very_strict_claim_needs_strong_support",
    ],
}


def test_every_worker_code_the_page_shows_has_words():
    from verifier.claim_worker.config import TRUST_POLICY_MODES

    assert list(TRUST_POLICY_MODES) == WORKER_CODES["worker_trust_mode"]
    for kind, codes in WORKER_CODES.items():
        for code in codes:
            found = vocabulary.KINDS[kind].get(code)
            assert found is not None, f"{kind} {code!r} has no entry in verifier/vocabulary.py"
            assert found.label and "_" not in found.label and found.label != code
            assert found.explanation.endswith("."), (kind, code)


def _visible_results(html: str) -> str:
    """The result's words as read: without the API codes shown beside the labels, the
    tooltips and the tags."""
    results = html[html.index('id="verdict-h"') :]
    results = re.sub(r"<code[^>]*>[^<]*</code>", "", results)
    results = re.sub(r"<[^>]*>", " ", results)
    return results


def _coded(html: str, kind: str, code: str) -> bool:
    """The label of ``code`` with its explanation as a tooltip and the code beside it."""
    found = vocabulary.term(kind, code)
    return (
        f'<span class="coded" title="{escape(found.explanation)}">{escape(found.label)}</span> '
        f'<code class="muted code-of-label">{code}</code>'
    ) in html


def test_the_diagnostics_read_as_words_with_the_codes_beside_them(reviewer_client, corpus):  # noqa: F811
    resp = reviewer_client.post(
        PAGE,
        {
            "claim": "The Halden Point lighthouse was built in 1871.",
            "top_k": 5,
            "domain": "general",
            "trust_policy_mode": "adaptive",
        },
    )
    html = resp.content.decode()
    shown = _visible_results(html)
    raw = re.findall(r"\b[a-z]+(?:_[a-z]+)+\b|\b[A-Z]{4,}(?:_[A-Z]+)*\b", shown)
    assert not raw, raw
    result = resp.context["result"]
    assert _coded(html, "worker_status", result["status"])
    assert _coded(html, "worker_cache", result["cache"]["reason"])
    assert _coded(html, "worker_trust_mode", "adaptive")
    assert _coded(html, "worker_route", result["trust_route"])
    assert _coded(html, "worker_trust_state", result["trust_verdict_state"])
    assert _coded(html, "worker_count", "admissible_evidence_ratio")
    for item in result["evidence"]:
        assert _coded(html, "worker_stance", item["stance"])
        for note in item["signals"]["adjustments"]:
            assert _coded(html, "worker_adjustment", note)
    for reason in result["reconciliation_reasons"]:
        assert _coded(html, "worker_reconciliation", reason)
    # the form offers the modes by their labels
    assert '<option value="adaptive" selected>Adaptive</option>' in html


def test_no_evidence_reads_as_words(reviewer_client, workspace):
    resp = reviewer_client.post(
        PAGE, {"claim": "Tarn Point Light was first lit in 1858.", "top_k": 5, "domain": "general"}
    )
    html = resp.content.decode()
    assert resp.context["result"]["trust_route"] == "no_evidence"
    route = html[html.index('id="trust-route"') :]
    assert route.startswith('id="trust-route"><span class="coded" title="')
    assert ">No evidence</span>" in route[: route.index("</dd>")]
    assert _coded(html, "worker_route", "no_evidence")
    assert _coded(html, "worker_trust_state", "evidence_insufficiency")
    assert re.search(r'id="trust-sufficient">No<', html)
