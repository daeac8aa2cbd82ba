"""The verified-claim envelope (seed 000), rendered from stored rows.

Honesty rules, enforced here and pinned by ``tests/verifier/api/test_envelope.py``:

* ``evidence`` is the claim's ACTIVE binding only; when nothing is bound the array is
  empty (never fabricated) and the stored state is never ``supported``.
* ``judge`` is the verdict the claim's state rests on: a reviewer's decision in force,
  else the latest model verdict (a reviewer calibrator's answer is appended after the
  judge's own, so it is the latest, and ``judge.calibrator`` names it:
  ``{"id", "version"}``, null when the judge or a person answered); the key is OMITTED
  when the claim was never judged, and when that verdict is the abstention recorded
  for a claim with nothing bound (the judge was not asked). Its ``verdict`` says what the judge
  answered; ``confidence`` is null for a verdict that gave no answer (an abstention is
  never shown as 100 % sure).
  ``at`` is ISO-8601 UTC with milliseconds and ``Z``.
* ``match`` is always present, so anything looser than ``exact`` reads ``normalized``
  or ``fuzzy``.
* ``trace_ref`` is present only when the envelope was served by a trace.
* ``trust_score`` is ``claim.trust_score`` when the ingest pipeline stored one; else a
  per-claim value computed by :func:`claim_trust_score`
  (``verifier.scoring.claim_trust``).

The envelope is built from one read model, :class:`ServedClaim` (what the retrieve's
raw-SQL load returns); a ``Claim`` is read into it first (:func:`served_claim_of`).
``EnvelopeSerializer`` (``verifier.api.envelopes``) declares exactly the keys built here.

Call :func:`claims_for_envelopes` on the queryset first — the one prefetch of a claim's
active binding and its verdicts, shared with claims/verify's results: rendering N
envelopes is then a constant number of queries (claims + bindings + verdicts).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from django.db.models import Prefetch, QuerySet

from verifier.models import Claim, EvidenceBinding, Source, Verdict, Workspace
from verifier.scoring.claim_trust import claim_trust
from verifier.selectors.claims import claim_in_workspace_or_404
from verifier.selectors.retrieval import (
    ServedBinding,
    ServedClaim,
    ServedSource,
    ServedVerdict,
)
from verifier.states import (
    human_verdict_in_force,
    judge_not_asked,
    reason_in_words,
    verdict_judges_active,
)
from verifier.vocabulary import verdict_confidence

TRACE_REF_PREFIX = "/connect/v1/traces/"


def iso_millis(value: datetime) -> str:
    """``2026-06-10T12:04:11.000Z``."""
    value = value.astimezone(UTC)
    return value.strftime("%Y-%m-%dT%H:%M:%S.") + f"{value.microsecond // 1000:03d}Z"


def claims_for_envelopes(qs: QuerySet[Claim]) -> QuerySet[Claim]:
    """Attach what a claim's envelope and its claims/verify result read: the source,
    ``_active_bindings`` (with version and its source) and ``_verdicts`` (newest first;
    both read the first). Read them through :func:`active_binding` and
    :func:`latest_verdict`."""
    # The 384-float embedding and the bound version's full text are never rendered:
    # deferring them keeps loading N claims cheap.
    return (
        qs.select_related("source")
        .defer("embedding")
        .prefetch_related(
            Prefetch(
                "bindings",
                queryset=EvidenceBinding.objects.filter(is_active=True)
                .select_related("source_version__source")
                .defer("source_version__text"),
                to_attr="_active_bindings",
            ),
            Prefetch(
                "verdicts",
                queryset=Verdict.objects.latest_first()
                .select_related("calibrator", "binding")
                .only(
                    "id",
                    "claim_id",
                    "judge_model",
                    "prompt_version",
                    "confidence",
                    "label",
                    "note",
                    "at",
                    "reviewer_id",
                    "calibrator__id",
                    "calibrator__version",
                    "binding__id",
                    "binding__quote",
                ),
                to_attr="_verdicts",
            ),
        )
    )


def active_binding(claim: Claim) -> EvidenceBinding | None:
    """The claim's active binding: the prefetched one (:func:`claims_for_envelopes`),
    else one query."""
    bindings: list[EvidenceBinding] | None = getattr(claim, "_active_bindings", None)
    if bindings is None:
        return (
            claim.bindings.filter(is_active=True).select_related("source_version__source").first()
        )
    return bindings[0] if bindings else None


def latest_verdict(claim: Claim) -> Verdict | None:
    """The verdict the claim's state rests on, from the prefetched verdicts
    (:func:`claims_for_envelopes`), else one query: a reviewer's decision in force
    (``verifier.states.human_verdict_in_force``) that still judges the active binding,
    else the latest model verdict — a reviewer calibrator's answer where it gave one,
    recorded after the judge's own. None when that is the abstention recorded for a
    claim with nothing bound (``verifier.states.judge_not_asked``): the judge was not
    asked, so no judge's answer is shown, as the state rules read none."""
    verdicts: list[Verdict] | None = getattr(claim, "_verdicts", None)
    if verdicts is None:
        verdicts = list(claim.verdicts.latest_first().select_related("calibrator", "binding"))
    decision = human_verdict_in_force([v for v in verdicts if v.reviewer_id is not None])
    if decision is not None:
        binding = active_binding(claim)
        judged = decision.binding
        if verdict_judges_active(
            judged_binding_id=decision.binding_id,
            active_binding_id=binding.pk if binding is not None else None,
            judged_quote=lambda: judged.quote if judged is not None else None,
            active_quote=binding.quote if binding is not None else None,
        ):
            return decision
    latest = next((v for v in verdicts if v.reviewer_id is None), None)
    if latest is not None and judge_not_asked(latest.label, latest.note):
        return None
    return latest


