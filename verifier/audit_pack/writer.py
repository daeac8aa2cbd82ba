"""Writes an audit pack into a zip as its records arrive, then signs its manifest.

Nothing holds the whole pack: each record is written to its zip member as it comes (the
zip goes to any writable object, a file or a streaming HTTP response's buffer), the
per-record fingerprints go to a spooled temporary file (in memory up to
``DIGESTS_IN_MEMORY`` bytes, on disk past it), and a member's SHA-256 is computed while it
is written. The manifest lists every file with its SHA-256 and size; ``manifest.sig`` is
the Ed25519 signature of the manifest's exact bytes. The format's rules (names,
fingerprints, JSON lines) live in ``verifier.audit_pack.check``, the checker that
ships in the pack, so writer and checker cannot drift apart.
"""

from __future__ import annotations

import functools
import hashlib
import json
import tempfile
import zipfile
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import IO, Any, Final

from verifier.audit_pack import check

# zlib level 1: a pack is mostly JSON and prose, which level 1 already shrinks about 3x,
# at several times the speed of the default level 6 (bench/audit_pack.py).
COMPRESS_LEVEL: Final = 1
DIGESTS_IN_MEMORY: Final = 8 * 1024 * 1024
CHECKER_SOURCE: Final = Path(check.__file__)


@functools.cache
def checker_bytes() -> bytes:
    """The standalone checker's exact bytes: what every pack carries as ``check.py`` and
    what ``GET /connect/v1/audit-pack/checker`` publishes outside any pack."""
    return CHECKER_SOURCE.read_bytes()


def checker_sha256() -> str:
    """The SHA-256 (hex) of :func:`checker_bytes`, published beside the public key so an
    auditor can tell whether a pack's ``check.py`` is the one Spanproof ships."""
    return hashlib.sha256(checker_bytes()).hexdigest()


README: Final = """Spanproof audit pack
====================

This archive holds claims, the spans of the source versions that support them, the full
text of every source version they cite, their verdict and state histories and the rules
in force, with a manifest of every file's SHA-256 signed by the workspace's Ed25519 key.

Check it with Python 3.9 or later and nothing else installed, and with a checker you
trust. The check.py in this archive travelled with it: whoever could change the pack
could change check.py too, so that it passes anything. Either use a copy of check.py that
you got elsewhere (Spanproof serves it at GET /connect/v1/audit-pack/checker), or first
compare the SHA-256 of this one with the checker SHA-256 the workspace publishes (in the
public-key answer, GET /connect/v1/audit-pack/public-key, as checker_sha256):

    sha256sum check.py            (or: shasum -a 256 check.py)

Then:

    python3 check.py .            (in the unzipped folder)
    python3 check.py pack.zip     (or on the archive itself)

Pin the workspace's key to rule out a re-signed pack (ask the workspace for its public
key; Spanproof serves it at GET /connect/v1/audit-pack/public-key). Without it, a pass
only shows that the pack is consistent with itself ("PASSED, but the signer was not
pinned"):

    python3 check.py pack.zip --public-key <64 hex digits>

Files: pack.json (what the pack is: workspace, scope, state rules, rule sets in force),
claims.jsonl (one claim per line with its bindings, verdicts and state events),
sources.jsonl (one source version per line), texts/<sha256>.txt (each version's exact
text, UTF-8), trace.json (for a trace's pack), digests.jsonl (per-record fingerprints
that say where a changed file changed), manifest.json and manifest.sig.
"""

Signer = Callable[[bytes], bytes]


class _Member:
    """One zip member being written, with its SHA-256 and size."""

    def __init__(self, writer: PackWriter, name: str) -> None:
        self.name = name
        self._writer = writer
        self._handle = writer.zip.open(name, "w", force_zip64=True)
        self._hash = hashlib.sha256()
        self._size = 0

    def write(self, data: bytes) -> None:
        self._handle.write(data)
        self._hash.update(data)
        self._size += len(data)

    def close(self) -> None:
        self._handle.close()
        self._writer.files.append(
            {"path": self.name, "sha256": self._hash.hexdigest(), "bytes": self._size}
        )


