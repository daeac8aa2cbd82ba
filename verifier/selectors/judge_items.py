"""What the judge is shown for each claim: its active binding re-checked against the
current version of the cited source and, when fresh, the judge item (the bound span
read within its whole sentences, plus strong evidence-search runners-up, and the context
a judge that reads it needs).

One copy of this reading, for everything that asks a judge about stored claims: the
judging service (``verifier.services.judging``), and the reviewer calibrator's fitting
and flip list (``verifier.services.judge_calibrators``, ``verifier.selectors.calibrators``),
which must read a claim exactly as the judge was shown it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from verifier.judges import MAX_SPANS_PER_ITEM, JudgeItem
from verifier.judges.base import item_context
from verifier.models import Claim, EvidenceBinding, EvidenceCandidate, Source, SourceVersion
from verifier.selectors.claim_state import BindingCheck, claims_binding_checks
from verifier.text.sentences import sentence_around, sentence_before

# Evidence-search runners-up go to the judge beside the bound span only when they are
# strong matches themselves: a judge reads every span it is given as evidence, and a
# weak neighbour imports hedges and negations from unrelated sentences. On
# bench/fixtures/planted-v1.json runners-up of true claims score 0.2–0.55 and best
# windows 0.7–0.99.
JUDGE_CANDIDATE_MIN_SCORE = 0.6
# How far before a bound span the judge's context (the preceding sentence) is looked for.
CONTEXT_LOOKBACK_CHARS = 600
# How far either side of a bound span the rest of its sentence is looked for.
SENTENCE_REACH_CHARS = 600


@dataclass(frozen=True)
class PreparedClaim:
    claim: Claim
    binding: EvidenceBinding | None
    item: JudgeItem | None  # None: no fresh bound span, nothing to show a judge


def claims_judge_items(
    *,
    claims: Sequence[Claim],
    with_context: bool,
    checks: Mapping[int, BindingCheck] | None = None,
) -> list[PreparedClaim]:
    """For each claim (in order): its active binding re-checked against the current
    version (``checks`` when the caller has them), and, when fresh, the judge item.
    ``with_context``: the judge reads context (``Judge.reads_context``)."""
    if checks is None:
        checks = claims_binding_checks(claims=claims)
    fresh = {
        c.pk: checks[c.pk]
        for c in claims
        if checks[c.pk].binding is not None and checks[c.pk].status == "fresh"
    }
    runners_up: dict[int, list[str]] = {}
    if fresh:
        rows = EvidenceCandidate.objects.filter(
            claim_id__in=list(fresh), score__gte=JUDGE_CANDIDATE_MIN_SCORE
        ).order_by("claim_id", "rank")
        for candidate in rows:
            check = fresh[candidate.claim_id]
            if check.version is not None and candidate.source_version_id == check.version.pk:
                runners_up.setdefault(candidate.claim_id, []).append(candidate.quote)
    texts = _version_texts(fresh)
    read = {pk: _read_span(check, texts) for pk, check in fresh.items() if check.version}
    contexts = _contexts(fresh, texts, read) if with_context else {}
    prepared: list[PreparedClaim] = []
    for claim in claims:
        check = checks[claim.pk]
        if claim.pk not in fresh or check.binding is None:
            prepared.append(PreparedClaim(claim, check.binding, None))
            continue
        spans = [read[claim.pk][2] if claim.pk in read else check.binding.quote]
        for quote in runners_up.get(claim.pk, []):
            if len(spans) >= MAX_SPANS_PER_ITEM:
                break
            if quote not in spans and quote != check.binding.quote:
                spans.append(quote)
        item = JudgeItem(
            key=str(claim.pk),
            claim=claim.text,
            spans=tuple(spans),
            context=contexts.get(claim.pk, ""),
        )
        prepared.append(PreparedClaim(claim, check.binding, item))
    return prepared


def _version_texts(fresh: Mapping[int, BindingCheck]) -> dict[int, str]:
    """The text of each bound version, read once per version (those the checks did not
    load)."""
    version_ids = {c.version.pk for c in fresh.values() if c.version is not None}
    texts = {
        c.version.pk: c.version.text
        for c in fresh.values()
        if c.version is not None and "text" not in c.version.get_deferred_fields()
    }
    missing = version_ids - set(texts)
    if missing:
        texts.update(
            SourceVersion.objects.filter(pk__in=missing).values_list("pk", "text").iterator()
        )
    return texts


def _read_span(check: BindingCheck, texts: Mapping[int, str]) -> tuple[int, int, str]:
    """What the judge reads of a bound span: the span within its whole sentences, so a
    quote cut from a sentence ("the council approved the budget" from "It is false that
    the council approved the budget.") is judged as the source says it. The binding's
    offsets and quote are unchanged; only what is read widens."""
    assert check.binding is not None and check.version is not None  # fresh: both are
    binding = check.binding
    text = texts[check.version.pk]
    start, end = sentence_around(text, binding.start, binding.end, reach=SENTENCE_REACH_CHARS)
    return start, end, text[start:end]


def _contexts(
    fresh: Mapping[int, BindingCheck],
    texts: Mapping[int, str],
    read: Mapping[int, tuple[int, int, str]],
) -> dict[int, str]:
    """Per claim: its source's title and the sentence before the sentences read, so the
    judge can resolve a name given one sentence earlier. Built only for judges that
    declare ``reads_context`` (the others would ignore it)."""
    version_ids = {c.version.pk for c in fresh.values() if c.version is not None}
    titles = dict(
        Source.objects.filter(versions__pk__in=version_ids).values_list("versions__pk", "title")
    )
    out: dict[int, str] = {}
    for claim_pk, check in fresh.items():
        if check.version is None or claim_pk not in read:
            continue
        text = texts[check.version.pk]
        start = read[claim_pk][0]
        previous = sentence_before(text, start, lookback=CONTEXT_LOOKBACK_CHARS)
        out[claim_pk] = item_context(title=titles.get(check.version.pk) or "", previous=previous)
    return out
