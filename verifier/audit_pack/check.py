#!/usr/bin/env python3
"""Check a Spanproof audit pack without Spanproof: one file, Python 3.9+, standard library only.

    python3 check.py PACK                      # PACK: the .zip, or the folder it unzips to
    python3 check.py PACK --public-key HEX     # pin the workspace key (recommended)
    python3 check.py PACK --json               # the findings as JSON
    python -m verifier.audit_pack.check PACK   # the same, from a Spanproof checkout

It re-checks, and names every mismatch it finds:

1. the signature: ``manifest.sig`` is an Ed25519 signature of the exact bytes of
   ``manifest.json`` by the workspace key (verified here in pure Python, RFC 8032);
2. the files: each file's SHA-256 and size are the ones the manifest lists, and no file is
   missing or added; where a file differs, ``digests.jsonl`` (itself listed in the signed
   manifest) tells which record and which field changed, or which characters of a text;
3. the source versions: every text hashes to the SHA-256 recorded for its version;
4. the spans: every bound quote sits in its version's text at its code-point offsets,
   under its match kind (exact; normalized; fuzzy with similarity >= the floor);
5. the states: each claim's state events chain from the initial state to the state the
   claim records, and that state is what the five-state rules give for the claim's
   evidence and verdict history under the policy the pack records (a claim with no state
   event yet, exported while its job still ran, is in the initial state and has nothing
   to recompute).

Exit status: 0 when everything checks out, 1 when anything does not (the report lists each
problem), 2 when the pack cannot be read at all (among them an archive bomb, refused
before anything is unpacked). A pack is read as hostile input: nothing is written to disk,
links are not followed, JSON is read strictly, and what it cannot read it says in words.
Without ``--public-key``, 0 means the pack is intact and consistent with itself, not that
the workspace signed it (a forger can re-sign a changed pack with a key of their own): the
report says "PASSED, but the signer was not pinned" and ``--json`` gives
``"signer_pinned": false``. The format is documented in ``docs/audit-pack.md`` of
Spanproof; this file is the reference for how it is checked. Use a copy of this file you
trust (``GET /connect/v1/audit-pack/checker`` serves it, with its SHA-256), not only the
one inside the pack you are checking.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import re
import stat
import sys
import unicodedata
import zipfile
import zlib
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# --- the format --------------------------------------------------------------------------

FORMAT = "spanproof-audit-pack"
FORMAT_VERSION = 1
MANIFEST = "manifest.json"
SIGNATURE = "manifest.sig"
PACK_FILE = "pack.json"
CLAIMS_FILE = "claims.jsonl"
SOURCES_FILE = "sources.jsonl"
DIGESTS_FILE = "digests.jsonl"
TRACE_FILE = "trace.json"
CHECKER_FILE = "check.py"
README_FILE = "README.txt"
TEXT_DIR = "texts/"
# ``digests.jsonl`` gives a fingerprint per this many code points of each text.
TEXT_CHUNK_CHARS = 4096
SIGNATURE_ALGORITHM = "Ed25519"

STATES = ("supported", "inferred", "unverified", "contradicted", "excluded")
INITIAL_STATE = ("unverified", "not_judged")


# --- what a pack may make the checker do ---------------------------------------------------
# A pack may come from anyone, so reading one is bounded: a zip whose files would expand to
# more than MAX_EXPANSION times the archive's own size (past EXPANSION_ALLOWED bytes in
# all) is an archive bomb, refused before anything is unpacked (a pack expands about 3 to
# 10 times); JSON nested deeper than MAX_JSON_DEPTH (a pack's records are a few levels
# deep) is not read; and a fuzzy quote is compared only while the quote's and the span's
# lengths (folded) multiply to at most FUZZY_MAX_PAIR (the comparison's cost).
MAX_EXPANSION = 100
EXPANSION_ALLOWED = 64 * 1024 * 1024
MAX_JSON_DEPTH = 64
MAX_INT_DIGITS = 100
FUZZY_MAX_PAIR = 10**9
# The zip methods a pack may use: the writer's (deflate), or stored / bzip2 / lzma for a
# pack an auditor re-zipped.
ZIP_METHODS = (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED, zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA)


def _not_a_number(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _finite(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        raise ValueError(f"the number {text[:40]} is too large for JSON")
    return value


def _integer(text: str) -> int:
    # a pack's integers (ids, offsets, sizes) have a few digits; turning a long run of
    # digits into an int takes time growing with its square on a Python without the
    # 3.11 digit limit
    if len(text) > MAX_INT_DIGITS:
        raise ValueError(f"a number has more than {MAX_INT_DIGITS} digits")
    return int(text)


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            # readers differ on which copy they keep (Python's json the last, others the
            # first): a pack never writes a key twice
            raise ValueError(
                f"the key {json.dumps(key, ensure_ascii=False)[:80]} appears twice in one object"
            )
        out[key] = value
    return out


def loads(data: str | bytes) -> Any:
    """JSON as the pack writes it, read strictly: no NaN or Infinity, no number too large
    for a float or longer than MAX_INT_DIGITS digits, no key twice in an object, nesting
    at most MAX_JSON_DEPTH deep. Anything else is a ValueError (which the checks report as
    "not JSON"), never a crash."""
    try:
        value = json.loads(
            data,
            parse_constant=_not_a_number,
            parse_float=_finite,
            parse_int=_integer,
            object_pairs_hook=_unique_keys,
        )
    except RecursionError:
        raise ValueError(f"it is nested more than {MAX_JSON_DEPTH} levels deep") from None
    stack = [(value, 1)] if isinstance(value, (dict, list)) else []
    while stack:
        item, depth = stack.pop()
        children = item.values() if isinstance(item, dict) else item
        if depth > MAX_JSON_DEPTH:
            raise ValueError(f"it is nested more than {MAX_JSON_DEPTH} levels deep")
        stack.extend((c, depth + 1) for c in children if isinstance(c, (dict, list)))
    return value


def dumps_line(record: Any) -> str:
    """One JSONL line as the pack writes it (keys sorted, UTF-8, no spaces)."""
    return json.dumps(record, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def key_id(public_key: bytes) -> str:
    """A short name for a public key: the first 16 hex digits of its SHA-256."""
    return hashlib.sha256(public_key).hexdigest()[:16]


def text_path(sha256: str) -> str:
    """Texts are stored by their SHA-256: ``texts/<sha256>.txt``."""
    return TEXT_DIR + sha256 + ".txt"


# --- fingerprints: where a changed file changed --------------------------------------------
# The file hashes in the signed manifest are what make a change detectable. The
# fingerprints in digests.jsonl only say where a change is: a CRC-32 per field of each
# record (and per TEXT_CHUNK_CHARS characters of each text), compared only for a file
# whose hash no longer matches.


def _scalar(value: Any) -> str:
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, str):
        return '"' + value
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, dict):
        return "{}"
    return "[]"


def leaves(value: Any, prefix: str = "") -> Iterator[tuple[str, Any]]:
    """``(path, value)`` for every leaf of a JSON value: ``a.b[2].c``; empty objects and
    lists are leaves themselves."""
    if isinstance(value, dict) and value:
        for key in sorted(value):
            yield from leaves(value[key], prefix + "." + key if prefix else key)
    elif isinstance(value, list) and value:
        for i, item in enumerate(value):
            yield from leaves(item, f"{prefix}[{i}]")
    else:
        yield prefix, value


def _crc(text: str) -> str:
    return f"{zlib.crc32(text.encode('utf-8', 'surrogatepass')):08x}"


def record_fingerprint(record: Any) -> tuple[str, str]:
    """``(shape, fields)``: a CRC-32 of the record's leaf paths, and one CRC-32 (8 hex
    digits) per leaf, in path order."""
    paths = []
    fps = []
    for path, value in leaves(record):
        paths.append(path)
        fps.append(_crc(path + "\x00" + _scalar(value)))
    return _crc("\n".join(paths)), "".join(fps)


def text_fingerprint(text: str) -> str:
    return "".join(
        _crc(text[i : i + TEXT_CHUNK_CHARS]) for i in range(0, len(text), TEXT_CHUNK_CHARS)
    )


# --- Ed25519 verification (RFC 8032, section 5.1.7), pure Python --------------------------

_P = 2**255 - 19
_Q = 2**252 + 27742317777372353535851937790883648493
_D = -121665 * pow(121666, _P - 2, _P) % _P
_SQRT_M1 = pow(2, (_P - 1) // 4, _P)

_Point = tuple[int, int, int, int]  # extended homogeneous coordinates (X, Y, Z, T)


def _point_add(a: _Point, b: _Point) -> _Point:
    x1, y1, z1, t1 = a
    x2, y2, z2, t2 = b
    aa = (y1 - x1) * (y2 - x2) % _P
    bb = (y1 + x1) * (y2 + x2) % _P
    cc = 2 * t1 * t2 * _D % _P
    dd = 2 * z1 * z2 % _P
    e, f, g, h = bb - aa, dd - cc, dd + cc, bb + aa
    return (e * f % _P, g * h % _P, f * g % _P, e * h % _P)


def _point_mul(scalar: int, point: _Point) -> _Point:
    result: _Point = (0, 1, 1, 0)
    while scalar > 0:
        if scalar & 1:
            result = _point_add(result, point)
        point = _point_add(point, point)
        scalar >>= 1
    return result


def _point_equal(a: _Point, b: _Point) -> bool:
    return (a[0] * b[2] - b[0] * a[2]) % _P == 0 and (a[1] * b[2] - b[1] * a[2]) % _P == 0


def _recover_x(y: int, sign: int) -> int | None:
    if y >= _P:
        return None
    x2 = (y * y - 1) * pow(_D * y * y + 1, _P - 2, _P) % _P
    if x2 == 0:
        return None if sign else 0
    x = pow(x2, (_P + 3) // 8, _P)
    if (x * x - x2) % _P != 0:
        x = x * _SQRT_M1 % _P
    if (x * x - x2) % _P != 0:
        return None
    if (x & 1) != sign:
        x = _P - x
    return x


def _decompress(data: bytes) -> _Point | None:
    if len(data) != 32:
        return None
    y = int.from_bytes(data, "little")
    sign = y >> 255
    y &= (1 << 255) - 1
    x = _recover_x(y, sign)
    if x is None:
        return None
    return (x, y, 1, x * y % _P)


_G_Y = 4 * pow(5, _P - 2, _P) % _P
_G_X = _recover_x(_G_Y, 0)
assert _G_X is not None
_G: _Point = (_G_X, _G_Y, 1, _G_X * _G_Y % _P)


def ed25519_verify(public_key: bytes, message: bytes, signature: bytes) -> bool:
    """Whether ``signature`` is ``public_key``'s Ed25519 signature of ``message``."""
    if len(public_key) != 32 or len(signature) != 64:
        return False
    a = _decompress(public_key)
    r = _decompress(signature[:32])
    if a is None or r is None:
        return False
    s = int.from_bytes(signature[32:], "little")
    if s >= _Q:
        return False
    h = int.from_bytes(hashlib.sha512(signature[:32] + public_key + message).digest(), "little")
    return _point_equal(_point_mul(s, _G), _point_add(r, _point_mul(h % _Q, a)))


