"""An AI application's walk through the Connect API as docs/api.md describes it: the
semantics a client relies on (retries, pagination, consistency, errors, offsets)."""

from __future__ import annotations

import json
import re
from urllib.parse import parse_qs, urlsplit

import pytest

from tests.verifier.api.conftest import DELTA_TEXT, client_for, judged_claim
from verifier.models import Claim, Source, SourceVersion, Verdict

pytestmark = pytest.mark.django_db

VERIFY = "/connect/v1/claims/verify"
RFC3339 = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$")


def post(client, url: str, payload: object, **headers: str):
    return client.post(url, data=json.dumps(payload), content_type="application/json", **headers)


def assert_error(response, status: int, code: str | None = None) -> dict:
    assert response.status_code == status, response.content
    assert response["Content-Type"].startswith("application/json"), response["Content-Type"]
    body = response.json()
    assert set(body) == {"error"}, body
    assert set(body["error"]) == {"code", "message", "details"}, body
    assert isinstance(body["error"]["code"], str) and body["error"]["message"]
    if code is not None:
        assert body["error"]["code"] == code, body
    return body["error"]


# --- retries ---------------------------------------------------------------------------


def test_retried_verify_with_external_id_reuses_the_first_answer(api, delta):
    payload = {
        "claims": [
            {
                "text": "Sediment settles where the current slows.",
                "source": delta.ref,
                "external_id": "answer-1/claim-1",
            }
        ]
    }
    first = post(api, VERIFY, payload)
    assert first.status_code == 200, first.content
    verdicts = Verdict.objects.count()
    claims = Claim.objects.count()
    second = post(api, VERIFY, payload)
    assert second.status_code == 200, second.content
    a, b = first.json()["results"][0], second.json()["results"][0]
    assert b["reused"] is True and a["reused"] is False
    for key in ("claim_id", "state", "reason", "verdict_id", "confidence", "span", "verdict"):
        assert a[key] == b[key], key
    assert Verdict.objects.count() == verdicts and Claim.objects.count() == claims


def test_an_external_id_sent_again_with_another_quote_is_a_conflict(api, delta):
    """A retry is the same body; a claim sent again under its external id with another
    quote is not a retry: answering the stored result (``reused``) would report a quote
    as verified that no judge read, so it is the claim's ``external_id_conflict``."""
    claim = {
        "text": "Sediment settles where the current slows.",
        "source": delta.ref,
        "quote": "Sediment settles where the current slows.",
        "external_id": "answer-2/claim-1",
    }
    first = post(api, VERIFY, {"claims": [claim]}).json()["results"][0]
    verdicts = Verdict.objects.count()
    other = "Dredging the main channel starves the outer marsh of mud."
    row = post(api, VERIFY, {"claims": [dict(claim, quote=other)]}).json()["results"][0]
    assert row["status"] == "error", row
    assert row["error"]["code"] == "external_id_conflict"
    assert first["claim_id"] in row["error"]["message"]
    assert Verdict.objects.count() == verdicts
    assert Claim.objects.filter(external_id="answer-2/claim-1").count() == 1
    # the same quote, or none (the stored one stands), is the retry it reads as
    for again in (claim, {k: v for k, v in claim.items() if k != "quote"}):
        row = post(api, VERIFY, {"claims": [again]}).json()["results"][0]
        assert row["reused"] is True and row["claim_id"] == first["claim_id"]
        assert row["span"] == first["span"]


def test_a_claim_first_sent_without_a_quote_is_not_reused_for_one(api, delta):
    claim = {
        "text": "Salt marsh grasses trap silt at high tide.",
        "source": delta.ref,
        "external_id": "answer-3/claim-1",
    }
    post(api, VERIFY, {"claims": [claim]})
    quoted = dict(claim, quote="Salt marsh grasses trap silt at high tide.")
    row = post(api, VERIFY, {"claims": [quoted]}).json()["results"][0]
    assert row["status"] == "error" and row["error"]["code"] == "external_id_conflict"


