"""Probe: every claim's state is truthful and told the same way everywhere.

Claims are driven through life events on the real database with the real judge (bind,
judge, reviewer decisions and their undo, exclusion and restore, a new source version
changed at one span, a tampered stored version, a rule-set change). After each event:

(a) the stored ``Claim.state`` / ``state_reason`` is what ``verifier.states.resolve_state``
    gives when re-derived now from the claim's inputs (binding re-checked, verdicts in
    force, exclusion, legacy flag);
(b) the same state and reason (in words) are told by ``GET /connect/v1/claims/{id}``,
    the claim list, retrieval's trace (supported/inferred served, the others excluded
    with a reason), the console's claim page, the claims CSV export and an audit pack's
    claim record;
(c) the review queue holds exactly the unverified and contradicted claims no reviewer
    decided.
"""

from __future__ import annotations

import csv
import html
import io
import json
import re
import zipfile
from collections import Counter
from dataclasses import dataclass
from typing import Any

import pytest
from django.test import Client

from review.services import review_decide, review_undo
from tests.factories import make_claim, make_source, make_user, tamper
from tests.review.conftest import seen
from tests.verifier.api.conftest import client_for
from verifier import vocabulary
from verifier.audit_pack.scope import PackScope
from verifier.embeddings import embed_text
from verifier.models import Claim, SourceVersion, Trace
from verifier.selectors.claim_state import claim_state_inputs
from verifier.selectors.claims import claim_state_counts
from verifier.services.audit_pack import audit_pack_write
from verifier.services.binding import claim_bind
from verifier.services.claim_state import claim_exclude, claim_restore
from verifier.services.judging import claims_judge
from verifier.services.sources import (
    claim_restore_rebind,
    source_claims_rebind,
    source_upsert,
)
from verifier.state_policy import state_policy
from verifier.states import (
    HUMAN_DECISION_REASONS,
    QUEUE_STATES,
    ClaimState,
    StateDecision,
    reason_in_words,
    resolve_state,
)

pytestmark = pytest.mark.django_db

TEXT = (
    "The Marrow River delta gains land in wet years. Sediment settles where the current "
    "slows. Salt marsh grasses trap silt at high tide. Storm surges can strip a season of "
    "growth in a single night. Dredging the main channel starves the outer marsh of mud."
)
# The same source with the second sentence changed (its words went), the rest as it was.
TEXT_V2 = TEXT.replace(
    "Sediment settles where the current slows.", "Sediment drifts out to sea in fast water."
)
SERVED = ("supported", "inferred")

# name -> (claim text, quote it comes with: None for evidence search)
CLAIMS: dict[str, tuple[str, str | None]] = {
    "settles": (
        "Sediment settles where the current slows.",
        "Sediment settles where the current slows.",
    ),
    "never_traps": (
        "Salt marsh grasses never trap silt at high tide.",
        "Salt marsh grasses trap silt at high tide.",
    ),
    "surges": (
        "Storm surges can strip a season of growth in a single night.",
        "Storm surges can strip a season of growth in a single night.",
    ),
    "dredging": (
        "Dredging the main channel starves the outer marsh of mud.",
        "Dredging the main channel starves the outer marsh of mud.",
    ),
    "unquoted": ("Volcanic ash enriches the orchards of the northern valley.", None),
}


@dataclass
class World:
    workspace: Any
    source: Any
    claims: dict[str, Claim]
    api: Client
    console: Client
    reviewer: Any
    reviewer_console: Client
    tmp_path: Any


def derived(claim: Claim) -> StateDecision:
    """What the state function gives from the claim's inputs as they are now."""
    inputs, _ = claim_state_inputs(claim=claim)
    return resolve_state(inputs, state_policy())


def _stored(world: World) -> dict[str, tuple[str, str]]:
    out = {}
    for name, claim in world.claims.items():
        claim.refresh_from_db()
        out[name] = (claim.state, claim.state_reason)
    return out


