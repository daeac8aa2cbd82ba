"""Reads for the audit console. Every query takes the workspace; others' rows 404."""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from django.core.paginator import Paginator
from django.db.models import Count, Q, QuerySet
from django.http import Http404
from django.urls import reverse

from audit.highlighting import Span, diff_segments, text_window, window_segments
from verifier.binding import span_matches
from verifier.binding.recheck import recheck
from verifier.binding.spans import BoundSpan
from verifier.models import (
    Claim,
    EvidenceBinding,
    IngestJob,
    Source,
    SourceVersion,
    StateEvent,
    TraceClaim,
    ValidatorRun,
    Verdict,
    Workspace,
)
from verifier.scoring.rulesets import validate_definition
from verifier.selectors.claim_state import BindingCheck, claim_state_inputs
from verifier.selectors.rules import ActiveRules, rule_set_active
from verifier.states import DEFAULT_POLICY, StateDecision, StateInputs, resolve_state

TRACES_ON_CLAIM_PAGE: Final = 50
TREND_JOBS: Final = 30

# --- claims ------------------------------------------------------------------------

CLAIM_FILTER_KEYS: Final = ("state", "reason", "source", "job", "quality", "q")


def audit_claim_filters(params: Mapping[str, str]) -> dict[str, str]:
    """The claim-list filters present in ``params`` (query string), stripped."""
    return {k: params[k].strip() for k in CLAIM_FILTER_KEYS if params.get(k, "").strip()}


def audit_claim_list(*, workspace: Workspace, filters: Mapping[str, str]) -> QuerySet[Claim]:
    claims = Claim.objects.filter(workspace=workspace).select_related("source")
    if filters.get("state"):
        claims = claims.filter(state=filters["state"])
    if filters.get("reason"):
        claims = claims.filter(state_reason=filters["reason"])
    if filters.get("source"):
        claims = claims.filter(source__ref=filters["source"])
    if filters.get("job"):
        job = filters["job"]
        claims = claims.filter(ingest_job_id=int(job)) if job.isdigit() else claims.none()
    if filters.get("quality"):
        claims = claims.filter(quality=filters["quality"])
    if filters.get("q"):
        claims = claims.filter(text__icontains=filters["q"])
    return claims.order_by("-created_at", "-id")


def source_permalink(*, source_id: int, sha256: str, start: int, end: int) -> str:
    """The span permalink: the version page focused on ``[start, end)`` (server side,
    so a long source renders the window around it), scrolled to it by the anchor."""
    url = reverse("audit:source-version", args=[source_id, sha256])
    return f"{url}?span={start}-{end}#seg-{start}"


@dataclass(frozen=True)
class Comparison:
    label: str
    expected: str
    found: str
    passed: bool | None = None


@dataclass
class LiveCheck:
    number: int
    title: str
    passed: bool | None  # None: nothing to check (shown as "n/a", never as a pass)
    summary: str
    comparisons: list[Comparison] = field(default_factory=list)

    @property
    def status(self) -> str:
        return "n/a" if self.passed is None else ("pass" if self.passed else "fail")


@dataclass
class ClaimAudit:
    claim: Claim
    bindings: list[EvidenceBinding]
    active_binding: EvidenceBinding | None
    inputs: StateInputs
    check: BindingCheck
    decision: StateDecision
    verdicts: list[Verdict]
    events: list[StateEvent]
    traces: list[TraceClaim]
    rules: ActiveRules
    checks: list[LiveCheck]
    timeline: list[dict[str, Any]]
    permalinks: dict[int, str]
    # The active span in its context, for the top of the page: (before, span, after).
    span_context: tuple[str, str, str] | None = None


SPAN_CONTEXT_CHARS: Final = 240


def _span_context(binding: EvidenceBinding | None) -> tuple[str, str, str] | None:
    if binding is None:
        return None
    text = binding.source_version.text
    if not (0 <= binding.start < binding.end <= len(text)):
        return None
    lo = max(0, binding.start - SPAN_CONTEXT_CHARS)
    hi = min(len(text), binding.end + SPAN_CONTEXT_CHARS)
    before = ("…" if lo > 0 else "") + text[lo : binding.start]
    after = text[binding.end : hi] + ("…" if hi < len(text) else "")
    return before, text[binding.start : binding.end], after