class JsonLines:
    """A JSONL member: ``write`` one record per line, each fingerprinted."""

    def __init__(self, writer: PackWriter, name: str) -> None:
        self._writer = writer
        self._member = _Member(writer, name)
        self.lines = 0

    def write(self, record: Mapping[str, Any], *, record_id: str = "") -> None:
        self.lines += 1
        self._member.write(check.dumps_line(record).encode("utf-8") + b"\n")
        self._writer.digest(self._member.name, self.lines, record, record_id)

    def close(self) -> None:
        self._member.close()


class PackWriter:
    """A pack being written into ``sink``; call :meth:`finish` once to sign and close it."""

    def __init__(self, sink: IO[bytes], *, compresslevel: int = COMPRESS_LEVEL) -> None:
        self.zip = zipfile.ZipFile(
            sink, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=compresslevel
        )
        self.files: list[dict[str, Any]] = []
        # Closed by finish() or abort(): it lives as long as the pack being written.
        self._digests = tempfile.SpooledTemporaryFile(max_size=DIGESTS_IN_MEMORY)  # noqa: SIM115
        self._texts: set[str] = set()

    def digest(self, name: str, line: int, record: Any, record_id: str = "") -> None:
        shape, fields = check.record_fingerprint(record)
        row = {"file": name, "line": line, "id": record_id, "shape": shape, "fields": fields}
        self._digests.write(check.dumps_line(row).encode("utf-8") + b"\n")

    def jsonl(self, name: str) -> JsonLines:
        return JsonLines(self, name)

    def write_json(self, name: str, document: Mapping[str, Any]) -> None:
        member = _Member(self, name)
        member.write(
            json.dumps(document, ensure_ascii=False, sort_keys=True, indent=2).encode("utf-8")
            + b"\n"
        )
        member.close()
        self.digest(name, 0, document)

    def write_text(self, *, sha256: str, text: str) -> str:
        """A source version's text, stored once per SHA-256; returns its path."""
        name = check.text_path(sha256)
        if name in self._texts:
            return name
        self._texts.add(name)
        member = _Member(self, name)
        member.write(text.encode("utf-8"))
        member.close()
        row = {
            "file": name,
            "line": 0,
            "chars": len(text),
            "chunks": check.text_fingerprint(text),
        }
        self._digests.write(check.dumps_line(row).encode("utf-8") + b"\n")
        return name

    def _write_bytes(self, name: str, data: bytes) -> None:
        member = _Member(self, name)
        member.write(data)
        member.close()

    def finish(
        self,
        *,
        workspace: Mapping[str, str],
        created_at: str,
        public_key: bytes,
        sign: Signer,
    ) -> dict[str, Any]:
        """Add the fingerprints, the checker and the README, then the manifest and its
        signature; close the zip. Returns the manifest."""
        self._digests.seek(0)
        member = _Member(self, check.DIGESTS_FILE)
        for block in iter(lambda: self._digests.read(1 << 20), b""):
            member.write(block)
        member.close()
        self._digests.close()
        self._write_bytes(check.CHECKER_FILE, checker_bytes())
        self._write_bytes(check.README_FILE, README.encode("utf-8"))
        manifest = {
            "format": check.FORMAT,
            "format_version": check.FORMAT_VERSION,
            "workspace": dict(workspace),
            "created_at": created_at,
            "signing": {
                "algorithm": check.SIGNATURE_ALGORITHM,
                "public_key": public_key.hex(),
                "key_id": check.key_id(public_key),
            },
            "files": sorted(self.files, key=lambda f: f["path"]),
        }
        body = json.dumps(manifest, ensure_ascii=False, sort_keys=True, indent=2).encode("utf-8")
        with self.zip.open(check.MANIFEST, "w") as handle:
            handle.write(body)
        with self.zip.open(check.SIGNATURE, "w") as handle:
            handle.write(sign(body).hex().encode("ascii") + b"\n")
        self.zip.close()
        return manifest

    def abort(self) -> None:
        self._digests.close()