def _served_source(source: Source) -> ServedSource:
    return ServedSource(id=source.pk, ref=source.ref, title=source.title, citation=source.citation)


def served_claim_of(claim: Claim) -> ServedClaim:
    """``claim`` (best loaded by :func:`claims_for_envelopes`) as the read model the
    envelope reads."""
    binding = active_binding(claim)
    verdict = latest_verdict(claim)
    served_binding = None
    if binding is not None:
        version = binding.source_version
        served_binding = ServedBinding(
            id=binding.pk,
            quote=binding.quote,
            start=binding.start,
            end=binding.end,
            source_hash=binding.source_hash,
            match=binding.match,
            source_version_id=version.pk,
            source=_served_source(version.source),
        )
    return ServedClaim(
        pk=claim.pk,
        public_id=claim.public_id,
        text=claim.text,
        state=claim.state,
        state_reason=claim.state_reason,
        source_id=claim.source_id,
        source=_served_source(claim.source),
        duplicate_of_id=claim.duplicate_of_id,
        flagged=claim.flagged,
        trust_score=claim.trust_score,
        binding=served_binding,
        verdict=served_verdict_of(verdict) if verdict is not None else None,
    )


def served_verdict_of(verdict: Verdict) -> ServedVerdict:
    """``verdict`` (with its calibrator loaded: :func:`claims_for_envelopes`) as the read
    model :func:`judge_item` reads."""
    calibrator = verdict.calibrator if verdict.calibrator_id is not None else None
    return ServedVerdict(
        id=verdict.pk,
        judge_model=verdict.judge_model,
        prompt_version=verdict.prompt_version,
        confidence=verdict.confidence,
        label=verdict.label,
        at=verdict.at,
        reviewer_id=verdict.reviewer_id,
        calibrator_id=verdict.calibrator_id,
        calibrator_version=calibrator.version if calibrator is not None else None,
    )


def claim_trust_score(claim: ServedClaim) -> int:
    """``claim.trust_score`` when stored, else the computed per-claim value
    (:func:`verifier.scoring.claim_trust.claim_trust`, the audit pack's rule too)."""
    verdict = claim.verdict
    return claim_trust(
        stored=claim.trust_score,
        state=claim.state,
        verdict_label=verdict.label if verdict is not None else None,
        verdict_confidence=verdict.confidence if verdict is not None else None,
        match=claim.binding.match if claim.binding is not None else None,
    )


def evidence_item(binding: ServedBinding) -> dict[str, Any]:
    return {
        "quote": binding.quote,
        "offsets": [binding.start, binding.end],
        "source_ref": binding.source.ref,
        "source_hash": binding.source_hash,
        "match": binding.match,
    }


def _rounded(confidence: float | None) -> float | None:
    """A confidence as every output gives it: to 4 decimals."""
    return round(confidence, 4) if confidence is not None else None