def _check_quote(binding: EvidenceBinding | None) -> LiveCheck:
    title = "The quote sits at its offsets in the cited source version"
    if binding is None:
        return LiveCheck(1, title, None, "No evidence span is bound, so there is nothing to find.")
    text = binding.source_version.text
    in_range = 0 <= binding.start < binding.end <= len(text)
    found = text[binding.start : binding.end] if in_range else ""
    matches = in_range and span_matches(binding.quote, found, binding.match)  # type: ignore[arg-type]
    return LiveCheck(
        1,
        title,
        matches,
        (
            f"Recomputed now: the text at [{binding.start}, {binding.end}) of "
            f"v{binding.source_version.number} "
            + ("matches the quote" if matches else "does NOT match the quote")
            + f" under the {binding.match} rule."
        ),
        [
            Comparison(
                "Offsets in range",
                f"0 ≤ {binding.start} < {binding.end} ≤ {len(text)}",
                "yes" if in_range else "no",
                in_range,
            ),
            Comparison(
                f"Quote vs text at offsets ({binding.match})", binding.quote, found, matches
            ),
        ],
    )


def _check_hash(binding: EvidenceBinding | None, current: SourceVersion | None) -> LiveCheck:
    title = "The version's text hashes to the recorded SHA-256"
    if binding is None:
        return LiveCheck(2, title, None, "No evidence span is bound, so no version is cited.")
    version = binding.source_version
    recomputed = hashlib.sha256(version.text.encode("utf-8")).hexdigest()
    hash_ok = recomputed == binding.source_hash
    is_current = current is not None and current.pk == version.pk
    comparisons = [
        Comparison(
            "Recorded on the binding vs SHA-256 recomputed now",
            binding.source_hash,
            recomputed,
            hash_ok,
        ),
        Comparison(
            "Stored on the version", version.sha256, recomputed, version.sha256 == recomputed
        ),
        Comparison(
            "Cited version is the current version",
            f"v{version.number}",
            f"v{current.number}" if current else "no version",
            is_current,
        ),
    ]
    passed = hash_ok and is_current
    if not hash_ok:
        summary = "The text of the cited version no longer hashes to the recorded value."
    elif not is_current:
        summary = "The hash matches, but the source has a newer version: the binding is stale."
    else:
        summary = "Recomputed now: the cited version is current and hashes to the recorded value."
    return LiveCheck(2, title, passed, summary, comparisons)


def _judging_verdict(verdicts: list[Verdict]) -> Verdict | None:
    human = [v for v in verdicts if v.reviewer_id is not None]
    model = [v for v in verdicts if v.reviewer_id is None]
    return (human or model or [None])[0]


def _check_verdicts(verdicts: list[Verdict]) -> LiveCheck:
    title = "Verdict history"
    floor = DEFAULT_POLICY.confidence_floor
    judging = _judging_verdict(verdicts)
    if judging is None:
        return LiveCheck(3, title, None, "Not judged yet: no verdict is recorded.")
    passed = judging.label == "entailed" and judging.confidence >= floor
    who = judging.reviewer.get_username() if judging.reviewer else judging.judge_model
    return LiveCheck(
        3,
        title,
        passed,
        f"The judging verdict ({'human' if judging.reviewer_id else 'model'}: {who}) is "
        f"{judging.label} at confidence {judging.confidence:.2f}; "
        f"{len(verdicts)} verdict(s) recorded.",
        [
            Comparison(
                "Judging verdict label", "entailed", judging.label, judging.label == "entailed"
            ),
            Comparison(
                "Confidence vs policy floor",
                f"≥ {floor:.2f}",
                f"{judging.confidence:.2f}",
                judging.confidence >= floor,
            ),
        ],
    )


def _check_traces(traces: list[TraceClaim]) -> LiveCheck:
    title = "Traces that served this claim"
    if not traces:
        return LiveCheck(4, title, None, "No retrieval has considered this claim yet.")
    unexplained = [t for t in traces if not t.included and not t.exclusion_reason]
    included = sum(1 for t in traces if t.included)
    return LiveCheck(
        4,
        title,
        not unexplained,
        f"Considered by {len(traces)} trace(s): included in {included}, excluded from "
        f"{len(traces) - included}"
        + (
            "; every exclusion carries a reason."
            if not unexplained
            else f"; {len(unexplained)} exclusion(s) have no reason."
        ),
        [Comparison("Exclusions without a reason", "0", str(len(unexplained)), not unexplained)],
    )


