from __future__ import annotations

import base64
import re
from dataclasses import replace

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.verifier.api.conftest import judged_claim
from verifier.api.calibrators import CalibratorListApi
from verifier.api.claims import ClaimListApi
from verifier.api.pagination import IdCursorPagination
from verifier.models import IngestJob, RuleSet, RuleSetActivation, Source
from verifier.scoring.rulesets import CORE_V1, to_dict


def test_verification_rules_default_to_core_v1(api):
    body = api.get("/connect/v1/verification-rules").json()
    (entry,) = body["rule_sets"]
    assert entry["source"] == "built_in" and entry["domain_pack"] == ""
    assert entry["rule_set"] == {"name": "Core v1", "version": 1}
    assert entry["overrides"] == []
    assert len(entry["definition"]["dimensions"]) == 6
    built_in = api.get("/connect/v1/verification-rules/built-in").json()
    assert built_in["display_name"] == "Restormel Core v1"
    assert {p["name"] for p in built_in["policies"]} == {"strict", "balanced", "lenient"}


def test_verification_rules_show_workspace_overrides(api, workspace, other_workspace):
    # evidence grounding and logical structure trade weights (.20 and .25): still sums to 1
    swapped = {"evidence_grounding": 0.25, "logical_structure": 0.20}
    dimensions = tuple(replace(d, weight=swapped.get(d.key, d.weight)) for d in CORE_V1.dimensions)
    tuned = replace(CORE_V1, name="Tuned", dimensions=dimensions)
    rs = RuleSet.objects.create(
        workspace=workspace, name="Tuned", version=1, definition=to_dict(tuned)
    )
    RuleSetActivation.objects.create(
        workspace=workspace, domain_pack="law", rule_set=rs, policy="strict"
    )
    body = api.get("/connect/v1/verification-rules").json()
    packs = {e["domain_pack"]: e for e in body["rule_sets"]}
    assert set(packs) == {"", "law"}
    law = packs["law"]
    assert law["source"] == "workspace" and law["policy"] == "strict"
    targets = {o["target"] for o in law["overrides"] if o["field"] == "weight"}
    assert "dimension:evidence_grounding" in targets
    # another workspace's activation is invisible
    other = RuleSet.objects.create(
        workspace=other_workspace, name="X", version=1, definition=to_dict(CORE_V1)
    )
    RuleSetActivation.objects.create(workspace=other_workspace, domain_pack="med", rule_set=other)
    assert "med" not in {
        e["domain_pack"] for e in api.get("/connect/v1/verification-rules").json()["rule_sets"]
    }


def test_sources_create_version_and_get(api):
    body = {"ref": "source:a/b:c", "text": "First text.", "title": "Doc", "citation": "Doc, p1"}
    r = api.post("/connect/v1/sources", body, content_type="application/json")
    assert r.status_code == 201, r.content
    assert r.json()["version"]["number"] == 1 and r.json()["created_source"] is True
    r = api.post("/connect/v1/sources", body, content_type="application/json")
    assert r.status_code == 200 and r.json()["created_version"] is False
    r = api.post(
        "/connect/v1/sources", {**body, "text": "Second text."}, content_type="application/json"
    )
    assert r.status_code == 201 and r.json()["version"]["number"] == 2
    got = api.get("/connect/v1/sources/source:a/b:c").json()
    assert got["ref"] == "source:a/b:c" and got["text"] == "Second text."
    assert got["current_version"]["number"] == 2
    assert [v["number"] for v in got["versions"]] == [1, 2] and got["text_version"] == 2
    bad = api.post(
        "/connect/v1/sources", {"ref": "source:x", "text": "   "}, content_type="application/json"
    )
    assert bad.status_code == 400 and "error" in bad.json()


def test_an_earlier_versions_text_is_served_by_number(api):
    """A claim bound in version 1 is checked against version 1's text after the source
    changed: ``?version=N`` answers that text, whose SHA-256 is the recorded one."""
    import hashlib

    body = {"ref": "source:versions", "text": "The first words."}
    api.post("/connect/v1/sources", body, content_type="application/json")
    api.post(
        "/connect/v1/sources",
        {**body, "text": "The second words."},
        content_type="application/json",
    )
    got = api.get("/connect/v1/sources/source:versions?version=1").json()
    assert (got["text"], got["text_version"]) == ("The first words.", 1)
    assert got["current_version"]["number"] == 2
    assert hashlib.sha256(got["text"].encode()).hexdigest() == got["versions"][0]["sha256"]
    missing = api.get("/connect/v1/sources/source:versions?version=3")
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "not_found"
    assert "no version 3" in missing.json()["error"]["message"]
    for bad in ("0", "two"):
        refused = api.get(f"/connect/v1/sources/source:versions?version={bad}")
        assert refused.status_code == 400, bad
        error = refused.json()["error"]
        assert (error["code"], error["details"]) == ("invalid_request", {"field": "version"}), bad
    empty = api.get("/connect/v1/sources/source:versions?version=").json()["error"]
    assert (empty["code"], empty["details"]) == ("empty_field", {"field": "version"})
    empty = api.get("/connect/v1/claims?cursor=&page_size=").json()["error"]
    assert (empty["code"], empty["details"]) == ("empty_field", {"field": "cursor"})


