"""Every route × every principal × every method: who may do what (issue 17).

The table below is the specification. ``test_every_route_is_in_the_table`` walks the URL
resolver, so a new route fails the suite until it gets a row here. Each row says, per
method it serves, which scope the operation needs and the status a principal holding it
gets; everyone else gets 401 (API, anonymous), a redirect to sign-in (console, no session)
or 403. Methods a route does not serve must never succeed. Path arguments are real objects
of the principals' workspace (fresh ones for operations that consume them), so a 404 can
never hide a permission failure.

Principals: anonymous; console sessions of an auditor (scope ``read``), a reviewer
(``write``) and an admin (``admin``); API keys with scope read, write and admin.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import pytest
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, reverse

from audit.services import rule_set_create
from tests.factories import make_binding, make_claim, make_source, make_user
from tests.review.conftest import seen
from tests.verifier.api.conftest import DELTA_TEXT, judged_claim
from verifier.audit_pack.scope import parse_scope
from verifier.judges.heuristic import MODEL_ID as HEURISTIC_MODEL_ID
from verifier.judges.heuristic import PROMPT_VERSION as HEURISTIC_PROMPT_VERSION
from verifier.judges.reviewer_calibrator import Calibrator
from verifier.models import (
    ApiScope,
    CalibratorChangeJob,
    Claim,
    ClaimRelation,
    JudgeCalibrator,
    MemoryCheck,
    RagAudit,
    ReviewRejudgeJob,
    VerificationJob,
)
from verifier.scoring.rulesets import CORE_V1
from verifier.services.audit_pack import audit_pack_job_create, audit_pack_job_run
from verifier.services.claim_state import claim_exclude
from verifier.services.ingest_create import SourceUpload, ingest_job_create
from verifier.services.webhooks import webhook_create
from verifier.services.workspaces import api_key_create

pytestmark = pytest.mark.django_db

ANONYMOUS = "anonymous"
SESSIONS = {"auditor": ApiScope.READ, "reviewer": ApiScope.WRITE, "admin": ApiScope.ADMIN}
KEYS = {"read_key": ApiScope.READ, "write_key": ApiScope.WRITE, "admin_key": ApiScope.ADMIN}
PRINCIPALS = (ANONYMOUS, *SESSIONS, *KEYS)
METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE")
ORDER = (ApiScope.READ, ApiScope.WRITE, ApiScope.ADMIN)

# Needs: a scope, or PUBLIC (anyone, the status may differ per principal).
PUBLIC = "public"

QUOTE = "Sediment settles where the current slows."
RAG_CHUNKS = json.dumps({"id": "c1", "text": "HNSW builds a proximity graph."}) + "\n"
MEMORY_MESSAGE = 'I said "I\'ll send the draft this week."'
TURNS = [
    {"speaker": "user", "text": "Can you get me the report?"},
    {"speaker": "agent", "text": "I'll send the draft this week."},
]


class World:
    """Real objects of the principals' workspace; the costly ones are made on first use."""

    def __init__(self, *, workspace: Any, source: Any, claim: Any, admin_api: Client) -> None:
        self.workspace = workspace
        self.source = source
        self.claim = claim
        self.admin_api = admin_api
        self.latest_claim: Claim | None = None  # the last one made for a request's URL

    def _post(self, url: str, body: dict[str, Any]) -> dict[str, Any]:
        response = self.admin_api.post(url, body, content_type="application/json")
        assert response.status_code == 200, response.content
        return dict(response.json())

    @cached_property
    def trace_id(self) -> str:
        return str(self._post("/connect/v1/retrieve", {"query": "sediment"})["trace_id"])

    @cached_property
    def rag_audit(self) -> RagAudit:
        self._post(
            "/connect/v1/rag/audit", {"answer": "HNSW builds a graph.", "chunks": RAG_CHUNKS}
        )
        return RagAudit.objects.filter(workspace=self.workspace).latest("pk")

    @cached_property
    def memory_check(self) -> MemoryCheck:
        body = {"agent": "agent", "message": MEMORY_MESSAGE, "transcript": TURNS}
        self._post("/connect/v1/memory/verify", body)
        return MemoryCheck.objects.filter(workspace=self.workspace).latest("pk")

    @cached_property
    def ingest_job_id(self) -> int:
        return self.queued_job_id()

    @cached_property
    def verify_job_id(self) -> int:
        return int(VerificationJob.objects.create(workspace=self.workspace).pk)

    @cached_property
    def audit_pack_job_id(self) -> int:
        """A finished audit-pack job (run here: on_commit never fires in these tests)."""
        job = audit_pack_job_create(
            workspace=self.workspace, scope=parse_scope({}), exported_by={"role": "admin"}
        )
        return int(audit_pack_job_run(job_id=job.pk).pk)

    @cached_property
    def calibrator_job_id(self) -> int:
        """A queued change of the (proposed) calibrator: its page answers as any job's."""
        return int(
            CalibratorChangeJob.objects.create(
                workspace=self.workspace,
                calibrator=self.calibrator,
                action="activate",
                judge_model=self.calibrator.judge_model,
                cause="test",
            ).pk
        )

    @cached_property
    def rejudge_job_id(self) -> int:
        """A queued send-back to the judge: its page answers as any job's."""
        return int(ReviewRejudgeJob.objects.create(workspace=self.workspace, total=0).pk)

    @cached_property
    def webhook_id(self) -> int:
        hook = webhook_create(
            workspace=self.workspace,
            url="http://127.0.0.1:9/hook",
            secret="s" * 16,
            events=["job.completed"],
        )
        return int(hook.pk)

    @cached_property
    def rule_set(self) -> Any:
        return rule_set_create(workspace=self.workspace, definition=CORE_V1)

    @cached_property
    def calibrator(self) -> JudgeCalibrator:
        """A proposed calibrator that never reaches the floor (no supported threshold)."""
        fitted = Calibrator(
            feature_names=("answer_entailed",),
            mean=(0.0,),
            scale=(1.0,),
            coef=(1.0,),
            intercept=0.0,
            supported_threshold=None,
            contradicted_threshold=None,
            floor=0.88,
        )
        return JudgeCalibrator.objects.create(
            workspace=self.workspace,
            judge_model=HEURISTIC_MODEL_ID,
            judge_prompt_version=HEURISTIC_PROMPT_VERSION,
            version=1,
            params=fitted.as_json(),
            training_size=20,
            supported_decisions=10,
            contradicted_decisions=10,
            floor=0.88,
            cv_roc_auc=0.5,
        )

    def fresh_claim(self) -> Claim:
        claim = make_claim(self.source, QUOTE)
        make_binding(claim, QUOTE)
        self.latest_claim = claim
        return claim

    def item_version(self) -> str:
        """The review item version of the claim made for this request's URL (what the
        item page's forms send back)."""
        assert self.latest_claim is not None
        return seen(self.latest_claim)

    def fresh_relation(self) -> ClaimRelation:
        return ClaimRelation.objects.create(
            workspace=self.workspace,
            from_claim=self.fresh_claim(),
            to_claim=self.fresh_claim(),
            kind="supports",
            needs_review=True,
        )

    def fresh_member_id(self) -> int:
        user = make_user(f"matrix-{_uid()}", workspace=self.workspace, role="reviewer")
        return int(user.memberships.get(workspace=self.workspace).pk)

    def fresh_api_key(self) -> Any:
        return api_key_create(workspace=self.workspace, name=f"matrix {_uid()}").api_key

    def excluded_claim(self) -> Claim:
        claim = self.fresh_claim()
        claim_exclude(claim=claim, reason="matrix", actor=None)
        return claim

    def queued_job_id(self) -> int:
        job = ingest_job_create(
            workspace=self.workspace, sources=[SourceUpload(ref="source:q", text=DELTA_TEXT)]
        )
        return int(job.pk)