# --- the span rules (Spanproof's Layer-1 re-check) ----------------------------------------
# A quote matches the text at its offsets under its match kind: exact (equal), normalized
# (equal after folding whitespace, case, quote styles, dashes, NBSP, zero-width and
# compatibility characters and the order of combining marks) or fuzzy (similarity of the
# folded strings >= the floor).

_SINGLE_QUOTES = "\u2018\u2019\u201a\u201b\u2032\u2035\u2039\u203a\u02bc\u02bb\u02bd\uff07\u00b4"
_DOUBLE_QUOTES = "\u201c\u201d\u201e\u201f\u2033\u2036\u00ab\u00bb\uff02\u301d\u301e\u301f"
_EXTRA_DASHES = "\u2212\u2043\u02d7\u207b\u208b\u2796\ufe63\uff0d"
_FOLD_CUSTOM: dict[str, str] = {}
_FOLD_CUSTOM.update(dict.fromkeys(_SINGLE_QUOTES, "'"))
_FOLD_CUSTOM.update(dict.fromkeys(_DOUBLE_QUOTES, '"'))
_FOLD_CUSTOM.update(dict.fromkeys(_EXTRA_DASHES, "-"))
_FOLD_CUSTOM.update(dict.fromkeys((chr(c) for c in range(0xFE00, 0xFE10)), ""))
_FOLD_CUSTOM.update(dict.fromkeys((chr(c) for c in range(0xE0100, 0xE01F0)), ""))
_SPACES = re.compile(" {2,}")
_FOLD_CACHE: dict[str, str] = {}


def _fold_piece(ch: str) -> str:
    custom = _FOLD_CUSTOM.get(ch)
    if custom is not None:
        return custom
    if ch.isspace():
        return " "
    category = unicodedata.category(ch)
    if category == "Pd":
        return "-"
    if category == "Cf":
        return ""
    if category == "Cs":
        return ch
    return unicodedata.normalize("NFKD", ch).casefold()


def _fold_char(ch: str) -> str:
    cached = _FOLD_CACHE.get(ch)
    if cached is not None:
        return cached
    out = _fold_piece(ch)
    if out != " ":
        for _ in range(4):
            nxt = "".join(_fold_piece(c) for c in out)
            if nxt == out:
                break
            out = nxt
        out = _SPACES.sub(" ", out).strip(" ")
    if len(_FOLD_CACHE) < 200_000:
        _FOLD_CACHE[ch] = out
    return out


def _canonical_order(text: str) -> str:
    """``text`` with each run of combining marks stably sorted by combining class (as NFD
    orders them), so a letter's marks compare the same in whatever order they came."""
    out: list[str] = []
    run: list[str] = []
    for ch in text:
        if unicodedata.combining(ch):
            run.append(ch)
            continue
        if run:
            out.extend(sorted(run, key=unicodedata.combining))
            run = []
        out.append(ch)
    out.extend(sorted(run, key=unicodedata.combining))
    return "".join(out)


def fold(text: str) -> str:
    """The string the matcher compares: folded, whitespace runs collapsed, stripped,
    combining marks in canonical order."""
    folded = _SPACES.sub(" ", "".join(_fold_char(ch) for ch in text)).strip(" ")
    return folded if folded.isascii() else _canonical_order(folded)


def normalize(text: str) -> str:
    folded = fold(text)
    return folded if folded.isascii() else unicodedata.normalize("NFKC", folded)


def _lcs_length(a: str, b: str) -> int:
    """Length of the longest common subsequence (bit-parallel, Allison-Dix)."""
    if not a or not b:
        return 0
    masks: dict[str, int] = {}
    for i, ch in enumerate(a):
        masks[ch] = masks.get(ch, 0) | (1 << i)
    full = (1 << len(a)) - 1
    v = full
    for ch in b:
        u = v & masks.get(ch, 0)
        v = ((v + u) | (v - u)) & full
    return len(a) - bin(v).count("1")