def test_claims_list_filters_and_cursor(api, workspace, delta, django_assert_max_num_queries):
    job = IngestJob.objects.create(workspace=workspace)
    for n in range(7):
        judged_claim(
            delta,
            f"Claim {n} about sediment.",
            quote="Sediment settles",
            embed=False,
            ingest_job=job if n < 3 else None,
        )
    judged_claim(delta, "An unjudged claim.", quote="Sediment settles", label="", embed=False)
    with django_assert_max_num_queries(10):
        r = api.get("/connect/v1/claims?page_size=5")
    body = r.json()
    assert len(body["results"]) == 5 and body["next"]
    nxt = api.get(body["next"]).json()
    assert len(nxt["results"]) == 3 and nxt["next"] is None
    assert {
        e["state"] for e in api.get("/connect/v1/claims?state=unverified").json()["results"]
    } == {"unverified"}
    assert len(api.get(f"/connect/v1/claims?job={job.pk}").json()["results"]) == 3
    assert len(api.get(f"/connect/v1/claims?source={delta.ref}").json()["results"]) == 8
    assert api.get("/connect/v1/claims?state=bogus").status_code == 400
    assert api.get("/connect/v1/claims?job=abc").status_code == 400


def test_claims_list_query_count_does_not_grow(api, delta, django_assert_max_num_queries):
    for n in range(30):
        judged_claim(delta, f"Claim {n} about sediment.", quote="Sediment settles", embed=False)
    with django_assert_max_num_queries(10):
        assert len(api.get("/connect/v1/claims?page_size=30").json()["results"]) == 30


def test_claim_get_is_the_envelope(api, delta):
    claim = judged_claim(
        delta,
        "Sediment settles where the current slows.",
        quote="Sediment settles where the current slows.",
    )
    env = api.get(f"/connect/v1/claims/{claim.public_id}").json()
    assert env["claim"]["id"] == claim.public_id and env["state"] == "supported"
    assert "trace_ref" not in env and env["judge"]["model"]


def test_an_existing_sources_domain_pack_cannot_change(api, workspace):
    body = {"ref": "source:pack", "text": "First text.", "title": "Doc"}
    assert api.post("/connect/v1/sources", body, content_type="application/json").status_code == 201
    source = Source.objects.get(workspace=workspace, ref="source:pack")
    assert source.domain_pack == "general"

    for changed in (
        {**body, "domain_pack": "legal"},
        {**body, "domain_pack": "legal", "text": "Second text.", "title": "New title"},
    ):
        r = api.post("/connect/v1/sources", changed, content_type="application/json")
        assert r.status_code == 409, r.content
        error = r.json()["error"]
        assert error["code"] == "domain_pack_conflict"
        assert "cannot change" in error["message"] and "another ref" in error["message"]
        assert error["details"] == {
            "field": "domain_pack",
            "current": "general",
            "requested": "legal",
        }
    source.refresh_from_db()
    assert (source.domain_pack, source.title) == ("general", "Doc")  # nothing written
    assert [v.number for v in source.versions.all()] == [1]

    # Its own pack, or none, adds a version as before; a new source takes the pack asked for.
    for same in ({"domain_pack": "general"}, {"domain_pack": ""}, {}):
        r = api.post(
            "/connect/v1/sources",
            {**body, **same, "text": f"Text {same}."},
            content_type="application/json",
        )
        assert r.status_code == 201 and r.json()["source"]["domain_pack"] == "general", r.content
    legal = {"ref": "source:pack-legal", "text": "First text.", "domain_pack": "legal"}
    r = api.post("/connect/v1/sources", legal, content_type="application/json")
    assert r.status_code == 201 and r.json()["source"]["domain_pack"] == "legal"
    r = api.post(
        "/connect/v1/sources", {**legal, "text": "Second."}, content_type="application/json"
    )
    assert r.status_code == 201 and r.json()["source"]["domain_pack"] == "legal"
    r = api.post(
        "/connect/v1/sources",
        {"ref": "source:pack-legal", "text": "Third."},
        content_type="application/json",
    )
    assert r.status_code == 201 and r.json()["source"]["domain_pack"] == "legal"


