"""Build an extractor from a plain config mapping; read it from env or a settings dict.

Backends: ``{"backend": "sentence"}`` (offline default). The OpenAI-compatible extractor
is not written yet: it goes in ``verifier/extractors/openai_compat.py`` as a class with
``model_id``, ``family`` and ``extract(text)``, and is registered in ``build_extractor``
below under the backend name ``"openai"`` (config: base_url, model, api_key, family,
timeout). Until then that backend raises ``ExtractorConfigError``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from verifier.extractors.base import Extractor

DEFAULT_BACKEND = "sentence"
ENV_PREFIX = "SPANPROOF_EXTRACTOR_"
_ENV_KEYS: dict[str, type] = {
    "backend": str,
    "base_url": str,
    "model": str,
    "api_key": str,
    "family": str,
    "timeout": float,
}


class ExtractorConfigError(ValueError):
    """The extractor configuration is incomplete or names an unknown backend."""


def extractor_config_from_env(env: Mapping[str, str]) -> dict[str, Any]:
    """``SPANPROOF_EXTRACTOR_BACKEND``, ``…_BASE_URL``, ``…_MODEL``, ``…_API_KEY``,
    ``…_FAMILY``, ``…_TIMEOUT`` → a config dict for ``build_extractor``."""
    config: dict[str, Any] = {"backend": DEFAULT_BACKEND}
    for key, convert in _ENV_KEYS.items():
        raw = env.get(ENV_PREFIX + key.upper())
        if raw is None or str(raw).strip() == "":
            continue
        try:
            config[key] = convert(str(raw).strip())
        except ValueError as exc:
            raise ExtractorConfigError(f"{ENV_PREFIX}{key.upper()}={raw!r}: {exc}") from exc
    return config


def build_extractor(config: Mapping[str, Any]) -> Extractor:
    backend = str(config.get("backend") or DEFAULT_BACKEND).lower()
    if backend == "sentence":
        from verifier.extractors.sentence import SentenceExtractor

        return SentenceExtractor()
    if backend in {"openai", "openai_compatible", "openai-compatible"}:
        # Place for the OpenAI-compatible extractor (verifier/extractors/openai_compat.py).
        raise ExtractorConfigError("the openai extractor backend is not implemented yet")
    raise ExtractorConfigError(f"unknown extractor backend {backend!r}")