def similarity(a: str, b: str) -> float:
    """Normalized Indel similarity in [0, 1] (what rapidfuzz's ``fuzz.ratio`` / 100 is)."""
    total = len(a) + len(b)
    if total == 0:
        return 1.0
    distance = total - 2 * _lcs_length(a, b)
    return (1.0 - distance / total) * 100 / 100.0


class TooLongToCompare(Exception):
    """A fuzzy quote and span whose folded lengths multiply past FUZZY_MAX_PAIR."""


def span_matches(quote: str, span: str, match: str, fuzzy_floor: float) -> bool:
    if match == "exact":
        return span == quote
    if span == quote:
        return True
    if match == "normalized":
        return fold(span) == fold(quote) or normalize(span) == normalize(quote)
    if match == "fuzzy":
        a, b = fold(quote), fold(span)
        total = len(a) + len(b)
        # the similarity is at most 2 * min / total: lengths that far apart cannot match
        if total and 2 * min(len(a), len(b)) / total < fuzzy_floor - 1e-9:
            return False
        if len(a) * len(b) > FUZZY_MAX_PAIR:
            raise TooLongToCompare(f"{len(a)} and {len(b)} characters")
        return similarity(a, b) >= fuzzy_floor
    return False


def whole_number(value: Any) -> bool:
    """Whether a JSON value is a whole number as the pack writes one (not a boolean, a
    float such as 48.0, or a string of digits)."""
    return isinstance(value, int) and not isinstance(value, bool)


def recheck(binding: dict[str, Any], text: str, sha256: str, fuzzy_floor: float) -> str:
    """``fresh``, ``hash_mismatch``, ``offsets_not_numbers``, ``offsets_out_of_range``,
    ``too_long`` (a fuzzy quote too long to compare) or ``span_lost``."""
    if binding["sha256"] != sha256:
        return "hash_mismatch"
    start, end = binding["start"], binding["end"]
    if not (whole_number(start) and whole_number(end)):
        return "offsets_not_numbers"
    if not 0 <= start < end <= len(text):
        return "offsets_out_of_range"
    try:
        matches = span_matches(binding["quote"], text[start:end], binding["match"], fuzzy_floor)
    except TooLongToCompare:
        return "too_long"
    return "fresh" if matches else "span_lost"


# --- the five-state rules ----------------------------------------------------------------
# The reasons the review queue ranks, riskiest first; when several apply the riskiest is
# recorded.
_RISK_ORDER = (
    "contradicted",
    "judge_reviewers_disagree",
    "coverage_gap",
    "stale_source",
    "low_confidence",
    "abstained",
    "self_consistency_disagreement",
    "no_evidence",
)
_SELF_CONSISTENCY = "self_consistency_disagreement"
_JUDGE_REVIEWERS_DISAGREE = "judge_reviewers_disagree"
_NO_BOUND_EVIDENCE = "no_bound_evidence"


