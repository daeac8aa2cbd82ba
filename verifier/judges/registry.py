"""Build a judge from a plain config mapping; read that mapping from settings or env.

Kept free of Django so workers, benches and tests can use it. Django settings call
``judge_config_from_env(os.environ)`` once (``SPANPROOF_JUDGE``) and
``verifier.engine.get_judge`` passes that dict to ``build_judge``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from verifier.judges.base import Judge
from verifier.model_config import (
    CHAT_BACKENDS,
    CHAT_ENV_KEYS,
    HEURISTIC_FAMILY,
    NLI_FAMILY,
    chat_endpoint_options,
    config_from_env,
)

# the heuristic with spanproof-nli-v2 as its second reader (verifier/judges/second_reading.py);
# "heuristic" alone stays selectable
DEFAULT_BACKEND = "heuristic+nli-v2"
ENV_PREFIX = "SPANPROOF_JUDGE_"


def _switch(raw: str) -> bool:
    """An on/off value: 1/0, true/false, yes/no, on/off (any case); anything else is an error."""
    value = raw.strip().lower()
    if value in {"1", "true", "yes", "on"}:
        return True
    if value in {"0", "false", "no", "off"}:
        return False
    raise ValueError("not an on/off value (1/0, true/false, yes/no, on/off)")


# config key -> converter for values read from the environment
_ENV_KEYS: dict[str, Callable[[str], Any]] = {
    **CHAT_ENV_KEYS,
    "batch_size": int,
    "samples": int,
    "temperature": float,
    "json_mode": _switch,
    "labels": str,  # cross-encoder: which output means what ("0=contradicted,1=entailed,...")
    "calibration": str,  # cross-encoder: a calibration JSON (else the model folder's own)
}


class JudgeConfigError(ValueError):
    """The judge configuration is incomplete or names an unknown backend."""


def judge_config_from_env(env: Mapping[str, str]) -> dict[str, Any]:
    """``SPANPROOF_JUDGE_BACKEND``, ``…_BASE_URL``, ``…_MODEL``, ``…_API_KEY``,
    ``…_FAMILY``, ``…_TIMEOUT``, ``…_BATCH_SIZE``, ``…_SAMPLES``, ``…_TEMPERATURE``,
    ``…_JSON_MODE``, ``…_LABELS``, ``…_CALIBRATION`` → a config dict for
    ``build_judge``. Accepts ``os.environ`` or any plain mapping."""
    return config_from_env(
        env,
        prefix=ENV_PREFIX,
        keys=_ENV_KEYS,
        default_backend=DEFAULT_BACKEND,
        error=JudgeConfigError,
    )


def _heuristic(config: Mapping[str, Any]) -> Judge:
    from verifier.judges.heuristic import HeuristicJudge

    return HeuristicJudge()


def _nli(config: Mapping[str, Any]) -> Judge:
    from verifier.judges.nli.judge import NliJudge

    return NliJudge()


def _cross_encoder(config: Mapping[str, Any]) -> Judge:
    from verifier.judges.cross_encoder import factory

    try:
        return factory.cross_encoder_judge(config)
    except factory.CrossEncoderConfigError as exc:
        raise JudgeConfigError(str(exc)) from None


def _nli_v2(config: Mapping[str, Any]) -> Judge:
    from verifier.judges.cross_encoder import factory

    try:
        return factory.nli_v2_judge()
    except factory.CrossEncoderConfigError as exc:
        raise JudgeConfigError(str(exc)) from None


def _second_reading(config: Mapping[str, Any]) -> Judge:
    from verifier.judges import second_reading
    from verifier.judges.cross_encoder import factory

    try:
        return second_reading.build()
    except factory.CrossEncoderConfigError as exc:
        raise JudgeConfigError(f"{exc} (the second reader of {DEFAULT_BACKEND})") from None


def _openai(config: Mapping[str, Any]) -> Judge:
    from verifier.judges.openai_compat import OpenAICompatibleJudge

    options = chat_endpoint_options(config, what="judge", prefix=ENV_PREFIX, error=JudgeConfigError)
    return OpenAICompatibleJudge(
        **options,
        batch_size=int(config.get("batch_size") or 0) or None,
        samples=int(config.get("samples") or 1),
        temperature=config.get("temperature"),
        json_mode=bool(config.get("json_mode", True)),
    )


@dataclass(frozen=True)
class Backend:
    """How a backend is built from its config, and the family an offline backend
    declares (None: the configured family, or the model name's)."""

    build: Callable[[Mapping[str, Any]], Judge]
    family: str | None = None


_CROSS_ENCODER = Backend(_cross_encoder)
_NLI_V2 = Backend(_nli_v2, NLI_FAMILY)
_SECOND_READING = Backend(_second_reading, HEURISTIC_FAMILY)
BACKENDS: dict[str, Backend] = {
    "heuristic+nli-v2": _SECOND_READING,
    "hybrid": _SECOND_READING,
    "heuristic": Backend(_heuristic, HEURISTIC_FAMILY),
    "nli": Backend(_nli, NLI_FAMILY),
    "nli-v2": _NLI_V2,
    "nli_v2": _NLI_V2,
    "cross-encoder": _CROSS_ENCODER,
    "cross_encoder": _CROSS_ENCODER,
    "crossencoder": _CROSS_ENCODER,
    **{name: Backend(_openai) for name in CHAT_BACKENDS},
}
# the family each offline backend declares (for the judge/extractor family check)
OFFLINE_FAMILIES: dict[str, str] = {
    name: backend.family for name, backend in BACKENDS.items() if backend.family
}


def build_judge(config: Mapping[str, Any]) -> Judge:
    backend = str(config.get("backend") or DEFAULT_BACKEND).lower()
    if backend not in BACKENDS:
        raise JudgeConfigError(
            f"unknown judge backend {backend!r} (one of {', '.join(sorted(BACKENDS))})"
        )
    return BACKENDS[backend].build(config)
