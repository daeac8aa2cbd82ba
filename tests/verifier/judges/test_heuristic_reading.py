"""The heuristic judge's reading has a version (``PROMPT_VERSION``, recorded on every
verdict; a reviewer calibrator is used only with the reading it learned from). This test
holds a fingerprint of the reading — what the lexical comparison says of every claim of
two planted fixtures against its source — per version, so that a change to the rules,
word lists or constants cannot ship under the old version: when it fails, raise
``PROMPT_VERSION`` in ``verifier/judges/heuristic.py`` and record the new fingerprint
here (a change that leaves every answer the same keeps its version)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from verifier.judges.heuristic import PROMPT_VERSION
from verifier.judges.signals import compare

FIXTURES = Path(__file__).resolve().parents[3] / "bench" / "fixtures"
FINGERPRINTS = {
    2: "2321e43f995ea51d6450f5c7af6d9b7527c26a3aca379441c3d253d7112c5dee",
    # 3 reads every pair as 2 did; only spans joined are held to a higher similarity
    3: "2321e43f995ea51d6450f5c7af6d9b7527c26a3aca379441c3d253d7112c5dee",
    4: "ed8948fa0ead2314cf181caad710788495de9b10148ab99a43760164b3927200",
    # since 5 the fingerprint also reads PAIRS
    5: "687339ae211d485e7fad9fa122d15ae4f85ae56fb192356e06ed1bb14f040e8b",
    # since 6 the fingerprint also reads ACCENTED_PAIRS
    6: "153b694cbf342f9ca3f6a8f0daae9c19ced8245bee9cf24db53905ff73bd27da",
    # since 7 the fingerprint also reads READING_7_PAIRS
    7: "2114342977202efa2d3a1cfb72ed2f9d395fc9a86966def594146b60f561b383",
    # since 8 the fingerprint also reads READING_8_PAIRS
    8: "08132a52d46895cc6701f3e718e74cef91ac00670844fe220cdd62794ba05176",
    # since 9 the fingerprint also reads READING_9_PAIRS
    9: "44d20f127f9371a7423a9939b8ede7cc37f642be3ace2488a22370c219afdb53",
    # since 10 the fingerprint also reads READING_10_PAIRS
    10: "f61ba98fd010913c573c84a1394b064b9ed3e0d94b2bc8acfffe7374c03f5100",
}
# Pairs read with their context (title and the sentence before the span), beside the
# fixtures: the API guide's own example among them.
PAIRS = [
    (
        "The wall is 412 metres long.",
        "It is 412 metres long.",
        "Harbour report. The harbour wall was rebuilt in 1998.",
    ),
    (
        "The wall is 420 metres long.",
        "It is 412 metres long.",
        "Harbour report. The harbour wall was rebuilt in 1998.",
    ),
    (
        "Tarn Point Light was automated in 1987.",
        "The light was automated in 1987.",
        "Tarn Point Light. The lighthouse stands on the northern headland.",
    ),
]

# Names and words written with and without their diacritics (reading 6).
ACCENTED_PAIRS = [
    ("Zoe Laurent opened the cafe in 2004.", "Zoë Laurent opened the café in 2004.", ""),
    (
        "Short-term cooling came with a strong La Nina phase.",
        "A strong La Niña phase cooled the Pacific.",
        "",
    ),
    ("El Niño drove the record.", "A strong La Niña phase cooled the Pacific.", ""),
]

# What a team's first day with the console showed read wrongly (reading 7).
READING_7_PAIRS = [
    (
        "The outer channel was dredged to 16 metres.",
        "In 2025 the authority completed dredging of the outer channel to a depth of 14.5 metres.",
        "",
    ),
    (
        "The response rate was similar in those who had received a biologic and those who had not.",
        "The response rate was similar in patients who had received a biologic before (57 "
        "percent) and in those who had not (63 percent).",
        "",
    ),
    (
        "The serious adverse events were judged related to the study drug.",
        "Three serious adverse events occurred, none of which the investigators judged to be "
        "related to the study drug.",
        "",
    ),
    ("Most participants were women.", "38 percent of participants were women.", ""),
    ("The library ended 2025 with a deficit.", "The library ended 2025 with a surplus.", ""),
]

# What an integrator's walk showed read wrongly (reading 8).
READING_8_PAIRS = [
    ("The museum has reopened.", "The museum will reopen.", ""),
    (
        "The first keeper, Margaret Pryde, took over the station.",
        "The first keeper, Agnes Pryde, took over the station.",
        "",
    ),
    ("She took over after her brother drowned.", "She took over after her husband drowned.", ""),
    ("The burner tripled the range.", "The burner doubled the range.", ""),
]

# What the last session's notes left passing (reading 9): a range's unit, a reversed
# comparison of things that share words.
READING_9_PAIRS = [
    (
        "The survey is repeated every 2 years.",
        "The poles stand two to three metres apart, and the survey is repeated yearly.",
        "",
    ),
    (
        "Building an IVF index is slower than building an HNSW index.",
        "Building an HNSW index is slower than building an IVF index.",
        "",
    ),
]

# A span about another fact (reading 10): framed by another year, or about another
# numbered thing; the same year with another amount, and another year for an event,
# still conflict.
READING_10_PAIRS = [
    (
        "Acme's revenue in 2022 was 5 million euros.",
        "Acme's revenue in 2023 was 7 million euros.",
        "",
    ),
    (
        "Acme's revenue in 2022 was 5 million euros.",
        "Acme's revenue in 2022 was 7 million euros.",
        "",
    ),
    ("Pier 3 was built in 1903.", "Pier 4 was built in 1904.", ""),
    ("The bridge opened in 1925.", "The bridge opened in 1932.", ""),
    (
        "On March 5, 2022 the index closed at 300.",
        "On March 6, 2022 the index closed at 310.",
        "",
    ),
]


def reading_fingerprint() -> str:
    readings = []
    for name in ("planted-v1.json", "planted-v2-history-med.json"):
        fixture = json.loads((FIXTURES / name).read_text(encoding="utf-8"))
        texts = {s["id"]: s["text"] for s in fixture["sources"]}
        for claim in fixture["claims"]:
            found = compare(claim["text"], texts[claim["source_id"]])
            readings.append(
                [round(found.coverage, 4), found.content_words, [b.note for b in found.blockers]]
            )
    pairs = PAIRS if PROMPT_VERSION < 6 else PAIRS + ACCENTED_PAIRS
    if PROMPT_VERSION >= 7:
        pairs = pairs + READING_7_PAIRS
    if PROMPT_VERSION >= 8:
        pairs = pairs + READING_8_PAIRS
    if PROMPT_VERSION >= 9:
        pairs = pairs + READING_9_PAIRS
    if PROMPT_VERSION >= 10:
        pairs = pairs + READING_10_PAIRS
    if PROMPT_VERSION >= 5:
        for claim_text, span_text, context in pairs:
            found = compare(claim_text, span_text, context)
            readings.append(
                [round(found.coverage, 4), found.content_words, [b.note for b in found.blockers]]
            )
    return hashlib.sha256(json.dumps(readings).encode("utf-8")).hexdigest()


def test_the_reading_has_not_changed_under_its_version() -> None:
    assert PROMPT_VERSION in FINGERPRINTS, "record the fingerprint of the new version"
    assert reading_fingerprint() == FINGERPRINTS[PROMPT_VERSION], (
        "the heuristic judge's reading changed: raise PROMPT_VERSION in "
        "verifier/judges/heuristic.py and record the new fingerprint"
    )
