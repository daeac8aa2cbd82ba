"""The checker's text report shows control and format characters from a pack as
``\\uXXXX`` escapes: a quote of "\\u202e001$ diap\\u202c" printed raw reads "paid $100"
in a terminal that applies bidi, so the auditor saw a figure the pack does not hold.
``--json`` keeps the strings as they are (a JSON reader gets them back exactly)."""

from __future__ import annotations

import json

import pytest

from tests.audit.test_pack_hostile_checker import (  # noqa: F401
    claims,
    files,
    pack,
    problems,
    put_claims,
    resign,
    run_checker,
    write_zip,
)
from tests.verifier.audit_pack.conftest import history  # noqa: F401
from verifier.audit_pack.check import Problem, Report, render_report, visible

REVERSED = "\u202e001$ diap\u202c"


def test_control_format_and_surrogate_characters_are_escaped():
    assert visible(REVERSED) == "\\u202e001$ diap\\u202c"
    assert visible("a\x00b\x1bc\x7fd\x85e\u200bf\u2066g\ufeffh") == (
        "a\\u0000b\\u001bc\\u007fd\\u0085e\\u200bf\\u2066g\\ufeffh"
    )
    assert visible("x\ud800y") == "x\\ud800y"
    assert visible("tag\U000e0041") == "tag\\U000e0041"
    plain = "Ünïcödé “quotes” — 中文 ok $100"
    assert visible(plain) == plain


def test_every_string_of_the_text_report_is_shown_escaped():
    report = Report(
        pack="pack\u202e.zip",
        meta={"workspace": {"slug": "w\u2067s", "name": "Name\u202e"}, "scope": {"q": "\u200f"}},
        problems=[Problem("spans", "claim:\u202eabc bindings[0]", f'exact quote "{REVERSED}"')],
        notes=["a note\u061c"],
    )
    text = render_report(report)
    lines = text.split("\n")
    assert all(ch == "\n" or ch.isprintable() for ch in text), ascii(text)
    assert any(
        'claim:\\u202eabc bindings[0]: exact quote "\\u202e001$ diap\\u202c"' in line
        for line in lines
    )
    assert "Workspace w\\u2067s (Name\\u202e)" in text
    assert "pack\\u202e.zip" in text and "a note\\u061c" in text and "\\u200f" in text


@pytest.mark.parametrize("as_json", [False, True], ids=["text", "json"])
def test_a_reversed_quote_is_shown_as_escapes_by_the_checker_run_alone(
    files,  # noqa: F811
    tmp_path,
    as_json,
):
    rows = claims(files)
    rows[0]["bindings"][0]["quote"] = REVERSED
    put_claims(files, rows)
    path = write_zip(resign(files), tmp_path / "bidi.zip")
    run = run_checker(path, *(["--json"] if as_json else []))
    assert run.returncode == 1, run.stdout + run.stderr
    if as_json:
        assert any(REVERSED in message for _, message in problems(run))
        json.loads(run.stdout)
    else:
        assert "\u202e" not in run.stdout and "\u202c" not in run.stdout, run.stdout
        assert 'exact quote "\\u202e001$ diap\\u202c" is not what' in run.stdout, run.stdout
