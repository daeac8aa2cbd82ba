"""A webhook or worker web-expansion timeout that is not a positive, finite number of
seconds (0, negative, nan, inf) stops start-up with one line naming its variable, as
the judge's and extractor's timeouts do: taken, every delivery or page fetch failed at
once (0 or less); nan and inf are not numbers to the settings reader."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.test_settings_refusals import _manage_check


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("SPANPROOF_WEBHOOK_TIMEOUT", "0"),
        ("SPANPROOF_WEBHOOK_TIMEOUT", "-5"),
        ("SPANPROOF_WEBHOOK_TIMEOUT", "-0.001"),
        ("SPANPROOF_WORKER_WEB_TIMEOUT", "-1"),
        ("SPANPROOF_WORKER_WEB_TIMEOUT", "0"),
        ("SPANPROOF_WORKER_WEB_TIMEOUT", "0.0"),
    ],
)
def test_a_timeout_that_is_not_positive_and_finite_stops_start_up(
    tmp_path: Path, variable: str, value: str
) -> None:
    result = _manage_check(tmp_path, **{variable: value})
    assert result.returncode == 1, result.stdout + result.stderr
    [line] = result.stderr.strip().splitlines()  # no traceback
    assert line.startswith("Configuration error: "), line
    assert f"{variable}={value!r}" in line, line
    assert "positive, finite number of seconds" in line, line


@pytest.mark.parametrize("value", ["nan", "inf"])
@pytest.mark.parametrize("variable", ["SPANPROOF_WEBHOOK_TIMEOUT", "SPANPROOF_WORKER_WEB_TIMEOUT"])
def test_nan_or_inf_stops_start_up_too(tmp_path: Path, variable: str, value: str) -> None:
    result = _manage_check(tmp_path, **{variable: value})
    assert result.returncode == 1, result.stdout + result.stderr
    [line] = result.stderr.strip().splitlines()
    assert line.startswith(f"Configuration error: {variable}={value!r}: expected"), line


@pytest.mark.parametrize("variable", ["SPANPROOF_WEBHOOK_TIMEOUT", "SPANPROOF_WORKER_WEB_TIMEOUT"])
def test_a_positive_timeout_starts(tmp_path: Path, variable: str) -> None:
    result = _manage_check(tmp_path, **{variable: "2.5"})
    assert "Configuration error" not in result.stderr, result.stderr
