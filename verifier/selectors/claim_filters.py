"""The claim list's filters (the audit console's list, its exports and audit packs)."""

from __future__ import annotations

from collections.abc import Mapping

from django.db.models import QuerySet

from verifier.audit_pack.scope import CLAIM_FILTER_KEYS
from verifier.models import Claim, Workspace
from verifier.selectors.claims import quality_class_filter
from verifier.selectors.text_search import text_search
from verifier.untrusted_input import decimal_int


def claim_filters(params: Mapping[str, str]) -> dict[str, str]:
    """The claim-list filters present in ``params`` (query string), stripped."""
    return {k: params[k].strip() for k in CLAIM_FILTER_KEYS if params.get(k, "").strip()}


def claim_filter_list(*, workspace: Workspace, filters: Mapping[str, str]) -> QuerySet[Claim]:
    """The workspace's claims by the filters, newest first."""
    claims = Claim.objects.filter(workspace=workspace).select_related("source")
    if filters.get("state"):
        claims = claims.filter(state=filters["state"])
    if filters.get("reason"):
        claims = claims.filter(state_reason=filters["reason"])
    if filters.get("source"):
        claims = claims.filter(source__ref=filters["source"])
    if filters.get("job"):
        job = filters["job"]
        job_id = decimal_int(job)
        claims = claims.filter(ingest_job_id=job_id) if job_id is not None else claims.none()
    if filters.get("quality"):
        # The class as the reports count it: capped by the claim's state.
        claims = claims.filter(quality_class_filter(filters["quality"]))
    if filters.get("q"):
        # the search rule (case, accents, Unicode form, whitespace runs folded)
        match = text_search(filters["q"], "text_folded")
        if match is not None:
            claims = claims.filter(match)
    return claims.order_by("-created_at", "-id")
