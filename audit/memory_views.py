"""Console for the memory-claim verifier: verify a message, then see each claim beside
the matched turn with the drift spans highlighted (segments computed here, autoescaped).

A message can hold several claims, each stored as its own check: the form redirects to
the first with ``?claims=<id>,<id>,...`` naming all of them, and the check page lists
them with their outcomes ("This message's claims")."""

from __future__ import annotations

from typing import Any, Final

from django import forms
from django.core.paginator import Paginator
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import urlencode
from django.views.decorators.http import require_GET, require_http_methods

from audit.highlighting import Segment, Span, segments
from audit.paging import CONSOLE_PAGE_SIZE
from verifier import vocabulary
from verifier.http import MemberRequest
from verifier.memory import IN_SCOPE, TranscriptInputError
from verifier.memory.transcript import MAX_TRANSCRIPT_CHARS
from verifier.models import MemoryCheck
from verifier.permissions import role_required
from verifier.selectors.memory import (
    memory_agent_stats,
    memory_check_get,
    memory_check_list,
    memory_checks_of_message,
)
from verifier.services.memory import MAX_MESSAGE_CHARS, memory_verify
from verifier.untrusted_input import decimal_int
from verifier.upload_text import uploaded_text
from verifier.vocabulary import api_message_in_words

# At most this many checks of one message are listed on a check's page.
MAX_MESSAGE_CHECKS: Final = 100
# An ``inconclusive:insufficient`` check whose reason is one of these is headed by the
# reason ("Out of scope", "Agent not in transcript"), not by the outcome's words ("Not
# enough transcript"), which fit only missing turns.
HEADLINE_REASONS: Final = frozenset({"out_of_scope", "no_transcript", "agent_not_in_transcript"})


class MemoryVerifyForm(forms.Form):
    agent = forms.CharField(max_length=100, help_text="The agent's speaker name in the transcript.")
    message = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 4}), max_length=MAX_MESSAGE_CHARS, strip=False
    )
    transcript = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 8}),
        required=False,
        strip=False,
        help_text=(
            'Required (here or as a file): JSONL, one {"speaker", "text", "timestamp"} turn '
            "per line, or a JSON array."
        ),
    )
    transcript_file = forms.FileField(
        required=False, label="or upload the transcript (.jsonl/.json)"
    )

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        upload = data.get("transcript_file")
        if upload:
            data["transcript"] = uploaded_text(
                upload,
                max_bytes=4 * MAX_TRANSCRIPT_CHARS,
                too_large="The transcript file is too large.",
                not_utf8="The transcript file is not UTF-8 text.",
            )
        return data


@require_http_methods(["GET", "POST"])
@role_required()
def memory_index(request: MemberRequest) -> HttpResponse:
    workspace = request.workspace
    form = MemoryVerifyForm(request.POST or None, request.FILES or None)
    status = 200
    if request.method == "POST":
        if form.is_valid():
            transcript = form.cleaned_data["transcript"]
            try:
                write = memory_verify(
                    workspace=workspace,
                    agent=form.cleaned_data["agent"],
                    message=form.cleaned_data["message"],
                    transcript_data=transcript if transcript.strip() else None,
                    actor=request.user,
                )
            except TranscriptInputError as exc:
                form.add_error(_error_field(form, exc.details), api_message_in_words(exc.message))
            else:
                return redirect(_check_url(write.checks[0].pk, [c.pk for c in write.checks]))
        status = 400
    # every check, newest first, a page at a time (the form's error page shows page 1)
    page = Paginator(memory_check_list(workspace=workspace), CONSOLE_PAGE_SIZE).get_page(
        request.GET.get("page")
    )
    checks = [_row(c) for c in page]
    return render(
        request,
        "audit/memory_index.html",
        {"form": form, "checks": checks, "page": page},
        status=status,
    )


def _error_field(form: MemoryVerifyForm, details: dict[str, Any]) -> str | None:
    """The form field a refusal's ``details.field`` names (``transcript[2].text`` is the
    transcript: its file when one was uploaded), so the message stands beside the field
    and the field points at it; ``None`` (the whole form) for any other."""
    name = str(details.get("field", "")).split("[", 1)[0].split(".", 1)[0]
    if name == "transcript" and form.cleaned_data.get("transcript_file"):
        return "transcript_file"
    return name if name in ("agent", "message", "transcript") else None


def _check_url(check_id: int, message_checks: list[int]) -> str:
    """A check's page; with the ids of all its message's checks when there are several."""
    url = reverse("memory:check", args=[check_id])
    if len(message_checks) > 1:
        url += "?" + urlencode({"claims": ",".join(str(i) for i in message_checks)})
    return url


