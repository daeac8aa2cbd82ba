"""What an audit pack holds: the claims of a filtered claim list, of a source, of a trace,
or of an ingest or verification job. Parsed from query parameters or form fields; bad
input is an ``AuditPackError`` (a 400 with its code in the API, a form error in the
console)."""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from verifier.errors import ApplicationError
from verifier.untrusted_input import decimal_int
from verifier.vocabulary import claim_filters_in_words

SCOPE_KINDS: Final = ("claims", "source", "trace", "ingest_job", "verification_job")
# The claim list's filters (the audit console's, ``verifier.selectors.claim_filters``).
CLAIM_FILTER_KEYS: Final = ("state", "reason", "source", "job", "quality", "q")
_MAX_PARAM_CHARS: Final = 200


class AuditPackError(ApplicationError):
    """A pack that cannot be made as asked."""


@dataclass(frozen=True)
class PackScope:
    kind: str
    filters: Mapping[str, str] = field(default_factory=dict)
    source: str = ""
    trace: str = ""
    job: int | None = None

    def as_dict(self) -> dict[str, Any]:
        """The scope as the pack records it (``pack.json`` ``scope``)."""
        if self.kind == "claims":
            return {"kind": self.kind, "filters": dict(sorted(self.filters.items()))}
        if self.kind == "source":
            return {"kind": self.kind, "source": self.source}
        if self.kind == "trace":
            return {"kind": self.kind, "trace": self.trace}
        return {"kind": self.kind, "job": self.job}

    def as_params(self) -> dict[str, str]:
        """The scope as query parameters (what :func:`parse_scope` reads back)."""
        params = {"scope": self.kind}
        if self.kind == "claims":
            params.update(self.filters)
        elif self.kind == "source":
            params["source"] = self.source
        elif self.kind == "trace":
            params["trace"] = self.trace
        else:
            params["job"] = str(self.job)
        return params

    @property
    def label(self) -> str:
        if self.kind == "claims":
            # in words: "claims (Reason: Confirmed by a reviewer)", not "reason=human_supported"
            shown = claim_filters_in_words(self.filters)
            return f"claims ({shown})" if shown else "all claims"
        if self.kind == "source":
            return f"source {self.source}"
        if self.kind == "trace":
            return f"trace {self.trace}"
        return f"{self.kind.replace('_', ' ')} {self.job}"


def _param(params: Mapping[str, Any], key: str) -> str:
    value = params.get(key, "")
    return str(value).strip() if value is not None else ""


def parse_scope(params: Mapping[str, Any]) -> PackScope:
    """The scope named by ``params``: ``scope`` (default ``claims``) and its argument:
    the claim-list filters, ``source`` (a ref), ``trace`` (a trace id) or ``job``."""
    kind = _param(params, "scope") or "claims"
    if kind not in SCOPE_KINDS:
        raise AuditPackError(
            "invalid_scope",
            f"Unknown pack scope {kind!r}; one of: {', '.join(SCOPE_KINDS)}.",
            {"field": "scope", "allowed": list(SCOPE_KINDS)},
        )
    for key in ("source", "trace", "job", *CLAIM_FILTER_KEYS):
        if len(_param(params, key)) > _MAX_PARAM_CHARS:
            raise AuditPackError(
                "invalid_scope",
                f"{key} is longer than {_MAX_PARAM_CHARS} characters.",
                {"field": key},
            )
    if kind == "claims":
        filters = {k: _param(params, k) for k in CLAIM_FILTER_KEYS if _param(params, k)}
        return PackScope(kind=kind, filters=filters)
    if kind == "source":
        ref = _param(params, "source")
        if not ref:
            raise AuditPackError(
                "invalid_scope", "A source pack needs the source's ref.", {"field": "source"}
            )
        return PackScope(kind=kind, source=ref)
    if kind == "trace":
        try:
            trace = str(uuid.UUID(_param(params, "trace")))
        except ValueError:
            raise AuditPackError(
                "invalid_scope", "A trace pack needs a trace id (a UUID).", {"field": "trace"}
            ) from None
        return PackScope(kind=kind, trace=trace)
    job_id = decimal_int(_param(params, "job"))
    if job_id is None or not 0 < job_id < 2**63:
        what = kind.replace("_", " ")
        article = "An" if what[0] in "aeiou" else "A"
        raise AuditPackError(
            "invalid_scope", f"{article} {what} pack needs the job's id.", {"field": "job"}
        )
    return PackScope(kind=kind, job=job_id)
