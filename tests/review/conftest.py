"""Review-queue test data: real claims driven into queue states by real verdicts."""

from __future__ import annotations

import pytest

from tests.factories import make_binding, make_claim
from verifier.models import Verdict
from verifier.services.claim_state import claim_state_refresh

QUOTE = "Sediment settles where the current slows."

# reason -> (verdict label, confidence, note, binding kind: "fresh" | "stale" | None)
REASON_RECIPES = {
    "contradicted": ("contradicted", 0.9, "", "fresh"),
    "coverage_gap": ("coverage_gap", 0.0, "", "fresh"),
    "stale_source": ("entailed", 0.9, "", "stale"),
    "low_confidence": ("entailed", 0.2, "", "fresh"),
    "abstained": ("abstained", 0.0, "", "fresh"),
    "self_consistency_disagreement": ("abstained", 0.0, "self_consistency_disagreement", "fresh"),
    "judge_reviewers_disagree": (
        "abstained",
        0.0,
        "judge_reviewers_disagree: the judge said entailed 0.90; P(reviewers say supported) "
        "0.05, calibrator v1",
        "fresh",
    ),
    "no_evidence": (None, 0.0, "", None),
    # no span bound, and the verifier's abstention that says the judge was not asked
    "not_asked": ("abstained", 0.0, "no_bound_evidence", None),
    "not_judged": (None, 0.0, "", "fresh"),  # bound, the judge not asked yet
    "supported": ("entailed", 0.95, "", "fresh"),
}


def queue_claim(
    source,
    reason: str,
    *,
    text: str | None = None,
    judge_model="heuristic-nli",
    confidence: float | None = None,
    note: str | None = None,
):
    """A claim of ``reason``'s recipe (:data:`REASON_RECIPES`); ``confidence`` and
    ``note``: the model verdict's, in place of the recipe's."""
    label, recipe_confidence, recipe_note, binding_kind = REASON_RECIPES[reason]
    confidence = recipe_confidence if confidence is None else confidence
    note = recipe_note if note is None else note
    claim = make_claim(source, text or f"A claim that is {reason}.")
    binding = None
    if binding_kind == "fresh":
        binding = make_binding(claim, QUOTE)
    elif binding_kind == "stale":
        # The source changed under the binding: its recorded hash no longer matches
        # (bindings are immutable, so the stale hash is stored from the start).
        binding = make_binding(claim, QUOTE, source_hash="0" * 64)
    if label is not None:
        Verdict.objects.create(
            claim=claim,
            binding=binding,
            judge_model=judge_model,
            judge_family="heuristic",
            prompt_version=1,
            label=label,
            confidence=confidence,
            note=note,
        )
    claim_state_refresh(claim=claim, cause="test setup")
    claim.refresh_from_db()
    return claim


def bulk_seen(*claims) -> dict[str, str]:
    """The item versions a bulk confirmation page carries (``seen:<claim id>``)."""
    return {f"seen:{claim.public_id}": seen(claim) for claim in claims}


def seen(claim) -> str:
    """The item version a review page rendered now carries (what an action sends back)."""
    from review.selectors.item import review_item_change

    return review_item_change(claim=claim).version


@pytest.fixture
def make_queue_claim(source):
    def factory(reason: str, **kw):
        return queue_claim(kw.pop("source", source), reason, **kw)

    return factory
