"""A workspace whose reviewers disagree with the heuristic judge in a learnable way.

Five kinds of claim, each bound to its own sentence of one source and judged by the real
heuristic judge:

* ``reworded`` — the claim restates its span in other words (the judge abstains: "under
  twelve months" is a number it cannot find); reviewers say supported;
* ``verbatim`` — the claim is its span (the judge says entailed); reviewers agree;
* ``number`` — a number differs (the judge says contradicted); reviewers agree;
* ``unrelated`` — the claim shares only its subject with the span (the judge abstains);
  reviewers say contradicted;
* ``added`` — the claim adds a word the span does not have ("head teacher" for
  "teacher"; the judge still says entailed); reviewers say contradicted.

The first ``DECIDED`` names are decided by a reviewer (``review_decide``); the others
stay as the judge left them, for a calibrator to decide or to send back to the queue.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import pytest

from review.services import review_decide
from tests.factories import make_binding, make_claim, make_source, make_user
from tests.review.conftest import seen
from verifier.judges import build_judge
from verifier.models import Claim
from verifier.services.judging import claims_judge

NAMES = (
    *("Alder", "Birch", "Cedar", "Dogwood", "Elm", "Fir", "Gum", "Hazel", "Ilex", "Juniper"),
    *("Kauri", "Larch", "Maple", "Nettle", "Oak", "Pine", "Quince", "Rowan", "Spruce", "Teak"),
)
DECIDED = 10  # names whose claims a reviewer decided
KINDS = ("reworded", "verbatim", "number", "unrelated", "added")
REVIEWERS_SAY = {
    "reworded": "supported",
    "verbatim": "supported",
    "number": "contradicted",
    "unrelated": "contradicted",
    "added": "contradicted",
}


def span_and_claim(kind: str, name: str, i: int) -> tuple[str, str]:
    if kind == "reworded":
        return (
            f"The {name} Street bridge was rebuilt after the flood of {1900 + i} and "
            "reopened within a year.",
            f"After the {1900 + i} flood, the {name} Street bridge was back in service in "
            "under twelve months.",
        )
    if kind == "verbatim":
        span = f"The {name} library lends tools to its members."
        return span, span
    if kind == "number":
        return (
            f"The {name} ferry carries {10 + i} cars on each crossing of the bay.",
            f"The {name} ferry carries {40 + i} cars on each crossing of the bay.",
        )
    if kind == "unrelated":
        return (
            f"The {name} museum opens at nine on weekdays.",
            f"The {name} museum was founded by a retired sea captain.",
        )
    return (
        f"The {name} school hired a new teacher.",
        f"The {name} school hired a new head teacher.",
    )


@dataclass
class ReviewedWorkspace:
    workspace: object
    reviewer: object
    claims: dict[tuple[str, int], Claim]  # (kind, name index) -> claim

    def decided(self) -> list[Claim]:
        return [c for (_, i), c in self.claims.items() if i < DECIDED]

    def undecided(self, kind: str | None = None) -> list[Claim]:
        return [
            c for (k, i), c in self.claims.items() if i >= DECIDED and (kind is None or k == kind)
        ]

    def fresh(self, claim: Claim) -> Claim:
        return Claim.objects.get(pk=claim.pk)


def build_reviewed_workspace(
    workspace,
    *,
    names: int = 16,
    decided: int = DECIDED,
    reviewers_say: Callable[[str, int], str] | None = None,
) -> ReviewedWorkspace:
    """``names`` names × the five kinds, judged; the first ``decided`` names decided by a
    reviewer (``reviewers_say(kind, i)``, by default ``REVIEWERS_SAY[kind]``)."""
    say = reviewers_say or (lambda kind, i: REVIEWERS_SAY[kind])
    reviewer = make_user(f"rev-{workspace.slug}", workspace=workspace, role="reviewer")
    pairs = [(kind, i, *span_and_claim(kind, NAMES[i], i)) for i in range(names) for kind in KINDS]
    source = make_source(workspace, text=" ".join(span for _, _, span, _ in pairs))
    claims: dict[tuple[str, int], Claim] = {}
    for kind, i, span, text in pairs:
        claim = make_claim(source, text)
        make_binding(claim, span)
        claims[(kind, i)] = claim
    claims_judge(claims=list(claims.values()), judge=build_judge({"backend": "heuristic"}))
    for (kind, i), claim in claims.items():
        if i < decided:
            review_decide(
                claim=claim, reviewer=reviewer, expected_version=seen(claim), decision=say(kind, i)
            )
    return ReviewedWorkspace(workspace, reviewer, claims)


def pin_heuristic(settings) -> None:
    """Configure the heuristic alone: these workspaces are built on its answers (the
    kinds above), and a calibrator serves only the judge it learned from."""
    settings.SPANPROOF_JUDGE = {**settings.SPANPROOF_JUDGE, "backend": "heuristic"}


@pytest.fixture(autouse=True)
def heuristic_configured(settings) -> None:
    pin_heuristic(settings)


@pytest.fixture
def reviewed(workspace) -> ReviewedWorkspace:
    return build_reviewed_workspace(workspace)


def unjudged_claims(
    workspace, *, kinds: tuple[str, ...], indexes: range
) -> dict[tuple[str, int], Claim]:
    """New claims of ``kinds`` for the names at ``indexes``, bound to a new source, not
    judged yet."""
    pairs = [(kind, i, *span_and_claim(kind, NAMES[i], i)) for i in indexes for kind in kinds]
    source = make_source(workspace, text=" ".join(span for _, _, span, _ in pairs))
    claims = {}
    for kind, i, span, text in pairs:
        claim = make_claim(source, text)
        make_binding(claim, span)
        claims[(kind, i)] = claim
    return claims
