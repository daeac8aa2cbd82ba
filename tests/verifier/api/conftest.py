from __future__ import annotations

import pytest
from django.test import Client

from tests.factories import make_binding, make_claim, make_source
from verifier.embeddings import embed_text
from verifier.models import ApiKey, Claim, Verdict, generate_api_key, hash_api_key
from verifier.services.claim_state import claim_state_refresh

DELTA_TEXT = (
    "The Marrow River delta gains land in wet years. Sediment settles where the current "
    "slows. Salt marsh grasses trap silt at high tide. Storm surges can strip a season of "
    "growth in a single night. Dredging the main channel starves the outer marsh of mud."
)


def key_for(workspace, scope: str = "admin") -> str:
    """A key with every scope by default: these fixtures test behaviour, not permissions
    (``tests/security/test_role_matrix.py`` does)."""
    raw = generate_api_key()
    ApiKey.objects.create(
        workspace=workspace, name="test", prefix=raw[:8], key_hash=hash_api_key(raw), scope=scope
    )
    return raw


def client_for(workspace, scope: str = "admin") -> Client:
    return Client(headers={"Authorization": f"Bearer {key_for(workspace, scope)}"})


@pytest.fixture
def api(workspace) -> Client:
    return client_for(workspace)


@pytest.fixture
def other_api(other_workspace) -> Client:
    return client_for(other_workspace)


@pytest.fixture
def delta(workspace):
    source = make_source(workspace, ref="source:marrow_river", text=DELTA_TEXT)
    source.citation = "Marrow River Survey, ch. 2"
    source.save(update_fields=["citation"])
    return source


def judged_claim(
    source,
    text: str,
    *,
    quote: str | None = None,
    label: str = "entailed",
    confidence: float = 0.93,
    match: str = "exact",
    embed: bool = True,
    **kw,
) -> Claim:
    """A published claim with real rows: an active binding (when ``quote``), a model
    verdict (when ``label``), and its state resolved by the one state writer."""
    claim = make_claim(
        source,
        text,
        published=kw.pop("published", True),
        embedding=embed_text(text) if embed else None,
        **kw,
    )
    binding = make_binding(claim, quote, match=match) if quote else None
    if label:
        Verdict.objects.create(
            claim=claim,
            binding=binding,
            judge_model="heuristic-entailment-v1",
            judge_family="heuristic",
            prompt_version=1,
            label=label,
            confidence=confidence,
        )
    claim_state_refresh(claim=claim, cause="test setup")
    claim.refresh_from_db()
    return claim
