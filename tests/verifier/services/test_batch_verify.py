"""The batch services (``claims_bind``, ``claims_state_refresh``, the bulk ``claims_judge``
behind ``claims_verify``) leave exactly the rows the per-claim services leave."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from tests.factories import make_claim, make_source
from tests.verifier.services.conftest import CORAL, KELP
from verifier.judges import JudgeItem, JudgeResult
from verifier.judges.heuristic import HeuristicJudge
from verifier.models import Claim, StateEvent, Verdict
from verifier.selectors.claim_state import claims_state_inputs
from verifier.services.binding import claim_bind, claims_bind
from verifier.services.claim_state import (
    claim_exclude,
    claim_state_refresh,
    claims_state_refresh,
)
from verifier.services.judging import claim_vectors, claims_judge
from verifier.services.sources import source_upsert
from verifier.services.verification import claims_verify

pytestmark = pytest.mark.django_db

QUOTE = "Norway closed several reef areas to trawling in 1999."


class KeyedJudge:
    """Entails everything except claims mentioning "tropical" (contradicted)."""

    model_id = "keyed-judge-1"
    family = "keyed"
    prompt_version = 3

    def judge_batch(self, items: Sequence[JudgeItem]) -> list[JudgeResult]:
        return [
            JudgeResult(item.key, "contradicted", 0.85, "keyed")
            if "tropical" in item.claim
            else JudgeResult(item.key, "entailed", 0.9, "keyed")
            for item in items
        ]


def _mixed_set(workspace, tag: str) -> list[Claim]:
    coral = make_source(workspace, ref=f"source:coral-{tag}", text=CORAL)
    kelp = make_source(workspace, ref=f"source:kelp-{tag}", text=KELP)
    return [
        make_claim(coral, "Norway closed reef areas.", submitted_quote=QUOTE),  # exact quote
        make_claim(coral, "In 1999 Norway shut several reef areas to trawling."),  # search
        make_claim(coral, "Corals grow fast.", submitted_quote="Corals grow fast in 2001."),
        make_claim(  # evidence search in the wrong (cited) source
            coral, "Sea otters were almost hunted to extinction during the maritime fur trade."
        ),
        make_claim(  # contradicted by the judge
            coral,
            "Like tropical corals, they host symbiotic algae.",
            submitted_quote="they host no symbiotic algae",
        ),
        make_claim(kelp, "Giant kelp grows fast.", submitted_quote="Giant kelp is among"),
    ]


def _history(claims: list[Claim]) -> list[tuple]:
    out = []
    for claim in claims:
        claim.refresh_from_db()
        out.append(
            (
                claim.state,
                claim.state_reason,
                [
                    (e.from_state, e.to_state, e.reason, e.cause)
                    for e in StateEvent.objects.filter(claim=claim).order_by("id")
                ],
                [
                    (b.quote, b.start, b.end, b.match, b.bound_by, b.is_active, b.score)
                    for b in claim.bindings.order_by("id")
                ],
                [(c.quote, c.rank, c.score) for c in claim.candidates.order_by("rank")],
                [
                    (v.label, v.confidence, v.note, v.judge_model, v.binding and v.binding.quote)
                    for v in Verdict.objects.filter(claim=claim).order_by("id")
                ],
            )
        )
    return out


def _per_claim(claims: list[Claim], judge) -> None:
    for claim in claims:
        claim_bind(claim=claim, quote=claim.submitted_quote or None)
    for claim in claims:
        claims_judge(claims=[claim], judge=judge, cause="verified")


def test_batch_verify_leaves_the_per_claim_rows_and_history(workspace):
    reference, batch = _mixed_set(workspace, "a"), _mixed_set(workspace, "b")
    judge = KeyedJudge()
    for round_ in range(2):  # a second round re-binds and re-judges claims with history
        if round_:  # a different span: binding demotes, judging promotes again
            for claims in (reference, batch):
                Claim.objects.filter(pk=claims[0].pk).update(
                    submitted_quote="Norway closed several reef areas"
                )
                claims[0].submitted_quote = "Norway closed several reef areas"
        _per_claim(reference, judge)
        claims_verify(claims=batch, judge=judge)
        assert _history(batch) == _history(reference)
    assert [e[1] for e in _history(batch)[0][2]][-2:] == ["unverified", "supported"]
    states = [c.state for c in batch]
    assert "supported" in states and "contradicted" in states and "unverified" in states
    assert batch[0].bindings.get(is_active=True).bound_by == "quote"
    assert batch[1].bindings.get(is_active=True).bound_by == "evidence_search"
    assert not batch[2].bindings.filter(is_active=True).exists()  # quote not found


def test_claims_bind_matches_claim_bind(workspace):
    reference, batch = _mixed_set(workspace, "a"), _mixed_set(workspace, "b")
    outcomes_ref = [claim_bind(claim=c) for c in reference]
    outcomes = claims_bind(claims=batch)
    assert [(o.reason, o.bound) for o in outcomes] == [(o.reason, o.bound) for o in outcomes_ref]
    assert all(o.binding is None or o.binding.pk for o in outcomes)
    assert _history(batch) == _history(reference)


def test_claims_state_refresh_matches_claim_state_refresh(workspace, reviewer):
    reference, batch = _mixed_set(workspace, "a"), _mixed_set(workspace, "b")
    judge = KeyedJudge()
    for claims in (reference, batch):
        claims_verify(claims=claims, judge=judge)
        claim_exclude(claim=claims[3], reason="off topic", actor=reviewer)
        Verdict.objects.create(
            claim=claims[1],
            reviewer=reviewer,
            label="contradicted",
            confidence=1.0,
            note="checked by hand",
        )
        # re-bound to a different span: the old verdict no longer applies
        claim_bind(claim=claims[0], quote="Norway closed several reef areas")
    # the cited source changes: bindings on the old version go stale
    source_upsert(workspace=workspace, ref="source:coral-a", text=CORAL + " More.", title="t")
    source_upsert(workspace=workspace, ref="source:coral-b", text=CORAL + " More.", title="t")
    for claim in reference:
        claim_state_refresh(claim=claim, cause="refresh")
    claims_state_refresh(claims=batch, causes={c.pk: "refresh" for c in batch})
    assert _history(batch) == _history(reference)
    inputs = claims_state_inputs(claims=batch)
    assert inputs[batch[0].pk][0].model_verdict is None
    assert inputs[batch[1].pk][0].human_verdict is not None


def test_heuristic_judge_reuses_stored_claim_vectors(workspace):
    claims = _mixed_set(workspace, "a")
    embedded: list[str] = []

    def embed(texts: list[str]) -> np.ndarray:
        embedded.extend(texts)
        # a deterministic stand-in: word-hash bags, normalized
        out = np.zeros((len(texts), 64))
        for row, text in enumerate(texts):
            for word in text.lower().split():
                out[row, sum(word.encode()) % 64] += 1.0
        return out / np.maximum(np.linalg.norm(out, axis=1), 1e-9)[:, None]

    for claim in claims:
        claim.embedding = embed([claim.text])[0].tolist()
    embedded.clear()
    judge = HeuristicJudge(embed=embed)
    claims_bind(claims=claims)
    vectors = claim_vectors(claims)
    with_vectors = claims_judge(claims=claims, judge=judge, vectors=vectors)
    assert not set(embedded) & {c.text for c in claims}
    embedded.clear()
    without = claims_judge(claims=claims, judge=judge)
    assert set(embedded) & {c.text for c in claims}
    assert [(v.label, v.confidence, v.note) for v in with_vectors] == [
        (v.label, v.confidence, v.note) for v in without
    ]


def test_verify_checks_the_new_bindings_once_however_many_claims(workspace):
    """Judging writes no bindings: the judge items and the refresh after judging reuse
    the checks made when the states were refreshed after binding."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    def binding_reads(claims: list[Claim]) -> int:
        with CaptureQueriesContext(connection) as queries:
            claims_verify(claims=claims, judge=KeyedJudge())
        return sum(
            1
            for q in queries.captured_queries
            if q["sql"].startswith('SELECT "verifier_evidencebinding"."id"')
            and '"is_active"' in q["sql"]
        )

    small, large = _mixed_set(workspace, "small")[:2], _mixed_set(workspace, "large")
    assert binding_reads(small) == binding_reads(large) == 1
