"""The queue reads the verdict a claim's state rests on, by the state writer's one rule:
the judge-model and confidence filters and the Judge column agree with it after an undo
and after a re-bind to other words; a reviewer calibrator's answer is named as such;
an ingest job that is no job's number is a form error; blind review's page links tell
nothing of the queue rank."""

from __future__ import annotations

import html
import re

import pytest
from django.db.models import F

from review.models import ReviewLease
from review.selectors.cursor import QueueCursor
from review.selectors.queue import deciding_verdict
from review.verdict_columns import VerdictInForce
from tests.factories import make_binding, make_claim
from tests.review.conftest import QUOTE, queue_claim, seen
from verifier.models import Claim, EvidenceBinding, IngestJob, JudgeCalibrator, Verdict
from verifier.selectors.claim_state import claim_state_inputs
from verifier.services.claim_state import claim_state_refresh

pytestmark = pytest.mark.django_db

OTHER_QUOTE = "Salt marsh grasses trap silt at high tide."


def _text(page: str) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page)).split())


def _rows(body: str) -> list[str]:
    return re.findall(r'<tr data-claim="(claim:[a-z0-9]+)"', body)


def _get(client, query: str) -> str:
    response = client.get(f"/review/?{query}")
    assert response.status_code == 200
    return response.content.decode()


def _row(body: str, claim) -> str:
    return _text(re.search(rf'<tr data-claim="{claim.public_id}">(.*?)</tr>', body, re.S).group(1))


# --- 1. the judge-model filter after an undo ------------------------------------------


def test_after_an_undo_the_judge_model_filter_reads_the_judges_verdict_again(
    reviewer_client, source
):
    claim = queue_claim(source, "contradicted", judge_model="judge-a")
    decided = reviewer_client.post(
        f"/review/item/{claim.public_id}/decide/",
        {"decision": "contradicted", "version": seen(claim), "note": ""},
    )
    assert decided.status_code == 302
    claim.refresh_from_db()
    assert claim.state_reason == "human_contradicted"
    # The decision is in force: the filter finds it by its reviewer, not by the judge.
    assert _rows(_get(reviewer_client, "state=contradicted&judge_model=human:rita")) == [
        claim.public_id
    ]
    assert _rows(_get(reviewer_client, "state=contradicted&judge_model=judge-a")) == []

    undone = reviewer_client.post(f"/review/item/{claim.public_id}/undo/", {"version": seen(claim)})
    assert undone.status_code == 302
    claim.refresh_from_db()
    latest = claim.verdicts.latest_first().first()
    assert (latest.label, latest.judge_model) == ("withdrawn", "human:rita")
    # The judge's verdict decides again: the filter and the Judge column say so.
    body = _get(reviewer_client, "judge_model=JUDGE-A")
    assert _rows(body) == [claim.public_id]
    assert "judge-a" in _row(body, claim)
    assert _rows(_get(reviewer_client, "state=contradicted&judge_model=human:rita")) == []


# --- 4. the SQL rule equals the Python one --------------------------------------------


def _model(claim, binding, label="contradicted", confidence=0.9, note=""):
    return Verdict.objects.create(
        claim=claim,
        binding=binding,
        judge_model="heuristic-nli",
        judge_family="heuristic",
        label=label,
        confidence=confidence,
        note=note,
    )


def _human(claim, binding, reviewer, label="entailed"):
    return Verdict.objects.create(
        claim=claim,
        binding=binding,
        judge_model=f"human:{reviewer.get_username()}",
        judge_family="human",
        label=label,
        confidence=1.0,
        reviewer=reviewer,
    )


def _rebind(claim, quote):
    EvidenceBinding.objects.filter(claim=claim, is_active=True).update(is_active=False)
    return make_binding(claim, quote) if quote is not None else None


