"""A pack made from real history passes the checker, and each kind of change the issue
names makes it fail, naming what changed."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.factories import make_source
from tests.verifier.audit_pack.conftest import (
    SUPPORTED_QUOTE,
    jsonl,
    unzip,
    write_jsonl,
    write_pack,
)
from verifier.audit_pack import check, signing
from verifier.audit_pack.check import check_pack, render_report
from verifier.models import WorkspaceSigningKey
from verifier.services.audit_pack import _signer, signing_key_ensure

pytestmark = pytest.mark.django_db


@pytest.fixture
def pack(history, workspace, tmp_path) -> Path:
    return write_pack(workspace, tmp_path / "pack.zip")


@pytest.fixture
def folder(pack, tmp_path) -> Path:
    return unzip(pack, tmp_path / "unzipped")


def _problems(report, check_name=None):
    return [
        (p.check, p.where, p.message)
        for p in report.problems
        if check_name is None or p.check == check_name
    ]


def _claim_line(folder: Path, public_id: str) -> tuple[list[dict], int]:
    rows = jsonl(folder, check.CLAIMS_FILE)
    return rows, next(i for i, row in enumerate(rows) if row["id"] == public_id)


def test_a_pack_of_real_history_passes(pack, history):
    report = check_pack(pack)
    assert report.ok, render_report(report)
    assert report.counts["claims"] == 5
    assert report.counts["bindings"] == 4
    # the unzipped folder checks the same
    assert check_pack(unzip(pack, pack.parent / "same")).ok


def test_people_appear_by_role_never_by_username(folder, history):
    everything = b"".join(p.read_bytes() for p in folder.rglob("*") if p.is_file())
    assert b"rita.reviewer" not in everything
    rows, i = _claim_line(folder, history["claims"]["reviewed"].public_id)
    human = [v for v in rows[i]["verdicts"] if v["person"]]
    assert human == [
        {
            **human[0],
            "judge_model": "human",
            "person": {"role": "reviewer", "ref": "reviewer-1"},
        }
    ]
    causes = [e["cause"] for e in rows[i]["state_events"]]
    assert "review: supported by reviewer-1" in causes


def test_one_changed_byte_of_a_source_text_is_named(folder, history):
    version = history["source"].versions.get()
    path = folder / check.text_path(version.sha256)
    data = bytearray(path.read_bytes())
    at = data.index(b"Sediment") + 1
    data[at] = ord("E")  # "SEdiment"
    path.write_bytes(bytes(data))
    report = check_pack(folder)
    assert not report.ok
    files = _problems(report, "files")
    assert files[0][1] == check.text_path(version.sha256)
    assert "characters [0, " in files[0][2]
    sources = _problems(report, "sources")
    assert sources[0][1] == "source:marrow_river v1"
    assert "hashes to" in sources[0][2]
    supported = history["claims"]["supported"].public_id
    assert (
        "spans",
        f"{supported} bindings[0]",
    ) in [(c, w) for c, w, _ in _problems(report)]


def test_a_text_that_is_no_longer_utf8_is_named_as_such(folder, history):
    """Not "cites … which is not in the pack" (auditor walk L8): the file, where it stops
    being UTF-8 (byte and block), and each binding that cannot be checked."""
    version = history["source"].versions.get()
    path = folder / check.text_path(version.sha256)
    data = bytearray(path.read_bytes())
    at = data.index(b"Sediment")
    data[at] = 0xFF
    path.write_bytes(bytes(data))
    report = check_pack(folder)
    assert not report.ok
    messages = [m for _, _, m in _problems(report)]
    assert not any("not in the pack" in m for m in messages), messages
    files = _problems(report, "files")
    assert files[0][1] == check.text_path(version.sha256)
    assert f"is not valid UTF-8 from byte {at}" in files[0][2] and "block 0" in files[0][2]
    sources = _problems(report, "sources")
    assert any("is not valid UTF-8" in m for _, _, m in sources)
    supported = history["claims"]["supported"].public_id
    spans = dict((w, m) for _, w, m in _problems(report, "spans"))
    assert "cannot be checked" in spans[f"{supported} bindings[0]"]
    assert "not valid UTF-8" in spans[f"{supported} bindings[0]"]


def test_one_changed_quote_is_named(folder, history):
    claim = history["claims"]["supported"].public_id
    rows, i = _claim_line(folder, claim)
    rows[i]["bindings"][0]["quote"] = SUPPORTED_QUOTE.replace("slows", "stops")
    write_jsonl(folder, check.CLAIMS_FILE, rows)
    report = check_pack(folder)
    messages = [m for _, _, m in _problems(report, "files")]
    assert any(f"({claim}): bindings[0].quote changed" in m for m in messages), messages
    spans = _problems(report, "spans")
    assert spans[0][1] == f"{claim} bindings[0]"
    assert "current stops" in spans[0][2]


def test_one_changed_offset_is_named(folder, history):
    claim = history["claims"]["supported"].public_id
    rows, i = _claim_line(folder, claim)
    rows[i]["bindings"][0]["start"] += 1
    write_jsonl(folder, check.CLAIMS_FILE, rows)
    report = check_pack(folder)
    messages = [m for _, _, m in _problems(report, "files")]
    assert any(f"({claim}): bindings[0].start changed" in m for m in messages), messages
    assert _problems(report, "spans")[0][1] == f"{claim} bindings[0]"


def test_one_changed_verdict_is_named(folder, history):
    claim = history["claims"]["contradicted"].public_id
    rows, i = _claim_line(folder, claim)
    rows[i]["verdicts"][-1]["label"] = "entailed"
    write_jsonl(folder, check.CLAIMS_FILE, rows)
    report = check_pack(folder)
    messages = [m for _, _, m in _problems(report, "files")]
    assert any(f"({claim}): verdicts[0].label changed" in m for m in messages), messages
    states = _problems(report, "states")
    assert states == [
        (
            "states",
            claim,
            "records contradicted/contradicted, but the five-state rules give "
            "supported/entailed (binding fresh, latest model verdict entailed 0.91 "
            f"(id {rows[i]['verdicts'][-1]['id']}))",
        )
    ]


def test_a_verdict_change_the_state_does_not_show_is_still_named(folder, history):
    claim = history["claims"]["supported"].public_id
    rows, i = _claim_line(folder, claim)
    rows[i]["verdicts"][-1]["confidence"] = 0.99
    write_jsonl(folder, check.CLAIMS_FILE, rows)
    report = check_pack(folder)
    assert [(c, w) for c, w, _ in _problems(report)] == [("files", check.CLAIMS_FILE)]
    assert f"({claim}): verdicts[0].confidence changed (now 0.99)" in _problems(report)[0][2]


def test_a_changed_manifest_fails_the_signature(folder):
    manifest = json.loads((folder / check.MANIFEST).read_text())
    manifest["workspace"]["name"] = "Someone else"
    (folder / check.MANIFEST).write_text(json.dumps(manifest, indent=2, sort_keys=True))
    report = check_pack(folder)
    assert _problems(report) == [
        (
            "signature",
            check.MANIFEST,
            f"the signature in {check.SIGNATURE} does not verify for key "
            f"{manifest['signing']['key_id']}: the manifest was changed after export, or was "
            "signed by another key",
        )
    ]


def test_a_changed_file_hash_in_the_manifest_is_named(folder):
    manifest = json.loads((folder / check.MANIFEST).read_text())
    entry = next(f for f in manifest["files"] if f["path"] == check.SOURCES_FILE)
    entry["sha256"] = "0" * 64
    (folder / check.MANIFEST).write_text(json.dumps(manifest, indent=2, sort_keys=True))
    report = check_pack(folder)
    assert [(c, w) for c, w, _ in _problems(report)] == [
        ("signature", check.MANIFEST),
        ("files", check.SOURCES_FILE),
    ]


def test_a_pack_signed_with_another_workspaces_key_fails(folder, workspace, other_workspace):
    """The manifest re-signed with another workspace's key: its own key no longer
    verifies it, and pinning the right workspace key exposes a re-signed pack."""
    body = (folder / check.MANIFEST).read_bytes()
    other = _signer(other_workspace)
    (folder / check.SIGNATURE).write_text(other.sign(body).hex() + "\n")
    report = check_pack(folder)
    assert [(c, w) for c, w, _ in _problems(report)] == [("signature", check.MANIFEST)]

    # A forger who also swaps in their own public key is caught by the pinned key.
    manifest = json.loads(body)
    manifest["signing"]["public_key"] = other.public_key.hex()
    manifest["signing"]["key_id"] = other.key_id
    body = json.dumps(manifest, indent=2, sort_keys=True).encode()
    (folder / check.MANIFEST).write_bytes(body)
    (folder / check.SIGNATURE).write_text(other.sign(body).hex() + "\n")
    assert check_pack(folder).ok  # self-consistent ...
    ours = WorkspaceSigningKey.objects.get(workspace=workspace).public_key
    pinned = check_pack(folder, public_key=ours)
    assert _problems(pinned) == [
        (
            "signature",
            check.MANIFEST,
            f"is signed for key {other.key_id}, not the pinned workspace key "
            f"{check.key_id(bytes.fromhex(ours))}",
        ),
        (
            "signature",
            check.MANIFEST,
            f"the signature in {check.SIGNATURE} does not verify for key "
            f"{check.key_id(bytes.fromhex(ours))}: the manifest was changed after export, or "
            "was signed by another key",
        ),
    ]


def test_the_sealed_key_opens_only_for_its_workspace_and_secret(
    workspace, other_workspace, settings
):
    key = signing_key_ensure(workspace=workspace)
    assert signing_key_ensure(workspace=workspace).pk == key.pk
    sealed = bytes(key.sealed_private_key)
    assert len(sealed) > 32 and bytes.fromhex(key.public_key) not in sealed
    with pytest.raises(signing.SigningKeyUnavailable):
        signing.unseal(
            sealed, secrets=[settings.SECRET_KEY], context=f"workspace:{other_workspace.pk}"
        )
    with pytest.raises(signing.SigningKeyUnavailable):
        signing.unseal(sealed, secrets=["another secret"], context=f"workspace:{workspace.pk}")
    # a rotated secret still opens it through SECRET_KEY_FALLBACKS
    old = settings.SECRET_KEY
    settings.SECRET_KEY, settings.SECRET_KEY_FALLBACKS = "rotated", [old]
    assert _signer(workspace).public_key.hex() == key.public_key


def test_the_checker_runs_with_the_standard_library_alone(pack, tmp_path):
    """The check.py inside the pack, copied where no project code is, run isolated
    (-I: no environment, no user site; -S: no site-packages)."""
    alone = tmp_path / "alone"
    alone.mkdir()
    with zipfile.ZipFile(pack) as archive:
        (alone / "check.py").write_bytes(archive.read(check.CHECKER_FILE))
    copy = alone / "pack.zip"
    shutil.copy(pack, copy)
    run = subprocess.run(
        [sys.executable, "-I", "-S", "check.py", "pack.zip"],
        cwd=alone,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "PASSED" in run.stdout
    # and it fails, naming the file, on a changed pack
    folder = unzip(copy, alone / "unzipped")
    (folder / check.SOURCES_FILE).write_bytes((folder / check.SOURCES_FILE).read_bytes() + b"\n")
    run = subprocess.run(
        [sys.executable, "-I", "-S", "check.py", "unzipped", "--json"],
        cwd=alone,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 1, run.stdout + run.stderr
    problems = json.loads(run.stdout)["problems"]
    assert [p["where"] for p in problems] == [check.SOURCES_FILE]
    # an unreadable pack is exit status 2
    run = subprocess.run(
        [sys.executable, "-I", "-S", "check.py", "missing.zip"], cwd=alone, capture_output=True
    )
    assert run.returncode == 2


def test_a_new_source_version_leaves_a_consistent_pack_at_once(history, workspace, tmp_path):
    """A new version demotes the claims bound to the old one in the same transaction
    (issue 39): the next pack already records them unverified / stale_source, which is
    what the checker's own five-state computation gives, with no read-time re-check."""
    from verifier.services.sources import source_upsert

    source = history["source"]
    source_upsert(workspace=workspace, ref=source.ref, text="An entirely different text.")
    report = check_pack(write_pack(workspace, tmp_path / "stale.zip"))
    assert report.ok, render_report(report)
    supported = history["claims"]["supported"]
    supported.refresh_from_db()
    assert (supported.state, supported.state_reason) == ("unverified", "stale_source")


