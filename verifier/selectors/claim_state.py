"""Reads behind a claim's state: its active binding re-checked against the current
version of the cited source, and the inputs of the pure state function (the latest model
verdict that still applies, the latest human verdict, the exclusion and the legacy flag).

``verifier.services.claim_state`` is the one writer of ``Claim.state``; it resolves and
stores the state from what these reads return. The console pages read them too (the audit
walk shows the inputs, the review queue re-checks spans) without going through a service.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from verifier.binding import BoundSpan, RecheckStatus, recheck, recheck_span
from verifier.models import Claim, EvidenceBinding, SourceVersion, Verdict
from verifier.states import (
    BindingStatus,
    StateInputs,
    VerdictInput,
    human_verdict_in_force,
    verdict_judges_active,
)


@dataclass(frozen=True)
class BindingCheck:
    binding: EvidenceBinding | None
    version: SourceVersion | None
    status: RecheckStatus | None  # None when nothing is bound

    @property
    def binding_status(self) -> BindingStatus:
        if self.binding is None:
            return "none"
        return "fresh" if self.status == "fresh" else "stale"


def current_version(claim: Claim) -> SourceVersion | None:
    return SourceVersion.objects.filter(source_id=claim.source_id).order_by("-number").first()


def current_versions(*, source_ids: Iterable[int]) -> dict[int, SourceVersion]:
    """The current (highest-numbered) version of each source, in one query."""
    rows = (
        SourceVersion.objects.filter(source_id__in=set(source_ids))
        .order_by("source_id", "-number")
        .distinct("source_id")
    )
    return {v.source_id: v for v in rows}


def binding_recheck(
    *, binding: EvidenceBinding | None, version: SourceVersion | None
) -> RecheckStatus | None:
    """Re-check a stored binding against the cited source's current version."""
    if binding is None:
        return None
    if version is None:
        return "hash_mismatch"
    return recheck(_bound_span(binding), version.text, version.sha256)


def binding_recheck_span(
    *, binding: EvidenceBinding | None, sha256: str | None, span_text: str
) -> RecheckStatus | None:
    """``binding_recheck`` from the current version's hash and its text at the binding's
    offsets (``sha256`` None: the source has no version)."""
    if binding is None:
        return None
    if sha256 is None:
        return "hash_mismatch"
    return recheck_span(_bound_span(binding), span_text=span_text, sha256=sha256)


def _bound_span(binding: EvidenceBinding) -> BoundSpan:
    return BoundSpan(
        quote=binding.quote,
        start=binding.start,
        end=binding.end,
        match=binding.match,  # type: ignore[arg-type]
        source_hash=binding.source_hash,
    )


def claim_binding_check(*, claim: Claim) -> BindingCheck:
    binding = claim.bindings.filter(is_active=True).first()
    version = current_version(claim)
    return BindingCheck(binding, version, binding_recheck(binding=binding, version=version))


class LatestVerdict(NamedTuple):
    """The fields of a claim's latest verdict that its state depends on (what the state
    inputs read of a ``Verdict``)."""

    binding_id: int | None
    label: str
    confidence: float
    note: str


def _verdict_input(verdict: Verdict | LatestVerdict | None) -> VerdictInput | None:
    if verdict is None:
        return None
    return VerdictInput(label=verdict.label, confidence=verdict.confidence, note=verdict.note)  # type: ignore[arg-type]


def verdict_applies(*, verdict: Verdict | None, binding: EvidenceBinding | None) -> bool:
    """Whether a verdict (a model's, or a person's decision) still judges the active
    evidence.

    A verdict recorded against a binding whose quote differs from the active binding's
    quote judged other text: after a re-bind to a different span it no longer counts
    until the claim is re-judged or decided again (re-binding alone never promotes, and
    a reviewer's "supported" of "412 metres" is not one of "380 metres"). Verdicts without a
    binding, or about the same quote text (say, re-bound on a new source version),
    still apply; a verdict about a span when nothing is bound any more does not.
    """
    return _applies(
        verdict,
        binding,
        lambda pk: EvidenceBinding.objects.filter(pk=pk).values_list("quote", flat=True).first(),
    )


def _applies(
    verdict: Verdict | LatestVerdict | None,
    binding: EvidenceBinding | None,
    judged_quote: Callable[[int], str | None],
) -> bool:
    if verdict is None:
        return True
    judged_id = verdict.binding_id
    return verdict_judges_active(
        judged_binding_id=judged_id,
        active_binding_id=binding.id if binding is not None else None,
        judged_quote=lambda: judged_quote(judged_id) if judged_id is not None else None,
        active_quote=binding.quote if binding is not None else None,
    )