def _histories(source, reviewer):
    """Claims with verdict histories, each with the verdict its state rests on (None:
    none)."""
    cases = []

    def claim_with_binding(name):
        claim = make_claim(source, f"A claim: {name}.")
        return claim, make_binding(claim, QUOTE)

    claim, b = claim_with_binding("model only")
    cases.append((claim, _model(claim, b)))

    claim, b = claim_with_binding("decided")
    _model(claim, b)
    cases.append((claim, _human(claim, b, reviewer)))

    claim, b = claim_with_binding("undone")
    model = _model(claim, b)
    _human(claim, b, reviewer)
    _human(claim, b, reviewer, "withdrawn")
    cases.append((claim, model))

    claim, b = claim_with_binding("second decision undone")
    _model(claim, b)
    first = _human(claim, b, reviewer, "contradicted")
    _human(claim, b, reviewer, "entailed")
    _human(claim, b, reviewer, "withdrawn")
    cases.append((claim, first))

    claim, b = claim_with_binding("both undone, an extra undo, decided again")
    _model(claim, b)
    _human(claim, b, reviewer)
    _human(claim, b, reviewer, "withdrawn")
    _human(claim, b, reviewer, "withdrawn")  # takes back nothing
    again = _human(claim, b, reviewer, "not_stated")
    cases.append((claim, again))

    claim, b = claim_with_binding("an extra undo, then decided twice and undone once")
    _model(claim, b)
    _human(claim, b, reviewer, "withdrawn")
    kept = _human(claim, b, reviewer, "contradicted")
    _human(claim, b, reviewer, "entailed")
    _human(claim, b, reviewer, "withdrawn")
    cases.append((claim, kept))

    # A decision about other words than those bound now no longer counts: the judge's
    # verdict on the new words does.
    claim, b = claim_with_binding("decided, re-bound to other words, judged again")
    _model(claim, b)
    _human(claim, b, reviewer)
    new = _rebind(claim, OTHER_QUOTE)
    cases.append((claim, _model(claim, new, confidence=0.8)))

    # The judge's verdict about other words counts for nothing either.
    claim, b = claim_with_binding("judged, re-bound to other words")
    _model(claim, b)
    _rebind(claim, OTHER_QUOTE)
    cases.append((claim, None))

    # Re-bound to the same words (say, on a new version): the decision still counts.
    claim, b = claim_with_binding("decided, re-bound to the same words")
    _model(claim, b)
    decision = _human(claim, b, reviewer)
    _rebind(claim, QUOTE)
    cases.append((claim, decision))

    # Nothing bound any more: a verdict about a span no longer counts, one recorded
    # without a binding does.
    claim, b = claim_with_binding("decided, then unbound")
    _human(claim, b, reviewer)
    _rebind(claim, None)
    cases.append((claim, _model(claim, None, "abstained", 0.0, "no_bound_evidence")))

    claim = make_claim(source, "A claim: decided without a binding.")
    cases.append((claim, _human(claim, None, reviewer, "contradicted")))

    claim = make_claim(source, "A claim: never judged.")
    cases.append((claim, None))
    for claim, _ in cases:
        claim_state_refresh(claim=claim, cause="test setup")
    return cases


def test_the_sql_rule_is_the_state_writers_rule(source, reviewer):
    cases = _histories(source, reviewer)
    by_sql = dict(
        Claim.objects.filter(pk__in=[c.pk for c, _ in cases])
        .annotate(in_force=VerdictInForce(F("pk")))
        .values_list("pk", "in_force")
    )
    for claim, expected in cases:
        expected_id = expected.pk if expected is not None else None
        assert by_sql[claim.pk] == expected_id, claim.text
        # the Python rule the item pane reads
        active = EvidenceBinding.objects.filter(claim=claim, is_active=True).first()
        quotes = dict(EvidenceBinding.objects.filter(claim=claim).values_list("pk", "quote"))
        python = deciding_verdict(
            list(claim.verdicts.latest_first()),
            active_binding_id=active.pk if active is not None else None,
            active_quote=active.quote if active is not None else None,
            judged_quote=quotes.get,
        )
        assert (python.pk if python is not None else None) == expected_id, claim.text
        # the state writer's inputs: the decision if one counts, else the judge's
        inputs, _ = claim_state_inputs(claim=claim)
        stands = inputs.human_verdict or inputs.model_verdict
        if expected is None:
            assert stands is None, claim.text
        else:
            assert stands is not None, claim.text
            assert (stands.label, stands.confidence, stands.note) == (
                expected.label,
                expected.confidence,
                expected.note,
            ), claim.text