def _api_item(world: World, claim: Claim) -> dict[str, Any]:
    response = world.api.get(f"/connect/v1/claims/{claim.public_id}")
    assert response.status_code == 200, response.content
    return response.json()


def _api_list(world: World) -> dict[str, dict[str, Any]]:
    response = world.api.get("/connect/v1/claims", {"page_size": 100})
    assert response.status_code == 200, response.content
    return {row["claim"]["id"]: row for row in response.json()["results"]}


def _csv(world: World) -> dict[str, dict[str, str]]:
    response = world.console.get("/audit/claims/export.csv")
    assert response.status_code == 200
    body = b"".join(response.streaming_content).decode()
    return {row["claim_id"]: row for row in csv.DictReader(io.StringIO(body))}


def _pack(world: World) -> dict[str, dict[str, Any]]:
    path = world.tmp_path / "pack.zip"
    with path.open("wb") as sink:
        audit_pack_write(
            workspace=world.workspace,
            scope=PackScope(kind="claims"),
            sink=sink,
            exported_by={"role": "auditor"},
        )
    with zipfile.ZipFile(path) as archive:
        lines = archive.read("claims.jsonl").decode().splitlines()
    rows = [json.loads(line) for line in lines]
    return {row["id"]: row for row in rows if "state" in row}


def _retrieved(world: World) -> dict[str, dict[str, Any]]:
    response = world.api.post(
        "/connect/v1/retrieve",
        {
            "query": "sediment silt marsh storm dredging ash",
            "max_claims": 50,
            "verification_policy": {"include": list(SERVED), "exclude_flagged": False},
        },
        content_type="application/json",
    )
    assert response.status_code == 200, response.content
    body = response.json()
    trace = Trace.objects.get(trace_id=body["trace_id"])
    served = {e["claim"]["id"]: e for e in body["verified_claims"]}
    rows = {r["claim_id"]: r for r in trace.document["claims"]}
    return {"served": served, "rows": rows}  # type: ignore[dict-item]


def _page(world: World, claim: Claim) -> str:
    response = world.console.get(f"/audit/claims/{claim.public_id}/")
    assert response.status_code == 200
    return response.content.decode()


def _queue_ids(world: World) -> set[str]:
    response = world.reviewer_console.get("/review/")
    assert response.status_code == 200
    return set(re.findall(r'<tr data-claim="(claim:[a-z0-9]+)"', response.content.decode()))


