"""The span permalink: the one URL every reader gives for a bound span.

The source version page focused on ``[start, end)`` (server side, so a long source
renders the window around it), scrolled to the span by the ``#seg-<start>`` anchor. The
claim page's evidence links and the claim-verification API's ``span.permalink`` both
come from here.
"""

from __future__ import annotations

from django.urls import reverse

from verifier.models import EvidenceBinding


def span_permalink(*, source_id: int, sha256: str, start: int, end: int) -> str:
    url = reverse("audit:source-version", kwargs={"source_id": source_id, "sha256": sha256})
    return f"{url}?span={start}-{end}#seg-{start}"


def binding_permalink(binding: EvidenceBinding) -> str:
    """``span_permalink`` of a binding (its ``source_version`` loaded or selected)."""
    version = binding.source_version
    return span_permalink(
        source_id=version.source_id, sha256=version.sha256, start=binding.start, end=binding.end
    )
