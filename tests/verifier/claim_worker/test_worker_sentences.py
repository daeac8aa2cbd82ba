"""Source sentences as evidence of ``POST /worker/verify``, end to end over a corpus
ingested by the real pipeline: a sentence of the sentence index that no claim copies is
an evidence item bound to exactly its span; one a claim is bound to is not evidence
twice; the domain filter and the workspace hold for sentences."""

from __future__ import annotations

import pytest
from django.test import TestCase
from django.urls import reverse

from tests.verifier.api.conftest import client_for
from verifier.models import (
    ChunkVerificationEvent,
    Claim,
    RelationVerificationConfig,
    SourceSentence,
    SourceVersion,
    text_sha256,
)
from verifier.selectors.relation_verification import relation_stats_get
from verifier.services.claim_worker_verify import worker_verify
from verifier.services.ingest import STAGE_ORDER, ingest_stage_run
from verifier.services.ingest_create import ClaimUpload, SourceUpload, ingest_job_create

pytestmark = pytest.mark.django_db

LIGHTHOUSE = (
    "The Halden Point lighthouse was built in 1871. Its lamp was electrified in 1923. "
    "The keeper's cottage burned down in 1950 and was never rebuilt. "
    "Halden Point lies at the mouth of the Marrow River."
)
COTTAGE = "The keeper's cottage burned down in 1950 and was never rebuilt."


def _ingest(workspace, sources, claims=()):
    job = ingest_job_create(workspace=workspace, sources=sources, claims=claims, start=False)
    for stage in STAGE_ORDER:
        ingest_stage_run(job_id=job.pk, stage=stage)
    return job


@pytest.fixture
def imported(workspace):
    """The lighthouse text with claims imported for two of its four sentences: the
    cottage sentence is copied by no claim, only the sentence index holds it."""
    _ingest(
        workspace,
        [SourceUpload(ref="https://coast.example.org/halden", title="Halden", text=LIGHTHOUSE)],
        [
            ClaimUpload(
                source_ref="https://coast.example.org/halden",
                text="The Halden Point lighthouse was built in 1871.",
            ),
            ClaimUpload(
                source_ref="https://coast.example.org/halden",
                text="Its lamp was electrified in 1923.",
            ),
        ],
    )
    assert not Claim.objects.filter(text__contains="cottage").exists()
    assert SourceSentence.objects.filter(workspace=workspace).count() == 4
    return workspace


def test_a_sentence_no_claim_copies_is_evidence_bound_to_its_exact_span(imported):
    with TestCase.captureOnCommitCallbacks(execute=True):
        resp = client_for(imported).post(
            "/worker/verify",
            {"job_id": "j", "claim": "The keeper's cottage burned down in 1950."},
            content_type="application/json",
        )
    assert resp.status_code == 200, resp.content
    body = resp.json()
    item = next(e for e in body["evidence"] if e["kind"] == "source_sentence")
    version = SourceVersion.objects.get(source__ref="https://coast.example.org/halden")
    start = LIGHTHOUSE.index(COTTAGE)
    assert (item["start"], item["end"]) == (start, start + len(COTTAGE))
    assert version.text[item["start"] : item["end"]] == item["quote"] == COTTAGE
    assert item["source_hash"] == version.sha256 == text_sha256(LIGHTHOUSE)
    assert item["source_version_id"] == version.pk
    assert item["id"] == f"sentence:{version.pk}:{start}-{start + len(COTTAGE)}"
    assert item["verification_state"] is None
    # no claim-level graph signal; it is ranked by the same hybrid score
    assert item["signals"]["kg_raw"] == 0 and item["signals"]["sem_raw"] > 0.5
    assert item["stance"] == "supports"
    assert body["evidence"][0]["id"] == item["id"]
    assert body["sentence_candidates"] >= 1
    # the stored claim cites the sentence's source with the sentence as its quote
    stored = Claim.objects.get(public_id=body["stored_claim_id"])
    assert stored.source.ref == "https://coast.example.org/halden"
    assert stored.submitted_quote == COTTAGE


