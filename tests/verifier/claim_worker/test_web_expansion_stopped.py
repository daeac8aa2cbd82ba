"""``web_expansion`` says whether it was on and why it stopped: with a search provider
configured and trust already sufficient it is on and stopped at once
(``trust_sufficient``, nothing searched); after every query ran without making trust
sufficient it says ``queries_exhausted`` (a local fake search provider and pages, the
real corpus, judge and API)."""

from __future__ import annotations

from tests.verifier.api.conftest import client_for
from tests.verifier.claim_worker.test_web_expansion import FakeWeb, fake_web  # noqa: F401
from tests.verifier.claim_worker.test_worker_verify_api import corpus, verify  # noqa: F401


def test_trust_already_sufficient_is_on_and_stopped_at_once(corpus, fake_web) -> None:  # noqa: F811
    FakeWeb.results = ["/halden"]
    resp = verify(client_for(corpus), claim="The Halden Point lighthouse was built in 1871.")
    assert resp.status_code == 200, resp.content
    body = resp.json()
    assert body["trust_threshold_met"] is True
    assert body["web_expansion"] == {
        "enabled": True,
        "queries": [],
        "ingested": [],
        "errors": [],
        "stopped": "trust_sufficient",
    }
    assert body["used_web_search"] is False
    assert not [p for p in FakeWeb.log if p.startswith("/search")]  # nothing searched


def test_every_query_run_without_sufficient_trust_says_queries_exhausted(
    workspace,
    fake_web,  # noqa: F811
) -> None:
    FakeWeb.results = ["/otters", "/gulls"]
    body = (
        client_for(workspace)
        .post(
            "/worker/verify",
            {"job_id": "w5", "claim": "Kestrels hover above the Marrow dunes."},
            content_type="application/json",
        )
        .json()
    )
    web = body["web_expansion"]
    assert web["enabled"] is True and web["queries"]
    assert body["trust_threshold_met"] is False
    assert web["stopped"] == "queries_exhausted"
