"""Build an extractor from a plain config mapping; read it from env or a settings dict.

Backends: ``{"backend": "sentence"}`` (offline default, rule-based) and
``{"backend": "openai", "base_url": ..., "model": ..., "api_key": ..., "family": ...,
"timeout": ...}`` (``OpenAICompatibleExtractor`` in ``verifier/extractors/openai_compat.py``,
any OpenAI-compatible chat-completions server; ``base_url`` and ``model`` are required,
the family defaults to the model name's, e.g. 'qwen2.5-7b-instruct' → 'qwen'). Kept free
of Django so workers, benches and tests can use it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from verifier.extractors.base import Extractor
from verifier.model_config import (
    CHAT_BACKENDS,
    CHAT_ENV_KEYS,
    SENTENCE_EXTRACTOR_FAMILY,
    chat_endpoint_options,
    config_from_env,
)

DEFAULT_BACKEND = "sentence"
ENV_PREFIX = "SPANPROOF_EXTRACTOR_"


class ExtractorConfigError(ValueError):
    """The extractor configuration is incomplete or names an unknown backend."""


def extractor_config_from_env(env: Mapping[str, str]) -> dict[str, Any]:
    """``SPANPROOF_EXTRACTOR_BACKEND``, ``…_BASE_URL``, ``…_MODEL``, ``…_API_KEY``,
    ``…_FAMILY``, ``…_TIMEOUT`` → a config dict for ``build_extractor``."""
    return config_from_env(
        env,
        prefix=ENV_PREFIX,
        keys=CHAT_ENV_KEYS,
        default_backend=DEFAULT_BACKEND,
        error=ExtractorConfigError,
    )


def _sentence(config: Mapping[str, Any]) -> Extractor:
    from verifier.extractors.sentence import SentenceExtractor

    return SentenceExtractor()


def _openai(config: Mapping[str, Any]) -> Extractor:
    from verifier.extractors.openai_compat import OpenAICompatibleExtractor

    options = chat_endpoint_options(
        config, what="extractor", prefix=ENV_PREFIX, error=ExtractorConfigError
    )
    return OpenAICompatibleExtractor(**options)


@dataclass(frozen=True)
class Backend:
    """How a backend is built from its config, and the family an offline backend
    declares (None: the configured family, or the model name's)."""

    build: Callable[[Mapping[str, Any]], Extractor]
    family: str | None = None


BACKENDS: dict[str, Backend] = {
    "sentence": Backend(_sentence, SENTENCE_EXTRACTOR_FAMILY),
    **{name: Backend(_openai) for name in CHAT_BACKENDS},
}
# the family each offline backend declares (for the judge/extractor family check)
OFFLINE_FAMILIES: dict[str, str] = {
    name: backend.family for name, backend in BACKENDS.items() if backend.family
}


def build_extractor(config: Mapping[str, Any]) -> Extractor:
    backend = str(config.get("backend") or DEFAULT_BACKEND).lower()
    if backend not in BACKENDS:
        raise ExtractorConfigError(
            f"unknown extractor backend {backend!r} (one of {', '.join(sorted(BACKENDS))})"
        )
    return BACKENDS[backend].build(config)