def _check_rules(rules: ActiveRules) -> LiveCheck:
    errors = validate_definition(rules.definition)
    policy = rules.definition.policy(rules.policy)
    return LiveCheck(
        5,
        "Active rule set and policy thresholds",
        not errors,
        f"{rules.label}, policy {policy.name}: supported at overall ≥ "
        f"{policy.min_overall_score:.2f}, weak at ≥ {policy.weak_threshold:.2f}."
        + (f" Invalid: {'; '.join(errors)}" if errors else ""),
        [
            Comparison(
                "Policy minimum overall score", "in [0, 1]", f"{policy.min_overall_score:.2f}"
            ),
            Comparison("Policy weak threshold", "in [0, 1]", f"{policy.weak_threshold:.2f}"),
            Comparison(
                "Definition validates", "no errors", "; ".join(errors) or "no errors", not errors
            ),
        ],
    )


def claim_audit(*, workspace: Workspace, public_id: str) -> ClaimAudit:
    """Everything the claim page shows, with the five live checks computed now."""
    claim = (
        Claim.objects.filter(workspace=workspace, public_id=public_id)
        .select_related("source")
        .first()
    )
    if claim is None:
        raise Http404("No such claim in this workspace.")
    bindings = list(
        claim.bindings.select_related("source_version", "bound_by_user").order_by(
            "-is_active", "-created_at", "-id"
        )
    )
    active = next((b for b in bindings if b.is_active), None)
    inputs, check = claim_state_inputs(claim=claim)
    verdicts = list(claim.verdicts.select_related("reviewer").order_by("-at", "-id"))
    events = list(claim.state_events.select_related("actor").order_by("-at", "-id"))
    traces = list(
        TraceClaim.objects.filter(claim=claim)
        .select_related("trace")
        .order_by("-trace__created_at", "-id")[:TRACES_ON_CLAIM_PAGE]
    )
    rules = rule_set_active(workspace=workspace, domain_pack=claim.source.domain_pack)
    checks = [
        _check_quote(active),
        _check_hash(active, check.version),
        _check_verdicts(verdicts),
        _check_traces(traces),
        _check_rules(rules),
    ]
    timeline: list[dict[str, Any]] = [
        {"at": v.at, "kind": "verdict", "human": v.reviewer_id is not None, "verdict": v}
        for v in verdicts
    ] + [{"at": e.at, "kind": "state", "human": e.actor_id is not None, "event": e} for e in events]
    timeline.sort(key=lambda row: row["at"], reverse=True)
    permalinks = {
        b.pk: source_permalink(
            source_id=claim.source_id, sha256=b.source_version.sha256, start=b.start, end=b.end
        )
        for b in bindings
    }
    for b in bindings:
        b.permalink = permalinks[b.pk]  # type: ignore[attr-defined]
    return ClaimAudit(
        claim=claim,
        bindings=bindings,
        active_binding=active,
        inputs=inputs,
        check=check,
        decision=resolve_state(inputs, DEFAULT_POLICY),
        verdicts=verdicts,
        events=events,
        traces=traces,
        rules=rules,
        checks=checks,
        timeline=timeline,
        permalinks=permalinks,
        span_context=_span_context(active),
    )


# --- sources -----------------------------------------------------------------------


RAG_CHUNK_REF_PREFIX: Final = "rag-chunk:"


def audit_source_list(
    *, workspace: Workspace, q: str = "", include_rag_chunks: bool = False
) -> QuerySet[Source]:
    """The workspace's sources by ref; ``q`` searches ref and title. RAG-audit chunks
    (``rag-chunk:`` sources, one per audited chunk) are left out unless asked for."""
    sources = Source.objects.filter(workspace=workspace)
    if not include_rag_chunks:
        sources = sources.exclude(ref__startswith=RAG_CHUNK_REF_PREFIX)
    if q:
        sources = sources.filter(Q(ref__icontains=q) | Q(title__icontains=q))
    return sources.order_by("ref")