Body = Callable[[World], dict[str, Any]]
Args = Callable[[World], dict[str, Any]]


@dataclass(frozen=True)
class Op:
    needs: str  # a scope, or PUBLIC
    ok: int | dict[str, int]  # status when allowed (per principal for PUBLIC rows)
    body: Body | None = None


@dataclass(frozen=True)
class Route:
    name: str
    kind: str  # "api" (keys or sessions) or "console" (sessions only)
    ops: dict[str, Op]
    args: Args = field(default=lambda w: {})  # called per request: may make a fresh object


def _claim(world: World) -> dict[str, Any]:
    return {"public_id": world.fresh_claim().public_id}


def _excluded(world: World) -> dict[str, Any]:
    return {"public_id": world.excluded_claim().public_id}


def _job(world: World) -> dict[str, Any]:
    return {"job_id": world.queued_job_id()}


def _uid() -> str:
    return uuid.uuid4().hex[:10]


SIGNED_IN = {ANONYMOUS: 200, **dict.fromkeys(KEYS, 200), **dict.fromkeys(SESSIONS, 302)}
ALL_200 = dict.fromkeys(PRINCIPALS, 200)
ALL_302 = dict.fromkeys(PRINCIPALS, 302)

R, W, A = ApiScope.READ, ApiScope.WRITE, ApiScope.ADMIN