def _human_in_force(humans: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The person's decision that stands, of their verdicts oldest first: a withdrawal
    (an undo) takes back the latest decision before it that no earlier withdrawal took
    back, so undoing a decision restores the one it replaced; None when none stands (the
    model's verdict decides). The state writer's rule (``human_verdict_in_force``)."""
    standing: list[dict[str, Any]] = []
    for verdict in humans:
        if verdict.get("label") == "withdrawn":
            if standing:
                standing.pop()
        else:
            standing.append(verdict)
    return standing[-1] if standing else None


def _risk(reason: str) -> int:
    return _RISK_ORDER.index(reason) if reason in _RISK_ORDER else len(_RISK_ORDER)


@dataclass(frozen=True)
class Policy:
    confidence_floor: float
    bound_match_kinds: tuple[str, ...]
    fuzzy_floor: float


def resolve_state(
    *,
    binding: str,
    match: str | None,
    model: dict[str, Any] | None,
    human: dict[str, Any] | None,
    excluded: bool,
    legacy_affirmed: bool,
    policy: Policy,
) -> tuple[str, str]:
    """The claim's ``(state, reason)`` from its evidence and verdicts. ``binding`` is
    ``fresh``, ``stale`` or ``none``; a verdict is ``{"label", "confidence", "note"}``."""
    if excluded:
        return "excluded", "excluded"
    is_human = human is not None
    verdict = human if is_human else model
    if (
        verdict is not None
        and not is_human
        and verdict["label"] == "abstained"
        and verdict["note"] == _NO_BOUND_EVIDENCE
    ):
        verdict = None  # recorded locally for a claim with nothing bound: not a judgement
    confident = verdict is not None and verdict["confidence"] >= policy.confidence_floor
    fresh = binding == "fresh"
    bound = fresh and match is not None and match in policy.bound_match_kinds
    if verdict is not None and verdict["label"] == "contradicted" and confident:
        return "contradicted", "human_contradicted" if is_human else "contradicted"
    not_stated = is_human and verdict is not None and verdict["label"] == "not_stated"
    if not_stated and confident and binding != "stale":
        return "unverified", "human_not_stated"
    positive = (verdict is not None and verdict["label"] == "entailed" and confident) or (
        verdict is None and legacy_affirmed
    )
    if positive and binding != "stale":
        if verdict is None:
            return "inferred", "legacy_affirmed"
        if bound:
            return "supported", "human_supported" if is_human else "entailed"
        if fresh and match is not None:
            return "inferred", "fuzzy_only"
        if legacy_affirmed:
            return "inferred", "legacy_affirmed"
        return "inferred", "no_bound_span"
    reasons = []
    if binding == "stale":
        reasons.append("stale_source")
    elif not fresh:
        reasons.append("no_evidence")
    if verdict is not None:
        if verdict["label"] == "coverage_gap":
            reasons.append("coverage_gap")
        elif verdict["label"] == "abstained":
            note = verdict["note"].lower().replace("-", "_").replace(" ", "_")
            if verdict["note"].startswith(_JUDGE_REVIEWERS_DISAGREE):
                reasons.append(_JUDGE_REVIEWERS_DISAGREE)
            else:
                reasons.append(_SELF_CONSISTENCY if _SELF_CONSISTENCY in note else "abstained")
        elif not confident:
            reasons.append("low_confidence")
    if not reasons:
        reasons.append("not_judged")
    return "unverified", min(reasons, key=_risk)


def _verdict_applies(
    verdict: dict[str, Any] | None,
    active: dict[str, Any] | None,
    bindings: dict[Any, dict[str, Any]],
) -> bool:
    """A verdict (a model's or a person's) about another quote than the active
    binding's judged other text, and no longer counts (re-binding alone never
    promotes)."""
    if verdict is None or verdict.get("binding") is None:
        return True
    if active is None:
        return False
    if verdict["binding"] == active["id"]:
        return True
    judged = bindings.get(verdict["binding"])
    return judged is not None and judged["quote"] == active["quote"]


def _history_key(item: dict[str, Any]) -> tuple[str, int]:
    return (str(item.get("at", "")), int(item.get("id", 0)))


# --- reading a pack ------------------------------------------------------------------------


class PackUnreadable(Exception):
    """The pack cannot be opened or lacks its manifest (exit status 2)."""


def _unsafe_name(name: str) -> str | None:
    """Why a member's name is not a plain path inside the pack (absolute, ``..``, ``.``,
    an empty part, a backslash or a drive), or None. The writer never makes one; ``unzip``
    would write such a member outside the folder, or over another file."""
    parts = name.rstrip("/").split("/")
    if (
        name.startswith("/")
        or "\\" in name
        or "\x00" in name
        or re.match(r"[A-Za-z]:", name)
        or any(part in ("", ".", "..") for part in parts)
    ):
        return (
            "its name is not a plain path inside the pack (absolute, with '..', '.', an "
            "empty part or a backslash): unzip would write it outside the folder or over "
            "another file, and no pack has such a name"
        )
    return None


class Pack:
    """The files of a pack: a .zip archive or the folder it was unzipped into. Only plain
    files count: a symbolic link (a zip member, or a file or folder of the unzipped
    folder) or a member whose name leads outside the pack is named in ``unsafe`` and
    never followed; a zip that would expand like an archive bomb is refused unread."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._zip: zipfile.ZipFile | None = None
        # names a zip holds more than once: a reader may take either copy (zipfile takes
        # the last, ``unzip -n`` the first), so such a pack proves nothing
        self.repeated: dict[str, int] = {}
        self.unsafe: dict[str, str] = {}
        if path.is_dir():
            self.names = sorted(self._folder_files(path))
        elif zipfile.is_zipfile(path):
            self._zip = zipfile.ZipFile(path)
            self.names = self._zip_files(self._zip, path.stat().st_size)
        else:
            raise PackUnreadable(f"{path} is neither a folder nor a zip archive")
        self.present = frozenset(self.names)  # one lookup each, however many files

    def _folder_files(self, root: Path) -> list[str]:
        names = []
        for folder, dirs, files in os.walk(root):  # never into a linked folder
            for name in dirs + files:
                full = Path(folder, name)
                rel = full.relative_to(root).as_posix()
                mode = full.lstat().st_mode
                if stat.S_ISLNK(mode):
                    self.unsafe[rel] = (
                        f"is a symbolic link (to {os.readlink(full)!r}), not a file: the "
                        "checker does not follow it, and no pack holds one"
                    )
                elif name in files and stat.S_ISREG(mode):
                    names.append(rel)
                elif name in files:
                    self.unsafe[rel] = "is not a plain file (a device, pipe or socket)"
        return names

    def _zip_files(self, archive: zipfile.ZipFile, size: int) -> list[str]:
        infos = archive.infolist()
        for info in infos:
            name = info.filename
            problem = _unsafe_name(name)
            if problem is not None:
                self.unsafe[name] = problem
            elif info.create_system == 3 and stat.S_ISLNK(info.external_attr >> 16):
                self.unsafe[name] = (
                    "is a symbolic link, not a file: unzip would make it point elsewhere, "
                    "and no pack holds one"
                )
            if info.flag_bits & 0x1:
                raise PackUnreadable(f"{name} is encrypted in the zip; a pack never is")
            if info.compress_type not in ZIP_METHODS:
                raise PackUnreadable(
                    f"{name} is compressed with zip method {info.compress_type}, which this "
                    "checker does not read (a pack uses deflate)"
                )
        files = [i for i in infos if not i.is_dir()]
        total = sum(i.file_size for i in files)
        if total > EXPANSION_ALLOWED and total > MAX_EXPANSION * size:
            largest = max(files, key=lambda i: i.file_size)
            raise PackUnreadable(
                f"its {_count(len(files), 'file')} would expand to {total:,} bytes from an "
                f"archive of {size:,} bytes ({total // max(size, 1):,} times; the largest, "
                f"{largest.filename}, to {largest.file_size:,} bytes). A pack expands about "
                f"3 to 10 times: more than {MAX_EXPANSION} times, past "
                f"{EXPANSION_ALLOWED // (1024 * 1024)} MiB, is an archive bomb, not a pack. "
                "Nothing was unpacked"
            )
        counts = Counter(i.filename for i in files)
        self.repeated = {name: n for name, n in counts.items() if n > 1}
        return sorted(counts)

    def _open(self, name: str) -> Any:
        if self._zip is not None:
            return self._zip.open(name)
        return (self.path / name).open("rb")

    def _unreadable(self, name: str, exc: Exception) -> PackUnreadable:
        return PackUnreadable(f"{name} cannot be read from the archive: {exc}")

    def read(self, name: str) -> bytes | None:
        if name not in self.present:
            return None
        try:
            with self._open(name) as handle:
                data: bytes = handle.read()
        except (zipfile.BadZipFile, zlib.error, EOFError, RuntimeError, NotImplementedError) as exc:
            raise self._unreadable(name, exc) from None
        return data

    def lines(self, name: str) -> Iterator[bytes] | None:
        """The file's lines, each with its ``\n``, read as they are used; None when the
        pack has no such file."""
        if name not in self.present:
            return None
        return self._lines(name)

    def _lines(self, name: str) -> Iterator[bytes]:
        try:
            with self._open(name) as handle:
                yield from handle
        except (zipfile.BadZipFile, zlib.error, EOFError, RuntimeError, NotImplementedError) as exc:
            raise self._unreadable(name, exc) from None

    def sha256(self, name: str) -> tuple[str, int]:
        digest = hashlib.sha256()
        size = 0
        try:
            with self._open(name) as handle:
                for block in iter(lambda: handle.read(1 << 20), b""):
                    digest.update(block)
                    size += len(block)
        except (zipfile.BadZipFile, zlib.error, EOFError, RuntimeError, NotImplementedError) as exc:
            raise self._unreadable(name, exc) from None
        return digest.hexdigest(), size


# --- findings ------------------------------------------------------------------------------

CHECKS = ("signature", "files", "sources", "spans", "states")
CHECK_TITLES = {
    "signature": "signature",
    "files": "files",
    "sources": "source versions",
    "spans": "bound spans",
    "states": "claim states",
}


@dataclass
class Problem:
    check: str
    where: str
    message: str


@dataclass
class Report:
    pack: str
    meta: dict[str, Any] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def add(self, check: str, where: str, message: str) -> None:
        self.problems.append(Problem(check, where, message))

    @property
    def signer_pinned(self) -> bool:
        """Whether the signature was checked against a key given on the command line
        (``--public-key``), not only against the key the pack carries."""
        return bool(self.meta.get("signer_pinned"))

    def as_dict(self) -> dict[str, Any]:
        return {
            "pack": self.pack,
            "ok": self.ok,
            "signer_pinned": self.signer_pinned,
            "meta": self.meta,
            "counts": self.counts,
            "notes": self.notes,
            "problems": [p.__dict__ for p in self.problems],
        }


# Characters the text report shows as escapes: controls (Cc), format characters (Cf: the
# bidirectional overrides and isolates, zero-width ones) and lone surrogates (Cs). A quote
# holding U+202E printed raw reads backwards in a terminal that applies bidi: a pack's
# "\u202e001$ diap\u202c" showed as "paid $100".
HIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Cs"})


def visible(text: str) -> str:
    """``text`` with each control, format or lone surrogate character as a ``\\uXXXX``
    escape (``\\UXXXXXXXX`` past U+FFFF), so the report shows what the pack holds."""
    if text.isprintable():
        return text
    return "".join(
        (f"\\u{ord(ch):04x}" if ord(ch) <= 0xFFFF else f"\\U{ord(ch):08x}")
        if unicodedata.category(ch) in HIDDEN_CATEGORIES
        else ch
        for ch in text
    )


def _short(text: str, limit: int = 60) -> str:
    text = text.replace("\n", "\\n")
    return json.dumps(text[:limit] + ("…" if len(text) > limit else ""), ensure_ascii=False)


