"""Another workspace's objects do not exist for a member or a key of this one.

Every route of the role matrix (``test_role_matrix.TABLE``, which the resolver holds
complete) whose path names an object is asked, with every method it serves, for an
object of workspace B by the strongest principals of workspace A: an admin session and
an admin key (and, for API routes, the admin session too). Each answer is the 404 of a
missing object: not 403 (which would say it exists), not 200, not 500. Forms and bodies
that name another workspace's objects (bulk actions, graph queries, rule-set diffs,
audit-pack scopes) are refused the same way, and nothing of B changes.
"""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, reverse

from tests.factories import make_source, make_user, make_workspace
from tests.security.test_role_matrix import (
    DJANGO_ADMIN_PREFIX,
    QUOTE,
    TABLE,
    Route,
    World,
    _request,
)
from tests.verifier.api.conftest import DELTA_TEXT, judged_claim
from verifier.models import (
    ApiKey,
    Claim,
    ClaimRelation,
    JudgeCalibrator,
    Membership,
    RuleSetActivation,
    StateEvent,
    Webhook,
)
from verifier.services.workspaces import api_key_create

pytestmark = pytest.mark.django_db


def _routes_with_path_arguments() -> set[str]:
    """Names of the routes whose path takes an argument (an id, a ref, a slug)."""
    names: set[str] = set()

    def walk(patterns: list[Any], namespace: str, inherited: bool) -> None:
        for pattern in patterns:
            takes = inherited or bool(pattern.pattern.converters)
            if isinstance(pattern, URLResolver):
                if str(pattern.pattern) == DJANGO_ADMIN_PREFIX:
                    continue
                ns = f"{namespace}{pattern.namespace}:" if pattern.namespace else namespace
                walk(pattern.url_patterns, ns, takes)
            elif isinstance(pattern, URLPattern) and takes:
                names.add(f"{namespace}{pattern.name}")

    walk(get_resolver().url_patterns, "", False)
    return names


OBJECT_ROUTES = tuple(r for r in TABLE if r.name in _routes_with_path_arguments())


def test_every_route_that_names_an_object_is_checked() -> None:
    assert {r.name for r in OBJECT_ROUTES} == _routes_with_path_arguments()
    # sanity: the walk found the object routes of every area
    for name in ("api-claim", "review:decide", "audit:pack-download", "memory:check"):
        assert name in _routes_with_path_arguments()


@pytest.fixture
def theirs(settings) -> World:
    """Workspace B with its objects, made through B's own admin key."""
    settings.SPANPROOF_API_RATE_PER_KEY = ""
    settings.SPANPROOF_API_RATE_PER_IP = ""
    settings.SPANPROOF_WEBHOOK_ALLOW_HTTP = True
    settings.SPANPROOF_WEBHOOK_ALLOWED_NETWORKS = ["127.0.0.1/32"]
    other = make_workspace("globex")
    source = make_source(other, ref="source:theirs", text=DELTA_TEXT)
    claim = judged_claim(source, QUOTE, quote=QUOTE)
    raw = api_key_create(workspace=other, name="theirs", scope="admin").raw_key
    admin_api = Client(headers={"Authorization": f"Bearer {raw}"})
    return World(workspace=other, source=source, claim=claim, admin_api=admin_api)


@pytest.fixture
def ours(workspace) -> dict[str, Client]:
    """Workspace A's strongest principals: an admin session and an admin key."""
    session = Client()
    session.force_login(make_user("mallory", workspace=workspace, role="admin"))
    raw = api_key_create(workspace=workspace, name="mallory", scope="admin").raw_key
    return {
        "admin session": session,
        "admin key": Client(headers={"Authorization": f"Bearer {raw}"}),
    }