def test_a_sentence_a_claim_is_bound_to_is_not_evidence_twice(imported):
    # every sentence through the chunk prefilter (thresholds 0: all accepted by
    # similarity), so the unrelated ones are in the pool beside the claim
    RelationVerificationConfig.objects.create(
        workspace=imported,
        values={"chunk_vector_threshold_accept": 0.0, "chunk_vector_threshold_reject": 0.0},
    )
    body = worker_verify(
        workspace=imported,
        job_id="j",
        claim="The Halden Point lighthouse was built in 1871.",
        top_k=20,
        store=False,
    )
    spans = [(e["source_version_id"], e["start"], e["end"]) for e in body["evidence"]]
    assert len(spans) == len(set(spans))
    built = [e for e in body["evidence"] if e["quote"].startswith("The Halden Point lighthouse")]
    assert [e["kind"] for e in built] == ["claim"]
    assert built[0]["id"].startswith("claim:")
    assert {e["kind"] for e in body["evidence"]} == {"claim", "source_sentence"}


def test_the_domain_filter_holds_for_sentences(imported, workspace):
    _ingest(
        workspace,
        [
            SourceUpload(
                ref="source:medical",
                text="The clinic's cottage ward burned down in 1950.",
                domain_pack="medical",
            )
        ],
        [ClaimUpload(source_ref="source:medical", text="Unrelated imported claim text here.")],
    )
    body = worker_verify(
        workspace=workspace,
        job_id="j",
        claim="The keeper's cottage burned down in 1950.",
        domain="medical",
        top_k=20,
        store=False,
    )
    assert body["evidence"]
    assert {e["source_ref"] for e in body["evidence"]} == {"source:medical"}


def test_other_workspaces_never_see_the_sentences(imported, other_workspace):
    body = worker_verify(
        workspace=other_workspace,
        job_id="j",
        claim="The keeper's cottage burned down in 1950.",
        store=False,
    )
    assert body["evidence"] == [] and body["sentence_candidates"] == 0


def test_the_console_links_a_sentence_to_its_span_in_the_source(reviewer_client, imported):
    resp = reviewer_client.post(
        "/worker/console",
        {"claim": "The keeper's cottage burned down in 1950.", "top_k": 5, "domain": "general"},
    )
    assert resp.status_code == 200
    version = SourceVersion.objects.get(source__ref="https://coast.example.org/halden")
    start = LIGHTHOUSE.index(COTTAGE)
    url = reverse("audit:source-version", args=[version.source_id, version.sha256])
    assert f'href="{url}?span={start}-{start + len(COTTAGE)}"' in resp.content.decode()


def test_the_chunk_prefilter_prunes_the_sentence_pool_and_is_counted(imported):
    # Seed 004: the chunk prefilter is "used by hydra_search to prune the chunk pool
    # before assembling the final context", by cosine similarity plus VoG for the
    # borderline chunks, and counted in the stats ("Rejected (vector prefilter)" =
    # SUM(chunks_rejected_srmkg), "Rejected by VoG" = SUM(chunks_rejected_vog)).
    body = worker_verify(
        workspace=imported,
        job_id="j",
        claim="The Halden Point lighthouse was built in 1871.",
        top_k=20,
        store=False,
    )
    pre = body["chunk_prefilter"]
    # the two sentences no claim copies: the cottage (cosine < 0.3) and the river mouth
    # (borderline, not entailed by the judge)
    assert pre["chunks"] == 2 and pre["kept"] == 0
    assert pre["rejected_vector"] == 1 and pre["rejected_vog"] == 1
    assert not [e for e in body["evidence"] if e["kind"] == "source_sentence"]
    event = ChunkVerificationEvent.objects.get(workspace=imported)
    assert (event.chunks_in, event.chunks_rejected_srmkg, event.chunks_rejected_vog) == (2, 1, 1)
    stats = relation_stats_get(workspace=imported)
    assert stats["rejected_vector_prefilter"] == 1 and stats["rejected_by_vog"] == 1
    # a sentence close to the claim passes by similarity and stays evidence
    body = worker_verify(
        workspace=imported,
        job_id="j",
        claim="The keeper's cottage burned down in 1950.",
        store=False,
    )
    assert body["chunk_prefilter"]["verified"] == 1
    assert [e["quote"] for e in body["evidence"] if e["kind"] == "source_sentence"] == [COTTAGE]
