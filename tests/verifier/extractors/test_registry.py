from __future__ import annotations

import pytest

from verifier.extractors import (
    ExtractorConfigError,
    build_extractor,
    check_families,
    extractor_config_from_env,
)
from verifier.extractors.sentence import FAMILY as EXTRACTOR_FAMILY
from verifier.judges.heuristic import FAMILY as JUDGE_FAMILY
from verifier.model_config import CHAT_BACKENDS


def test_offline_defaults_use_different_families() -> None:
    assert check_families(JUDGE_FAMILY, EXTRACTOR_FAMILY) is None


@pytest.mark.parametrize(("judge", "extractor"), [("llama", "llama"), ("Llama ", "llama")])
def test_same_family_is_an_error(judge: str, extractor: str) -> None:
    message = check_families(judge, extractor)
    assert message is not None and "llama" in message.lower()


def test_missing_family_is_an_error() -> None:
    assert check_families("", "qwen") is not None


def test_env_config() -> None:
    assert extractor_config_from_env({}) == {"backend": "sentence"}
    config = extractor_config_from_env(
        {"SPANPROOF_EXTRACTOR_BACKEND": "openai", "SPANPROOF_EXTRACTOR_TIMEOUT": "3"}
    )
    assert config == {"backend": "openai", "timeout": 3.0}


def test_openai_backend_needs_url_and_model_and_unknown_backends_fail() -> None:
    with pytest.raises(ExtractorConfigError, match="base_url and model"):
        build_extractor({"backend": "openai"})
    with pytest.raises(ExtractorConfigError):
        build_extractor({"backend": "magic"})


def test_offline_families_are_the_ones_the_extractors_declare() -> None:
    from verifier.extractors.registry import BACKENDS, OFFLINE_FAMILIES

    assert set(OFFLINE_FAMILIES) == {"sentence"}
    for name, family in OFFLINE_FAMILIES.items():
        assert build_extractor({"backend": name}).family == family
    # the rest are chat-completions endpoints: their family is configured or the model's
    assert set(BACKENDS) - set(OFFLINE_FAMILIES) == set(CHAT_BACKENDS)