def _b_snapshot(world: World) -> tuple[Any, ...]:
    ws = world.workspace
    return (
        sorted(Claim.objects.filter(workspace=ws).values_list("public_id", "state", "text")),
        StateEvent.objects.filter(claim__workspace=ws).count(),
        sorted(ClaimRelation.objects.filter(workspace=ws).values_list("pk", "reviewed_at")),
        sorted(Webhook.objects.filter(workspace=ws).values_list("pk", "is_active")),
        sorted(ApiKey.objects.filter(workspace=ws).values_list("pk", "revoked_at")),
        sorted(Membership.objects.filter(workspace=ws).values_list("pk", "role")),
        RuleSetActivation.objects.filter(workspace=ws).count(),
        sorted(JudgeCalibrator.objects.filter(workspace=ws).values_list("pk", "status")),
    )


def _missing(kwargs: dict[str, Any]) -> dict[str, Any]:
    """The same path arguments naming objects that exist nowhere."""
    out: dict[str, Any] = {}
    for key, value in kwargs.items():
        if isinstance(value, int):
            out[key] = 2_000_000_000 + value
        elif isinstance(value, uuid.UUID) or key == "trace_id":
            out[key] = str(uuid.uuid4())
        elif key == "sha256":
            out[key] = "0" * 64
        else:
            out[key] = f"{value}-missing"
    return out


@pytest.mark.parametrize("route", OBJECT_ROUTES, ids=[r.name for r in OBJECT_ROUTES])
def test_another_workspaces_object_is_a_404(
    route: Route, theirs: World, ours: dict[str, Client]
) -> None:
    """404, or where a view answers a missing object otherwise (a redirect back to its
    list with "No such ..."), exactly that answer: never a 403, a 200 or a 500."""
    principals = ["admin session"] if route.kind == "console" else ["admin key", "admin session"]
    wrong: list[str] = []
    for method, op in route.ops.items():
        for principal in principals:
            kwargs = route.args(theirs)
            url = reverse(route.name, kwargs=kwargs)
            body = op.body(theirs) if op.body else None
            before = _b_snapshot(theirs)
            response = _request(ours[principal], method, url, body, route.kind)
            if method == "GET" and response.status_code == 404:
                # the same view asked by htmx for its partial
                partial = ours[principal].get(url, headers={"HX-Request": "true"})
                if partial.status_code != 404:
                    wrong.append(f"GET {url} as {principal} (htmx): {partial.status_code}")
            if _b_snapshot(theirs) != before:
                wrong.append(f"{method} {url} as {principal}: changed workspace B")
            if response.status_code == 404:
                continue
            missing_url = reverse(route.name, kwargs=_missing(kwargs))
            missing = _request(ours[principal], method, missing_url, body, route.kind)
            same = (
                response.status_code == missing.status_code == 302
                and response["Location"] == missing["Location"]
            )
            if not same:
                wrong.append(
                    f"{method} {url} as {principal}: {response.status_code} "
                    f"(a missing one: {missing.status_code})"
                )
    assert not wrong, "\n".join(wrong)


def _json(response) -> dict[str, Any]:
    return dict(json.loads(response.content))


# --- objects named in a form, a body or a query -----------------------------------------


def test_a_bulk_action_on_another_workspaces_claims_changes_nothing(theirs, ours):
    before = _b_snapshot(theirs)
    claim = theirs.fresh_claim()
    before = _b_snapshot(theirs)
    body = {"action": "exclude", "claims": [claim.public_id], "reason": "x", "confirm": "on"}
    response = ours["admin session"].post(reverse("review:bulk"), body)
    assert response.status_code in (302, 400, 404, 422), response.status_code
    assert _b_snapshot(theirs) == before


def test_a_bulk_relation_decision_on_another_workspaces_relations_changes_nothing(theirs, ours):
    relation = theirs.fresh_relation()
    before = _b_snapshot(theirs)
    body = {"decision": "reject", "relations": [relation.pk], "confirm": "1"}
    response = ours["admin session"].post(reverse("review:relations-bulk"), body)
    assert response.status_code in (302, 400, 404, 422), response.status_code
    assert _b_snapshot(theirs) == before


