from __future__ import annotations

import os
import subprocess
import sys

import pytest

from verifier.judges import JudgeConfigError, build_judge, judge_config_from_env


def test_default_config_is_the_heuristic_with_its_second_reader() -> None:
    assert judge_config_from_env({}) == {"backend": "heuristic+nli-v2"}


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


def test_offline_families_are_the_ones_the_judges_declare() -> None:
    from verifier.judges.nli import v2
    from verifier.judges.registry import OFFLINE_FAMILIES

    assert build_judge({"backend": "heuristic"}).family == OFFLINE_FAMILIES["heuristic"]
    assert build_judge({"backend": "heuristic+nli-v2"}).family == OFFLINE_FAMILIES["hybrid"]
    assert build_judge({"backend": "nli"}).family == OFFLINE_FAMILIES["nli"]
    assert OFFLINE_FAMILIES["nli-v2"] == v2.FAMILY


def test_every_judge_variable_is_documented_and_has_an_effect() -> None:
    """Each SPANPROOF_JUDGE_* the reader knows is named in the configuration table
    (docs/configuration.md), and setting it changes what build_judge makes."""
    import re
    from pathlib import Path

    from verifier.judges.registry import _ENV_KEYS

    table = (Path(__file__).resolve().parents[3] / "docs" / "configuration.md").read_text()
    row = next(line for line in table.splitlines() if "`SPANPROOF_JUDGE_BACKEND`" in line)
    documented = {m.lower() for m in re.findall(r"`(?:SPANPROOF_JUDGE)?_([A-Z_]+)`", row)}
    assert set(_ENV_KEYS) <= documented | {"backend"}

    base = {
        "SPANPROOF_JUDGE_BACKEND": "openai",
        "SPANPROOF_JUDGE_BASE_URL": "http://127.0.0.1:9/v1",
        "SPANPROOF_JUDGE_MODEL": "m",
    }
    changes = {
        "BATCH_SIZE": ("7", lambda j: j.batch_size == 7),
        "SAMPLES": ("3", lambda j: j.samples == 3),
        "TEMPERATURE": ("0.7", lambda j: j.temperature == 0.7),
        "JSON_MODE": ("off", lambda j: j._client.json_mode is False),
        "FAMILY": ("acme", lambda j: j.family == "acme"),
        "TIMEOUT": ("12", lambda j: j._client.timeout == 12.0),
        "API_KEY": ("k", lambda j: j._client.api_key == "k"),
    }
    for key, (value, effect) in changes.items():
        judge = build_judge(judge_config_from_env({**base, f"SPANPROOF_JUDGE_{key}": value}))
        assert effect(judge), key
    # LABELS and CALIBRATION: tests/verifier/judges/cross_encoder
    assert {"labels", "calibration"} <= set(_ENV_KEYS)