def first_difference(quote: str, found: str) -> tuple[int, str, str]:
    """Where an exact quote and the text at its offsets first part (a character index into
    the span), and both shown from a few characters before that point, so that a change
    past the cut of ``_short`` is seen."""
    shorter = min(len(quote), len(found))
    at = next((i for i in range(shorter) if quote[i] != found[i]), shorter)
    lead = max(0, at - 20)

    def window(text: str) -> str:
        shown = _short(text[lead:], 50)
        return shown if lead == 0 else '"…' + shown[1:]

    return at, window(quote), window(found)


def jsonl_split(text: str) -> list[str]:
    """The lines of a JSONL file, split where the writer ends them: at ``\n`` only. JSON
    keeps U+2028, U+2029 and NEL (U+0085) unescaped inside a string, and
    ``str.splitlines`` would cut a record there."""
    lines = text.split("\n")
    return lines[:-1] if lines and lines[-1] == "" else lines


def _jsonl_rows(lines: Iterable[bytes], name: str, report: Report) -> Iterator[tuple[int, Any]]:
    """``(line number, value)`` of each non-blank line of ``lines`` (the file's bytes cut
    after each ``\n``: in UTF-8 no other byte ends a line, as ``jsonl_split`` says), one
    at a time; a line that is not UTF-8 or not JSON (as :func:`loads` reads it) is named
    and given as None."""
    for number, raw in enumerate(lines, 1):
        try:
            line = raw.removesuffix(b"\n").decode("utf-8", "surrogatepass")
        except UnicodeDecodeError as exc:
            report.add("files", f"{name} line {number}", f"is not UTF-8 from byte {exc.start}")
            yield number, None
            continue
        if not line.strip():
            continue
        try:
            yield number, loads(line)
        except ValueError as exc:
            report.add("files", f"{name} line {number}", f"is not JSON: {exc}")
            yield number, None


def _jsonl_lines(data: bytes, name: str, report: Report) -> list[tuple[int, Any]]:
    """:func:`_jsonl_rows` of a file read whole."""
    lines = data.split(b"\n")
    return list(_jsonl_rows(lines[:-1] if lines[-1] == b"" else lines, name, report))


def _jsonl(data: bytes, name: str, report: Report) -> list[Any]:
    return [row for _, row in _jsonl_lines(data, name, report)]


# The fields without which a line is not a record of its file (a claims file swapped with
# the sources file is named as such, not as a claim with no id or a version with no text).
CLAIM_FIELDS = ("id", "state", "state_reason", "bindings", "verdicts", "state_events")
SOURCE_FIELDS = ("source", "version", "sha256", "chars")


