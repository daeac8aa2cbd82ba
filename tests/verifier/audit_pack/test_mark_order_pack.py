"""A quote whose letters carry their marks in another order than the source's (NFC of
pointed Hebrew typed dagesh first): the server binds it ``normalized``, and the audit
pack's standalone checker, which has its own copy of the fold, re-checks the same span."""

from __future__ import annotations

import subprocess
import sys
import unicodedata
import zipfile

import pytest

from tests.factories import make_claim, make_source
from tests.verifier.audit_pack.conftest import write_pack
from verifier.audit_pack import check
from verifier.audit_pack.check import check_pack, render_report
from verifier.binding.normalization import fold as core_fold
from verifier.services.binding import claim_bind

pytestmark = pytest.mark.django_db

# bet + dagesh (class 21) + qamats (class 18): NFC and NFD put the qamats first
WORD = "\u05d1\u05bc\u05b8\u05e8\u05b8\u05d0"
TEXT = f"בְּרֵאשִׁית {WORD} אֱלֹהִים אֵת הַשָּׁמַיִם. The harbour wall is 412 metres long."


@pytest.mark.parametrize(
    "text",
    [
        TEXT,
        "Ngày mai tôi b\u00ea\u0323nh viện.",  # ê + dot below: NFD puts the dot first
        "قال \u0645\u064f\u062d\u064e\u0645\u0651\u064e\u062f",  # shadda (33) before fatha (30)
        "x\u0301\u0323\u0951y\u0315\u031b",  # class 0 never moves; 232 after 216 stays
    ],
)
def test_the_checkers_fold_puts_marks_in_the_cores_order(text):
    assert check.fold(text) == core_fold(text)
    nfc = unicodedata.normalize("NFC", text)
    assert check.fold(nfc) == check.fold(text)


def test_a_pack_with_a_quote_bound_across_reordered_marks_checks(workspace, tmp_path):
    source = make_source(workspace, ref="source:bereshit", text=TEXT)
    claim = make_claim(source, "The word is bara.")
    quote = unicodedata.normalize("NFC", WORD)
    assert quote != WORD
    outcome = claim_bind(claim=claim, quote=quote)
    binding = outcome.binding
    assert binding is not None
    assert (binding.start, binding.end, binding.match) == (
        TEXT.index(WORD),
        TEXT.index(WORD) + len(WORD),
        "normalized",
    )

    pack = write_pack(workspace, tmp_path / "pack.zip")
    report = check_pack(pack)
    assert report.ok, render_report(report)
    # the copy that travels in the pack, alone, as an auditor runs it
    alone = tmp_path / "alone"
    alone.mkdir()
    with zipfile.ZipFile(pack) as archive:
        archive.extract("check.py", alone)
    (alone / "pack.zip").write_bytes(pack.read_bytes())
    run = subprocess.run(
        [sys.executable, "-I", "-S", "check.py", "pack.zip"],
        cwd=alone,
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "1 bound quotes sit at their offsets" in run.stdout