def test_a_source_pack_holds_every_version_of_the_source(history, workspace, tmp_path):
    from verifier.audit_pack.scope import PackScope

    make_source(workspace, ref="source:elsewhere")
    folder = unzip(
        write_pack(
            workspace, tmp_path / "s.zip", PackScope(kind="source", source=history["source"].ref)
        ),
        tmp_path / "s",
    )
    assert {r["source"] for r in jsonl(folder, check.SOURCES_FILE)} == {"source:marrow_river"}
    assert len(jsonl(folder, check.CLAIMS_FILE)) == 5


def test_a_malformed_record_is_reported_not_a_crash(folder, history):
    claim = history["claims"]["supported"].public_id
    rows, i = _claim_line(folder, claim)
    rows[i]["bindings"][0]["version"] = "one"
    rows[i]["bindings"][0]["start"] = "x"
    write_jsonl(folder, check.CLAIMS_FILE, rows)
    sources = jsonl(folder, check.SOURCES_FILE)
    sources[0]["version"] = None
    write_jsonl(folder, check.SOURCES_FILE, sources)
    report = check_pack(folder)
    wheres = {(c, w) for c, w, _ in _problems(report)}
    assert ("states", claim) in wheres  # its record is malformed: named, not a crash
    assert ("sources", "source:marrow_river vNone") in wheres
    (folder / check.PACK_FILE).write_text("[1, 2]")
    wheres = {(c, w) for c, w, _ in _problems(check_pack(folder))}
    assert {("files", check.PACK_FILE), ("states", check.PACK_FILE)} <= wheres


