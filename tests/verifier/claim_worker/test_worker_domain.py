"""The worker's domain: one of the workspace's domain packs (or ``general``). The console
offers them as a select and refuses any other; the API refuses what every door refuses
of a pack's name (a case variant of a known pack, an unreadable name) and lets a readable
unknown name through (seed 001 reads values leniently): nothing is stored on a refusal."""

from __future__ import annotations

import pytest

from tests.verifier.api.conftest import client_for
from verifier.models import Claim, Trace
from verifier.services.claim_worker_request import WorkerInputError, worker_domain
from verifier.services.sources import source_upsert

PAGE = "/worker/console"
CLAIM = "The Orrin ferry runs every day from June to September."


@pytest.mark.parametrize(
    ("domain", "known", "result"),
    [
        ("general", [""], "general"),
        ("", [""], "general"),
        ("coast", ["", "coast", "general"], "coast"),
        ("nosuchpack", ["", "general"], "nosuchpack"),  # readable, unknown: let through
        ("General", ["", "general"], None),  # a case variant of general
        ("general", [], "general"),  # general is always known
        ("GENERAL", [], None),
        ("Coast", ["coast"], None),
        ("gen\u200beral", ["general"], None),  # an invisible character
        (" coast", ["coast"], None),
    ],
)
def test_worker_domain(domain, known, result):
    if result is None:
        with pytest.raises(WorkerInputError) as refused:
            worker_domain(domain, known)
        assert refused.value.code == "invalid_domain"
        assert refused.value.details["field"] == "domain"
        assert "general" in refused.value.message  # the known packs are named
    else:
        assert worker_domain(domain, known) == result


def _coast(workspace) -> None:
    source_upsert(workspace=workspace, ref="source:coast", text=CLAIM, domain_pack="coast")


def _stored() -> tuple[int, int]:
    return Claim.objects.count(), Trace.objects.count()


@pytest.mark.parametrize("domain", ["General", "COAST", "coa\u200bst"])
def test_api_refuses_a_case_variant_of_a_known_pack(workspace, domain):
    _coast(workspace)
    before = _stored()
    resp = client_for(workspace).post(
        "/worker/verify",
        {"job_id": "j", "claim": CLAIM, "domain": domain},
        content_type="application/json",
    )
    assert resp.status_code == 400, resp.content
    error = resp.json()["error"]
    assert error["code"] == "invalid_domain"
    assert error["details"]["known"] == ["coast", "general"]
    assert _stored() == before


def test_api_lets_a_readable_unknown_pack_through(workspace):
    resp = client_for(workspace).post(
        "/worker/verify",
        {"job_id": "j", "claim": CLAIM, "domain": "nosuchpack"},
        content_type="application/json",
    )
    assert resp.status_code == 200, resp.content
    assert resp.json()["domain"] == "nosuchpack"
    assert resp.json()["evidence"] == []


@pytest.mark.parametrize("domain", ["nosuchpack", "General", "Coast"])
def test_console_refuses_a_pack_the_workspace_has_not(reviewer_client, workspace, domain):
    _coast(workspace)
    before = _stored()
    resp = reviewer_client.post(PAGE, {"claim": CLAIM, "top_k": 5, "domain": domain})
    assert resp.status_code == 200
    html = resp.content.decode()
    assert "Verdict:" not in html
    assert "is not a domain pack of this workspace; choose one of: coast, general." in html
    assert 'aria-invalid="true" aria-describedby="id_domain_helptext id_domain_error"' in html
    assert 'id="id_domain_helptext"' in html
    assert 'id="id_domain_error"' in html
    assert _stored() == before


def test_console_offers_the_workspace_packs(reviewer_client, workspace):
    _coast(workspace)
    html = reviewer_client.get(PAGE).content.decode()
    assert '<select name="domain"' in html
    assert '<option value="coast">coast</option>' in html
    assert '<option value="general" selected>general</option>' in html
    resp = reviewer_client.post(PAGE, {"claim": CLAIM, "top_k": 5, "domain": "coast"})
    assert "Verdict:" in resp.content.decode()