def test_retried_source_upsert_adds_no_version(api):
    payload = {"ref": "source:retry", "text": "The pier was closed in 2019."}
    first = post(api, "/connect/v1/sources", payload)
    second = post(api, "/connect/v1/sources", payload)
    assert first.status_code == 201, first.content
    assert second.status_code == 200, second.content
    assert SourceVersion.objects.filter(source__ref="source:retry").count() == 1
    assert Source.objects.filter(ref="source:retry").count() == 1


def test_retried_job_batch_with_external_id_stores_one_claim(api, delta):
    payload = {
        "wait": 0,
        "claims": [
            {
                "text": "Sediment settles where the current slows.",
                "source": delta.ref,
                "external_id": "job-1/claim-1",
            }
        ],
    }
    first = post(api, VERIFY, payload)
    second = post(api, VERIFY, payload)
    assert first.status_code == 202, first.content
    assert second.status_code == 202, second.content
    assert Claim.objects.filter(external_id="job-1/claim-1").count() == 1
    a, b = first.json()["results"][0], second.json()["results"][0]
    print(a, b)
    assert a["claim_id"] == b["claim_id"]


def test_retried_ingest_job_adds_no_version_and_no_claim(api, django_capture_on_commit_callbacks):
    """No Idempotency-Key: a retried ingest job is a job of its own, which adds no
    version of an unchanged text and no second claim of it (docs/api.md, "Retrying")."""
    text = "The mill burned in 1881. It was rebuilt in 1883."
    body = {"sources": [{"ref": "source:mill", "text": text}]}
    with django_capture_on_commit_callbacks(execute=True):
        first = post(api, "/connect/v1/ingest-jobs", body, HTTP_IDEMPOTENCY_KEY="k-1")
    assert first.status_code == 202, first.content
    claims = Claim.objects.filter(source__ref="source:mill").count()
    assert claims > 0  # the job ran
    with django_capture_on_commit_callbacks(execute=True):
        second = post(api, "/connect/v1/ingest-jobs", body, HTTP_IDEMPOTENCY_KEY="k-1")
    assert second.status_code == 202, second.content
    assert second.json()["id"] != first.json()["id"]
    job = api.get(f"/connect/v1/ingest-jobs/{second.json()['id']}").json()
    assert job["status"] == "succeeded", job
    assert SourceVersion.objects.filter(source__ref="source:mill").count() == 1
    assert Claim.objects.filter(source__ref="source:mill").count() == claims


# --- pagination ------------------------------------------------------------------------


def test_cursor_pages_neither_skip_nor_repeat_while_claims_arrive(api, delta):
    for n in range(5):
        judged_claim(delta, f"Claim number {n} about the delta.", embed=False)
    seen: list[str] = []
    response = api.get("/connect/v1/claims?page_size=2")
    body = response.json()
    seen += [c["claim"]["id"] for c in body["results"]]
    n = 100
    while body["next"]:
        judged_claim(delta, f"Claim number {n} arrives between pages.", embed=False)
        n += 1
        body = api.get(body["next"]).json()
        seen += [c["claim"]["id"] for c in body["results"]]
    assert len(seen) == len(set(seen)) == 5


def test_next_link_keeps_the_filters(api, delta):
    for sentence in DELTA_TEXT.split(". ")[:3]:
        judged_claim(delta, sentence, quote=sentence, embed=False)
    body = api.get(f"/connect/v1/claims?page_size=1&source={delta.ref}&state=supported").json()
    query = parse_qs(urlsplit(body["next"]).query)
    assert query["source"] == [delta.ref] and query["state"] == ["supported"]
    assert query["page_size"] == ["1"]


def test_page_size_bounds(api, delta):
    assert_error(api.get("/connect/v1/claims?page_size=0"), 400, "invalid_request")
    assert_error(api.get("/connect/v1/claims?page_size=-1"), 400, "invalid_request")
    assert api.get("/connect/v1/claims?page_size=500").status_code == 200
    assert_error(api.get("/connect/v1/claims?cursor=bogus"), 400, "invalid_cursor")


# --- consistency -----------------------------------------------------------------------