def judge_item(verdict: ServedVerdict) -> dict[str, Any]:
    """The one serialization of a claim's judge, wherever it is served (the envelope,
    ``/retrieve``, claims/verify's rows): the verdict the state rests on, who judged,
    what it answered (``verdict``, a code of :data:`verifier.vocabulary.VERDICTS`) and
    how sure it was of that answer. A verdict
    that gave no answer (abstained, coverage_gap, withdrawn) has ``confidence`` null: a
    stored 1.0 on an abstention is the judge's certainty that it cannot decide, which a
    reader would take for certainty about the claim. Neither has a reviewer's decision: a
    person decides, and states no confidence (the console shows none either).
    ``calibrator``: the workspace's reviewer calibrator that gave this answer (its id and
    version, as ``GET /connect/v1/calibrators`` lists it; ``model`` is then the judge it
    calibrates), null when the judge itself or a person answered."""
    calibrator = (
        {"id": verdict.calibrator_id, "version": verdict.calibrator_version}
        if verdict.calibrator_id is not None
        else None
    )
    return {
        "model": verdict.judge_model,
        "prompt_version": verdict.prompt_version,
        "verdict": verdict.label,
        "confidence": _rounded(
            verdict_confidence(
                verdict.label, verdict.confidence, by_person=verdict.reviewer_id is not None
            )
        ),
        "at": iso_millis(verdict.at),
        "calibrator": calibrator,
    }


def claim_envelope(*, claim: ServedClaim | Claim, trace_id: str | None = None) -> dict[str, Any]:
    """The envelope of ``claim`` (a ``Claim`` is read into a :class:`ServedClaim` first);
    ``trace_ref`` when ``trace_id`` is given."""
    served = served_claim_of(claim) if isinstance(claim, Claim) else claim
    binding = served.binding
    envelope: dict[str, Any] = {
        "claim": {"id": served.public_id, "text": served.text},
        "state": served.state,
        "evidence": [evidence_item(binding)] if binding is not None else [],
    }
    if served.verdict is not None:
        envelope["judge"] = judge_item(served.verdict)
    source = served.source
    envelope["citation"] = source.citation or source.title or source.ref
    if trace_id:
        envelope["trace_ref"] = f"{TRACE_REF_PREFIX}{trace_id}"
    envelope["trust_score"] = claim_trust_score(served)
    return envelope


def claim_list_item(*, claim: Claim) -> dict[str, Any]:
    """One claim of a claim list (``GET /connect/v1/claims``, the console's JSONL export):
    its envelope, with why it has its state: ``reason`` (a ``StateReason`` code) and
    ``reason_text`` (in words), the keys claims/verify's rows carry, and
    ``exclusion_reason``: the words of the person who excluded the claim (``None`` unless
    it is excluded), and ``submitted_quote`` (:func:`submitted_quote_shown`). Retrieval
    serves the seed's envelope as it is."""
    return {
        **claim_envelope(claim=claim),
        "reason": claim.state_reason,
        "reason_text": reason_in_words(claim.state_reason, quote=claim.submitted_quote),
        "exclusion_reason": claim.exclusion_reason or None,
        "submitted_quote": submitted_quote_shown(claim),
    }


def submitted_quote_shown(claim: Claim) -> str | None:
    """The quote the claim arrived with, when it is not the bound span's text character
    for character (a normalized or fuzzy match, another span bound since, or nothing
    bound); ``None`` when it arrived with none or the span is exactly it."""
    quote = claim.submitted_quote
    if not quote:
        return None
    binding = active_binding(claim)
    return None if binding is not None and binding.quote == quote else quote


def claim_envelope_list(
    *,
    workspace: Workspace,
    state: str | None = None,
    source_ref: str | None = None,
    job_id: int | None = None,
) -> QuerySet[Claim]:
    """The workspace's claims for the claims API, filtered, newest first (by id)."""
    qs = Claim.objects.filter(workspace=workspace)
    if state:
        qs = qs.filter(state=state)
    if source_ref:
        qs = qs.filter(source__ref=source_ref)
    if job_id is not None:
        qs = qs.filter(ingest_job_id=job_id)
    return claims_for_envelopes(qs.order_by("-id"))


def claim_envelope_get(*, workspace: Workspace, public_id: str) -> Claim:
    """One claim ready for its envelope; the same 404 for missing and other-workspace."""
    return claim_in_workspace_or_404(
        claims_for_envelopes(Claim.objects.all()), workspace=workspace, public_id=public_id
    )
