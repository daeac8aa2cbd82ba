"""A judge or extractor timeout that is not a positive, finite number of seconds (nan,
inf, a negative one) stops start-up with one line naming its variable, as other bad
values do: taken, nan or inf made every batch a judge error."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.test_settings_refusals import _manage_check
from verifier.judges.registry import JudgeConfigError
from verifier.model_config import chat_endpoint_options

ENDPOINT = {"base_url": "http://judge.invalid/v1", "model": "m"}


@pytest.mark.parametrize(
    ("prefix", "value"),
    [
        ("SPANPROOF_JUDGE_", "nan"),
        ("SPANPROOF_JUDGE_", "inf"),
        ("SPANPROOF_EXTRACTOR_", "NaN"),
        ("SPANPROOF_EXTRACTOR_", "-Infinity"),
    ],
)
def test_a_timeout_that_is_not_finite_stops_start_up(
    tmp_path: Path, prefix: str, value: str
) -> None:
    result = _manage_check(
        tmp_path,
        **{
            f"{prefix}BACKEND": "openai",
            f"{prefix}BASE_URL": "http://model.invalid/v1",
            f"{prefix}MODEL": "m",
            f"{prefix}TIMEOUT": value,
        },
    )
    assert result.returncode == 1, result.stdout + result.stderr
    [line] = result.stderr.strip().splitlines()  # no traceback
    assert line.startswith("Configuration error: "), line
    assert f"{prefix}TIMEOUT" in line and "positive, finite number of seconds" in line, line


@pytest.mark.parametrize("timeout", [float("nan"), float("inf"), -1.0, "nan"])
def test_the_endpoint_options_refuse_it_too(timeout: object) -> None:
    with pytest.raises(JudgeConfigError, match="SPANPROOF_JUDGE_TIMEOUT"):
        chat_endpoint_options(
            {**ENDPOINT, "timeout": timeout},
            what="judge",
            prefix="SPANPROOF_JUDGE_",
            error=JudgeConfigError,
        )


@pytest.mark.parametrize(("timeout", "kept"), [(None, None), (0, None), ("2.5", 2.5), (60, 60.0)])
def test_a_finite_positive_timeout_or_none_is_kept(timeout: object, kept: float | None) -> None:
    options = chat_endpoint_options(
        {**ENDPOINT, "timeout": timeout}, what="judge", prefix="SPANPROOF_JUDGE_", error=ValueError
    )
    assert options["timeout"] == kept
