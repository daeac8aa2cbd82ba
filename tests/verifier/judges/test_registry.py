from __future__ import annotations

import os
import subprocess
import sys

import pytest

from verifier.judges import JudgeConfigError, build_judge, judge_config_from_env


def test_default_config_is_heuristic() -> None:
    assert judge_config_from_env({}) == {"backend": "heuristic"}


def test_env_values_are_converted() -> None:
    config = judge_config_from_env(
        {
            "SPANPROOF_JUDGE_BACKEND": "openai",
            "SPANPROOF_JUDGE_BASE_URL": "http://localhost:8000/v1",
            "SPANPROOF_JUDGE_MODEL": "llama3",
            "SPANPROOF_JUDGE_TIMEOUT": "12.5",
            "SPANPROOF_JUDGE_BATCH_SIZE": "20",
            "SPANPROOF_JUDGE_SAMPLES": "3",
            "SPANPROOF_JUDGE_JSON_MODE": "off",
            "UNRELATED": "x",
        }
    )
    assert config == {
        "backend": "openai",
        "base_url": "http://localhost:8000/v1",
        "model": "llama3",
        "timeout": 12.5,
        "batch_size": 20,
        "samples": 3,
        "json_mode": False,
    }


def test_bad_number_in_env_is_a_config_error() -> None:
    with pytest.raises(JudgeConfigError):
        judge_config_from_env({"SPANPROOF_JUDGE_TIMEOUT": "soon"})


def test_unknown_backend_and_missing_fields_are_errors() -> None:
    with pytest.raises(JudgeConfigError):
        build_judge({"backend": "oracle"})
    with pytest.raises(JudgeConfigError):
        build_judge({"backend": "openai", "model": "m"})


def test_packages_import_without_django() -> None:
    code = (
        "import sys, verifier.judges, verifier.extractors, verifier.judges.heuristic, "
        "verifier.judges.nli.judge, verifier.judges.nli.train, verifier.judges.nli.synthetic, "
        "verifier.judges.openai_compat; print(any(m.startswith('django') for m in sys.modules))"
    )
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
    )
    assert out.stdout.strip() == "False"
