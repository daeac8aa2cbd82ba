"""The claim page: envelope, state inputs, the five live checks, timeline."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from tests.audit.conftest import QUOTE, judge
from tests.factories import DEFAULT_TEXT, make_binding, make_claim, make_source, tamper
from verifier.models import Trace, TraceClaim
from verifier.services.sources import source_upsert
from verifier.states import NO_BOUND_EVIDENCE_NOTE

pytestmark = pytest.mark.django_db

# The page embeds the API's envelope; these run once that selector is in the tree.


def _page(client, claim):
    response = client.get(reverse("audit:claim-detail", args=[claim.public_id]))
    assert response.status_code == 200
    return response.content.decode()


def _badges(html):
    return re.findall(r'class="badge badge-([a-z]+)"', html)


def test_supported_claim_passes_every_live_check(auditor_client, supported_claim):
    trace = Trace.objects.create(
        workspace=supported_claim.workspace, query="delta", document={"policy": {"name": "strict"}}
    )
    TraceClaim.objects.create(
        trace=trace, claim=supported_claim, included=True, verification_state="supported"
    )
    html = _page(auditor_client, supported_claim)
    assert _badges(html) == ["pass"] * 5
    assert "No check failed." in html
    assert supported_claim.source.versions.get().sha256 in html
    assert 'id="envelope-json"' in html and supported_claim.public_id in html
    assert "heuristic-entailment-v1" in html  # verdict history
    assert "Core v1" in html and "balanced" in html  # active rule set


def test_tampered_source_text_fails_quote_and_hash_checks_visibly(auditor_client, supported_claim):
    version = supported_claim.source.versions.get()
    tamper(version, version.text.replace("Sediment settles", "Pebbles vanish!!"))
    html = _page(auditor_client, supported_claim)
    badges = _badges(html)
    assert badges[0] == "fail" and badges[1] == "fail"
    assert "2 checks failed." in html
    assert "does NOT match the quote" in html
    assert "no longer hashes to the recorded value" in html
    assert "Pebbles vanish!!" in html  # what was found is shown beside what was expected


def test_text_altered_outside_the_quote_is_said_at_the_top_not_only_in_check_2(
    auditor_client, supported_claim
):
    """A word changed outside the quote leaves the quote at its offsets and the stored
    hashes equal, so the state stays Supported and "Why this state" reads "Span is
    current": the page says at its top (and beside that line) that the text no longer
    hashes, instead of leaving it to check 2 further down."""
    version = supported_claim.source.versions.get()
    tamper(version, version.text.replace("wet years", "dry years"))
    html = _page(auditor_client, supported_claim)
    assert _badges(html)[:2] == ["pass", "fail"]
    top = html.index('id="cited-text-altered"')
    assert top < html.index('id="evidence-top"')
    notice = html[top : html.index("</p>", top)]
    assert "The cited text was altered." in notice
    assert f"<code>{supported_claim.source.ref}</code> v1 no longer hashes" in notice
    assert 'href="#check-2"' in notice
    why = html[html.index('id="why-h"') : html.index('id="checks-h"')]
    assert "but its text no longer hashes to the recorded SHA-256" in why


def test_an_unaltered_claim_page_says_nothing_about_altered_text(auditor_client, supported_claim):
    html = _page(auditor_client, supported_claim)
    assert 'id="cited-text-altered"' not in html
    assert "no longer hashes" not in html


def test_unbound_claim_shows_checks_as_not_applicable(auditor_client, source):
    claim = make_claim(source, "Rivers always flood in spring.")
    html = _page(auditor_client, claim)
    assert _badges(html)[:3] == ["na", "na", "na"]
    assert "No evidence span is bound" in html


def test_the_abstention_recorded_for_an_unbound_claim_is_no_model_verdict(auditor_client, source):
    claim = make_claim(source, "Rivers always flood in spring.")
    judge(claim, label="abstained", confidence=0.0, note=NO_BOUND_EVIDENCE_NOTE)
    html = _page(auditor_client, claim)
    assert "Latest model verdict</dt><dd>none: the judge was not asked" in html
    assert "Latest model verdict</dt><dd>No answer" not in html


def test_state_inputs_and_timeline_cover_model_and_human(auditor_client, reviewer, source):
    claim = make_claim(source, QUOTE)
    binding = make_binding(claim, QUOTE)
    judge(claim, label="abstained", confidence=0.3, binding=binding)
    judge(claim, label="entailed", confidence=0.95, binding=binding, reviewer=reviewer)
    html = _page(auditor_client, claim)
    # Labels, not codes; an abstention shows no confidence (issue 40.1)
    assert "Latest model verdict</dt><dd>No answer, confidence –" in html
    assert "Latest human verdict</dt><dd>Supports" in html
    assert "abstained at" not in html and "0.30" not in html
    assert "by reviewer rita" in html  # human verdict in the timeline
    assert "→ <strong>Supported</strong>" in html


def test_evidence_links_to_the_span_permalink(auditor_client, supported_claim):
    binding = supported_claim.bindings.get()
    html = _page(auditor_client, supported_claim)
    url = reverse(
        "audit:source-version", args=[supported_claim.source_id, binding.source_version.sha256]
    )
    start, end = binding.start, binding.end
    assert f'href="{url}?span={start}-{end}#seg-{start}"' in html


def test_claim_text_is_escaped(auditor_client, source):
    claim = make_claim(source, "<script>alert(1)</script>")
    html = _page(auditor_client, claim)
    assert "<script>alert(1)</script>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html


def test_other_workspace_claim_is_the_same_404(auditor_client, other_workspace):
    other = make_claim(make_source(other_workspace), QUOTE)
    missing = auditor_client.get(reverse("audit:claim-detail", args=["claim:doesnotexist"]))
    foreign = auditor_client.get(reverse("audit:claim-detail", args=[other.public_id]))
    assert missing.status_code == foreign.status_code == 404
    assert b"another workspace" in foreign.content


def test_claim_page_query_count_is_pinned(
    auditor_client, supported_claim, django_assert_max_num_queries
):
    for i in range(5):
        judge(supported_claim, confidence=0.6 + i / 20, binding=supported_claim.bindings.get())
        trace = Trace.objects.create(
            workspace=supported_claim.workspace, query=f"q{i}", document={}
        )
        TraceClaim.objects.create(
            trace=trace,
            claim=supported_claim,
            included=i % 2 == 0,
            exclusion_reason="" if i % 2 == 0 else "confidence_gate",
            verification_state="supported",
        )
    with django_assert_max_num_queries(25):
        _page(auditor_client, supported_claim)


def test_new_source_version_demotes_on_read_and_fails_the_hash_check(
    auditor_client, supported_claim
):
    from verifier.services.sources import source_upsert

    source = supported_claim.source
    source_upsert(workspace=source.workspace, ref=source.ref, text=source.versions.get().text + "!")
    html = _page(auditor_client, supported_claim)
    supported_claim.refresh_from_db()
    assert (supported_claim.state, supported_claim.state_reason) == ("unverified", "stale_source")
    assert _badges(html)[:2] == ["pass", "fail"]
    assert "the source has a newer version" in html


def test_a_later_version_with_the_bound_text_again_passes_the_version_check(
    auditor_client, supported_claim
):
    """The page holds the span to the state writer's rule: current when the current
    version has the text it was bound in, also when that is a later version putting the
    same text back (states walk, H3: "Supported" beside a failed check 2)."""
    from verifier.services.sources import source_upsert

    source = supported_claim.source
    text = source.versions.get().text
    source_upsert(workspace=source.workspace, ref=source.ref, text=text + "!")
    source_upsert(workspace=source.workspace, ref=source.ref, text=text)  # v3 = v1
    html = _page(auditor_client, supported_claim)
    supported_claim.refresh_from_db()
    check = _check(html, 2)
    assert "v3 (the same text)" in check and "newer version" not in check
    assert _badges(html)[1] == "pass"
    assert supported_claim.state != "unverified" or supported_claim.state_reason != "stale_source"


def test_evidence_link_and_highlighted_span_come_first(auditor_client, supported_claim):
    binding = supported_claim.bindings.get()
    html = _page(auditor_client, supported_claim)
    top = html.index('id="evidence-top"')
    assert top < html.index('id="why-h"') and top < html.index('id="checks-h"')
    panel = html[top : html.index("</section>", top)]
    assert (
        '<mark class="span focus" id="evidence-mark" aria-describedby="span-mark-words">'
        f"{binding.quote}</mark>"
    ) in panel
    assert f"?span={binding.start}-{binding.end}#seg-{binding.start}" in panel


def _check(html, number):
    return html.split(f'id="check-{number}"', 1)[1].split("</li>", 1)[0]


def test_an_abstention_and_a_reviewer_decision_show_no_confidence_in_check_3(
    auditor_client, reviewer, source
):
    """Check 3 uses the one rule (auditor walk M2): an abstention stored at 1.0, and a
    reviewer's decision, are never shown with a confidence."""
    claim = make_claim(source, QUOTE)
    binding = make_binding(claim, QUOTE)
    judge(claim, label="abstained", confidence=1.0, binding=binding)
    check = _check(_page(auditor_client, claim), 3)
    assert "100" not in check and "at confidence" not in check
    assert "none: the judge gave no answer" in check
    judge(claim, label="entailed", confidence=1.0, binding=binding, reviewer=reviewer)
    check = _check(_page(auditor_client, claim), 3)
    assert "(reviewer rita)" in check and "none: a reviewer&#x27;s decision" in check
    assert (
        "100" not in check
        and "Prompt v" not in check
        and "<td>v1</td>" not in check.split("rita")[-1].split("</tr>")[0]
    )