def test_a_graph_query_on_another_workspaces_claim_finds_nothing(theirs, ours):
    body = {
        "operation": "expand_context",
        "claim_ids": [theirs.claim.public_id],
        "depth": "standard",
    }
    response = ours["admin key"].post(reverse("api-graph"), body, content_type="application/json")
    assert response.status_code in (200, 400, 404), response.content
    assert theirs.claim.public_id not in response.content.decode()
    assert theirs.claim.text not in response.content.decode()


def test_verifying_against_another_workspaces_source_does_not_read_it(theirs, ours):
    body = {"claims": [{"text": QUOTE, "source": theirs.source.ref}]}
    response = ours["admin key"].post(
        reverse("api-claims-verify"), body, content_type="application/json"
    )
    assert response.status_code in (200, 400, 404), response.content
    text = response.content.decode()
    assert QUOTE not in text.replace(f'"text": "{QUOTE}"', "").replace(f'"text":"{QUOTE}"', "")
    assert not Claim.objects.filter(workspace=theirs.workspace).exclude(pk=theirs.claim.pk).exists()


def test_an_audit_pack_of_another_workspaces_source_holds_none_of_it(theirs, ours):
    response = ours["admin key"].get(reverse("api-audit-pack"), {"source": theirs.source.ref})
    assert response.status_code in (200, 400, 404), response.status_code
    body = b"".join(response.streaming_content) if response.streaming else response.content
    assert theirs.claim.public_id.encode() not in body
    assert QUOTE.encode() not in body


def test_a_memory_check_against_another_workspaces_transcript_is_a_404(theirs, ours):
    turns = [{"speaker": "user", "text": "Send it."}, {"speaker": "agent", "text": "I'll send it."}]
    stored = _json(
        theirs.admin_api.post(
            "/connect/v1/memory/transcripts",
            {"transcript": turns, "ref": "chat:b"},
            content_type="application/json",
        )
    )
    body = {"agent": "agent", "message": "I said I'll send it.", "transcript_id": stored["id"]}
    response = ours["admin key"].post(
        reverse("api-memory-verify"), body, content_type="application/json"
    )
    assert response.status_code == 404, response.content


def test_an_audit_pack_job_for_another_workspaces_source_exports_none_of_it(theirs, ours):
    body = {"scope": "source", "source": theirs.source.ref}
    response = ours["admin key"].post(
        reverse("api-audit-pack-jobs"), body, content_type="application/json"
    )
    assert response.status_code in (202, 400, 404), response.content
    if response.status_code == 202:
        from verifier.services.audit_pack import audit_pack_job_run

        job_id = _json(response)["id"]
        audit_pack_job_run(job_id=job_id)
        url = reverse("api-audit-pack-job-download", kwargs={"job_id": job_id})
        pack = ours["admin key"].get(url)
        data = b"".join(pack.streaming_content) if pack.streaming else pack.content
        assert theirs.claim.public_id.encode() not in data


def test_switching_to_a_workspace_one_is_not_a_member_of_does_nothing(theirs, ours):
    session = ours["admin session"]
    session.post(reverse("workspace-switch"), {"workspace": theirs.workspace.slug})
    response = session.get(
        reverse("audit:claim-detail", kwargs={"public_id": theirs.claim.public_id})
    )
    assert response.status_code == 404


def test_a_new_rule_set_from_another_workspaces_version_is_a_404(theirs, ours):
    url = reverse("audit:rule-set-new")
    assert ours["admin session"].get(url, {"from": theirs.rule_set.pk}).status_code == 404


def test_a_members_role_holds_in_its_own_workspace_only(workspace, theirs):
    """An admin of A who is an auditor of B acts in B as an auditor: console and API."""
    from verifier.services.workspaces import membership_set

    user = make_user("dual", workspace=workspace, role="admin")
    membership_set(workspace=theirs.workspace, user=user, role="auditor")
    client = Client()
    client.force_login(user)
    client.post(reverse("workspace-switch"), {"workspace": theirs.workspace.slug})
    assert client.get(reverse("audit:webhooks")).status_code == 403
    before = _b_snapshot(theirs)
    claim = theirs.claim
    response = client.post(reverse("review:exclude", kwargs={"public_id": claim.public_id}))
    assert response.status_code == 403
    body = {"ref": "source:dual", "text": "Silt settles."}
    assert client.post("/connect/v1/sources", body).status_code == 403
    assert _b_snapshot(theirs) == before