def test_a_zip_that_holds_a_name_twice_fails(pack, history, tmp_path):
    """A forged claims file placed before the real one: ``zipfile`` reads the last entry
    of a name and ``unzip -n`` the first, so a pack naming a file twice proves nothing
    and fails (attack probe)."""
    claim = history["claims"]["supported"].public_id
    with zipfile.ZipFile(pack) as original:
        entries = [(info, original.read(info.filename)) for info in original.infolist()]
    rows = [
        json.loads(line)
        for line in dict((i.filename, d) for i, d in entries)[check.CLAIMS_FILE]
        .decode()
        .splitlines()
    ]
    forged = [{**row, "state": "contradicted"} if row["id"] == claim else row for row in rows]
    doubled = tmp_path / "doubled.zip"
    with zipfile.ZipFile(doubled, "w") as out, pytest.warns(UserWarning, match="Duplicate"):
        out.writestr(check.CLAIMS_FILE, "".join(json.dumps(r) + "\n" for r in forged))
        for info, data in entries:
            out.writestr(info, data)
    report = check_pack(doubled)
    assert not report.ok
    assert (
        "files",
        check.CLAIMS_FILE,
        "appears 2 times in the zip: a reader may take either copy",
    ) in _problems(report, "files")


def _forge_and_resign(folder: Path) -> str:
    """What a forger does (auditor walk M1): a source text changed and stored under its
    new hash, the records that name the hash, the fingerprints aside, and a manifest
    rebuilt over the new files and signed with the forger's own Ed25519 key. Returns the
    forger's key id."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

    sources = jsonl(folder, check.SOURCES_FILE)
    old = sources[0]["sha256"]
    data = (folder / check.text_path(old)).read_bytes().replace(b"wet years", b"dry years")
    new = hashlib.sha256(data).hexdigest()
    (folder / check.text_path(old)).unlink()
    (folder / check.text_path(new)).write_bytes(data)
    for row in sources:
        if row["sha256"] == old:
            row.update(sha256=new, text=check.text_path(new))
    write_jsonl(folder, check.SOURCES_FILE, sources)
    claims = jsonl(folder, check.CLAIMS_FILE)
    for claim in claims:
        for binding in claim["bindings"]:
            if binding["sha256"] == old:
                binding["sha256"] = new
    write_jsonl(folder, check.CLAIMS_FILE, claims)

    forger = Ed25519PrivateKey.generate()
    public = forger.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
    manifest = json.loads((folder / check.MANIFEST).read_bytes())
    manifest["signing"] = {
        "algorithm": "Ed25519",
        "public_key": public.hex(),
        "key_id": check.key_id(public),
    }
    manifest["files"] = [
        {
            "path": path.relative_to(folder).as_posix(),
            "sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
            "bytes": path.stat().st_size,
        }
        for path in sorted(folder.rglob("*"))
        if path.is_file() and path.name not in (check.MANIFEST, check.SIGNATURE)
    ]
    body = json.dumps(manifest, ensure_ascii=False, sort_keys=True, indent=2).encode()
    (folder / check.MANIFEST).write_bytes(body)
    (folder / check.SIGNATURE).write_text(forger.sign(body).hex() + "\n")
    return check.key_id(public)


def test_an_unpinned_pass_says_the_signer_was_not_pinned(folder, workspace, capsys):
    """A pack re-signed with a forger's own key is consistent with itself: without a
    pinned key the report must not say it is signed by the workspace key, nor pass
    unconditionally; with the workspace's key it fails (auditor walk M1)."""
    forger_id = _forge_and_resign(folder)
    report = check_pack(folder)
    assert report.ok and not report.signer_pinned
    text = render_report(report)
    assert "signed by the workspace key" not in text
    assert (
        "[ok]   signature       manifest.json is signed by the key the pack carries "
        f"(key id {forger_id}), NOT pinned" in text
    )
    assert "PASSED: " not in text
    last = text.rstrip().splitlines()[-1]
    assert last.startswith("PASSED, but the signer was not pinned: ")
    assert forger_id in last and "--public-key" in last
    # the JSON says so too, and the exit status stays 0 (docs/audit-pack.md)
    assert check.main([str(folder), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["signer_pinned"] is False

    ours = WorkspaceSigningKey.objects.get(workspace=workspace).public_key
    pinned = check_pack(folder, public_key=ours)
    assert not pinned.ok and pinned.signer_pinned
    assert render_report(pinned).rstrip().splitlines()[-1] == "FAILED: 2 problems."
    assert check.main([str(folder), "--public-key", ours]) == 1


def test_a_pinned_pass_names_the_pinned_key(pack, workspace, capsys):
    key = WorkspaceSigningKey.objects.get(workspace=workspace).public_key
    report = check_pack(pack, public_key=key)
    assert report.ok and report.signer_pinned
    text = render_report(report)
    kid = check.key_id(bytes.fromhex(key))
    assert f"manifest.json is signed by the pinned workspace key (key id {kid})" in text
    assert text.rstrip().splitlines()[-1] == (
        "PASSED: the pack is intact and consistent, and signed by the pinned workspace key."
    )
    assert check.main([str(pack), "--public-key", key, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["signer_pinned"] is True


def test_a_wrong_size_in_the_manifest_is_named_as_the_manifests_entry(folder):
    """Same hash, another size: the file is as exported, the manifest's entry is what
    disagrees (auditor walk L3), not "changed: SHA-256 X…, the manifest says X…"."""
    manifest = json.loads((folder / check.MANIFEST).read_text())
    entry = next(f for f in manifest["files"] if f["path"] == check.README_FILE)
    size = entry["bytes"]
    entry["bytes"] = size + 1
    (folder / check.MANIFEST).write_text(json.dumps(manifest, indent=2, sort_keys=True))
    report = check_pack(folder)
    files = _problems(report, "files")
    assert files == [
        (
            "files",
            check.README_FILE,
            "the manifest's entry disagrees with the file: it has the listed SHA-256 "
            f"{entry['sha256'][:16]}…, but the manifest lists {size + 1} bytes and the file "
            f"has {size}",
        )
    ]
    assert "changed:" not in files[0][2]


def test_claims_and_sources_swapped_are_named_as_records_of_the_wrong_kind(folder, history):
    """The two JSONL files swapped (auditor walk L3): each line is named as not a record
    of its file, and as a record of the other kind, not as "source:x vNone: its text
    texts/None.txt is missing" or "None: records None/None"."""
    claims = (folder / check.CLAIMS_FILE).read_bytes()
    sources = (folder / check.SOURCES_FILE).read_bytes()
    (folder / check.CLAIMS_FILE).write_bytes(sources)
    (folder / check.SOURCES_FILE).write_bytes(claims)
    report = check_pack(folder)
    messages = [m for _, _, m in _problems(report)]
    assert not any("None" in m for m in messages), messages
    assert not any(w.startswith("None") or " vNone" in w for _, w, _ in _problems(report))
    states = _problems(report, "states")
    assert states == [
        (
            "states",
            f"{check.CLAIMS_FILE} line 1",
            "is not a claim record: it lacks id, state, state_reason, bindings, verdicts and "
            "state_events (it is a source version record, source:marrow_river v1: is "
            f"{check.SOURCES_FILE} in the place of {check.CLAIMS_FILE}?)",
        )
    ]
    found = _problems(report, "sources")
    assert len(found) == 5
    first = history["claims"]["supported"].public_id
    line = next(
        i for i, row in enumerate(jsonl(folder, check.SOURCES_FILE), 1) if row["id"] == first
    )
    assert (
        "sources",
        f"{check.SOURCES_FILE} line {line}",
        "is not a source version record: it lacks version, sha256 and chars (it is a claim "
        f"record, {first}: is {check.CLAIMS_FILE} in the place of {check.SOURCES_FILE}?)",
    ) in found
    assert report.counts["claims"] == 0 and report.counts["source_versions"] == 0