def audit_source_get(*, workspace: Workspace, source_id: int) -> Source:
    source = Source.objects.filter(workspace=workspace, pk=source_id).first()
    if source is None:
        raise Http404("No such source in this workspace.")
    return source


def source_versions(*, source: Source) -> list[SourceVersion]:
    """All versions, newest first, without their text."""
    return list(SourceVersion.objects.filter(source=source).defer("text").order_by("-number"))


def source_version_get(
    *, source: Source, sha256: str | None = None, number: int | None = None
) -> SourceVersion:
    versions = SourceVersion.objects.filter(source=source)
    if sha256 is not None:
        version = versions.filter(sha256=sha256).first()
    elif number is not None:
        version = versions.filter(number=number).first()
    else:
        version = versions.order_by("-number").first()
    if version is None:
        raise Http404("No such version of this source.")
    return version


# A claim's state, by how much a reader must look at it (the highlight of a run of
# text bound by several claims takes the first of its claims' states in this order).
STATE_ATTENTION: Final = ("contradicted", "unverified", "inferred", "excluded", "supported")
STATE_LEGEND: Final = (
    ("supported", "Supported", "solid underline"),
    ("unverified", "Unverified", "dashed underline"),
    ("contradicted", "Contradicted", "wavy red underline, struck through"),
    ("excluded", "Excluded", "dotted underline, grey"),
    ("inferred", "Inferred", "double underline"),
)
SPAN_CLAIMS_PAGE: Final = 50


@dataclass(frozen=True)
class SourceFocus:
    """What the page was asked to focus: a span (``?span=S-E`` or ``?span=S``) or a
    claim (``?claim=<public_id>``)."""

    start: int | None = None
    end: int | None = None
    claim: str = ""

    @classmethod
    def parse(cls, params: Mapping[str, str]) -> SourceFocus:
        raw = (params.get("span") or "").strip()
        start = end = None
        if raw:
            head, _, tail = raw.partition("-")
            if head.isdigit():
                start = int(head)
                end = int(tail) if tail.isdigit() and int(tail) > start else None
        return cls(start=start, end=end, claim=(params.get("claim") or "").strip()[:40])


@dataclass
class SourceView:
    source: Source
    versions: list[SourceVersion]
    version: SourceVersion
    is_current: bool
    segments: list[dict[str, Any]]
    hash_ok: bool
    text_length: int
    window: tuple[int, int]
    focus: tuple[int, int] | None
    pinned: list[EvidenceBinding]
    claims_page: Any  # Page of EvidenceBinding
    state_counts: list[tuple[str, int]]
    bound_total: int
    state_filter: str
    legend: tuple[tuple[str, str, str], ...] = STATE_LEGEND
    earlier_at: int | None = None
    later_at: int | None = None


def _dominant_state(states: list[str]) -> str:
    for state in STATE_ATTENTION:
        if state in states:
            return state
    return states[0] if states else ""


