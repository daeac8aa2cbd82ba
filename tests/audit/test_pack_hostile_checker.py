"""The offline checker on packs from a hostile party: packs the project's own writer made,
then altered (and re-signed with a forger's key, so that only the altered part can fail),
and hand-made archives. Each is run as an auditor runs it: ``python -I -S check.py``
from a folder holding only the checker and the pack. It never ends in a traceback, never
passes an altered pack, and refuses an archive bomb before unpacking anything."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import stat
import subprocess
import sys
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tests.verifier.audit_pack.conftest import history, unzip, write_pack  # noqa: F401
from verifier.audit_pack import check
from verifier.audit_pack.writer import CHECKER_SOURCE
from verifier.services.audit_pack import signing_key_ensure

pytestmark = pytest.mark.django_db

FORGER = Ed25519PrivateKey.from_private_bytes(bytes(range(32)))
FORGER_PUBLIC = FORGER.public_key().public_bytes(
    serialization.Encoding.Raw, serialization.PublicFormat.Raw
)
Files = dict[str, bytes]


@pytest.fixture
def pack(history, workspace, tmp_path) -> Path:  # noqa: F811
    return write_pack(workspace, tmp_path / "pack.zip")


@pytest.fixture
def files(pack) -> Files:
    with zipfile.ZipFile(pack) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


@pytest.fixture
def pinned(workspace) -> str:
    return signing_key_ensure(workspace=workspace).public_key


def text_name(files: Files) -> str:
    return next(name for name in files if name.startswith(check.TEXT_DIR))


def claims(files: Files) -> list[dict]:
    return [json.loads(line) for line in files[check.CLAIMS_FILE].decode().split("\n") if line]


def put_claims(files: Files, rows: list[dict]) -> None:
    files[check.CLAIMS_FILE] = b"".join(
        json.dumps(row, sort_keys=True, ensure_ascii=False).encode("utf-8", "surrogatepass") + b"\n"
        for row in rows
    )


def resign(files: Files, *, alter: Callable[[dict], None] | None = None) -> Files:
    """``files`` with a manifest listing each of them as it now is, signed by the forger:
    a pack consistent with itself but for what the test altered."""
    manifest = json.loads(files[check.MANIFEST])
    manifest["signing"]["public_key"] = FORGER_PUBLIC.hex()
    manifest["signing"]["key_id"] = check.key_id(FORGER_PUBLIC)
    manifest["files"] = [
        {"path": name, "sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data)}
        for name, data in sorted(files.items())
        if name not in (check.MANIFEST, check.SIGNATURE)
    ]
    if alter is not None:
        alter(manifest)
    body = json.dumps(manifest, sort_keys=True, indent=2).encode()
    return {
        **files,
        check.MANIFEST: body,
        check.SIGNATURE: FORGER.sign(body).hex().encode() + b"\n",
    }


def write_zip(files: Files, path: Path, *, compression: int = zipfile.ZIP_DEFLATED) -> Path:
    with zipfile.ZipFile(path, "w", compression) as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return path


def run_checker(pack: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The checker as an auditor runs it, standard library only, beside the pack."""
    alone = pack.parent
    shutil.copy(CHECKER_SOURCE, alone / "check.py")
    run = subprocess.run(
        [sys.executable, "-I", "-S", "check.py", pack.name, *args],
        cwd=alone,
        capture_output=True,
        text=True,
        encoding="utf-8",
        errors="backslashreplace",
        timeout=300,
    )
    assert "Traceback" not in run.stdout + run.stderr, run.stdout + run.stderr
    return run


def problems(run: subprocess.CompletedProcess[str]) -> list[tuple[str, str]]:
    return [(p["where"], p["message"]) for p in json.loads(run.stdout)["problems"]]