# --- API keys -------------------------------------------------------------------------

API_ROUTES = tuple(r for r in TABLE if r.kind == "api")


@pytest.fixture
def revoked(theirs) -> Client:
    from verifier.services.workspaces import api_key_revoke

    created = api_key_create(workspace=theirs.workspace, name="gone", scope="admin")
    api_key_revoke(workspace=theirs.workspace, key_id=created.api_key.pk)
    return Client(headers={"Authorization": f"Bearer {created.raw_key}"})


@pytest.mark.parametrize("route", API_ROUTES, ids=[r.name for r in API_ROUTES])
def test_a_revoked_key_opens_nothing(route: Route, theirs: World, revoked: Client) -> None:
    wrong = []
    for method, op in route.ops.items():
        url = reverse(route.name, kwargs=route.args(theirs) or None)
        body = op.body(theirs) if op.body else None
        response = _request(revoked, method, url, body, route.kind)
        if response.status_code != 401:
            wrong.append(f"{method} {url}: {response.status_code}")
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("name", ["api_key", "key", "token", "access_token", "apikey", "bearer"])
def test_a_key_in_the_query_string_is_not_read(theirs, name):
    raw = api_key_create(workspace=theirs.workspace, name=f"q {name}", scope="admin").raw_key
    assert Client().get("/connect/v1/workspace", {name: raw}).status_code == 401


LIST_ROUTES = ("api-claims", "api-sources", "api-relations", "api-activity", "api-calibrators")


def test_the_api_lists_filtered_by_another_workspaces_objects_show_none_of_them(theirs, ours):
    """Each list's filters, set one at a time to B's identifiers: B's rows never show."""
    relation = theirs.fresh_relation()
    values = {
        "source": theirs.source.ref,
        "source_ref": theirs.source.ref,
        "claim": theirs.claim.public_id,
        "claim_id": theirs.claim.public_id,
        "from_claim": relation.from_claim.public_id,
        "ingest_job": theirs.ingest_job_id,
        "job": theirs.ingest_job_id,
        "q": "sediment",
        "trace_id": theirs.trace_id,
    }
    marks = [theirs.claim.public_id, theirs.source.ref, relation.from_claim.public_id]
    for name in LIST_ROUTES:
        for key, value in values.items():
            response = ours["admin key"].get(reverse(name), {key: value})
            assert response.status_code in (200, 400), (name, key, response.status_code)
            text = response.content.decode()
            found = [m for m in marks if m in text and m != value]
            assert not found, (name, key, text[:300])


CONSOLE_LISTS = (
    "audit:claim-list",
    "audit:claim-export-csv",
    "audit:claim-export-jsonl",
    "audit:source-list",
    "audit:trace-list",
    "audit:activity",
    "audit:quality",
    "review:queue",
    "review:relations",
    "review:decisions",
    "audit-rag:index",
    "memory:index",
    "ingest:upload",
    "verify:verify",
)


def test_the_console_lists_filtered_by_another_workspaces_objects_show_none_of_them(theirs, ours):
    relation = theirs.fresh_relation()
    values = {
        "source": theirs.source.ref,
        "claim": theirs.claim.public_id,
        "ingest_job": theirs.ingest_job_id,
        "job": theirs.ingest_job_id,
        "q": "sediment",
        "reviewer": "mallory",
    }
    marks = [theirs.claim.public_id, theirs.source.ref, relation.from_claim.public_id]
    for name in CONSOLE_LISTS:
        for key, value in values.items():
            response = ours["admin session"].get(reverse(name), {key: value})
            assert response.status_code in (200, 400, 422), (name, key, response.status_code)
            body = b"".join(response.streaming_content) if response.streaming else response.content
            text = body.decode()
            # the value asked for is shown back in its filter field: not a finding
            assert not [m for m in marks if m in text and m != value], (name, key)