TABLE: tuple[Route, ...] = (
    # --- open pages ---------------------------------------------------------------
    Route("healthz", "open", {"GET": Op(PUBLIC, ALL_200)}),
    Route(
        "login",
        "open",
        # signed in: straight on; otherwise the form (an empty POST is a form error)
        {"GET": Op(PUBLIC, SIGNED_IN), "POST": Op(PUBLIC, SIGNED_IN, body=lambda w: {})},
    ),
    Route("logout", "open", {"POST": Op(PUBLIC, ALL_302)}),
    Route("favicon", "open", {"GET": Op(PUBLIC, dict.fromkeys(PRINCIPALS, 301))}),
    Route("api-schema", "open", {"GET": Op(PUBLIC, ALL_200)}),
    Route("api-docs", "open", {"GET": Op(PUBLIC, ALL_200)}),
    # --- API ------------------------------------------------------------------------
    Route("api-workspace", "api", {"GET": Op(R, 200)}),
    Route("api-retrieve", "api", {"POST": Op(R, 200, body=lambda w: {"query": "sediment"})}),
    Route(
        "api-graph",
        "api",
        {
            "POST": Op(
                R,
                200,
                body=lambda w: {
                    "operation": "expand_context",
                    "claim_ids": [w.claim.public_id],
                    "depth": "standard",
                },
            )
        },
    ),
    Route("api-trace", "api", {"GET": Op(R, 200)}, args=lambda w: {"trace_id": w.trace_id}),
    Route("api-trace-export", "api", {"GET": Op(R, 200)}, args=lambda w: {"trace_id": w.trace_id}),
    Route("api-rules", "api", {"GET": Op(R, 200)}),
    Route("api-rules-built-in", "api", {"GET": Op(R, 200)}),
    Route(
        "api-sources",
        "api",
        {
            "GET": Op(R, 200),
            "POST": Op(W, 201, body=lambda w: {"ref": f"source:{_uid()}", "text": "New text."}),
        },
    ),
    Route("api-source", "api", {"GET": Op(R, 200)}, args=lambda w: {"ref": w.source.ref}),
    Route("api-claims", "api", {"GET": Op(R, 200)}),
    Route("api-calibrators", "api", {"GET": Op(R, 200)}),
    Route("api-relations", "api", {"GET": Op(R, 200)}),
    Route("api-activity", "api", {"GET": Op(R, 200)}),
    Route(
        "api-claims-verify",
        "api",
        {"POST": Op(W, 200, body=lambda w: {"claims": [{"text": QUOTE, "source": w.source.ref}]})},
    ),
    Route(
        "api-claims-verify-job",
        "api",
        {"GET": Op(R, 200)},
        args=lambda w: {"job_id": w.verify_job_id},
    ),
    Route("api-claim", "api", {"GET": Op(R, 200)}, args=lambda w: {"claim_id": w.claim.public_id}),
    Route(
        "api-ingest-jobs",
        "api",
        {
            "GET": Op(R, 200),
            "POST": Op(
                W, 202, body=lambda w: {"sources": [{"ref": "source:new", "text": DELTA_TEXT}]}
            ),
        },
    ),
    Route("api-ingest-job", "api", {"GET": Op(R, 200)}, args=lambda w: {"job_id": w.ingest_job_id}),
    Route("api-ingest-job-cancel", "api", {"POST": Op(W, 200)}, args=_job),
    Route(
        "api-webhook",
        "api",
        # where workspace data is sent: admin only, reading included
        {"GET": Op(A, 200), "DELETE": Op(A, 200)},
        args=lambda w: {"webhook_id": w.webhook_id},
    ),
    Route(
        "api-webhooks",
        "api",
        {
            "GET": Op(A, 200),
            "POST": Op(
                A,
                201,
                body=lambda w: {
                    # a target of its own each call: the same one twice is a 409
                    "url": f"http://127.0.0.1:9/hook-{uuid.uuid4().hex}",
                    "secret": "s" * 16,
                    "events": ["job.completed"],
                },
            ),
        },
    ),
    Route(
        "api-rag-audit",
        "api",
        {
            "POST": Op(
                W, 200, body=lambda w: {"answer": "HNSW builds a graph.", "chunks": RAG_CHUNKS}
            )
        },
    ),
    Route(
        "api-memory-verify",
        "api",
        {
            "POST": Op(
                W,
                200,
                body=lambda w: {
                    "agent": "agent",
                    "message": MEMORY_MESSAGE,
                    "transcript": TURNS,
                },
            )
        },
    ),
    Route(
        "api-memory-transcripts",
        "api",
        {"POST": Op(W, 201, body=lambda w: {"transcript": TURNS, "ref": f"chat:{_uid()}"})},
    ),
    Route(
        "api-memory-agent-stats",
        "api",
        {"GET": Op(R, 200)},
        # the agent has a check, so its stats exist
        args=lambda w: {"agent_id": w.memory_check.agent},
    ),
    # Audit packs: exporting is reading (a job row is bookkeeping, like a trace).
    Route("api-audit-pack", "api", {"GET": Op(R, 200)}),
    Route("api-audit-pack-public-key", "api", {"GET": Op(R, 200)}),
    Route("api-audit-pack-checker", "api", {"GET": Op(R, 200)}),
    Route("api-audit-pack-jobs", "api", {"POST": Op(R, 202, body=lambda w: {"scope": "claims"})}),
    Route(
        "api-audit-pack-job",
        "api",
        {"GET": Op(R, 200)},
        args=lambda w: {"job_id": w.audit_pack_job_id},
    ),
    Route(
        "api-audit-pack-job-download",
        "api",
        {"GET": Op(R, 200)},
        args=lambda w: {"job_id": w.audit_pack_job_id},
    ),
    # --- console: shell ---------------------------------------------------------------
    Route("home", "console", {"GET": Op(R, 200)}),
    Route("glossary", "console", {"GET": Op(R, 200)}),
    Route(
        "workspace-switch",
        "console",
        {"POST": Op(R, 302, body=lambda w: {"workspace": w.workspace.slug})},
    ),
    # --- console: review ----------------------------------------------------------------
    Route("review:queue", "console", {"GET": Op(R, 200)}),
    Route("review:start", "console", {"POST": Op(W, 302)}),
    Route(
        "review:bulk",
        "console",
        {
            "POST": Op(
                W,
                302,
                body=lambda w: {
                    "action": "exclude",
                    "claims": [w.fresh_claim().public_id],
                    "reason": "matrix",
                    "confirm": "on",
                },
            )
        },
    ),
    # How far a bulk send-back to the judge has come: every member reads it.
    Route(
        "review:rejudge-job",
        "console",
        {"GET": Op(R, 200)},
        args=lambda w: {"job_id": w.rejudge_job_id},
    ),
    # Blind review is the member's own preference: any role.
    Route("review:blind", "console", {"POST": Op(R, 302)}),
    # Who decided what: every member reads it (blind review hides others' answers).
    Route("review:decisions", "console", {"GET": Op(R, 200)}),
    Route("review:item", "console", {"GET": Op(R, 200)}, args=_claim),
    Route(
        "review:decide",
        "console",
        {
            "POST": Op(
                W, 302, body=lambda w: {"decision": "contradicted", "version": w.item_version()}
            )
        },
        args=_claim,
    ),
    Route(
        "review:exclude",
        "console",
        {"POST": Op(W, 302, body=lambda w: {"reason": "matrix", "version": w.item_version()})},
        args=_claim,
    ),
    Route(
        "review:restore",
        "console",
        {"POST": Op(W, 302, body=lambda w: {"version": w.item_version()})},
        args=_excluded,
    ),
    Route(
        "review:rejudge",
        "console",
        {"POST": Op(W, 302, body=lambda w: {"version": w.item_version()})},
        args=_claim,
    ),
    Route(
        "review:note",
        "console",
        {"POST": Op(W, 302, body=lambda w: {"text": "matrix note"})},
        args=_claim,
    ),
    Route("review:skip", "console", {"POST": Op(W, 302)}, args=_claim),
    # Nothing of the principal's own to undo on a fresh claim: refused with the form (422).
    Route("review:undo", "console", {"POST": Op(W, 422)}, args=_claim),
    Route("review:guidelines", "console", {"GET": Op(R, 200)}),
    Route(
        "review:guidelines-edit",
        "console",
        {"POST": Op(A, 302, body=lambda w: {"text": "# Guidelines"})},
    ),
    Route("review:release", "console", {"POST": Op(W, 302)}, args=_claim),
    # An admin frees an item another reviewer left mid-way (nobody holds it here: 302).
    Route("review:release-hold", "console", {"POST": Op(A, 302)}, args=_claim),
    # --- console: audit -----------------------------------------------------------------
    Route("audit:claim-list", "console", {"GET": Op(R, 200)}),
    Route("audit:claim-export-jsonl", "console", {"GET": Op(R, 200)}),
    Route("audit:claim-export-csv", "console", {"GET": Op(R, 200)}),
    Route(
        "audit:claim-detail",
        "console",
        {"GET": Op(R, 200)},
        args=lambda w: {"public_id": w.claim.public_id},
    ),
    Route("audit:source-list", "console", {"GET": Op(R, 200)}),
    Route(
        "audit:source-detail",
        "console",
        {"GET": Op(R, 200)},
        args=lambda w: {"source_id": w.source.pk},
    ),
    Route(
        "audit:source-version",
        "console",
        {"GET": Op(R, 200)},
        args=lambda w: {
            "source_id": w.source.pk,
            "sha256": w.source.versions.order_by("-number")[0].sha256,
        },
    ),
    Route(
        "audit:source-diff",
        "console",
        {"GET": Op(R, 200)},
        args=lambda w: {"source_id": w.source.pk},
    ),
    Route("audit:trace-list", "console", {"GET": Op(R, 200)}),
    Route(
        "audit:trace-detail",
        "console",
        {"GET": Op(R, 200)},
        args=lambda w: {"trace_id": w.trace_id},
    ),
    Route("audit:quality", "console", {"GET": Op(R, 200)}),
    Route("audit:activity", "console", {"GET": Op(R, 200)}),
    Route(
        "audit:pack-create",
        "console",
        {"POST": Op(R, 302, body=lambda w: {"scope": "source", "source": w.source.ref})},
    ),
    Route(
        "audit:pack-job",
        "console",
        {"GET": Op(R, 200)},
        args=lambda w: {"job_id": w.audit_pack_job_id},
    ),
    Route(
        "audit:pack-download",
        "console",
        {"GET": Op(R, 200)},
        args=lambda w: {"job_id": w.audit_pack_job_id},
    ),
    Route("audit:rules", "console", {"GET": Op(A, 200)}),
    Route("audit:api-keys", "console", {"GET": Op(A, 200)}),
    Route(
        "audit:api-key-new",
        "console",
        {"POST": Op(A, 302, body=lambda w: {"name": "matrix", "scope": "read"})},
    ),
    Route(
        "audit:api-key-revoke",
        "console",
        {"POST": Op(A, 302, body=lambda w: {"confirmed": "1"})},
        args=lambda w: {"key_id": w.fresh_api_key().pk},
    ),
    Route("audit:members", "console", {"GET": Op(A, 200)}),
    Route(
        "audit:member-new",
        "console",
        {
            "POST": Op(
                A,
                302,
                body=lambda w: {"username": make_user(f"new-{_uid()}").username, "role": "auditor"},
            )
        },
    ),
    Route(
        "audit:member-role",
        "console",
        {"POST": Op(A, 302, body=lambda w: {"role": "auditor"})},
        args=lambda w: {"membership_id": w.fresh_member_id()},
    ),
    Route(
        "audit:member-remove",
        "console",
        {"POST": Op(A, 302, body=lambda w: {"confirmed": "1"})},
        args=lambda w: {"membership_id": w.fresh_member_id()},
    ),
    Route("audit:webhooks", "console", {"GET": Op(A, 200)}),
    Route(
        "audit:webhook-new",
        "console",
        {
            "POST": Op(
                A,
                302,
                body=lambda w: {
                    "url": "http://127.0.0.1:9/console-hook",
                    "events": ["job.completed"],
                    "threshold": "90",
                    "secret": "s" * 16,
                },
            )
        },
    ),
    Route(
        "audit:webhook-off",
        "console",
        {"POST": Op(A, 302, body=lambda w: {"confirmed": "1"})},
        args=lambda w: {"webhook_id": w.webhook_id},
    ),
    Route(
        "audit:rule-set-new",
        "console",
        {"GET": Op(A, 200), "POST": Op(A, 422, body=lambda w: {"action": "preview"})},
    ),
    Route("audit:rule-set-diff", "console", {"GET": Op(A, 200)}),
    # The built-in's activation is confirmed like any version's: its POST answers the
    # confirmation page (its flip list); nothing is activated until confirm=1.
    Route(
        "audit:rule-set-builtin-activate",
        "console",
        {
            "POST": Op(
                A,
                200,
                body=lambda w: {"policy": "strict", "new_domain_pack": "law", "create_pack": "1"},
            )
        },
    ),
    Route(
        "audit:rule-set-detail",
        "console",
        {"GET": Op(A, 200)},
        args=lambda w: {"pk": w.rule_set.pk},
    ),
    Route("audit:calibrators", "console", {"GET": Op(A, 200)}),
    Route(
        "audit:calibrator-detail",
        "console",
        {"GET": Op(A, 200)},
        args=lambda w: {"pk": w.calibrator.pk},
    ),
    Route(
        "audit:calibrator-job",
        "console",
        {"GET": Op(A, 200)},
        args=lambda w: {"job_id": w.calibrator_job_id},
    ),
    # Below the floor: activation is refused (back to the calibrator's page with why);
    # a proposed calibrator is not deactivated (the same).
    Route(
        "audit:calibrator-activate",
        "console",
        {"POST": Op(A, 302)},
        args=lambda w: {"pk": w.calibrator.pk},
    ),
    Route(
        "audit:calibrator-deactivate",
        "console",
        {"POST": Op(A, 302)},
        args=lambda w: {"pk": w.calibrator.pk},
    ),
    Route(
        "audit:rule-set-activate",
        "console",
        {
            "POST": Op(
                A, 302, body=lambda w: {"policy": "balanced", "domain_pack": "", "confirm": "1"}
            )
        },
        args=lambda w: {"pk": w.rule_set.pk},
    ),
    Route(
        "audit-rag:index",
        "console",
        {
            "GET": Op(R, 200),
            "POST": Op(
                W, 302, body=lambda w: {"answer": "HNSW builds a graph.", "chunks": RAG_CHUNKS}
            ),
        },
    ),
    Route(
        "audit-rag:detail",
        "console",
        {"GET": Op(R, 200)},
        args=lambda w: {"audit_id": w.rag_audit.pk},
    ),
    Route(
        "audit-rag:claim",
        "console",
        {"GET": Op(R, 200)},
        args=lambda w: {"audit_id": w.rag_audit.pk, "claim": 0},
    ),
    Route(
        "memory:index",
        "console",
        {
            "GET": Op(R, 200),
            "POST": Op(
                W,
                302,
                body=lambda w: {
                    "agent": "agent",
                    "message": MEMORY_MESSAGE,
                    "transcript": json.dumps(TURNS),
                },
            ),
        },
    ),
    Route(
        "memory:check",
        "console",
        {"GET": Op(R, 200)},
        args=lambda w: {"check_id": w.memory_check.pk},
    ),
    # --- console: ingest ----------------------------------------------------------------
    Route(
        "ingest:upload",
        "console",
        {
            "GET": Op(R, 200),
            "POST": Op(W, 302, body=lambda w: {"text": DELTA_TEXT, "format": "text"}),
        },
    ),
    Route("ingest:job", "console", {"GET": Op(R, 200)}, args=lambda w: {"job_id": w.ingest_job_id}),
    Route("ingest:job-cancel", "console", {"POST": Op(W, 302)}, args=_job),
    # --- console: claim verification and relation review --------------------------------
    Route(
        "verify:verify",
        "console",
        {
            "GET": Op(R, 200),
            "POST": Op(
                W,
                302,
                body=lambda w: {
                    "claims": json.dumps({"text": QUOTE, "source": w.source.ref}) + "\n"
                },
            ),
        },
    ),
    Route("verify:job", "console", {"GET": Op(R, 200)}, args=lambda w: {"job_id": w.verify_job_id}),
    Route("review:relations", "console", {"GET": Op(R, 200)}),
    Route(
        "worker-console",
        "console",
        {
            "GET": Op(R, 200),
            "POST": Op(W, 200, body=lambda w: {"claim": QUOTE, "top_k": 5, "domain": "general"}),
        },
    ),
    Route(
        "worker-verify",
        "api",
        {"POST": Op(W, 200, body=lambda w: {"job_id": "matrix", "claim": QUOTE})},
    ),
    Route(
        "review:relation-decide",
        "console",
        {"POST": Op(W, 302, body=lambda w: {"decision": "accept"})},
        args=lambda w: {"pk": w.fresh_relation().pk},
    ),
    Route(
        "review:relations-bulk",
        "console",
        {
            "POST": Op(
                W,
                302,
                body=lambda w: {
                    "decision": "reject",
                    "relations": [w.fresh_relation().pk],
                    "confirm": "1",
                },
            )
        },
    ),
    Route(
        "review:relation-undo",
        "console",
        {"POST": Op(W, 302)},
        args=lambda w: {"pk": w.fresh_relation().pk},
    ),
)

