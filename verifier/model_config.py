"""What the judge and extractor registries share: reading ``PREFIX_KEY`` variables into a
config dict, and checking the endpoint options of a chat-completions backend. Kept free
of Django so workers, benches and tests can use it."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

# config keys every chat-completions backend reads from the environment, and their types
CHAT_ENV_KEYS: dict[str, Callable[[str], Any]] = {
    "backend": str,
    "base_url": str,
    "model": str,
    "api_key": str,
    "family": str,
    "timeout": float,
}
CHAT_BACKENDS = frozenset({"openai", "openai_compatible", "openai-compatible"})

# The model family each offline judge and extractor declares, written once: the judges and
# the extractor declare it, the registries' tables (``OFFLINE_FAMILIES``) map backends to
# it, and the family check (``verifier.checks``) compares the two ends.
HEURISTIC_FAMILY = "spanproof-heuristic"
NLI_FAMILY = "spanproof-nli"  # spanproof-nli-v1 and -v2
SENTENCE_EXTRACTOR_FAMILY = "spanproof-extractor"


def usable_timeout(seconds: float) -> bool:
    """A timeout in seconds an HTTP client can keep: positive and finite (0 or less fails
    every request; nan or inf is no timeout at all). Every configured timeout is read by
    this rule."""
    return math.isfinite(seconds) and seconds > 0


def config_from_env(
    env: Mapping[str, str],
    *,
    prefix: str,
    keys: Mapping[str, Callable[[str], Any]],
    default_backend: str,
    error: type[ValueError],
) -> dict[str, Any]:
    """``{prefix}{KEY}`` for each of ``keys`` that is set and not blank, converted to its
    type; ``error`` names the variable when a value does not convert."""
    config: dict[str, Any] = {"backend": default_backend}
    for key, convert in keys.items():
        raw = env.get(prefix + key.upper())
        if raw is None or str(raw).strip() == "":
            continue
        try:
            config[key] = convert(str(raw).strip())
        except ValueError as exc:
            raise error(f"{prefix}{key.upper()}={raw!r}: {exc}") from exc
    return config


def chat_endpoint_options(
    config: Mapping[str, Any], *, what: str, prefix: str, error: type[ValueError]
) -> dict[str, Any]:
    """``base_url``, ``model``, ``api_key``, ``family`` and ``timeout`` of a chat-completions
    backend, checked: the first two are required, the timeout is a positive, finite number
    of seconds (unset or 0: the backend's default)."""
    missing = [k for k in ("base_url", "model") if not str(config.get(k) or "").strip()]
    if missing:
        raise error(
            f"the openai {what} needs {' and '.join(missing)} "
            f"(set {', '.join(prefix + k.upper() for k in missing)})"
        )
    try:
        timeout = float(config.get("timeout") or 0) or None
    except (TypeError, ValueError) as exc:
        raise error(
            f"{prefix}TIMEOUT={config.get('timeout')!r}: the {what} timeout is not a number ({exc})"
        ) from exc
    # nan or inf would be taken, and then every request fails (a timeout of nan seconds
    # is no timeout the HTTP client can keep): refused here, like a negative one.
    if timeout is not None and not usable_timeout(timeout):
        raise error(
            f"{prefix}TIMEOUT={config.get('timeout')!r}: the {what} timeout must be a "
            "positive, finite number of seconds"
        )
    return {
        "base_url": str(config["base_url"]).strip(),
        "model": str(config["model"]).strip(),
        "api_key": str(config.get("api_key") or ""),
        "family": str(config.get("family") or "").strip(),
        "timeout": timeout,
    }