def test_a_stale_span_says_the_source_has_a_newer_version(auditor_client, supported_claim):
    """No raw hash_mismatch, and check 2's title and outcome agree (auditor walk M5)."""
    source_upsert(
        workspace=supported_claim.workspace,
        ref=supported_claim.source.ref,
        text=DEFAULT_TEXT.replace("Sediment settles", "Sediment drifts"),
    )
    html = _page(auditor_client, supported_claim)
    assert "hash_mismatch" not in html
    assert "Source has a newer version" in html
    check = _check(html, 2)
    assert "badge-fail" in check and "The span&#x27;s version is the current one" in check
    assert "The hash matches" not in check
    assert "bound to v1, but the source has a newer version (v2)" in check


def test_times_say_utc(auditor_client, supported_claim):
    """One filter for every time shown (auditor walk L10): it says its zone."""
    import datetime as dt

    from verifier.templatetags.vocabulary import utc

    html = _page(auditor_client, supported_claim)
    times = re.findall(r"<time [^>]*>([^<]*)</time>", html)
    assert times and all(t.endswith(" UTC") for t in times), times
    plus_two = dt.timezone(dt.timedelta(hours=2))
    assert utc(dt.datetime(2026, 6, 10, 14, 4, 11, tzinfo=plus_two)) == "2026-06-10 12:04 UTC"
    assert utc(dt.datetime(2026, 6, 10, 14, 4, 11, tzinfo=plus_two), "seconds") == (
        "2026-06-10 12:04:11 UTC"
    )
    assert utc(None) == ""
