from __future__ import annotations

from tests.verifier.audit_pack.conftest import write_pack
from verifier.audit_pack.check import check_pack, render_report


def test_smoke(history, workspace, tmp_path):
    pack = write_pack(workspace, tmp_path / "pack.zip")
    report = check_pack(pack)
    print(render_report(report))
    assert report.ok, render_report(report)
