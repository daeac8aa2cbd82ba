"""Colour contrast on the API docs page: Swagger UI's own colours fail WCAG 2.1 AA
(white on its #61affe GET badge is 2.3:1), so static/css/swagger.css overrides them.
Each pair: the colour we set (read from the stylesheet) against the one Swagger UI
keeps; 4.5:1 for text under 18.66px bold (all of these are 10-14px)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.conf import settings

AA_TEXT = 4.5
SWAGGER_CSS = Path(settings.BASE_DIR) / "static" / "css" / "swagger.css"

# selector in swagger.css, property we set, the colour Swagger UI keeps on the other side
PAIRS = [
    (".swagger-ui .info .title small", "background", "#ffffff"),
    (".swagger-ui .info .title small.version-stamp", "background-color", "#ffffff"),
    (".swagger-ui .info a", "color", "#fafafa"),
    (".swagger-ui .btn.authorize", "color", "#ffffff"),
    (".swagger-ui .opblock.opblock-get .opblock-summary-method", "background", "#ffffff"),
    (".swagger-ui .opblock.opblock-post .opblock-summary-method", "background", "#ffffff"),
    (".swagger-ui .opblock.opblock-put .opblock-summary-method", "background", "#ffffff"),
    (".swagger-ui .opblock.opblock-patch .opblock-summary-method", "background", "#ffffff"),
    (".swagger-ui .opblock.opblock-delete .opblock-summary-method", "background", "#ffffff"),
]


def _luminance(hex_colour: str) -> float:
    value = hex_colour.lstrip("#")
    if len(value) == 3:
        value = "".join(c * 2 for c in value)
    channels = [int(value[i : i + 2], 16) / 255 for i in (0, 2, 4)]
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast_ratio(a: str, b: str) -> float:
    light, dark = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def _declared(css: str, selector: str, prop: str) -> str | None:
    """The last hex colour ``prop`` gets in a rule whose selector is exactly ``selector``."""
    found = None
    for selectors, body in re.findall(r"([^{}]+)\{([^}]*)\}", css):
        if selector not in [s.strip() for s in selectors.split(",")]:
            continue
        for name, value in re.findall(r"([a-z-]+)\s*:\s*(#[0-9a-fA-F]{3,6})\b", body):
            if name == prop:
                found = value
    return found


def test_the_ratio_matches_the_wcag_examples():
    assert round(contrast_ratio("#ffffff", "#000000"), 2) == 21.0
    assert round(contrast_ratio("#ffffff", "#61affe"), 2) == 2.31  # Swagger's GET badge


@pytest.mark.parametrize(("selector", "prop", "other"), PAIRS)
def test_api_docs_colours_meet_aa(selector, prop, other):
    css = re.sub(r"/\*.*?\*/", "", SWAGGER_CSS.read_text(), flags=re.S)
    ours = _declared(css, selector, prop)
    assert ours is not None, f"{selector} sets no {prop} in swagger.css"
    assert contrast_ratio(ours, other) >= AA_TEXT, (selector, ours, other)


CONSOLE_CSS = Path(settings.BASE_DIR) / "static" / "css" / "console.css"
# backgrounds a state badge sits on: the page, a selected or focused row, a warning
STATE_BACKGROUNDS = ["#fff", "#eef4fb", "#fff8c5"]


@pytest.mark.parametrize(
    "state", ["supported", "inferred", "unverified", "contradicted", "excluded"]
)
def test_state_badges_meet_aa_on_selected_rows(state):
    """axe walk: the unverified badge (#9a6700) in a pinned claim list on a source page
    (#eef4fb) was 4.4:1."""
    css = CONSOLE_CSS.read_text()
    found = re.search(rf"--{state}:\s*(#[0-9a-fA-F]{{6}})", css)
    assert found is not None, state
    for background in STATE_BACKGROUNDS:
        assert f"background:{background}" in css
        assert contrast_ratio(found.group(1), background) >= AA_TEXT, (state, background)
