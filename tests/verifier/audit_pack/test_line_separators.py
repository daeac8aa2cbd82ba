"""A pack whose records hold Unicode line separators (U+2028, U+2029, NEL): JSON keeps
them unescaped inside a string, so the checker must split JSONL on newlines only, as
the writer writes them, or a genuine pack reads as "is not JSON"."""

from __future__ import annotations

import zipfile

import pytest

from tests.factories import make_source
from tests.verifier.api.conftest import judged_claim
from tests.verifier.audit_pack.conftest import write_pack
from verifier.audit_pack import check
from verifier.audit_pack.check import check_pack, render_report
from verifier.services.sources import source_upsert

pytestmark = pytest.mark.django_db

TEXT = (
    "Header line\u2028kept by the PDF extractor.\n"
    "Tides rise\u2029twice a day\x85in the estuary.\n"
    "Sediment settles where the current slows.\n"
)


def test_a_pack_whose_quotes_hold_line_separators_passes(workspace, tmp_path):
    source = source_upsert(
        workspace=workspace, ref="source:separators", text=TEXT, title="A\u2028title"
    ).source
    judged_claim(source, "Tides rise twice a day.", quote="Tides rise\u2029twice a day\x85in")
    pack = write_pack(workspace, tmp_path / "pack.zip")
    report = check_pack(pack)
    assert report.ok, render_report(report)
    assert report.counts["claims"] == 1
    assert report.counts["source_versions"] == 1


def test_a_changed_record_beside_a_line_separator_is_named_by_its_line(workspace, tmp_path):
    source = make_source(workspace, ref="source:separators", text=TEXT)
    judged_claim(source, "Tides rise twice a day.", quote="Tides rise\u2029twice a day\x85in")
    judged_claim(source, "Sediment settles.", quote="Sediment settles where the current slows.")
    pack = write_pack(workspace, tmp_path / "pack.zip")
    with zipfile.ZipFile(pack) as archive:
        members = {name: archive.read(name) for name in archive.namelist()}
    lines = members[check.CLAIMS_FILE].decode("utf-8").split("\n")
    target = next(i for i, line in enumerate(lines) if "Sediment settles." in line)
    lines[target] = lines[target].replace("Sediment settles.", "Sediment never settles.")
    members[check.CLAIMS_FILE] = "\n".join(lines).encode("utf-8")
    forged = tmp_path / "forged.zip"
    with zipfile.ZipFile(forged, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    report = check_pack(forged)
    files = [p.message for p in report.problems if p.check == "files"]
    assert any(f"line {target + 1} " in m and "text changed" in m for m in files), files
    assert not any("is not JSON" in p.message for p in report.problems), render_report(report)