# Django's own admin site: staff accounts only, checked by Django (see the test below).
DJANGO_ADMIN_PREFIX = "admin/"


def _route_names() -> set[str]:
    names: set[str] = set()

    def walk(patterns: list[Any], namespace: str) -> None:
        for pattern in patterns:
            if isinstance(pattern, URLResolver):
                if str(pattern.pattern) == DJANGO_ADMIN_PREFIX:
                    continue
                ns = f"{namespace}{pattern.namespace}:" if pattern.namespace else namespace
                walk(pattern.url_patterns, ns)
            elif isinstance(pattern, URLPattern):
                names.add(f"{namespace}{pattern.name}" if pattern.name else str(pattern.pattern))

    walk(get_resolver().url_patterns, "")
    return names


def test_every_route_is_in_the_table() -> None:
    table = [route.name for route in TABLE]
    assert len(table) == len(set(table)), "a route is listed twice"
    missing = _route_names() - set(table)
    assert not missing, f"routes without a row in the role matrix: {sorted(missing)}"
    assert not set(table) - _route_names(), "rows for routes that no longer exist"


def _rank(scope: str) -> int:
    return ORDER.index(ApiScope(scope))


def expected_status(route: Route, op: Op, principal: str) -> int:
    if op.needs == PUBLIC:
        assert isinstance(op.ok, dict)
        return op.ok[principal]
    assert isinstance(op.ok, int)
    if route.kind == "api":
        if principal == ANONYMOUS:
            return 401
        held = KEYS.get(principal) or SESSIONS[principal]
    else:
        if principal not in SESSIONS:  # API keys do not open console pages
            return 302
        held = SESSIONS[principal]
    return op.ok if _rank(held) >= _rank(op.needs) else 403