@pytest.mark.parametrize("url", ["/connect/v1/claims", "/connect/v1/calibrators"])
@pytest.mark.parametrize(
    "cursor",
    [
        "zzz",  # not base64
        base64.b64encode(b"p=abc").decode(),  # a position that is not an id
        base64.b64encode(b"o=x").decode(),  # an offset that is not a number
        base64.b64encode(b"p=9223372036854775808").decode(),  # beyond any id (a bigint)
        base64.b64encode(b"p=99999999999999999999999999&r=1").decode(),
    ],
)
def test_a_cursor_the_api_did_not_give_out_is_a_400(api, delta, url, cursor):
    judged_claim(delta, "Sediment settles.", quote="Sediment settles", embed=False)
    r = api.get(url, {"cursor": cursor})
    assert r.status_code == 400, r.content
    assert r["Content-Type"].startswith("application/json")
    assert r.json()["error"]["code"] == "invalid_cursor"
    assert r.json()["error"]["details"] == {"field": "cursor"}


def test_both_paginated_lists_share_one_pagination():
    assert ClaimListApi.pagination_class is IdCursorPagination
    assert CalibratorListApi.pagination_class is IdCursorPagination


@pytest.mark.parametrize(
    "path",
    [
        "/connect/v1/claims/" + "c" * 1000,
        "/connect/v1/sources/source:" + "s" * 1000,
        "/connect/v1/traces/" + "t" * 1000,
        "/connect/v1/traces/" + "t" * 1000 + "/export",
        "/connect/v1/audit-pack/jobs/" + "9" * 1000,
        "/connect/v1/claims/verify/jobs/" + "9" * 1000,
    ],
)
def test_a_long_id_is_a_json_404(api, path):
    r = api.get(path)
    assert r.status_code == 404, r.content[:300]
    assert r["Content-Type"].startswith("application/json")
    assert r.json()["error"]["code"] == "not_found"


def test_a_case_only_pack_conflict_does_not_advise_what_is_refused(api, workspace):
    """ "General" beside "general": another ref would be refused that pack too
    (``invalid_domain_pack``), so the 409 says why instead of advising it."""
    body = {"ref": "source:harbour", "text": "The harbour wall was rebuilt in 1998."}
    assert api.post("/connect/v1/sources", body, content_type="application/json").status_code == 201
    r = api.post(
        "/connect/v1/sources", {**body, "domain_pack": "General"}, content_type="application/json"
    )
    assert r.status_code == 409
    message = r.json()["error"]["message"]
    assert "another ref" not in message and "only in letter case" in message
    elsewhere = api.post(
        "/connect/v1/sources",
        {"ref": "source:other", "text": "Other.", "domain_pack": "General"},
        content_type="application/json",
    )
    assert elsewhere.json()["error"]["code"] == "invalid_domain_pack"


def test_a_source_lists_its_newest_versions_with_lengths_and_no_text_loaded(api, monkeypatch):
    texts = ["Første tekst.", "Second text, longer.", "Third: ünïcödé ✓."]
    for text in texts:
        body = {"ref": "source:many", "text": text, "title": "Doc"}
        assert (
            api.post("/connect/v1/sources", body, content_type="application/json").status_code
            == 201
        )
    # A version's length is counted in characters, as the text's offsets are.
    with CaptureQueriesContext(connection) as queries:
        got = api.get("/connect/v1/sources/source:many").json()
    # The text is read once, the current version's; not once more per version listed.
    text_reads = [
        q for q in queries if re.search(r'"verifier_sourceversion"\."text"(?!\))', q["sql"])
    ]
    assert len(text_reads) == 1
    assert [(v["number"], v["length"]) for v in got["versions"]] == [
        (n, len(t)) for n, t in enumerate(texts, start=1)
    ]
    assert got["versions_total"] == 3 and got["current_version"]["length"] == len(texts[-1])

    monkeypatch.setattr("verifier.selectors.sources.VERSIONS_LISTED", 2)
    got = api.get("/connect/v1/sources/source:many").json()
    assert [v["number"] for v in got["versions"]] == [2, 3] and got["versions_total"] == 3
