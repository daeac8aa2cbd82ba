from __future__ import annotations

import pytest
from django.core.management import call_command
from django.core.management.base import SystemCheckError
from django.test import override_settings

from verifier.checks import judge_and_extractor_families_differ
from verifier.engine import configured_families, get_extractor, get_judge

# The check run is isolated from the console's URL modules (another area) by an empty
# URLconf: this test is about the family check only.
urlpatterns: list = []
ISOLATED_URLS = "tests.verifier.test_family_check"

SAME = {"backend": "heuristic", "family": "llama"}
SAME_EXTRACTOR = {"backend": "sentence", "family": "Llama"}


def test_default_families_differ(settings):
    judge_family, extractor_family = configured_families(settings)
    assert judge_family != extractor_family
    assert judge_and_extractor_families_differ() == []
    assert get_judge().family == judge_family
    assert get_extractor().family == extractor_family


@override_settings(ROOT_URLCONF=ISOLATED_URLS)
def test_check_passes_with_default_families(capsys):
    call_command("check")
    assert "no issues" in capsys.readouterr().out


@override_settings(
    ROOT_URLCONF=ISOLATED_URLS, SPANPROOF_JUDGE=SAME, SPANPROOF_EXTRACTOR=SAME_EXTRACTOR
)
def test_check_fails_when_families_match():
    with pytest.raises(SystemCheckError) as exc:
        call_command("check")
    assert "spanproof.E001" in str(exc.value)
    assert "llama" in str(exc.value)


@override_settings(
    ROOT_URLCONF=ISOLATED_URLS,
    SPANPROOF_JUDGE={
        "backend": "openai",
        "base_url": "http://x",
        "model": "meta-llama/Llama-3.3-70B",
    },
    SPANPROOF_EXTRACTOR={"backend": "openai", "model": "llama-3.1-8b-instruct"},
)
def test_families_derived_from_model_names_are_compared():
    with pytest.raises(SystemCheckError, match="llama"):
        call_command("check")


OPENAI_EXTRACTOR = {"backend": "openai", "base_url": "http://x/v1", "model": "qwen2.5-7b-instruct"}


@override_settings(
    ROOT_URLCONF=ISOLATED_URLS,
    SPANPROOF_JUDGE={
        "backend": "openai",
        "base_url": "http://y/v1",
        "model": "m",
        "family": "Qwen",
    },
    SPANPROOF_EXTRACTOR=OPENAI_EXTRACTOR,
)
def test_check_catches_an_openai_extractor_of_the_judges_family(settings):
    judge_family, extractor_family = configured_families(settings)
    assert judge_family == extractor_family == get_extractor().family.lower() == "qwen"
    with pytest.raises(SystemCheckError) as exc:
        call_command("check")
    assert "spanproof.E001" in str(exc.value) and "qwen" in str(exc.value)


@override_settings(
    ROOT_URLCONF=ISOLATED_URLS,
    SPANPROOF_JUDGE={"backend": "openai", "base_url": "http://y/v1", "model": "qwen3-32b"},
    SPANPROOF_EXTRACTOR={**OPENAI_EXTRACTOR, "family": "mistral"},
)
def test_an_explicit_openai_extractor_family_overrides_the_model_name(settings, capsys):
    assert get_extractor().family == "mistral"
    assert configured_families(settings) == ("qwen", "mistral")
    call_command("check")
    assert "no issues" in capsys.readouterr().out


def test_trained_judge_family_is_its_own(settings):
    settings.SPANPROOF_JUDGE = {"backend": "nli"}
    judge_family, extractor_family = configured_families(settings)
    assert judge_family == get_judge().family == "spanproof-nli"
    assert judge_family != extractor_family
    assert judge_and_extractor_families_differ() == []