def test_an_archive_bomb_is_refused_before_anything_is_unpacked(files, tmp_path):
    """80 MiB of one byte, deflated to about 80 KB: the manifest lists its true SHA-256,
    so only reading it all could tell. The checker refuses it from the zip's directory."""
    size = 80 * 1024 * 1024
    block = b" " * (1024 * 1024)
    digest = hashlib.sha256()
    for _ in range(size // len(block)):
        digest.update(block)
    files = {**files, check.CLAIMS_FILE: b""}

    def lists_the_bomb(manifest: dict) -> None:
        for entry in manifest["files"]:
            if entry["path"] == check.CLAIMS_FILE:
                entry.update(sha256=digest.hexdigest(), bytes=size)

    forged = resign(files, alter=lists_the_bomb)
    path = tmp_path / "bomb.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in forged.items():
            if name != check.CLAIMS_FILE:
                archive.writestr(name, data)
        with archive.open(check.CLAIMS_FILE, "w", force_zip64=True) as member:
            for _ in range(size // len(block)):
                member.write(block)
    assert path.stat().st_size < size // 500

    run = run_checker(path)

    assert run.returncode == 2, run.stdout + run.stderr
    assert "is an archive bomb, not a pack" in run.stderr
    assert f"the largest, {check.CLAIMS_FILE}, to {size:,} bytes" in run.stderr
    assert "Nothing was unpacked" in run.stderr


def test_a_pack_zipped_again_without_compression_still_passes(files, pinned, tmp_path):
    path = write_zip(files, tmp_path / "stored.zip", compression=zipfile.ZIP_STORED)
    run = run_checker(path, "--public-key", pinned)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "PASSED: the pack is intact" in run.stdout


def test_a_signed_pack_whose_text_became_a_symbolic_link_fails(files, pinned, tmp_path):
    """The workspace's own pack, signature intact, with one text's zip entry marked as a
    symbolic link: its bytes (the link's target, for unzip) are the text's, so every
    hash matched and a pinned check passed, while the folder unzip makes holds a link."""
    name = text_name(files)
    path = tmp_path / "link.zip"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for member, data in files.items():
            info = zipfile.ZipInfo(member)
            if member == name:
                info.create_system = 3
                info.external_attr = (stat.S_IFLNK | 0o777) << 16
            archive.writestr(info, data)

    run = run_checker(path, "--public-key", pinned, "--json")

    assert run.returncode == 1, run.stdout + run.stderr
    assert (
        name,
        "is a symbolic link, not a file: unzip would make it point elsewhere, "
        "and no pack holds one",
    ) in problems(run)


def test_an_unzipped_pack_does_not_follow_a_symbolic_link(pack, pinned, tmp_path):
    """A link in the folder to a file outside it (here with the very bytes of the text,
    so that reading through it passed) is named, not read."""
    folder = unzip(pack, tmp_path / "folder")
    text = next((folder / "texts").iterdir())
    outside = tmp_path / "outside.txt"
    shutil.move(text, outside)
    os.symlink(outside, text)

    run = run_checker(folder, "--public-key", pinned, "--json")

    assert run.returncode == 1, run.stdout + run.stderr
    where = f"texts/{text.name}"
    assert (
        where,
        f"is a symbolic link (to {str(outside)!r}), not a file: the checker does not follow "
        "it, and no pack holds one",
    ) in problems(run)
    assert (where, "is listed in the manifest but missing from the pack") in problems(run)


@pytest.mark.parametrize("name", ["../evil.txt", "/etc/evil.txt", "texts/./evil.txt"])
def test_a_member_named_outside_the_pack_fails(files, tmp_path, name):
    """Listed in the manifest and signed, it checked out: unzip would write it elsewhere."""
    path = write_zip(resign({**files, name: b"evil"}), tmp_path / "escape.zip")
    run = run_checker(path, "--json")
    assert run.returncode == 1, run.stdout + run.stderr
    assert [where for where, _ in problems(run)] == [name]
    assert "is not a plain path inside the pack" in problems(run)[0][1]


def test_a_file_listed_twice_in_the_manifest_fails(files, tmp_path):
    """Readers differ on which entry counts; the checker took the last, which matched."""

    def twice(manifest: dict) -> None:
        entry = next(e for e in manifest["files"] if e["path"] == check.CLAIMS_FILE)
        manifest["files"].insert(0, {**entry, "sha256": "0" * 64})

    path = write_zip(resign(files, alter=twice), tmp_path / "twice.zip")
    run = run_checker(path, "--json")
    assert run.returncode == 1, run.stdout + run.stderr
    assert problems(run) == [(check.CLAIMS_FILE, "is listed 2 times in the manifest")]


def _first_claim_line(files: Files, change: Callable[[str], str]) -> Files:
    first, rest = files[check.CLAIMS_FILE].decode().split("\n", 1)
    return {
        **files,
        check.CLAIMS_FILE: change(first).encode("utf-8", "surrogatepass") + b"\n" + rest.encode(),
    }


JSON_NO_PACK_WRITES = {
    # the checker read these, and either judged from them or crashed
    "NaN": (
        lambda line: line.replace('"confidence":0.93', '"confidence":NaN', 1),
        "is not JSON: NaN is not a JSON number",
    ),
    "a number too large": (
        lambda line: line.replace('"version":1', '"version":1e400', 1),
        "is not JSON: the number 1e400 is too large for JSON",
    ),
    "a number with 5,000 digits": (
        lambda line: line.replace('"start":48', '"start":' + "4" * 5000, 1),
        f"is not JSON: a number has more than {check.MAX_INT_DIGITS} digits",
    ),
    "a key twice": (
        lambda line: line[:-1] + ',"state":"supported"}',
        'is not JSON: the key "state" appears twice in one object',
    ),
    "deep nesting": (
        lambda line: line[:-1] + ',"x":' + "[" * 100_000 + "]" * 100_000 + "}",
        f"is not JSON: it is nested more than {check.MAX_JSON_DEPTH} levels deep",
    ),
}


@pytest.mark.parametrize("kind", list(JSON_NO_PACK_WRITES))
def test_json_no_pack_writes_is_named_not_read(files, tmp_path, kind):
    change, said = JSON_NO_PACK_WRITES[kind]
    altered = _first_claim_line(files, change)
    assert altered != files
    path = write_zip(resign(altered), tmp_path / "json.zip")
    run = run_checker(path, "--json")
    assert run.returncode == 1, run.stdout + run.stderr
    assert problems(run) == [(f"{check.CLAIMS_FILE} line 1", said)]


def test_a_line_that_is_not_utf8_is_named(files, tmp_path):
    altered = {**files, check.CLAIMS_FILE: files[check.CLAIMS_FILE] + b'{"id":"\xff"}\n'}
    path = write_zip(resign(altered), tmp_path / "bytes.zip")
    run = run_checker(path, "--json")
    assert run.returncode == 1, run.stdout + run.stderr
    assert problems(run) == [(f"{check.CLAIMS_FILE} line 6", "is not UTF-8 from byte 7")]


@pytest.mark.parametrize(
    ("start", "end"), [(False, True), (48.0, 89.0), ("48", "89")], ids=["bool", "float", "str"]
)
def test_offsets_that_are_not_integers_are_named(files, tmp_path, start, end):
    """``false``/``true`` slice as 0/1: a quote of the text's first character bound at
    [false, true) checked out as a fresh span."""
    rows = claims(files)
    text = files[text_name(files)].decode()
    binding = rows[0]["bindings"][0]
    binding.update(start=start, end=end)
    if start is False:
        binding["quote"] = text[0:1]
    put_claims(files, rows)
    path = write_zip(resign(files), tmp_path / "offsets.zip")
    run = run_checker(path, "--json")
    assert run.returncode == 1, run.stdout + run.stderr
    said = (
        f"offsets {json.dumps(start)} and {json.dumps(end)} are not whole numbers (a pack "
        "writes each offset as a JSON integer)"
    )
    assert (f"{rows[0]['id']} bindings[0]", said) in problems(run)


@pytest.mark.parametrize("as_json", [False, True], ids=["text", "json"])
def test_a_lone_surrogate_in_a_quote_is_shown_escaped(files, tmp_path, as_json):
    """A JSON ``\\ud800`` decodes to a character no UTF-8 output can hold: printing the
    report that quotes it ended in a traceback."""
    rows = claims(files)
    rows[0]["bindings"][0]["quote"] = "abc\ud800def"
    put_claims(files, rows)
    path = write_zip(resign(files), tmp_path / "surrogate.zip")
    run = run_checker(path, *(["--json"] if as_json else []))
    assert run.returncode == 1, run.stdout + run.stderr
    assert "abc\\ud800def" in run.stdout  # an escape, which JSON reads back as it was
    if as_json:
        assert any("abc\ud800def" in message for _, message in problems(run))


@pytest.mark.parametrize(
    ("flag", "method", "said"),
    [
        (0x1, zipfile.ZIP_DEFLATED, "is encrypted in the zip; a pack never is"),
        (0, 99, "is compressed with zip method 99, which this checker does not read"),
    ],
    ids=["encrypted", "unknown-method"],
)
def test_a_member_zip_cannot_read_is_named(files, tmp_path, flag, method, said):
    path = write_zip(files, tmp_path / "method.zip")
    data = bytearray(path.read_bytes())
    at = data.find(b"PK\x01\x02")  # the first central-directory entry
    data[at + 8] |= flag
    data[at + 10 : at + 12] = method.to_bytes(2, "little")
    path.write_bytes(bytes(data))
    run = run_checker(path)
    assert run.returncode == 2, run.stdout + run.stderr
    assert said in run.stderr


def test_a_fuzzy_quote_too_long_to_compare_is_named(files, tmp_path):
    """A 40,000-character fuzzy quote over a 40,000-character span: the comparison's cost
    is the product of the lengths, which a forged pack can make take hours."""
    text = "ab" * 20_000
    sha = hashlib.sha256(text.encode()).hexdigest()
    sources = [json.loads(line) for line in files[check.SOURCES_FILE].decode().splitlines()]
    big = {**sources[0], "source": "source:big", "version": 1, "sha256": sha}
    big.update(chars=len(text), current=True, text=check.text_path(sha))
    files[check.SOURCES_FILE] += (json.dumps(big, sort_keys=True) + "\n").encode()
    files[check.text_path(sha)] = text.encode()
    rows = claims(files)
    rows[0]["bindings"][0].update(
        source="source:big", sha256=sha, start=0, end=len(text), quote="ba" * 20_000
    )
    rows[0]["bindings"][0]["match"] = "fuzzy"
    put_claims(files, rows)
    path = write_zip(resign(files), tmp_path / "fuzzy.zip")
    run = run_checker(path, "--json")
    assert run.returncode == 1, run.stdout + run.stderr
    assert (
        f"{rows[0]['id']} bindings[0]",
        "cannot be checked: its fuzzy quote and the span at [0, 40000) are too long to "
        f"compare (their lengths multiply past {check.FUZZY_MAX_PAIR:,})",
    ) in problems(run)


def _bad_digest_lines(files: Files) -> None:
    rows = [json.loads(line) for line in files[check.DIGESTS_FILE].decode().splitlines()]
    for row in rows:
        if row["file"] == check.CLAIMS_FILE:
            row.update(line=str(row["line"]), fields=[1, 2])
    files[check.DIGESTS_FILE] = "".join(json.dumps(r) + "\n" for r in rows).encode()


@pytest.mark.parametrize(
    ("alter", "said"),
    [
        (lambda m: m.update(files=5), (check.MANIFEST, "has no list of files")),
        (lambda m: m.update(signing=[1]), (check.MANIFEST, "names no Ed25519 signing key")),
        (lambda m: m["files"].append("claims.jsonl"), None),
    ],
    ids=["files-not-a-list", "signing-not-an-object", "entry-not-an-object"],
)
def test_a_manifest_of_the_wrong_shape_is_named(files, tmp_path, alter, said):
    path = write_zip(resign(files, alter=alter), tmp_path / "shape.zip")
    run = run_checker(path, "--json")
    assert run.returncode == 1, run.stdout + run.stderr
    if said is None:
        said = (check.MANIFEST, 'lists "\\"claims.jsonl\\"", which names no file')
    assert said in problems(run)


def test_forged_fingerprints_and_a_workspace_of_the_wrong_shape_are_no_crash(files, tmp_path):
    _bad_digest_lines(files)
    forged = resign(files, alter=lambda m: m.update(workspace="not an object"))
    forged[check.CLAIMS_FILE] += b"\n"  # changed after signing: the fingerprints are read
    run = run_checker(write_zip(forged, tmp_path / "digests.zip"))
    assert run.returncode == 1, run.stdout + run.stderr
    assert f"- {check.CLAIMS_FILE}: it has 6 lines" in run.stdout
