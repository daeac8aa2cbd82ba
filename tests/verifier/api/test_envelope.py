"""Contract of the verified-claim envelope and its honesty rules (seed 000)."""

from __future__ import annotations

import json
import re

import pytest
from django.core.exceptions import ImproperlyConfigured

from tests.verifier.api.conftest import judged_claim
from verifier.api.envelopes import (
    ClaimRefSerializer,
    EnvelopeSerializer,
    EvidenceSerializer,
    JudgeSerializer,
)
from verifier.models import text_sha256
from verifier.selectors.envelopes import claim_envelope, claims_for_envelopes

ISO_MILLIS_Z = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")


def test_supported_envelope_has_every_field(delta):
    claim = judged_claim(
        delta,
        "Sediment settles where the current slows.",
        quote="Sediment settles where the current slows.",
    )
    env = claim_envelope(claim=claim, trace_id="3f6f9a3a-0000-4000-8000-000000000000")
    assert list(env) == [
        "claim",
        "state",
        "evidence",
        "judge",
        "citation",
        "trace_ref",
        "trust_score",
    ]
    assert env["claim"] == {"id": claim.public_id, "text": claim.text}
    assert claim.public_id.startswith("claim:")
    assert env["state"] == "supported"
    (ev,) = env["evidence"]
    version = delta.versions.get()
    start, end = ev["offsets"]
    assert version.text[start:end] == ev["quote"] == "Sediment settles where the current slows."
    assert ev["source_ref"] == "source:marrow_river"
    assert ev["source_hash"] == version.sha256 == text_sha256(version.text)
    assert ev["match"] == "exact"
    assert env["judge"]["model"] == "heuristic-entailment-v1"
    assert env["judge"]["prompt_version"] == 1
    assert env["judge"]["confidence"] == 0.93
    assert ISO_MILLIS_Z.match(env["judge"]["at"])
    assert env["citation"] == "Marrow River Survey, ch. 2"
    assert env["trace_ref"] == "/connect/v1/traces/3f6f9a3a-0000-4000-8000-000000000000"
    assert isinstance(env["trust_score"], int) and 0 <= env["trust_score"] <= 100


def test_no_evidence_means_empty_array_and_not_supported(delta):
    claim = judged_claim(delta, "The delta is older than the city.", quote=None)
    env = claim_envelope(claim=claim)
    assert env["evidence"] == []
    assert env["state"] != "supported"
    assert env["state"] == "inferred"  # entailed but nothing bound: inferred at best


def test_never_judged_omits_judge_and_trace_ref(delta):
    claim = judged_claim(
        delta, "Salt marsh grasses trap silt.", quote="Salt marsh grasses trap silt", label=""
    )
    env = claim_envelope(claim=claim)
    assert "judge" not in env
    assert "trace_ref" not in env
    assert env["state"] == "unverified"


def test_looser_matches_are_labelled(delta):
    claim = judged_claim(
        delta, "Storm surges strip growth.", quote="Storm surges can strip", match="normalized"
    )
    assert claim_envelope(claim=claim)["evidence"][0]["match"] == "normalized"
    fuzzy = judged_claim(
        delta, "Dredging starves the marsh.", quote="Dredging the main channel", match="fuzzy"
    )
    assert claim_envelope(claim=fuzzy)["evidence"][0]["match"] == "fuzzy"


def test_stored_trust_score_wins(delta):
    claim = judged_claim(delta, "The delta gains land.", quote="gains land", trust_score=88)
    assert claim_envelope(claim=claim)["trust_score"] == 88


def test_rendering_many_envelopes_is_constant_queries(delta, django_assert_num_queries):
    for n in range(12):
        judged_claim(
            delta, f"Claim number {n} about sediment.", quote="Sediment settles", embed=False
        )
    from verifier.models import Claim

    with django_assert_num_queries(3):
        envelopes = [claim_envelope(claim=c) for c in claims_for_envelopes(Claim.objects.all())]
    assert len(envelopes) == 12


def test_the_serializer_declares_exactly_the_keys_the_builder_makes(delta):
    """One shape: ``EnvelopeSerializer`` (the schema, the claims API, the graph) declares
    each key ``claim_envelope`` builds, in its order, nested objects included."""
    claim = judged_claim(delta, "Sediment settles.", quote="Sediment settles where the current")
    env = claim_envelope(claim=claim, trace_id="3f6f9a3a-0000-4000-8000-000000000000")
    assert "judge" in env and "trace_ref" in env and env["evidence"]
    assert list(env) == list(EnvelopeSerializer().fields)
    assert list(env["claim"]) == list(ClaimRefSerializer().fields)
    assert list(env["evidence"][0]) == list(EvidenceSerializer().fields)
    assert list(env["judge"]) == list(JudgeSerializer().fields)
    assert json.loads(json.dumps(EnvelopeSerializer(env).data)) == env


@pytest.mark.parametrize("where", ["envelope", "claim", "evidence", "judge"])
def test_a_key_the_serializer_does_not_declare_is_an_error_not_dropped(delta, where):
    claim = judged_claim(delta, "Sediment settles.", quote="Sediment settles where the current")
    env = claim_envelope(claim=claim)
    objects = {
        "envelope": env,
        "claim": env["claim"],
        "evidence": env["evidence"][0],
        "judge": env["judge"],
    }
    objects[where]["surplus"] = 1
    with pytest.raises(ImproperlyConfigured, match="surplus"):
        EnvelopeSerializer(env).data  # noqa: B018 (serializing is the point)