@pytest.fixture
def world(workspace, settings) -> tuple[World, dict[str, Client]]:
    settings.SPANPROOF_API_RATE_PER_KEY = ""
    settings.SPANPROOF_API_RATE_PER_IP = ""
    settings.SPANPROOF_WEBHOOK_ALLOW_HTTP = True
    settings.SPANPROOF_WEBHOOK_ALLOWED_NETWORKS = ["127.0.0.1/32"]
    source = make_source(workspace, ref="source:marrow_river", text=DELTA_TEXT)
    claim = judged_claim(source, QUOTE, quote=QUOTE)
    clients: dict[str, Client] = {ANONYMOUS: Client()}
    for role in SESSIONS:
        clients[role] = Client()
        clients[role].force_login(make_user(f"matrix-{role}", workspace=workspace, role=role))
    for name, scope in KEYS.items():
        raw = api_key_create(workspace=workspace, name=name, scope=scope).raw_key
        clients[name] = Client(headers={"Authorization": f"Bearer {raw}"})
    built = World(workspace=workspace, source=source, claim=claim, admin_api=clients["admin_key"])
    return built, clients


def _request(client: Client, method: str, url: str, body: dict[str, Any] | None, kind: str):
    if kind == "console" or kind == "open":
        if method == "POST":
            return client.post(url, body or {})
        return client.generic(method, url)
    return client.generic(method, url, json.dumps(body or {}), content_type="application/json")


