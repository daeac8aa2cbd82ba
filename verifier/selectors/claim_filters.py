"""The claim list's filters (the audit console's list, its exports and audit packs)."""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping

from django.db.models import F, Func, QuerySet, TextField
from django.db.models.lookups import IContains

from verifier.audit_pack.scope import CLAIM_FILTER_KEYS
from verifier.models import Claim, Workspace
from verifier.selectors.claims import quality_class_filter
from verifier.untrusted_input import decimal_int


class _Nfc(Func):
    """PostgreSQL's ``normalize(text, NFC)``: the stored text composed, for comparing only."""

    function = "normalize"
    template = "%(function)s(%(expressions)s, NFC)"
    output_field = TextField()


def text_contains(field: str, query: str) -> IContains:
    """``field`` contains ``query``, case ignored, both sides composed (NFC): a decomposed
    "O\u0308do\u0308n" finds the composed "Ödön" and the other way round. The stored text is
    never changed; only the comparison is normalized."""
    return IContains(_Nfc(F(field)), unicodedata.normalize("NFC", query))


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
        claims = claims.filter(text_contains("text", filters["q"]))
    return claims.order_by("-created_at", "-id")