def test_the_confidence_filter_reads_the_verdict_that_still_judges_the_bound_words(
    reviewer_client, source, reviewer
):
    """A decision about other words than those bound now decides nothing: the judge's
    80 % on the new words does (before, any decision not withdrawn hid the confidence).
    A judge's 90 % about other words counts for nothing (before, it matched)."""
    cases = {claim.text: (claim, expected) for claim, expected in _histories(source, reviewer)}
    rebound, _ = cases["A claim: decided, re-bound to other words, judged again."]
    stale, _ = cases["A claim: judged, re-bound to other words."]
    rebound.refresh_from_db()
    stale.refresh_from_db()
    assert rebound.state == "contradicted"
    body = _get(reviewer_client, f"state={rebound.state}&confidence_min=75&confidence_max=85")
    assert _rows(body) == [rebound.public_id]
    assert "80 % sure the span contradicts the claim" in _row(body, rebound)
    assert "heuristic-nli" in _row(body, rebound)
    assert (stale.state, stale.state_reason) == ("unverified", "not_judged")
    listed = _get(reviewer_client, f"state={stale.state}&q=re-bound")
    assert stale.public_id in _rows(listed)
    assert _row(listed, stale).count("—") >= 2  # no judge, no confidence
    for narrowed in ("confidence_min=1", "judge_model=heuristic-nli"):
        body = _get(reviewer_client, f"state={stale.state}&q=re-bound&{narrowed}")
        assert stale.public_id not in _rows(body), narrowed


# --- 3. a reviewer calibrator's answer ------------------------------------------------


def _calibrator(workspace, version=3):
    return JudgeCalibrator.objects.create(
        workspace=workspace,
        judge_model="heuristic-nli",
        version=version,
        params={},
        training_size=20,
        supported_decisions=10,
        contradicted_decisions=10,
        floor=0.88,
        cv_roc_auc=0.9,
    )


def test_a_reviewer_calibrators_answer_is_named_as_such(reviewer_client, source, workspace):
    claim = make_claim(source, "The delta loses land in dry years.")
    binding = make_binding(claim, QUOTE)
    _model(claim, binding, "entailed", 0.62, "weak_support: 0.62")
    Verdict.objects.create(
        claim=claim,
        binding=binding,
        judge_model="heuristic-nli",
        judge_family="heuristic",
        label="contradicted",
        confidence=0.91,
        note="reviewer_calibrator: P(reviewers say supported) 0.05, calibrator v3; "
        "the judge said entailed 0.62",
        calibrator=_calibrator(workspace),
    )
    claim_state_refresh(claim=claim, cause="test setup")
    claim.refresh_from_db()
    assert claim.state == "contradicted"
    said = "the reviewers' calibrator v3 (on top of heuristic-nli)"

    body = _get(reviewer_client, "")
    assert said in _row(body, claim)
    # filtered by the judge it calibrates
    assert _rows(_get(reviewer_client, "judge_model=heuristic-nli")) == [claim.public_id]

    item = reviewer_client.get(f"/review/item/{claim.public_id}/").content.decode()
    why = _text(re.search(r'id="why-calibrator">(.*?)</p>', item, re.S).group(1))
    assert why == f"Judge: {said}"
    history = re.search(r'<table class="verdicts">.*?</table>', item, re.S).group(0)
    judges = [_text(cell) for cell in re.findall(r"<tr><td>(.*?)</td>", history, re.S)]
    assert judges == [said, "heuristic-nli"]

    # Blind review does not tell that the calibrator answered (it answers only where it
    # decides or disagrees with the judge), nor which judge (no Judge column).
    assert reviewer_client.post("/review/blind/", {"next": "/review/"}).status_code == 302
    blind = _get(reviewer_client, "")
    assert "calibrator" not in _row(blind, claim) and "heuristic-nli" not in _row(blind, claim)