def test_verified_claim_reads_the_same_everywhere(api, delta):
    quote = "Salt marsh grasses trap silt at high tide."
    row = post(
        api, VERIFY, {"claims": [{"text": quote, "source": delta.ref, "quote": quote}]}
    ).json()["results"][0]
    one = api.get(f"/connect/v1/claims/{row['claim_id']}").json()
    listed = api.get("/connect/v1/claims").json()["results"]
    item = next(c for c in listed if c["claim"]["id"] == row["claim_id"])
    assert one == item
    assert one["state"] == row["state"] and one["reason"] == row["reason"]
    assert one["reason_text"] == row["reason_text"]
    print(json.dumps(one, indent=1))
    print(json.dumps(row, indent=1))


def test_a_new_version_changes_what_get_answers(api):
    post(api, "/connect/v1/sources", {"ref": "source:v", "text": "One."})
    post(api, "/connect/v1/sources", {"ref": "source:v", "text": "Two."})
    body = api.get("/connect/v1/sources/source:v").json()
    assert body["text"] == "Two."
    assert body["current_version"]["number"] == 2 if "current_version" in body else True
    print(json.dumps(body, indent=1))


def test_a_changed_source_is_seen_in_the_claim_and_a_retry_verifies_it_again(api):
    old = "The pier was closed in 2019. It reopened in 2021."
    post(api, "/connect/v1/sources", {"ref": "source:pier", "text": old})
    claim = {
        "text": "The pier reopened in 2021.",
        "source": "source:pier",
        "quote": "It reopened in 2021.",
        "external_id": "pier-walk-1",
    }
    first = post(api, VERIFY, {"claims": [claim]}).json()["results"][0]
    assert first["state"] == "supported" and first["span"]["source_version"] == 1
    new = "The pier was closed in 2019. It reopened in 2023."
    assert post(api, "/connect/v1/sources", {"ref": "source:pier", "text": new}).status_code == 201
    read = api.get(f"/connect/v1/claims/{first['claim_id']}").json()
    assert (read["state"], read["reason"]) == ("unverified", "stale_source")
    # the text its span was bound in is still there to check the quote against
    earlier = api.get("/connect/v1/sources/source:pier?version=1").json()
    start, end = first["span"]["start"], first["span"]["end"]
    assert earlier["text"][start:end] == first["span"]["quote"]
    assert api.get("/connect/v1/sources/source:pier").json()["text"] == new
    again = post(api, VERIFY, {"claims": [claim]}).json()["results"][0]
    assert again["reused"] is True and again["claim_id"] == first["claim_id"]
    assert again["span"] is None or again["span"]["source_version"] == 2
    assert again["state"] != "supported"
    listed = api.get("/connect/v1/claims?source=source:pier").json()["results"]
    (item,) = [c for c in listed if c["claim"]["id"] == first["claim_id"]]
    assert item["state"] == again["state"] and item["reason"] == again["reason"]


def test_a_polled_job_reads_as_the_claims_it_verified(
    api, delta, django_capture_on_commit_callbacks
):
    claim = {"text": "Salt marsh grasses trap silt at high tide.", "source": delta.ref}
    with django_capture_on_commit_callbacks(execute=True):
        accepted = post(api, VERIFY, {"wait": 0, "claims": [claim]})
    assert accepted.status_code == 202, accepted.content
    polled = api.get(accepted.json()["job"]["url"]).json()
    assert polled["job"]["status"] == "succeeded", polled["job"]
    assert polled["trace_id"] is not None
    (row,) = polled["results"]
    assert row["status"] == "verified"
    read = api.get(f"/connect/v1/claims/{row['claim_id']}").json()
    assert (read["state"], read["reason"]) == (row["state"], row["reason"])
    assert read["judge"] == row["judge"]


def test_the_source_list_shows_a_new_version(api):
    post(api, "/connect/v1/sources", {"ref": "source:listed", "text": "One."})
    before = api.get("/connect/v1/sources?q=source:listed").json()["results"][0]
    post(api, "/connect/v1/sources", {"ref": "source:listed", "text": "Two."})
    after = api.get("/connect/v1/sources?q=source:listed").json()["results"][0]
    assert before["current_version"]["number"] == 1
    assert after["current_version"]["number"] == 2
    assert after["updated_at"] == after["current_version"]["created_at"]
    assert after["updated_at"] > before["updated_at"]