def told_everywhere(world: World, *, stored_first: bool = True) -> dict[str, tuple[str, str]]:
    """Check (a), (b) and (c) for every claim; returns {name: (state, reason)}.

    ``stored_first``: check the stored state against the state function before any
    surface is read (a surface's read-time re-check would hide a stale stored state)."""
    expected: dict[str, StateDecision] = {}
    for name, claim in world.claims.items():
        claim.refresh_from_db()
        expected[name] = decision = derived(claim)
        if stored_first:
            assert (claim.state, claim.state_reason) == (decision.state, decision.reason), (
                f"{name}: stored {claim.state}/{claim.state_reason}, the inputs give "
                f"{decision.state}/{decision.reason}"
            )
    # The export and the pack are read before anything that re-checks at read time.
    exported, packed = _csv(world), _pack(world)
    listed = _api_list(world)
    retrieved = _retrieved(world)
    problems: list[str] = []
    for name, claim in world.claims.items():
        want = expected[name]
        state, reason = want.state.value, want.reason.value
        words = reason_in_words(reason, quote=claim.submitted_quote)
        where = f"{name} ({state}/{reason})"
        row = exported[claim.public_id]
        if (row["state"], row["reason"]) != (state, reason):
            problems.append(f"CSV of {where}: {row}")
        if row["reason_label"] != vocabulary.label("reason", reason):
            problems.append(f"CSV reason label of {where}: {row['reason_label']}")
        record = packed[claim.public_id]
        if (record["state"], record["state_reason"]) != (state, reason):
            problems.append(f"pack of {where}")
        item = listed[claim.public_id]
        if (item["state"], item["reason"], item["reason_text"]) != (state, reason, words):
            problems.append(f"claim list of {where}: {item['state']}/{item['reason']}")
        own = _api_item(world, claim)
        if (own["state"], own["reason"], own["reason_text"]) != (state, reason, words):
            problems.append(f"GET claim of {where}: {own['state']}/{own['reason']}")
        trace_row = retrieved["rows"].get(claim.public_id)
        if state in SERVED:
            if claim.public_id not in retrieved["served"]:
                problems.append(f"retrieve did not serve {where}")
            elif retrieved["served"][claim.public_id]["state"] != state:
                problems.append(f"retrieve's envelope of {where}")
        else:
            if claim.public_id in retrieved["served"]:
                problems.append(f"retrieve served {where}")
            if trace_row is not None:
                if trace_row["included"] is not False:
                    problems.append(f"trace includes {where}")
                if not trace_row["exclusion_reason"]:
                    problems.append(f"no exclusion reason for {where}")
        if trace_row is not None and trace_row["verification_state"] != state:
            problems.append(f"trace of {where}: {trace_row}")
        page = _page(world, claim)
        if f"state-{state}" not in page:
            problems.append(f"claim page of {where}")
        shown = re.search(r'id="state-reason">([^<]*)</a>', page)
        if not (shown and html.unescape(shown.group(1)) == vocabulary.label("reason", reason)):
            problems.append(f"claim page reason of {where}: {shown and shown.group(1)}")
        if words not in html.unescape(page):
            problems.append(f"claim page's reason in words of {where}")
        if "differs from what the inputs give now" in page:
            problems.append(f"claim page of {where} says the stored state differs")
        claim.refresh_from_db()
        if (claim.state, claim.state_reason) != (state, reason):
            problems.append(f"stored after reads {where}")
    assert not problems, "\n".join(problems)
    # (c) the review queue: exactly the undecided unverified and contradicted claims.
    queued = {
        claim.public_id
        for name, claim in world.claims.items()
        if expected[name].state in QUEUE_STATES
        and expected[name].reason not in HUMAN_DECISION_REASONS
    }
    assert _queue_ids(world) == queued
    # The counts every page shows.
    counts = Counter(d.state.value for d in expected.values())
    assert claim_state_counts(workspace=world.workspace) == {
        s.value: counts.get(s.value, 0) for s in ClaimState
    }
    return {name: (d.state.value, d.reason.value) for name, d in expected.items()}


@pytest.fixture
def world(workspace, admin_user, tmp_path) -> World:
    source = make_source(workspace, ref="source:marrow_probe", text=TEXT)
    claims = {}
    for name, (text, quote) in CLAIMS.items():
        claim = make_claim(
            source, text, published=True, embedding=embed_text(text), submitted_quote=quote or ""
        )
        claim_bind(claim=claim, quote=quote)
        claims[name] = claim
    claims_judge(claims=list(claims.values()))
    reviewer = make_user("rhea-probe", workspace=workspace, role="reviewer")
    reviewer_console = Client()
    reviewer_console.force_login(reviewer)
    console = Client()
    console.force_login(admin_user)
    return World(
        workspace=workspace,
        source=source,
        claims=claims,
        api=client_for(workspace),
        console=console,
        reviewer=reviewer,
        reviewer_console=reviewer_console,
        tmp_path=tmp_path,
    )


def test_bound_and_judged_claims_are_told_the_same_everywhere(world):
    states = told_everywhere(world)
    assert states["settles"] == ("supported", "entailed")
    assert states["never_traps"][0] == "contradicted"