def claim_state_inputs(*, claim: Claim) -> tuple[StateInputs, BindingCheck]:
    check = claim_binding_check(claim=claim)
    model_verdict = claim.verdicts.filter(reviewer__isnull=True).latest_first().first()
    if not verdict_applies(verdict=model_verdict, binding=check.binding):
        model_verdict = None
    human_verdict = human_verdict_in_force(
        list(claim.verdicts.filter(reviewer__isnull=False).latest_first())
    )
    if not verdict_applies(verdict=human_verdict, binding=check.binding):
        human_verdict = None  # a person decided on other words than those bound now
    inputs = StateInputs(
        binding=check.binding_status,
        match=check.binding.match if check.binding else None,
        model_verdict=_verdict_input(model_verdict),
        human_verdict=_verdict_input(human_verdict),
        excluded=bool(claim.exclusion_reason),
        legacy_affirmed=claim.legacy_affirmed,
    )
    return inputs, check


def _latest_verdicts(ids: list[int], *, human: bool) -> dict[int, LatestVerdict]:
    """Each claim's latest model verdict, or its human decision in force (a reviewer's
    undo takes one back: every human verdict is read, they are few)."""
    rows = Verdict.objects.filter(claim_id__in=ids, reviewer__isnull=not human)
    rows = rows.latest_first_by_claim() if human else rows.latest_per_claim()
    fields = rows.values_list("claim_id", "binding_id", "label", "confidence", "note")
    if not human:
        return {
            claim_id: LatestVerdict(binding_id, label, confidence, note)
            for claim_id, binding_id, label, confidence, note in fields
        }
    by_claim: dict[int, list[LatestVerdict]] = {}
    for claim_id, binding_id, label, confidence, note in fields:
        by_claim.setdefault(claim_id, []).append(LatestVerdict(binding_id, label, confidence, note))
    standing = {pk: human_verdict_in_force(verdicts) for pk, verdicts in by_claim.items()}
    return {pk: verdict for pk, verdict in standing.items() if verdict is not None}


def claims_binding_checks(*, claims: Sequence[Claim]) -> dict[int, BindingCheck]:
    """``claim_binding_check`` for many claims: two queries however many there are."""
    ids = [c.pk for c in claims]
    bindings: dict[int, EvidenceBinding] = {}
    for active in EvidenceBinding.objects.filter(claim_id__in=ids, is_active=True).order_by(
        "claim_id", "pk"
    ):
        bindings.setdefault(active.claim_id, active)
    versions = current_versions(source_ids={c.source_id for c in claims})
    out: dict[int, BindingCheck] = {}
    for claim in claims:
        binding, version = bindings.get(claim.pk), versions.get(claim.source_id)
        out[claim.pk] = BindingCheck(
            binding, version, binding_recheck(binding=binding, version=version)
        )
    return out


def claims_state_inputs(
    *, claims: Sequence[Claim], checks: Mapping[int, BindingCheck] | None = None
) -> dict[int, tuple[StateInputs, BindingCheck]]:
    """``claim_state_inputs`` for many claims, with a fixed number of queries.
    ``checks``: the claims' binding checks when the caller already has them."""
    ids = [c.pk for c in claims]
    if checks is None:
        checks = claims_binding_checks(claims=claims)
    model, human = _latest_verdicts(ids, human=False), _latest_verdicts(ids, human=True)
    judged_ids = {
        v.binding_id
        for pk, v in (*model.items(), *human.items())
        if v.binding_id is not None
        and (checked := checks[pk].binding) is not None
        and v.binding_id != checked.id
    }
    judged = dict(
        EvidenceBinding.objects.filter(pk__in=judged_ids).values_list("pk", "quote")
        if judged_ids
        else []
    )
    out: dict[int, tuple[StateInputs, BindingCheck]] = {}
    for claim in claims:
        check = checks[claim.pk]
        model_verdict = model.get(claim.pk)
        if not _applies(model_verdict, check.binding, judged.get):
            model_verdict = None
        human_verdict = human.get(claim.pk)
        if not _applies(human_verdict, check.binding, judged.get):
            human_verdict = None
        inputs = StateInputs(
            binding=check.binding_status,
            match=check.binding.match if check.binding else None,
            model_verdict=_verdict_input(model_verdict),
            human_verdict=_verdict_input(human_verdict),
            excluded=bool(claim.exclusion_reason),
            legacy_affirmed=claim.legacy_affirmed,
        )
        out[claim.pk] = (inputs, check)
    return out
