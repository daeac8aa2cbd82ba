"""The serving path's lean loading matches the ORM path it replaces: the same envelopes,
trust scores, current versions and re-check outcomes; and the single-query embedding
is the batch embedding."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

import numpy as np
import pytest

from tests.factories import make_claim, make_source, tamper
from tests.verifier.api.conftest import judged_claim
from verifier import embeddings
from verifier.models import Claim, Verdict
from verifier.selectors import retrieval as sel
from verifier.selectors.claim_state import binding_recheck
from verifier.selectors.envelopes import claim_envelope, claims_for_envelopes, served_claim_of
from verifier.services.retrieval import _demote_stale, _trust, served_claim_check

TRACE_ID = "3f6f9a3a-0000-4000-8000-000000000000"


def _variety(delta, other_workspace):
    claims = [
        judged_claim(delta, "Sediment settles.", quote="Sediment settles where the current"),
        judged_claim(
            delta, "Storm surges strip growth.", quote="Storm surges can strip", match="normalized"
        ),
        judged_claim(
            delta, "Dredging starves the marsh.", quote="Dredging the main channel", match="fuzzy"
        ),
        judged_claim(delta, "The delta is older than the city.", quote=None),
        judged_claim(
            delta, "Salt marsh grasses trap silt.", quote="Salt marsh grasses trap silt", label=""
        ),
        judged_claim(delta, "The delta gains land.", quote="gains land", trust_score=88),
        judged_claim(
            delta, "Grass grows.", quote="Salt marsh", label="contradicted", confidence=0.4
        ),
        judged_claim(delta, "Flagged one.", quote="Storm surges", flagged=True),
    ]
    # a later verdict wins (newest first), and a second source
    Verdict.objects.create(
        claim=claims[0],
        judge_model="heuristic-entailment-v2",
        judge_family="heuristic",
        prompt_version=3,
        label="entailed",
        confidence=0.61,
    )
    other = make_source(delta.workspace, ref="source:other", text="Another text entirely.")
    claims.append(judged_claim(other, "Another text.", quote="Another text", embed=False))
    hidden = [
        judged_claim(delta, "Not published.", quote="Sediment settles", published=False),
        make_claim(
            make_source(other_workspace, ref="source:x", text="Sediment settles here."),
            "Elsewhere.",
            published=True,
        ),
    ]
    return claims, hidden


def test_served_claims_render_like_the_orm_path(delta, other_workspace):
    claims, hidden = _variety(delta, other_workspace)
    pks = [c.pk for c in claims] + [c.pk for c in hidden]
    served, versions = sel.served_claims(workspace=delta.workspace, claim_pks=pks)
    assert sorted(c.pk for c in served) == sorted(c.pk for c in claims)
    orm = {
        c.pk: c
        for c in claims_for_envelopes(
            Claim.objects.filter(workspace=delta.workspace, published=True, pk__in=pks)
        )
    }
    rechecked = [c for c in orm.values() if c.state in ("supported", "inferred")]
    orm_versions = sel.current_versions(source_pks=[c.source_id for c in rechecked])
    assert {k: (v.pk, v.number, v.sha256) for k, v in orm_versions.items()} == {
        k: (v.id, v.number, v.sha256) for k, v in versions.items()
    }
    for light in served:
        model = orm[light.pk]
        assert claim_envelope(claim=light, trace_id=TRACE_ID) == claim_envelope(
            claim=model, trace_id=TRACE_ID
        )
        assert claim_envelope(claim=light) == claim_envelope(claim=model)
        # The raw-SQL load and the ORM path give one read model (the current span is
        # what only serving's load reads).
        assert replace(light, current_span=None) == served_claim_of(model)
        assert _trust(light) == _trust(served_claim_of(model))
        # The latest verdict's time, to the microsecond and aware (psycopg's C loader).
        light_verdict = (light.verdict.id, light.verdict.at) if light.verdict else None
        model_verdict = (model._verdicts[0].pk, model._verdicts[0].at) if model._verdicts else None
        assert light_verdict == model_verdict
        assert light.verdict is None or light.verdict.at.utcoffset() == timedelta(0)
        assert (light.public_id, light.text, light.state, light.state_reason) == (
            model.public_id,
            model.text,
            model.state,
            model.state_reason,
        )
        assert (light.duplicate_of_id, light.flagged, light.source.ref) == (
            model.duplicate_of_id,
            model.flagged,
            model.source.ref,
        )
        if light.state in ("supported", "inferred"):
            lb = light.binding
            mb = model._active_bindings[0] if model._active_bindings else None
            version = orm_versions.get(model.source_id)
            if lb is not None and version is not None:
                span = light.current_span
                assert span is not None and span.version.id == version.pk
                assert span.span_text == version.text[lb.start : lb.end]
            assert served_claim_check(light).status == binding_recheck(binding=mb, version=version)


@pytest.mark.parametrize("pack", ["", "delta-pack", "no-such-pack"])
def test_seeds_loaded_with_their_seeding_match_the_two_statements(delta, other_workspace, pack):
    """The fused statement (seeds and what serving needs of them) returns the seeds of
    ``claim_seeds_by_vector`` in its order with the claims ``served_claims`` loads."""
    _variety(delta, other_workspace)
    delta.domain_pack = "delta-pack"
    delta.save(update_fields=["domain_pack"])
    query = embeddings.embed_text("Where does sediment settle in the marsh?")
    for limit in (3, 20):
        fused = sel.served_seeds_by_vector(
            workspace=delta.workspace, vector=query, limit=limit, domain_pack=pack
        )
        seeds = sel.claim_seeds_by_vector(
            workspace=delta.workspace, vector=query, limit=limit, domain_pack=pack
        )
        assert [(c.pk, pytest.approx(score, abs=1e-6)) for c, score in fused] == seeds
        served, _ = sel.served_claims(workspace=delta.workspace, claim_pks=[pk for pk, _ in seeds])
        assert sorted((c for c, _ in fused), key=lambda c: c.pk) == served, (
            "the same ServedClaim values, binding, verdict and current span included"
        )
    expected = {"": 8, "delta-pack": 8, "no-such-pack": 0}[pack]  # embedded, published
    assert (
        len(
            sel.served_seeds_by_vector(
                workspace=delta.workspace, vector=query, limit=50, domain_pack=pack
            )
        )
        == expected
    )


def test_served_claims_use_the_current_version(delta, workspace):
    """A new version demotes its claims when it is stored (``test_new_source_version_
    demotes``); a supported claim whose current text changed anyway (rewritten behind the
    application's back) is re-checked against the current text when served."""
    claim = judged_claim(
        delta, "Dredging starves the outer marsh.", quote="Dredging the main channel"
    )
    current = delta.versions.get()
    rewritten = "Completely rewritten text. " * 8
    tamper(current, rewritten)
    (served,), versions = sel.served_claims(workspace=workspace, claim_pks=[claim.pk])
    assert versions[served.source_id].id == current.pk
    binding = served.binding
    assert served.current_span.span_text == rewritten[binding.start : binding.end]
    assert _demote_stale([(served, served_claim_check(served))]) == {served.pk: "supported"}
    assert served.state == "unverified"


def test_served_claims_of_nothing():
    assert sel.served_claims(workspace=None, claim_pks=[]) == ([], {})  # type: ignore[arg-type]


@pytest.mark.parametrize("threads", [0, embeddings.QUERY_THREADS])
def test_single_query_torch_embedding_is_the_batch_embedding(monkeypatch, threads):
    import torch

    monkeypatch.setattr(embeddings, "QUERY_THREADS", threads)
    texts = ["Sediment settles where the current slows.", "", "x", "Ünïcødé ✓ 東京 " * 40]
    # the batch path at another thread count than the query's (the tests run torch with
    # one thread, tests/conftest.py): the case where the two paths' counts differ
    previous = torch.get_num_threads()
    torch.set_num_threads(1 if threads == 0 else threads + 1)
    try:
        pairs = [(embeddings.embed_text_torch(t), embeddings.embed_texts([t])[0]) for t in texts]
    finally:
        torch.set_num_threads(previous)
    for single, batch in pairs:
        assert single.dtype == batch.dtype == np.float32
        assert single.shape == batch.shape == (embeddings.EMBEDDING_DIMENSIONS,)
        if threads == 0:  # the process's thread count on both paths: bit-identical
            assert np.array_equal(single, batch)
        else:
            assert np.allclose(single, batch, rtol=0, atol=1e-6)


@pytest.mark.parametrize(
    ("rewrite", "expected"),
    [
        (lambda text: text, "fresh"),
        (lambda text: text.replace("Storm", "Flood"), "span_lost"),
        (lambda text: text[:10], "offsets_out_of_range"),
        (lambda text: "ñ" + text, "span_lost"),  # offsets are code points, not bytes
    ],
)
def test_served_recheck_reads_only_the_span_and_agrees_with_the_full_text(delta, rewrite, expected):
    claim = judged_claim(
        delta, "Storm surges can strip growth.", quote="Storm surges can strip a season"
    )
    for version in delta.versions.all():
        tamper(version, rewrite(version.text))
    (served,), _ = sel.served_claims(workspace=delta.workspace, claim_pks=[claim.pk])
    version = delta.versions.order_by("-number").first()
    binding = claim.bindings.get(is_active=True)
    assert served_claim_check(served).status == expected
    assert binding_recheck(binding=binding, version=version) == expected


@pytest.mark.parametrize("position", ["start", "chunk_boundary", "end"])
def test_served_span_deep_in_a_long_multibyte_source(workspace, position):
    """The span the re-check reads comes from the version's chunks: the same characters at
    the bound offsets wherever they sit in a long text of multibyte characters."""
    quote = "Storm surges can strip a season of growth"
    filler = "Delta café — grüße 日本 🧪. "
    head = {"start": 0, "chunk_boundary": 1010, "end": 60}[position]
    before = (filler * 300)[: head if position != "end" else 7000]
    text = before + quote + ". " + filler * (2 if position == "end" else 80)
    source = make_source(workspace, text=text)
    claim = judged_claim(source, "Storm surges strip growth.", quote=quote)
    (served,), _ = sel.served_claims(workspace=workspace, claim_pks=[claim.pk])
    binding = claim.bindings.get(is_active=True)
    assert binding.start == len(before)
    assert served.current_span.span_text == quote
    assert served_claim_check(served).status == "fresh"