def test_a_decision_and_its_undo(world):
    before = told_everywhere(world)
    surges = world.claims["surges"]
    review_decide(
        claim=surges,
        reviewer=world.reviewer,
        expected_version=seen(surges),
        decision="contradicted",
    )
    after = told_everywhere(world)
    assert after["surges"] == ("contradicted", "human_contradicted")
    review_undo(claim=surges, reviewer=world.reviewer)
    assert told_everywhere(world) == before
    # A not-stated decision leaves the queue; its undo brings the claim back as it was.
    unquoted = world.claims["unquoted"]
    review_decide(
        claim=unquoted,
        reviewer=world.reviewer,
        expected_version=seen(unquoted),
        decision="not_stated",
    )
    assert told_everywhere(world)["unquoted"] == ("unverified", "human_not_stated")
    review_undo(claim=unquoted, reviewer=world.reviewer)
    assert told_everywhere(world) == before


def test_exclusion_and_its_restore(world, admin_user):
    before = told_everywhere(world)
    claim_exclude(claim=world.claims["settles"], reason="duplicate of another", actor=admin_user)
    assert told_everywhere(world)["settles"] == ("excluded", "excluded")
    claim_restore(claim=world.claims["settles"], actor=admin_user)
    assert told_everywhere(world) == before


def test_a_new_version_changed_at_one_span(world):
    told_everywhere(world)
    surges = world.claims["surges"]
    review_decide(
        claim=surges, reviewer=world.reviewer, expected_version=seen(surges), decision="supported"
    )
    told_everywhere(world)
    write = source_upsert(workspace=world.workspace, ref=world.source.ref, text=TEXT_V2)
    assert write.created_version
    stale = told_everywhere(world)
    assert stale["settles"] == ("unverified", "stale_source")
    source_claims_rebind(version=write.version, why="new version v2")
    after = told_everywhere(world)
    assert after["settles"][0] == "unverified"
    assert after["dredging"] == ("supported", "entailed")
    assert after["surges"] == ("supported", "human_supported")


def test_a_tampered_version_is_told_stale_everywhere(world):
    told_everywhere(world)
    version = SourceVersion.objects.get(source=world.source)
    tamper(version, TEXT_V2)
    # Nothing wrote the state: the stored state still vouches for the old text, and
    # every door must re-check before it tells it.
    states = told_everywhere(world, stored_first=False)
    assert states["settles"] == ("unverified", "stale_source")


def test_a_rule_set_change_moves_no_state(world, admin_user):
    from audit.services import rule_set_activate, rule_set_builtin_ensure

    before = told_everywhere(world)
    rule_set_activate(
        workspace=world.workspace,
        rule_set=rule_set_builtin_ensure(),
        domain_pack="",
        policy="strict",
        actor=admin_user,
    )
    assert told_everywhere(world) == before


def test_a_decision_on_a_selected_span_and_its_undo(world):
    before = told_everywhere(world)
    assert before["unquoted"] == ("unverified", "no_evidence")
    claim = world.claims["unquoted"]
    span_text = "The Marrow River delta gains land in wet years."
    start = TEXT.index(span_text)
    review_decide(
        claim=claim,
        reviewer=world.reviewer,
        expected_version=seen(claim),
        decision="contradicted",
        span=(start, start + len(span_text)),
        span_text=span_text,
    )
    assert told_everywhere(world)["unquoted"] == ("contradicted", "human_contradicted")
    review_undo(claim=claim, reviewer=world.reviewer)
    assert told_everywhere(world) == before


def test_excluded_through_a_new_version_then_restored(world, admin_user):
    before = told_everywhere(world)
    claim_exclude(claim=world.claims["dredging"], reason="checking", actor=admin_user)
    write = source_upsert(workspace=world.workspace, ref=world.source.ref, text=TEXT_V2)
    source_claims_rebind(version=write.version, why="new version v2")
    assert told_everywhere(world)["dredging"] == ("excluded", "excluded")
    claim_restore_rebind(claim=world.claims["dredging"], actor=admin_user)
    # The rebind skipped the excluded claim; restored, it is bound in v2 (its words are
    # unchanged there) and judged again, as the rebind job would have: current again.
    assert before["dredging"][0] in SERVED
    assert told_everywhere(world)["dredging"] == before["dredging"]