def source_view(
    *,
    source: Source,
    version: SourceVersion,
    focus: SourceFocus | None = None,
    at: int | None = None,
    state: str = "",
    claims_page: int | None = None,
) -> SourceView:
    """A window of the version's text around the focus, with the spans bound in it
    coloured by their claim's state, and one page of the claims bound to the version.

    The text outside the window is not rendered (a 200 KB source has thousands of
    spans): the page links to the text before and after. The claims list starts at
    the page holding the focused claim and pins that claim at its top.
    """
    focus = focus or SourceFocus()
    versions = source_versions(source=source)
    text = version.text
    on_version = EvidenceBinding.objects.filter(source_version=version).select_related("claim")
    pinned: list[EvidenceBinding] = []
    focus_range: tuple[int, int] | None = None
    if focus.claim:
        pinned = list(
            on_version.filter(
                claim__public_id=focus.claim, claim__workspace_id=source.workspace_id
            ).order_by("-is_active", "start", "id")[:1]
        )
        if pinned:
            focus_range = (pinned[0].start, pinned[0].end)
    elif focus.start is not None:
        end = focus.end if focus.end is not None else focus.start + 1
        focus_range = (focus.start, end)
    window = text_window(len(text), focus=focus_range, at=at)
    in_window = list(
        on_version.filter(start__lt=window[1], end__gt=window[0]).order_by("start", "end", "id")
    )
    if focus_range is not None and focus.claim == "" and focus.end is None:
        # ``#seg-<start>`` / ``?span=<start>``: the span that starts there.
        starting = [b for b in in_window if b.start == focus_range[0]]
        if starting:
            focus_range = (starting[0].start, max(b.end for b in starting))
    if focus_range is not None and not pinned:
        pinned = [b for b in in_window if (b.start, b.end) == focus_range][:5]
    by_pk = {b.pk: b for b in in_window}
    rows = []
    for seg in window_segments(text, [Span(b.start, b.end, b.pk) for b in in_window], window):
        states = [by_pk[k].claim.state for k in seg.keys]  # type: ignore[index]
        rows.append(
            {
                "text": seg.text,
                "start": seg.start,
                "end": seg.end,
                "keys": " ".join(str(k) for k in seg.keys),
                "count": len(seg.keys),
                "state": _dominant_state(states),
                "states": ", ".join(sorted(set(states))),
                "focus": focus_range is not None
                and seg.keys != ()
                and seg.start < focus_range[1]
                and seg.end > focus_range[0],
            }
        )
    counts = Counter(
        dict(
            on_version.order_by()
            .values_list("claim__state")
            .annotate(n=Count("id"))
            .values_list("claim__state", "n")
        )
    )
    state = state if state in STATE_ATTENTION else ""
    listed = on_version.order_by("start", "id")
    if state:
        listed = listed.filter(claim__state=state)
    paginator = Paginator(listed, SPAN_CLAIMS_PAGE)
    paginator.count = counts.get(state, 0) if state else sum(counts.values())  # type: ignore[misc]
    if claims_page is None and pinned:
        first = pinned[0]
        before = listed.filter(Q(start__lt=first.start) | Q(start=first.start, id__lt=first.pk))
        claims_page = before.count() // SPAN_CLAIMS_PAGE + 1
    page = paginator.get_page(claims_page)
    size = window[1] - window[0]
    return SourceView(
        source=source,
        versions=versions,
        version=version,
        is_current=bool(versions) and versions[0].pk == version.pk,
        segments=rows,
        hash_ok=hashlib.sha256(text.encode("utf-8")).hexdigest() == version.sha256,
        text_length=len(text),
        window=window,
        focus=focus_range,
        pinned=pinned,
        claims_page=page,
        state_counts=[(s, counts.get(s, 0)) for s in STATE_ATTENTION if counts.get(s, 0)],
        bound_total=sum(counts.values()),
        state_filter=state,
        earlier_at=max(0, window[0] - max(size, 1)) if window[0] > 0 else None,
        later_at=window[1] if window[1] < len(text) else None,
    )


@dataclass
class StaleBinding:
    binding: EvidenceBinding
    status: str
    still_at_offsets: bool


def source_version_diff(
    *, source: Source, old: SourceVersion, new: SourceVersion
) -> tuple[list[Any], list[StaleBinding]]:
    """Word diff old → new, and the active bindings on ``old`` re-checked against ``new``."""
    diff = diff_segments(old.text, new.text)
    stale: list[StaleBinding] = []
    bindings = (
        EvidenceBinding.objects.filter(source_version=old, is_active=True)
        .select_related("claim")
        .order_by("start", "id")
    )
    for b in bindings:
        span = BoundSpan(
            quote=b.quote,
            start=b.start,
            end=b.end,
            match=b.match,  # type: ignore[arg-type]
            source_hash=b.source_hash,
        )
        status = recheck(span, new.text, new.sha256)
        if status == "fresh":
            continue
        in_range = 0 <= b.start < b.end <= len(new.text)
        still = in_range and span_matches(b.quote, new.text[b.start : b.end], b.match)  # type: ignore[arg-type]
        stale.append(StaleBinding(b, status, still))
    return diff, stale


# --- quality -----------------------------------------------------------------------