# --- 2. an ingest job that is no job's number -----------------------------------------


@pytest.mark.parametrize(
    "value", ["1.5", "1e3", "0", "-1", "99999999999999999999", "NaN", "12abc", "٣.٥"]
)
def test_an_ingest_job_that_is_no_jobs_number_is_a_form_error(reviewer_client, source, value):
    queue_claim(source, "contradicted")
    response = reviewer_client.get("/review/", {"ingest_job": value})
    assert response.status_code == 200
    body = response.content.decode()
    assert _rows(body) == []
    alert = _text(re.search(r'id="queue-filter-error"[^>]*>(.*?)</p>', body, re.S).group(1))
    assert "Ingest job #: enter a job's number, a whole number from 1" in alert
    field = re.search(r'<input[^>]*name="ingest_job"[^>]*>', body).group(0)
    assert 'aria-invalid="true"' in field
    assert 'id="id_ingest_job_error"' in body
    started = reviewer_client.post("/review/start/?" + response.request["QUERY_STRING"])
    assert started.status_code == 422
    assert not ReviewLease.objects.exists()


def test_an_ingest_job_by_its_number_lists_its_claims(reviewer_client, source, workspace):
    job = IngestJob.objects.create(workspace=workspace)
    mine = queue_claim(source, "contradicted", text="From the job.")
    Claim.objects.filter(pk=mine.pk).update(ingest_job=job)
    queue_claim(source, "abstained", text="From elsewhere.")
    for value in (str(job.pk), f"{job.pk}.0"):
        assert _rows(_get(reviewer_client, f"ingest_job={value}")) == [mine.public_id]


# --- 5. blind review's page links -----------------------------------------------------


def test_blind_page_links_carry_no_queue_rank_and_page_the_whole_queue(reviewer_client, source):
    from review.selectors.queue import QUEUE_PAGE_SIZE

    made = {
        queue_claim(source, reason, text=f"A {reason} claim {i}.").public_id
        for i in range(QUEUE_PAGE_SIZE // 2 + 1)
        for reason in ("contradicted", "abstained")
    }
    assert reviewer_client.post("/review/blind/", {"next": "/review/"}).status_code == 302
    seen_ids: list[str] = []
    body = _get(reviewer_client, "")
    seen_ids += _rows(body)
    query = _link(body, "next")
    after = re.search(r"after=([^&]+)", query).group(1)
    assert QueueCursor.parse(after) is None  # no rank.dependents.created.id in it
    ranks = {str(c.queue_rank) for c in Claim.objects.all()}
    assert not any(after.startswith(f"{rank}.") for rank in ranks)
    second = _get(reviewer_client, query)
    seen_ids += _rows(second)
    assert sorted(seen_ids) == sorted(made)  # every claim once, none twice
    assert _rows(_get(reviewer_client, _link(second, "prev"))) == _rows(body)

    # Seeing the judge, the links carry the plain cursor (what the above looks for).
    assert reviewer_client.post("/review/blind/", {"next": "/review/"}).status_code == 302
    after = re.search(r"after=([^&]+)", _link(_get(reviewer_client, ""), "next")).group(1)
    assert QueueCursor.parse(after) is not None


def _link(body: str, rel: str) -> str:
    """The query string of the page link ``rel`` (next, prev)."""
    href = re.search(rf'<a href="([^"]*)"[^>]*rel="{rel}"', body)
    assert href, f"a {rel} page link"
    return html.unescape(href.group(1)).split("?", 1)[1]
