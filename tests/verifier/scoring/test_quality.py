"""Quality report arithmetic and the G2 gate (>= 90% supported, <= 2% unsupported)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from verifier.scoring.quality import QualityCounts, percent, quality_report


def counts(supported: int, weak: int, unsupported: int, **extra: int | None) -> QualityCounts:
    fields: dict[str, int | None] = {
        "coverage_gaps": None,
        "remediation_drops": None,
        "bound": 0,
        "unbound": 0,
        "no_evidence": 0,
    }
    fields.update(extra)
    return QualityCounts(supported, weak, unsupported, **fields)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("supported", "weak", "unsupported", "ok_pct", "unsupported_pct", "passed"),
    [
        (90, 10, 0, 90, 0, True),  # exactly 90%
        (89, 11, 0, 89, 0, False),
        (179, 21, 0, 90, 0, False),  # 89.5% is under 90% (shown rounded to 90)
        (177, 23, 0, 88, 0, False),  # 88.5% rounds half-to-even down to 88
        (1789, 211, 0, 89, 0, False),  # 89.45%
        (98, 0, 2, 98, 2, True),  # exactly 2% unsupported
        (97, 0, 3, 97, 3, False),  # 3% unsupported
        (195, 0, 5, 98, 2, False),  # 2.5% is over 2% (shown rounded to 2)
        (193, 0, 7, 96, 4, False),  # 3.5% rounds half-to-even up to 4
        (9699, 0, 301, 97, 3, False),  # 3.01%
        (1000, 0, 24, 98, 2, False),  # 2.34% is over 2%
        (90, 8, 2, 90, 2, True),  # both bounds exactly
        (89, 8, 3, 89, 3, False),  # both fail
        (1, 0, 0, 100, 0, True),
        (0, 0, 1, 0, 100, False),
        (0, 5, 0, 0, 0, False),  # all weak
    ],
)
def test_g2_boundaries(
    supported: int, weak: int, unsupported: int, ok_pct: int, unsupported_pct: int, passed: bool
) -> None:
    report = quality_report(counts(supported, weak, unsupported))
    assert report.total == supported + weak + unsupported
    assert (report.ok_pct, report.unsupported_pct, report.g2_passed) == (
        ok_pct,
        unsupported_pct,
        passed,
    )
    assert (report.g2_shortfalls == ()) == passed


def test_shortfalls_name_each_failed_bound() -> None:
    report = quality_report(counts(89, 8, 3))
    assert report.g2_shortfalls == ("supported 89% < 90%", "unsupported 3% > 2%")


def test_empty_job_has_no_percentages_and_g2_is_unknown_not_failed() -> None:
    report = quality_report(counts(0, 0, 0))
    assert report.total == 0
    assert (report.ok_pct, report.weak_pct, report.unsupported_pct, report.bound_pct) == (
        None,
        None,
        None,
        None,
    )
    assert report.g2_passed is None
    assert report.g2_shortfalls == ("no validated claims",)
    assert report.to_dict()["g2"]["passed"] is None


def test_unknown_counts_stay_none_and_known_zero_stays_zero() -> None:
    unknown = quality_report(counts(9, 1, 0)).to_dict()
    assert unknown["coverage_gaps"] is None
    assert unknown["remediation_drops"] is None
    known = quality_report(counts(9, 1, 0, coverage_gaps=0, remediation_drops=3)).to_dict()
    assert known["coverage_gaps"] == 0
    assert known["remediation_drops"] == 3


def test_to_dict_is_json_safe_and_complete() -> None:
    report = quality_report(
        counts(180, 16, 4, coverage_gaps=2, remediation_drops=1, bound=190, unbound=10,
               no_evidence=6)
    )  # fmt: skip
    data = json.loads(json.dumps(report.to_dict()))
    assert data == {
        "supported": 180,
        "weak": 16,
        "unsupported": 4,
        "coverage_gaps": 2,
        "remediation_drops": 1,
        "bound": 190,
        "unbound": 10,
        "no_evidence": 6,
        "total": 200,
        "ok": 180,
        "ok_pct": 90,
        "weak_pct": 8,
        "unsupported_pct": 2,
        "bound_pct": 95,
        "g2": {
            "passed": True,
            "min_supported_pct": 90,
            "max_unsupported_pct": 2,
            "shortfalls": [],
        },
    }


@pytest.mark.parametrize("bad", [-1, True, 1.5, None])
def test_counts_are_validated(bad: object) -> None:
    with pytest.raises(ValueError):
        counts(bad, 0, 0)  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        counts(1, 0, 0, bound=bad)  # type: ignore[arg-type]


def test_percent_rounding() -> None:
    assert percent(1, 8) == 12  # 12.5 -> 12
    assert percent(3, 8) == 38  # 37.5 -> 38
    assert percent(1, 3) == 33
    assert percent(2, 3) == 67
    assert percent(0, 0) is None


@given(st.integers(0, 10_000), st.integers(0, 10_000), st.integers(0, 10_000))
def test_g2_matches_its_definition(supported: int, weak: int, unsupported: int) -> None:
    report = quality_report(counts(supported, weak, unsupported))
    total = supported + weak + unsupported
    if total == 0:
        assert report.g2_passed is None
        return
    assert report.ok_pct == round(100 * supported / total)
    assert report.unsupported_pct == round(100 * unsupported / total)
    # the exact shares against the bar, never the rounded percentages
    assert report.g2_passed == (100 * supported >= 90 * total and 100 * unsupported <= 2 * total)


@pytest.mark.parametrize(
    ("state", "rule_class", "expected"),
    [
        ("supported", "supported", "supported"),
        ("supported", "weak", "weak"),
        ("supported", "unsupported", "unsupported"),
        ("inferred", "supported", "weak"),
        ("unverified", "supported", "weak"),
        ("unverified", "unsupported", "unsupported"),
        ("contradicted", "supported", "unsupported"),
        ("excluded", "supported", None),
        ("supported", "", None),  # not classified yet
        ("bogus", "supported", None),
    ],
)
def test_quality_class_is_capped_by_the_state(state: str, rule_class: str, expected) -> None:
    from verifier.scoring.quality import quality_class

    assert quality_class(state, rule_class) == expected


def test_quality_class_sources_invert_quality_class() -> None:
    from verifier.scoring.quality import (
        QUALITY_CLASSES,
        STATE_CLASS_CAP,
        quality_class,
        quality_class_sources,
    )

    for wanted in QUALITY_CLASSES:
        pairs = {(s, r) for s, rules in quality_class_sources(wanted).items() for r in rules}
        assert pairs == {
            (s, r)
            for s in STATE_CLASS_CAP
            for r in QUALITY_CLASSES
            if quality_class(s, r) == wanted
        }
    assert "unverified" not in quality_class_sources("supported")