def quality_summary(report: Any) -> dict[str, Any] | None:
    """Normalise a stored quality report; counts that were not recorded stay None."""
    if not isinstance(report, Mapping):
        return None
    quality = report.get("quality") if isinstance(report.get("quality"), Mapping) else report
    trust = report.get("trust", report.get("trust_score"))
    if isinstance(trust, int | float) and not isinstance(trust, bool):
        trust = {"score": trust, "factors": []}
    if not isinstance(trust, Mapping):
        # a flat report: {**quality_report(...).to_dict(), **trust_score(...).to_dict()}
        trust = report if "score" in report and "factors" in report else None
    g2 = quality.get("g2") if isinstance(quality.get("g2"), Mapping) else {}
    counted = [quality.get(k) for k in ("supported", "weak", "unsupported")]
    total = quality.get("total")
    if not isinstance(total, int) and all(isinstance(n, int) for n in counted):
        total = sum(counted)  # type: ignore[arg-type]
    # Nothing validated: the trust score and G2 were not measured (unknown, not 0 / fail).
    measured = not (isinstance(total, int) and total == 0)
    return {
        "measured": measured,
        "trust_score": trust.get("score") if trust and measured else None,
        "factors": list(trust.get("factors") or []) if trust else [],
        "supported": quality.get("supported"),
        "weak": quality.get("weak"),
        "unsupported": quality.get("unsupported"),
        "total": quality.get("total"),
        "ok_pct": quality.get("ok_pct"),
        "weak_pct": quality.get("weak_pct"),
        "unsupported_pct": quality.get("unsupported_pct"),
        "coverage_gaps": quality.get("coverage_gaps"),
        "remediation_drops": quality.get("remediation_drops"),
        "g2_passed": g2.get("passed") if measured else None,
        "g2_shortfalls": list(g2.get("shortfalls") or []) if measured else [],
    }


def quality_jobs(*, workspace: Workspace) -> QuerySet[IngestJob]:
    return IngestJob.objects.filter(workspace=workspace).order_by("-created_at", "-id")


def quality_trend(*, workspace: Workspace) -> list[tuple[int, int | None]]:
    """(job id, trust score) for the latest jobs with a report, oldest first; the score
    is None (a gap in the chart) for a job with nothing validated."""
    rows = (
        IngestJob.objects.filter(workspace=workspace, quality_report__isnull=False)
        .order_by("-created_at", "-id")
        .values_list("pk", "quality_report")[:TREND_JOBS]
    )
    points = []
    for pk, report in rows:
        summary = quality_summary(report)
        if summary and isinstance(summary["trust_score"], int | float):
            points.append((pk, int(summary["trust_score"])))
        elif summary and not summary["measured"]:
            points.append((pk, None))
    return list(reversed(points))


BENCHMARK_WORKSPACE_PREFIX: Final = "bench-"


def validator_runs(*, workspace: Workspace) -> QuerySet[ValidatorRun]:
    """This workspace's runs plus the deployment's benchmark runs, which live in
    throwaway ``bench-<timestamp>`` workspaces holding only planted fixture claims."""
    return ValidatorRun.objects.filter(
        Q(workspace=workspace)
        | Q(workspace__isnull=True)
        | Q(workspace__slug__startswith=BENCHMARK_WORKSPACE_PREFIX)
    ).order_by("-created_at", "-id")


def _rate(value: Any) -> str:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return f"{100 * value:.1f}%"
    return "unknown"


def validator_run_headline(metrics: Any) -> list[tuple[str, str]]:
    """The benchmark's headline numbers; anything not measured reads "unknown"."""
    if not isinstance(metrics, Mapping):
        return []
    recall = metrics.get("recall")
    overall = recall.get("all") if isinstance(recall, Mapping) else None
    overall = overall if isinstance(overall, Mapping) else {}
    return [
        ("Claims", str(metrics.get("claims", "unknown"))),
        ("Recall on planted unsupported (strict)", _rate(overall.get("recall_strict"))),
        ("Recall counting coverage gaps", _rate(overall.get("recall_with_coverage"))),
        ("False-flag rate on known-good", _rate(metrics.get("false_flag_rate"))),
        ("Affirm rate on unseen claims", _rate(metrics.get("affirm_unseen_rate"))),
        ("Seconds", str(metrics.get("seconds", "unknown"))),
    ]