@pytest.mark.parametrize("route", TABLE, ids=[route.name for route in TABLE])
def test_role_matrix(route: Route, world: tuple[World, dict[str, Client]]) -> None:
    built, clients = world
    wrong: list[str] = []
    for method in METHODS:
        op = route.ops.get(method)
        for principal in PRINCIPALS:
            url = reverse(route.name, kwargs=route.args(built) or None)
            body = op.body(built) if op and op.body else None
            response = _request(clients[principal], method, url, body, route.kind)
            got = response.status_code
            if op is None:
                # Not served: never a success, never a 404 or 500.
                if got not in (302, 401, 403, 405):
                    wrong.append(f"{method} {url} as {principal}: {got}, expected a refusal")
                continue
            want = expected_status(route, op, principal)
            if got != want:
                wrong.append(f"{method} {url} as {principal}: {got}, expected {want}")
            elif want == 302 and route.kind == "console" and principal not in SESSIONS:
                assert response["Location"].startswith(reverse("login")), response["Location"]
    assert not wrong, "\n".join(wrong)


def test_django_admin_is_for_staff_only(world: tuple[World, dict[str, Client]]) -> None:
    _, clients = world
    for principal in PRINCIPALS:
        response = clients[principal].get("/admin/")
        assert response.status_code == 302, principal
        assert response["Location"].startswith("/admin/login/")


def test_an_auditor_session_cannot_write_through_the_api(auditor_client, source) -> None:
    """The issue's report: a read-only console role created sources, jobs and webhooks."""
    post = auditor_client.post
    assert post("/connect/v1/sources", {"ref": "source:x", "text": "T."}).status_code == 403
    body = {"sources": [{"ref": "source:y", "text": DELTA_TEXT}]}
    assert post("/connect/v1/ingest-jobs", body, content_type="application/json").status_code == 403
    hook = {"url": "https://hooks.example.com/x", "events": ["job.completed"]}
    response = post("/connect/v1/webhooks", hook, content_type="application/json")
    assert response.status_code == 403
    assert response.json()["error"]["code"] == "permission_denied"
    from verifier.models import IngestJob, Source, Webhook

    assert not Webhook.objects.exists() and not IngestJob.objects.exists()
    assert not Source.objects.filter(ref__in=["source:x", "source:y"]).exists()
