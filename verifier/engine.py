"""The configured judge and extractor, built from settings."""

from __future__ import annotations

from typing import Any

from django.conf import settings as django_settings

from verifier.extractors import Extractor, build_extractor
from verifier.extractors.registry import DEFAULT_BACKEND as EXTRACTOR_DEFAULT_BACKEND
from verifier.extractors.registry import OFFLINE_FAMILIES as EXTRACTOR_OFFLINE_FAMILIES
from verifier.judges import Judge, build_judge
from verifier.judges.registry import DEFAULT_BACKEND as JUDGE_DEFAULT_BACKEND
from verifier.judges.registry import OFFLINE_FAMILIES as JUDGE_OFFLINE_FAMILIES


def _family(config: dict[str, Any], default_backend: str, offline: dict[str, str]) -> str:
    """The family a configured judge/extractor will declare, folded for comparison
    (case and surrounding whitespace ignored): the explicit ``family``, else the offline
    backend's family, else the family of the model name ('meta-llama/Llama-3.3' → 'llama')."""
    from verifier.chat_completions import family_from_model

    family = str(config.get("family") or "").strip()
    if not family:
        backend = str(config.get("backend") or default_backend).lower()
        model = str(config.get("model") or "").strip()
        if backend in offline:
            family = offline[backend]
        elif model:
            family = family_from_model(model)
    return family.lower()


def configured_families(settings: Any) -> tuple[str, str]:
    """(judge family, extractor family) as configured, folded so a check can compare them."""
    judge = dict(settings.SPANPROOF_JUDGE)
    extractor = dict(settings.SPANPROOF_EXTRACTOR)
    return (
        _family(judge, JUDGE_DEFAULT_BACKEND, JUDGE_OFFLINE_FAMILIES),
        _family(extractor, EXTRACTOR_DEFAULT_BACKEND, EXTRACTOR_OFFLINE_FAMILIES),
    )


def judge_batch_size() -> int:
    """Items per judge call from ``SPANPROOF_JUDGE["batch_size"]`` (clamped 1–25)."""
    size = int(dict(django_settings.SPANPROOF_JUDGE).get("batch_size") or 10)
    return max(1, min(25, size))


def get_judge() -> Judge:
    """The judge configured by ``settings.SPANPROOF_JUDGE`` (``heuristic+nli-v2`` by default)."""
    return build_judge(dict(django_settings.SPANPROOF_JUDGE))


def get_extractor() -> Extractor:
    """The extractor configured by ``settings.SPANPROOF_EXTRACTOR`` (sentence by default)."""
    return build_extractor(dict(django_settings.SPANPROOF_EXTRACTOR))
