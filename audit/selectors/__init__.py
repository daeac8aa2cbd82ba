"""Reads for the audit console, one module per page. Every query takes the workspace;
others' rows 404. The public names are re-exported here, so views and tests import
``from audit.selectors import ...`` (or ``audit.selectors.<name>``)."""

from audit.selectors.agreement import ReviewerAgreement, reviewer_agreement
from audit.selectors.claim_list import (
    CLAIM_FILTER_KEYS,
    CLAIM_LIST_RETURN_KEY,
    audit_claim_filter_errors,
    audit_claim_filters,
    audit_claim_keyset,
    audit_claim_list,
    audit_claim_page,
    claim_list_query,
    claim_list_return_query,
)
from audit.selectors.claim_page import (
    SPAN_CONTEXT_CHARS,
    TRACES_ON_CLAIM_PAGE,
    ClaimAudit,
    Comparison,
    LiveCheck,
    claim_audit,
)
from audit.selectors.quality import (
    BENCHMARK_WORKSPACE_PREFIX,
    TREND_JOBS,
    quality_jobs,
    quality_jobs_states_now,
    quality_summary,
    quality_trend,
    validator_run_headline,
    validator_runs,
)
from audit.selectors.source_page import (
    SPAN_CLAIMS_PAGE,
    STATE_ATTENTION,
    STATE_LEGEND,
    SourceFocus,
    SourceView,
    claims_bound_to_earlier_versions,
    source_view,
)
from audit.selectors.sources import (
    StaleBinding,
    audit_source_get,
    audit_source_list,
    source_version_diff,
    source_version_get,
    source_versions,
)
from audit.selectors.trace_spans import trace_span_rows
from audit.selectors.webhooks import webhook_page_list

__all__ = [
    "BENCHMARK_WORKSPACE_PREFIX",
    "CLAIM_FILTER_KEYS",
    "CLAIM_LIST_RETURN_KEY",
    "SPAN_CLAIMS_PAGE",
    "SPAN_CONTEXT_CHARS",
    "STATE_ATTENTION",
    "STATE_LEGEND",
    "TRACES_ON_CLAIM_PAGE",
    "TREND_JOBS",
    "ClaimAudit",
    "Comparison",
    "LiveCheck",
    "ReviewerAgreement",
    "SourceFocus",
    "SourceView",
    "StaleBinding",
    "audit_claim_filter_errors",
    "audit_claim_filters",
    "audit_claim_keyset",
    "audit_claim_list",
    "audit_claim_page",
    "audit_source_get",
    "audit_source_list",
    "claim_audit",
    "claim_list_query",
    "claim_list_return_query",
    "claims_bound_to_earlier_versions",
    "quality_jobs",
    "quality_jobs_states_now",
    "quality_summary",
    "quality_trend",
    "reviewer_agreement",
    "source_version_diff",
    "source_version_get",
    "source_versions",
    "source_view",
    "trace_span_rows",
    "validator_run_headline",
    "validator_runs",
    "webhook_page_list",
]