def _reason(check: MemoryCheck) -> str:
    """Why a check could not be checked (checks stored before ``reason`` existed: out of
    scope when the claim's lane is)."""
    reason = str((check.result or {}).get("reason") or "")
    if not reason and check.claim_type not in IN_SCOPE:
        reason = "out_of_scope"
    return reason


def _headline(check: MemoryCheck) -> tuple[str, str]:
    """The words that head a check: (label, explanation)."""
    reason = _reason(check)
    if _not_compared(check):
        return (
            vocabulary.label("memory_reason", reason),
            vocabulary.explanation("memory_reason", reason),
        )
    return vocabulary.label("outcome", check.outcome), vocabulary.explanation(
        "outcome", check.outcome
    )


def _not_compared(check: MemoryCheck) -> bool:
    """Whether the check stopped before any turn was compared with the claim (out of
    scope, no transcript, no turn of the agent): its headline then names the reason."""
    return check.outcome == "inconclusive:insufficient" and _reason(check) in HEADLINE_REASONS


def _row(check: MemoryCheck, url: str = "") -> dict[str, Any]:
    return {
        "check": check,
        "label": _headline(check)[0],
        "url": url or reverse("memory:check", args=[check.pk]),
    }


def _message_checks(request: MemberRequest, check: MemoryCheck) -> list[dict[str, Any]]:
    """The checks of ``check``'s message named by ``?claims=`` (ids that are not this
    workspace's checks of the same agent's same message are left out), in reading order;
    empty when it names no other."""
    raw = request.GET.get("claims", "")
    parts = (p.strip() for p in raw.split(",")[: MAX_MESSAGE_CHECKS + 1])
    ids = list(dict.fromkeys(n for p in parts if (n := decimal_int(p)) is not None))
    if len(ids) < 2 or check.pk not in ids:
        return []
    rows = memory_checks_of_message(workspace=request.workspace, check=check, ids=ids)
    if len(rows) < 2:
        return []
    found = [r.pk for r in rows]
    return [_row(r, _check_url(r.pk, found)) for r in rows]


def _marked(segs: list[Segment], base: str) -> list[dict[str, str]]:
    """Segments as {text, css, title}: drift evidence over the claim/match highlight."""
    out = []
    for seg in segs:
        drift = [vocabulary.label("drift", k) for k in seg.keys if k != base]
        css = "m-drift" if drift else f"m-{base}" if seg.keys else ""
        out.append({"text": seg.text, "css": css, "title": ", ".join(drift)})
    return out


def _claim_segments(check: MemoryCheck, drift: list[dict[str, Any]]) -> list[dict[str, str]]:
    spans = [Span(check.claim_start, check.claim_end, "claim")]
    spans += [
        Span(d["claim_span"][0], d["claim_span"][1], d["category"])
        for d in drift
        if d["claim_span"]
    ]
    return _marked(segments(check.message, spans), "claim")


def _turn_view(check: MemoryCheck, drift: list[dict[str, Any]]) -> dict[str, Any] | None:
    match = check.result.get("match")
    if not match or check.transcript is None:
        return None
    turn = next((t for t in check.transcript.turns if t["index"] == match["turn"]), None)
    if turn is None:
        return None
    base = turn["start"]
    spans = [Span(match["start"] - base, match["end"] - base, "match")]
    spans += [
        Span(d["source_span"][0] - base, d["source_span"][1] - base, d["category"])
        for d in drift
        if d["source_span"]
    ]
    return {"turn": turn, "segments": _marked(segments(turn["text"], spans), "match")}


@require_GET
@role_required()
def memory_check_detail(request: MemberRequest, check_id: int) -> HttpResponse:
    workspace = request.workspace
    check = memory_check_get(workspace=workspace, check_id=check_id)
    drift = check.result.get("drift_spans", [])
    label, explanation = _headline(check)
    context = {
        "check": check,
        "headline": label,
        "explanation": explanation,
        # a claim out of scope, or of an agent with no turn, was never compared with a
        # turn: the page says so, not "no material drift"
        "compared": not _not_compared(check),
        "message_checks": _message_checks(request, check),
        "result": check.result,
        "drift": drift,
        "claim_segments": _claim_segments(check, drift),
        "turn_view": _turn_view(check, drift),
        "stats": memory_agent_stats(workspace=workspace, agent=check.agent),
    }
    return render(request, "audit/memory_check.html", context)
