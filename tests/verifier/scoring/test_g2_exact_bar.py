"""The G2 gate holds the bar as seed 000 publishes it ("at least 90% of validated claims
supported and at most 2% unsupported"): the exact shares decide, never a percentage
rounded across the bar, and a shortfall never shows a rounded share that reads as
passing."""

from __future__ import annotations

import pytest

from verifier.scoring.quality import QualityCounts, quality_report


def _report(supported: int, weak: int, unsupported: int):
    return quality_report(
        QualityCounts(
            supported=supported,
            weak=weak,
            unsupported=unsupported,
            coverage_gaps=None,
            remediation_drops=None,
            bound=0,
            unbound=0,
            no_evidence=0,
        )
    )


@pytest.mark.parametrize(
    ("supported", "weak", "unsupported", "shortfalls"),
    [
        # 89.5% supported is under 90%, though it is shown rounded to 90
        (179, 21, 0, ("supported 89.5% < 90%",)),
        # 2.5% and 2.34% unsupported are over 2%, though both are shown rounded to 2
        (195, 0, 5, ("unsupported 2.5% > 2%",)),
        (1000, 0, 24, ("unsupported 2.35% > 2%",)),  # 2.34375%
        # cut toward the failing side: 89.9999% is not "90%", 2.0001% is not "2%"
        (899_999, 100_001, 0, ("supported 89.99% < 90%",)),
        (979_999, 0, 20_001, ("unsupported 2.01% > 2%",)),
        # whole shares read whole
        (89, 8, 3, ("supported 89% < 90%", "unsupported 3% > 2%")),
    ],
)
def test_a_share_under_the_bar_fails_and_says_so_exactly(
    supported: int, weak: int, unsupported: int, shortfalls: tuple[str, ...]
) -> None:
    report = _report(supported, weak, unsupported)
    assert report.g2_passed is False
    assert report.g2_shortfalls == shortfalls


@pytest.mark.parametrize(
    ("supported", "weak", "unsupported"),
    [(180, 20, 0), (196, 0, 4), (90, 8, 2), (1, 0, 0)],
)
def test_a_share_exactly_on_the_bar_passes(supported: int, weak: int, unsupported: int) -> None:
    report = _report(supported, weak, unsupported)
    assert report.g2_passed is True
    assert report.g2_shortfalls == ()