def _and(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _not_a_record(row: Any, kind: str) -> str | None:
    """Why ``row`` (a line of ``claims.jsonl`` for ``kind`` ``claim``, of
    ``sources.jsonl`` for ``source``) is not a record of its file, or None when it is."""
    noun = "claim record" if kind == "claim" else "source version record"
    if row is None:
        return None  # not JSON: named already
    if not isinstance(row, dict):
        return f"is not a {noun}: it is a JSON {type(row).__name__}, not an object"
    fields = CLAIM_FIELDS if kind == "claim" else SOURCE_FIELDS
    missing = [f for f in fields if f not in row]
    if not missing:
        return None
    message = f"is not a {noun}: it lacks {_and(missing)}"
    if kind == "claim" and all(f in row for f in SOURCE_FIELDS):
        message += (
            f" (it is a source version record, {row.get('source')} v{row.get('version')}: "
            f"is {SOURCES_FILE} in the place of {CLAIMS_FILE}?)"
        )
    elif kind == "source" and all(f in row for f in ("id", "state", "bindings")):
        message += (
            f" (it is a claim record, {row.get('id')}: is {CLAIMS_FILE} in the place of "
            f"{SOURCES_FILE}?)"
        )
    return message


# --- the checks ----------------------------------------------------------------------------


def _check_signature(
    pack: Pack, manifest_bytes: bytes, manifest: dict[str, Any], pinned: str | None, report: Report
) -> None:
    signing = manifest.get("signing")
    if not isinstance(signing, dict) or signing.get("algorithm") != SIGNATURE_ALGORITHM:
        report.add("signature", MANIFEST, "names no Ed25519 signing key")
        return
    try:
        public_key = bytes.fromhex(str(signing.get("public_key", "")))
    except ValueError:
        public_key = b""
    if len(public_key) != 32:
        report.add("signature", MANIFEST, "its public key is not 32 bytes of hex")
        return
    report.meta["key_id"] = key_id(public_key)
    report.meta["public_key"] = public_key.hex()
    report.meta["signer_pinned"] = pinned is not None
    if pinned is not None:
        if pinned.lower() != public_key.hex():
            report.add(
                "signature",
                MANIFEST,
                f"is signed for key {key_id(public_key)}, not the pinned workspace key "
                f"{key_id(bytes.fromhex(pinned))}",
            )
        key = bytes.fromhex(pinned)
    else:
        key = public_key
        report.notes.append(
            f"The signing key was taken from the pack itself (key id {key_id(public_key)}), "
            "so the signature only shows that whoever holds that key signed this manifest: "
            "a forger can change a pack and re-sign it with a key of their own. Compare the "
            "key id with the workspace's (GET /connect/v1/audit-pack/public-key) or pass "
            "--public-key."
        )
    raw = pack.read(SIGNATURE)
    if raw is None:
        report.add("signature", SIGNATURE, "is missing")
        return
    try:
        signature = bytes.fromhex(raw.decode("ascii").strip())
    except (UnicodeDecodeError, ValueError):
        report.add("signature", SIGNATURE, "is not a hex signature")
        return
    if not ed25519_verify(key, manifest_bytes, signature):
        report.add(
            "signature",
            MANIFEST,
            f"the signature in {SIGNATURE} does not verify for key {key_id(key)}: the manifest "
            "was changed after export, or was signed by another key",
        )


def _digests(pack: Pack, intact: bool, report: Report) -> dict[tuple[str, int], dict[str, Any]]:
    """digests.jsonl by (file, line); empty when it changed too (it cannot be trusted)."""
    raw = pack.read(DIGESTS_FILE)
    if raw is None or not intact:
        return {}
    out = {}
    for row in _jsonl(raw, DIGESTS_FILE, report):
        # only rows of the writer's shape: they say where, and a forged one may say anything
        if (
            isinstance(row, dict)
            and isinstance(row.get("file"), str)
            and whole_number(row.get("line"))
            and all(isinstance(row.get(k, ""), str) for k in ("id", "shape", "fields", "chunks"))
        ):
            out[(row["file"], row["line"])] = row
    return out


def _lines_moved(
    name: str, lines: list[str], digests: dict[tuple[str, int], dict[str, Any]]
) -> list[str]:
    """When a JSONL file holds exactly its records, unchanged, but in another order, say
    which records moved (a field-by-field report would call every moved line changed)."""
    expected: dict[tuple[Any, Any], list[int]] = {}
    for (f, at), row in sorted(digests.items()):
        if f == name:
            expected.setdefault((row.get("shape"), row.get("fields")), []).append(at)
    if sum(len(v) for v in expected.values()) != len(lines):
        return []
    found: list[str] = []
    for number, line in enumerate(lines, 1):
        try:
            key = record_fingerprint(loads(line))
        except ValueError:
            return []
        was = expected.get(key)
        if not was:
            return []  # a record that changed, not only moved
        before = was.pop(0)
        if before != number:
            row = digests.get((name, before), {})
            ident = f" ({row['id']})" if row.get("id") else ""
            found.append(f"line {number}{ident}: this record was line {before}")
    if not found:
        return []
    head = f"its lines are in another order ({len(found)} moved); no record changed"
    shown = found[:5] + ([f"… and {len(found) - 5} more moved"] if len(found) > 5 else [])
    return [head, *shown]


def _where_record_changed(
    name: str, data: bytes, digests: dict[tuple[str, int], dict[str, Any]]
) -> list[str]:
    """What changed in a JSON or JSONL file, by record and field, from its fingerprints."""
    found: list[str] = []
    try:
        text = data.decode("utf-8", "surrogatepass")
    except UnicodeDecodeError as exc:
        return [f"it is not UTF-8 from byte {exc.start}"]
    lines = [text] if name.endswith(".json") else jsonl_split(text)
    expected_lines = sorted(line for (f, line) in digests if f == name)
    if not name.endswith(".json") and len(lines) != len(expected_lines):
        found.append(f"it has {len(lines)} lines; it had {len(expected_lines)}")
    moved = None if name.endswith(".json") else _lines_moved(name, lines, digests)
    if moved:
        return moved
    for number, line in enumerate(lines, 0 if name.endswith(".json") else 1):
        digest = digests.get((name, number))
        if digest is None:
            continue
        label = ("" if name.endswith(".json") else f"line {number} ") + (
            f"({digest['id']})" if digest.get("id") else ""
        )
        try:
            record = loads(line)
        except ValueError:
            found.append(f"{label} is no longer JSON")
            continue
        shape, fps = record_fingerprint(record)
        if shape == digest.get("shape") and fps == digest.get("fields"):
            if line.strip() and dumps_line(record) != line and name.endswith(".jsonl"):
                found.append(f"{label}: its bytes changed, no value did")
            continue
        paths = [p for p, _ in leaves(record)]
        values = dict(leaves(record))
        if shape != digest.get("shape"):
            found.append(f"{label}: its fields were added, removed or renamed")
            continue
        want = digest.get("fields", "")
        for i, path in enumerate(paths):
            if fps[8 * i : 8 * i + 8] != want[8 * i : 8 * i + 8]:
                now = json.dumps(values[path], ensure_ascii=False)
                now = now if len(now) <= 60 else now[:60] + "…"
                found.append(f"{label.strip()}: {path} changed (now {now})")
    return found


def not_utf8(data: bytes) -> str | None:
    """Where ``data`` stops being UTF-8, in words (the byte, and the block of
    ``TEXT_CHUNK_CHARS`` characters it falls in), or None when all of it is UTF-8."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        chars = len(data[: exc.start].decode("utf-8"))
        block = chars // TEXT_CHUNK_CHARS
        return (
            f"is not valid UTF-8 from byte {exc.start} (character {chars}, in "
            f"{TEXT_CHUNK_CHARS}-character block {block}: characters "
            f"[{block * TEXT_CHUNK_CHARS}, {(block + 1) * TEXT_CHUNK_CHARS}))"
        )
    return None


def _where_text_changed(
    name: str, data: bytes, digests: dict[tuple[str, int], dict[str, Any]]
) -> list[str]:
    digest = digests.get((name, 0))
    if digest is None:
        return []
    problem = not_utf8(data)
    if problem is not None:
        return [f"it {problem}"]
    text = data.decode("utf-8")
    got, want = text_fingerprint(text), str(digest.get("chunks", ""))
    size = TEXT_CHUNK_CHARS
    changed = [
        i
        for i in range(max(len(got), len(want)) // 8)
        if got[8 * i : 8 * i + 8] != want[8 * i : 8 * i + 8]
    ]
    out = []
    if len(text) != digest.get("chars"):
        out.append(f"it has {len(text)} characters; it had {digest.get('chars')}")
    if changed:
        first, last = changed[0], changed[-1]
        end = min((last + 1) * size, len(text))
        out.append(
            f"characters [{first * size}, {end}) changed "
            f"({len(changed)} of its {size}-character blocks)"
        )
    return out


def _check_files(pack: Pack, manifest: dict[str, Any], report: Report) -> None:
    listed: dict[str, dict[str, Any]] = {}
    entries = manifest.get("files")
    if not isinstance(entries, list):
        report.add("files", MANIFEST, "has no list of files")
        entries = []
    listings = Counter(e.get("path") for e in entries if isinstance(e, dict))
    for entry in entries:
        if not (isinstance(entry, dict) and isinstance(entry.get("path"), str)):
            report.add("files", MANIFEST, f"lists {_short(json.dumps(entry))}, which names no file")
            continue
        if listings[entry["path"]] > 1 and entry["path"] not in listed:
            # readers differ on which entry they take: no pack lists a file twice
            report.add(
                "files", entry["path"], f"is listed {listings[entry['path']]} times in the manifest"
            )
        listed[entry["path"]] = entry
    for name, problem in sorted(pack.unsafe.items()):
        report.add("files", name, problem)
    changed = set()
    for name, entry in sorted(listed.items()):
        if name not in pack.present:
            report.add("files", name, "is listed in the manifest but missing from the pack")
            changed.add(name)
            continue
        sha, size = pack.sha256(name)
        if sha != entry.get("sha256") or size != entry.get("bytes"):
            changed.add(name)
    for name in pack.names:
        if name not in listed and name not in (MANIFEST, SIGNATURE):
            report.add("files", name, "is in the pack but not in the manifest")
    for name, times in sorted(pack.repeated.items()):
        report.add(
            "files",
            name,
            f"appears {times} times in the zip: a reader may take either copy",
        )
    report.counts["files"] = len(listed)
    digests = _digests(pack, DIGESTS_FILE not in changed, report)
    for name in sorted(changed):
        if name not in pack.present:
            continue
        sha, size = pack.sha256(name)
        entry = listed[name]
        if sha == entry.get("sha256"):
            # The bytes are the ones exported: it is the manifest's entry that is wrong.
            report.add(
                "files",
                name,
                f"the manifest's entry disagrees with the file: it has the listed SHA-256 "
                f"{sha[:16]}…, but the manifest lists {entry.get('bytes')!r} bytes and the "
                f"file has {size}",
            )
            continue
        data = pack.read(name) or b""
        if name.startswith(TEXT_DIR):
            where = _where_text_changed(name, data, digests)
        elif name.endswith((".json", ".jsonl")) and name != DIGESTS_FILE:
            where = _where_record_changed(name, data, digests)
        else:
            where = []
        detail = (
            f"SHA-256 {sha[:16]}… ({size} bytes), the manifest says "
            f"{str(entry.get('sha256'))[:16]}… ({entry.get('bytes')} bytes)"
        )
        if where:
            for item in where:
                report.add("files", name, f"{item}; {detail}")
        else:
            report.add("files", name, "changed: " + detail)


def _load_sources(pack: Pack, report: Report) -> dict[tuple[str, int], dict[str, Any]]:
    """Source versions by (ref, number), each with its ``_text``; hashes checked."""
    raw = pack.read(SOURCES_FILE)
    if raw is None:
        report.add("sources", SOURCES_FILE, "is missing")
        return {}
    versions: dict[tuple[str, int], dict[str, Any]] = {}
    for number, row in _jsonl_lines(raw, SOURCES_FILE, report):
        wrong = _not_a_record(row, "source")
        if wrong is not None:
            report.add("sources", f"{SOURCES_FILE} line {number}", wrong)
            continue
        if not isinstance(row, dict):
            continue
        try:
            _load_source(pack, row, versions, report)
        except (KeyError, TypeError, ValueError, AttributeError, OverflowError) as exc:
            report.add(
                "sources", f"{row.get('source')} v{row.get('version')}", f"is malformed: {exc!r}"
            )
    report.counts["source_versions"] = len(versions)
    return versions


def _load_source(
    pack: Pack,
    row: dict[str, Any],
    versions: dict[tuple[str, int], dict[str, Any]],
    report: Report,
) -> None:
    where = f"{row.get('source')} v{row.get('version')}"
    name = text_path(str(row.get("sha256")))
    data = pack.read(name)
    if data is None:
        report.add("sources", where, f"its text {name} is missing")
        return
    digest = hashlib.sha256(data).hexdigest()
    if digest != row.get("sha256"):
        report.add(
            "sources",
            where,
            f"its text {name} hashes to {digest[:16]}…, not the version's recorded SHA-256 "
            f"{str(row.get('sha256'))[:16]}…",
        )
    problem = not_utf8(data)
    if problem is not None:
        report.add("sources", where, f"its text {name} {problem}")
        # Still in the pack: its claims say their spans cannot be read, not that the
        # version is missing.
        row["_unreadable"] = f"the text of {where} ({name}) {problem}"
        versions[(str(row["source"]), int(row["version"]))] = row
        return
    text = data.decode("utf-8")
    if len(text) != row.get("chars"):
        report.add(
            "sources",
            where,
            f"its text has {len(text)} characters, the pack records {row.get('chars')}",
        )
    row["_text"] = text
    versions[(str(row["source"]), int(row["version"]))] = row


def _check_claim(
    claim: dict[str, Any],
    versions: dict[tuple[str, int], dict[str, Any]],
    current: dict[str, tuple[str, int]],
    policy: Policy,
    report: Report,
) -> int:
    """Spans and state of one claim; returns how many bindings it checked."""
    cid = str(claim.get("id"))
    bindings = claim.get("bindings") or []
    by_id = {b.get("id"): b for b in bindings}
    for i, b in enumerate(bindings):
        where = f"{cid} bindings[{i}]"
        version = versions.get((str(b.get("source")), int(b.get("version", 0))))
        if version is None:
            report.add(
                "spans",
                where,
                "cites {} v{}, which is not in the pack".format(b.get("source"), b.get("version")),
            )
            continue
        if "_unreadable" in version:
            report.add("spans", where, f"cannot be checked: {version['_unreadable']}")
            continue
        status = recheck(b, version["_text"], str(version.get("sha256")), policy.fuzzy_floor)
        if status == "fresh":
            continue
        start, end = b.get("start"), b.get("end")
        if status == "hash_mismatch":
            message = "records SHA-256 {}…, but {} v{} is {}…".format(
                str(b.get("sha256"))[:16],
                b.get("source"),
                b.get("version"),
                str(version.get("sha256"))[:16],
            )
        elif status == "offsets_not_numbers":
            message = (
                f"offsets {json.dumps(start)[:40]} and {json.dumps(end)[:40]} are not whole "
                "numbers (a pack writes each offset as a JSON integer)"
            )
        elif status == "offsets_out_of_range":
            message = (
                f"offsets [{start}, {end}) are outside {b.get('source')} v{b.get('version')} "
                f"({len(version['_text'])} characters)"
            )
        elif status == "too_long":
            message = (
                f"cannot be checked: its fuzzy quote and the span at [{start}, {end}) are too "
                f"long to compare (their lengths multiply past {FUZZY_MAX_PAIR:,})"
            )
        else:
            message = "{} quote {} is not what {} v{} has at [{}, {}): {}".format(
                b.get("match"),
                _short(str(b.get("quote"))),
                b.get("source"),
                b.get("version"),
                start,
                end,
                _short(version["_text"][start:end]),
            )
            if b.get("match") == "exact":
                at, quoted, found = first_difference(
                    str(b.get("quote")), version["_text"][start:end]
                )
                message += (
                    f"; they first differ at character {at} of the span (offset "
                    f"{start + at}): the quote reads {quoted}, the text {found}"
                )
        report.add("spans", where, message)

    # The history: events chain from the initial state to the recorded state.
    events = sorted(claim.get("state_events") or [], key=_history_key)
    state, reason = INITIAL_STATE
    for event in events:
        where = "{} state_events id {}".format(cid, event.get("id"))
        if event.get("from") != state:
            report.add(
                "states",
                where,
                "moves from {!r}, but the claim was {!r}".format(event.get("from"), state),
            )
        if event.get("to") not in STATES:
            report.add("states", where, "moves to unknown state {!r}".format(event.get("to")))
        state, reason = event.get("to"), event.get("reason")
    recorded = (claim.get("state"), claim.get("state_reason"))
    if (state, reason) != recorded:
        report.add(
            "states",
            cid,
            "records {}/{}, but its state events end at {}/{}".format(*recorded, state, reason),
        )

    # The rules: the state follows from the evidence and the verdicts. A claim with no
    # state event was never resolved yet (its ingest or verification job was still
    # running when the pack was exported): it sits in the initial state, which no rule
    # derives from evidence, so there is nothing to recompute.
    if not events and recorded == INITIAL_STATE:
        return len(bindings)
    active = [b for b in bindings if b.get("active")]
    if len(active) > 1:
        report.add("states", cid, f"has {len(active)} active bindings; a claim has at most one")
    binding = active[0] if active else None
    if binding is None:
        status = "none"
    else:
        cur = current.get(str(claim.get("source")))
        version = versions.get(cur) if cur else None
        if version is None:
            status = "stale"
        elif "_unreadable" in version:
            report.add("states", cid, f"cannot be recomputed: {version['_unreadable']}")
            return len(bindings)
        else:
            fresh = recheck(
                binding, version["_text"], str(version.get("sha256")), policy.fuzzy_floor
            )
            status = "fresh" if fresh == "fresh" else "stale"
    verdicts = sorted(claim.get("verdicts") or [], key=_history_key)
    models = [v for v in verdicts if not v.get("person")]
    humans = [v for v in verdicts if v.get("person")]
    model = models[-1] if models else None
    if not _verdict_applies(model, binding, by_id):
        model = None
    human = _human_in_force(humans)
    if not _verdict_applies(human, binding, by_id):
        human = None
    decided = resolve_state(
        binding=status,
        match=binding.get("match") if binding else None,
        model=model,
        human=human,
        excluded=bool(claim.get("exclusion_reason")),
        legacy_affirmed=bool(claim.get("legacy_affirmed")),
        policy=policy,
    )
    if decided != recorded:
        judged = human or model
        basis = "binding {}, {}".format(
            status,
            "latest {} verdict {} {:.2f} (id {})".format(
                "human" if human else "model",
                judged.get("label"),
                float(judged.get("confidence", 0)),
                judged.get("id"),
            )
            if judged
            else "no verdict that applies",
        )
        report.add(
            "states",
            cid,
            "records %s/%s, but the five-state rules give %s/%s (%s)"
            % (recorded + decided + (basis,)),
        )
    return len(bindings)


def check_pack(path: Path, *, public_key: str | None = None) -> Report:
    """Every check of the pack at ``path`` (a .zip or a folder). Raises PackUnreadable."""
    report = Report(pack=str(path))
    pack = Pack(path)
    manifest_bytes = pack.read(MANIFEST)
    if manifest_bytes is None:
        why = pack.unsafe.get(MANIFEST)
        raise PackUnreadable(f"{path} has no {MANIFEST}" + (f": it {why}" if why else ""))
    try:
        manifest = loads(manifest_bytes)
    except ValueError as exc:
        raise PackUnreadable(f"{MANIFEST} is not JSON: {exc}") from exc
    if not isinstance(manifest, dict):
        raise PackUnreadable(f"{MANIFEST} is not a JSON object")
    if public_key is not None and not re.fullmatch(r"[0-9a-fA-F]{64}", public_key):
        raise PackUnreadable("the pinned public key must be 64 hex digits")
    if manifest.get("format") != FORMAT or manifest.get("format_version") != FORMAT_VERSION:
        report.add(
            "files",
            MANIFEST,
            f"is format {manifest.get('format')!r} version {manifest.get('format_version')!r}; "
            f"this checker reads {FORMAT} version {FORMAT_VERSION}",
        )
    report.meta["workspace"] = manifest.get("workspace")
    report.meta["created_at"] = manifest.get("created_at")
    _check_signature(pack, manifest_bytes, manifest, public_key, report)
    _check_files(pack, manifest, report)

    raw = pack.read(PACK_FILE)
    try:
        meta = loads(raw) if raw is not None else {}
    except ValueError as exc:
        report.add("files", PACK_FILE, f"is not JSON: {exc}")
        meta = {}
    if raw is None:
        report.add("files", PACK_FILE, "is missing")
    if not isinstance(meta, dict):
        meta = {}
    report.meta["scope"] = meta.get("scope")
    rules = meta.get("state_rules") or {}
    try:
        policy = Policy(
            confidence_floor=float(rules["confidence_floor"]),
            bound_match_kinds=tuple(rules["bound_match_kinds"]),
            fuzzy_floor=float(rules["fuzzy_floor"]),
        )
    except (KeyError, TypeError, ValueError):
        report.add("states", PACK_FILE, "records no state policy (state_rules); states not checked")
        policy = None

    versions = _load_sources(pack, report)
    current: dict[str, tuple[str, int]] = {}
    for key, row in versions.items():
        if row.get("current"):
            current[key[0]] = key
    raw_claims = pack.lines(CLAIMS_FILE)  # one claim at a time: the file may be large
    if raw_claims is None:
        report.add("files", CLAIMS_FILE, "is missing")
        raw_claims = iter(())
    claims = 0
    bindings = 0
    for number, claim in _jsonl_rows(raw_claims, CLAIMS_FILE, report):
        wrong = _not_a_record(claim, "claim")
        if wrong is not None:
            report.add("states", f"{CLAIMS_FILE} line {number}", wrong)
            continue
        if not isinstance(claim, dict):
            continue
        claims += 1
        if policy is not None:
            try:
                bindings += _check_claim(claim, versions, current, policy, report)
            except (
                KeyError,
                TypeError,
                ValueError,
                AttributeError,
                IndexError,
                OverflowError,
            ) as exc:
                report.add("states", str(claim.get("id")), f"is malformed: {exc!r}")
    report.counts["claims"] = claims
    report.counts["bindings"] = bindings
    return report


# --- the report ----------------------------------------------------------------------------


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def render_report(report: Report) -> str:
    meta = report.meta
    workspace = meta.get("workspace")
    workspace = workspace if isinstance(workspace, dict) else {}
    scope = meta.get("scope") or {}
    lines = [
        f"Spanproof audit pack check: {report.pack}",
        "Workspace {} ({}), exported {}, scope {}".format(
            workspace.get("slug"),
            workspace.get("name"),
            meta.get("created_at"),
            json.dumps(scope, ensure_ascii=False, sort_keys=True),
        ),
        "Signing key: Ed25519, key id {} ({})".format(
            meta.get("key_id", "?"),
            "pinned with --public-key"
            if report.signer_pinned
            else "taken from the pack itself, not pinned",
        ),
        "",
    ]
    counts = report.counts
    key = meta.get("key_id", "?")
    signature = (
        f"manifest.json is signed by the pinned workspace key (key id {key})"
        if report.signer_pinned
        else f"manifest.json is signed by the key the pack carries (key id {key}), "
        "NOT pinned: nothing shows it is the workspace's key"
    )
    summary = {
        "signature": signature,
        "files": f"{counts.get('files', 0)} files match the SHA-256 the manifest lists",
        "sources": (
            f"{counts.get('source_versions', 0)} source version texts hash to their recorded "
            "SHA-256"
        ),
        "spans": f"{counts.get('bindings', 0)} bound quotes sit at their offsets",
        "states": f"{counts.get('claims', 0)} claims' states follow from their histories",
    }
    for check in CHECKS:
        found = [p for p in report.problems if p.check == check]
        if not found:
            lines.append(f"[ok]   {CHECK_TITLES[check]:<15} {summary[check]}")
            continue
        lines.append(f"[FAIL] {CHECK_TITLES[check]:<15} {_count(len(found), 'problem')}")
        for problem in found:
            lines.append(f"       - {problem.where}: {problem.message}")
    lines.append("")
    for note in report.notes:
        lines.append("Note: " + note)
    if report.ok and report.signer_pinned:
        lines.append(
            "PASSED: the pack is intact and consistent, and signed by the pinned workspace key."
        )
    elif report.ok:
        lines.append(
            "PASSED, but the signer was not pinned: the pack is consistent with itself, and "
            f"signed by key id {key}, the key it carries, which a forger can replace with "
            "their own. Run again with --public-key <the workspace's key> to know who "
            "signed it."
        )
    else:
        lines.append(f"FAILED: {_count(len(report.problems), 'problem')}.")
    # every line as it is shown: a pack's strings (quotes, refs, names, file names) are
    # in the problems, the notes and the header alike
    return "\n".join(visible(line) for line in lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="check.py", description="Check a Spanproof audit pack (standard library only)."
    )
    parser.add_argument("pack", type=Path, help="the pack: its .zip, or the folder it unzips to")
    parser.add_argument(
        "--public-key",
        help="the workspace's Ed25519 public key (64 hex digits), from the workspace's "
        "public-key endpoint; without it the key in the pack is used",
    )
    parser.add_argument("--json", action="store_true", help="print the findings as JSON")
    args = parser.parse_args(argv)
    pinned = args.public_key
    if pinned is not None and not re.fullmatch(r"[0-9a-fA-F]{64}", pinned.strip()):
        parser.error("--public-key must be 64 hex digits")
    try:
        report = check_pack(args.pack, public_key=pinned.strip() if pinned else None)
    except (PackUnreadable, OSError, zipfile.BadZipFile) as exc:
        _emit(sys.stderr, f"Cannot read the pack: {visible(str(exc))}\n")
        return 2
    except (RecursionError, MemoryError) as exc:
        _emit(sys.stderr, f"Cannot check the pack: it is too large or too deep ({exc!r})\n")
        return 2
    if args.json:
        _emit(sys.stdout, json.dumps(report.as_dict(), indent=2, ensure_ascii=False) + "\n")
    else:
        _emit(sys.stdout, render_report(report))
    return 0 if report.ok else 1


def _emit(stream: Any, text: str) -> None:
    """Write ``text`` whatever it holds: a pack's strings may carry a lone surrogate (a
    JSON ``\\ud800``) or a character the terminal's encoding lacks, shown as an escape."""
    encoding = getattr(stream, "encoding", None) or "utf-8"
    stream.write(text.encode(encoding, "backslashreplace").decode(encoding))


if __name__ == "__main__":
    sys.exit(main())
