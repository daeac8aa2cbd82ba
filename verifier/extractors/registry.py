"""Build an extractor from a plain config mapping; read it from env or a settings dict.

Backends: ``{"backend": "sentence"}`` (offline default, rule-based) and
``{"backend": "openai", "base_url": ..., "model": ..., "api_key": ..., "family": ...,
"timeout": ...}`` (``OpenAICompatibleExtractor`` in ``verifier/extractors/openai_compat.py``,
any OpenAI-compatible chat-completions server; ``base_url`` and ``model`` are required,
the family defaults to the model name's, e.g. 'qwen2.5-7b-instruct' → 'qwen'). Kept free
of Django so workers, benches and tests can use it.
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
        from verifier.extractors.openai_compat import OpenAICompatibleExtractor

        missing = [k for k in ("base_url", "model") if not str(config.get(k) or "").strip()]
        if missing:
            raise ExtractorConfigError(
                f"the openai extractor needs {' and '.join(missing)} "
                f"(set {', '.join(ENV_PREFIX + k.upper() for k in missing)})"
            )
        try:
            timeout = float(config.get("timeout") or 0) or None
        except (TypeError, ValueError) as exc:
            raise ExtractorConfigError(
                f"extractor timeout {config.get('timeout')!r}: {exc}"
            ) from exc
        if timeout is not None and timeout < 0:
            raise ExtractorConfigError(f"extractor timeout must be positive, got {timeout:g}")
        return OpenAICompatibleExtractor(
            base_url=str(config["base_url"]).strip(),
            model=str(config["model"]).strip(),
            api_key=str(config.get("api_key") or ""),
            family=str(config.get("family") or "").strip(),
            timeout=timeout,
        )
    raise ExtractorConfigError(f"unknown extractor backend {backend!r}")