def test_previous_links_walk_back_over_the_same_rows(api, delta):
    for n in range(5):
        judged_claim(delta, f"Claim number {n} about the delta.", embed=False)
    pages = [api.get("/connect/v1/claims?page_size=2").json()]
    while pages[-1]["next"]:
        pages.append(api.get(pages[-1]["next"]).json())
    judged_claim(delta, "A claim that arrives after the walk.", embed=False)
    back = pages[-1]
    for page in reversed(pages[:-1]):
        back = api.get(back["previous"]).json()
        assert [c["claim"]["id"] for c in back["results"]] == [
            c["claim"]["id"] for c in page["results"]
        ]


def test_folded_and_fuzzy_spans_cut_the_sources_own_text(api):
    """A normalized or fuzzy match gives the source's characters at the offsets (a
    ligature, full-width letters), never the quote as sent: ``text[start:end]`` again."""
    text = (
        "🚢 The ﬁrst ﬂoor 𝔘 was ﬁnished in 1998.\u00ad\u200b Ｔｈｅ ｗａｌｌ is 412 metres "
        "long. The harbour wall was never closed in 2019 after all."
    )
    post(api, "/connect/v1/sources", {"ref": "source:folded", "text": text})
    quotes = [
        "The first floor was finished in 1998.",
        "The wall is 412 metres long.",
        "The harbour wall was never closed in 2019 after al.",
    ]
    claims = [{"text": q, "source": "source:folded", "quote": q} for q in quotes]
    rows = post(api, VERIFY, {"claims": claims}).json()["results"]
    got = api.get("/connect/v1/sources/source:folded").json()["text"]
    assert [r["span"]["match"] for r in rows] == ["fuzzy", "normalized", "fuzzy"]
    for row, quote in zip(rows, quotes, strict=True):
        span = row["span"]
        assert got[span["start"] : span["end"]] == span["quote"] != quote
        envelope = api.get(f"/connect/v1/claims/{row['claim_id']}").json()
        (evidence,) = envelope["evidence"]
        assert evidence["offsets"] == [span["start"], span["end"]]
        assert envelope["submitted_quote"] == quote


def test_rag_and_memory_offsets_are_code_points(api):
    chunk = "🚢𝔘 Tarn Point 🌊 Light was automated in 1987. 𠀀 It stands 😀 31 metres tall."
    audit = post(
        api,
        "/connect/v1/rag/audit",
        {
            "answer": "🎉 Tarn Point Light was automated in 1987 [c1]. "
            "It stands 31 metres tall [c1].",
            "chunks": [{"id": "c1", "text": chunk}],
        },
    ).json()
    evidence = [e for c in audit["claims"] for e in c["evidence"]]
    assert evidence
    for item in evidence:
        assert chunk[item["start"] : item["end"]] == item["quote"]
    message = (
        '👋🏽 I said "I will 🚢 send the draft on Friday." 𝔘 I also said the budget is approved.'
    )
    turns = [
        {"speaker": "user", "text": "😀 When will the 𠀀 draft come?"},
        {"speaker": "agent", "text": "🌊🌊 I will 🚢 send the draft on Friday."},
    ]
    checked = post(
        api,
        "/connect/v1/memory/verify",
        {"agent": "agent", "transcript": turns, "message": message},
    ).json()
    ref = checked["transcript"]["ref"]
    text = api.get(f"/connect/v1/sources/{ref}").json()["text"]
    for row in checked["claims"]:
        assert message[row["claim_start"] : row["claim_end"]] == row["claim"]
        if row["match"] and row["match"]["quote"]:
            match = row["match"]
            assert text[match["start"] : match["end"]] == match["quote"]


# --- errors ----------------------------------------------------------------------------


def test_status_codes_and_bodies(api, workspace, delta):
    from django.test import Client

    assert_error(Client().get("/connect/v1/claims"), 401)
    assert_error(Client(headers={"Authorization": "Bearer nope"}).get("/connect/v1/claims"), 401)
    reader = client_for(workspace, "read")
    assert_error(post(reader, "/connect/v1/sources", {"ref": "s:x", "text": "x"}), 403)
    assert_error(api.get("/connect/v1/claims/clm_doesnotexist"), 404, "not_found")
    assert_error(api.get("/connect/v1/sources/source:nope"), 404, "not_found")
    r = api.delete("/connect/v1/claims")
    assert_error(r, 405, "method_not_allowed")
    assert "GET" in r["Allow"]
    r = api.put(VERIFY, data="{}", content_type="application/json")
    assert_error(r, 405, "method_not_allowed")
    assert "POST" in r["Allow"]
    r = api.post(VERIFY, data="claims=1", content_type="text/plain")
    assert_error(r, 415, "unsupported_media_type")
    r = api.post("/connect/v1/sources", data="ref=1", content_type="text/plain")
    assert_error(r, 415, "unsupported_media_type")
    r = api.get("/connect/v1/claims", headers={"Accept": "text/csv"})
    print(r.status_code, r.content[:300])


def test_a_method_no_route_serves_is_405_whatever_the_key_allows(workspace, delta):
    """405 (with Allow) is the answer for every authenticated caller: a 403 would tell
    a read key's client that a broader key could DELETE a claim list."""
    reader = client_for(workspace, "read")
    for method, url, allowed in (
        ("DELETE", "/connect/v1/claims", "GET"),
        ("PUT", f"/connect/v1/sources/{delta.ref}", "GET"),
        ("PATCH", VERIFY, "POST"),
        ("DELETE", "/connect/v1/ingest-jobs", "GET"),
    ):
        response = reader.generic(method, url, "{}", content_type="application/json")
        assert_error(response, 405, "method_not_allowed")
        assert allowed in response["Allow"], response["Allow"]
    # a served method beyond the key's scope is still its 403, and no key still a 401
    assert_error(post(reader, VERIFY, {"claims": []}), 403, "permission_denied")
    from django.test import Client

    assert_error(Client().delete("/connect/v1/claims"), 401, "not_authenticated")


# --- time and numbers ------------------------------------------------------------------


def walk_timestamps(value, path=""):
    if isinstance(value, dict):
        for k, v in value.items():
            yield from walk_timestamps(v, f"{path}.{k}")
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from walk_timestamps(v, f"{path}[{i}]")
    elif isinstance(value, str) and re.match(r"^\d{4}-\d{2}-\d{2}T", value):
        yield path, value


def test_timestamps_have_a_zone_and_confidences_are_in_range(api, delta):
    row = post(
        api,
        VERIFY,
        {"claims": [{"text": "Sediment settles where the current slows.", "source": delta.ref}]},
    ).json()["results"][0]
    bodies = [
        api.get(f"/connect/v1/claims/{row['claim_id']}").json(),
        api.get("/connect/v1/claims").json(),
        api.get("/connect/v1/sources").json(),
        api.get(f"/connect/v1/sources/{delta.ref}").json(),
        post(
            api,
            "/connect/v1/claims/verify",
            {"wait": 0, "claims": [{"text": "X is y.", "source": delta.ref}]},
        ).json(),
        api.get("/connect/v1/activity").json(),
        api.get("/connect/v1/ingest-jobs").json(),
    ]
    found = 0
    for body in bodies:
        for path, value in walk_timestamps(body):
            found += 1
            assert RFC3339.match(value), (path, value)
    assert found
    assert 0 <= row["confidence"] <= 1


def test_offsets_are_code_points_with_astral_characters(api):
    text = "🚢𝔘 The harbour 🌊 wall was rebuilt in 1998. 𠀀 It is 412 metres long. 👍🏽"
    post(api, "/connect/v1/sources", {"ref": "source:astral", "text": text})
    quote = "It is 412 metres long."
    res = post(
        api,
        VERIFY,
        {
            "claims": [
                {"text": "The wall is 412 metres long.", "source": "source:astral", "quote": quote},
                {"text": "The harbour wall was rebuilt in 1998.", "source": "source:astral"},
            ]
        },
    ).json()["results"]
    got = api.get("/connect/v1/sources/source:astral").json()["text"]
    assert got == text
    for row in res:
        span = row["span"]
        assert got[span["start"] : span["end"]] == span["quote"], span
    claim = api.get(f"/connect/v1/claims/{res[0]['claim_id']}").json()
    print(json.dumps(claim, indent=1))
