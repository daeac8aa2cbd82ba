"""Layer-1 binding benchmark on a deterministic synthetic corpus (single core).

    .venv/bin/python bench/binding.py            # full: 1,000 x ~20 KB sources
    .venv/bin/python bench/binding.py --quick    # smaller sizes

Prints one JSON object: binds/s per stage, re-checks/s, the exact stage relative to
a bare ``str.find`` loop over the same quotes, and index build times (one-off per
source version, excluded from the per-bind throughput).
"""

from __future__ import annotations

import argparse
import gc
import random
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # this checkout's packages

from bench._common import print_json
from verifier.binding import (
    Binding,
    BoundSpan,
    SourceIndex,
    bind,
    recheck,
    sha256_hex,
)

SEED = 20240611
TARGETS = {
    "exact_binds_per_s": 20_000,
    "exact_vs_str_find": 0.8,
    "normalized_binds_per_s": 5_000,
    "fuzzy_binds_per_s": 500,
    "rechecks_per_s": 100_000,
}
# Share of sources written with typographic punctuation (curly quotes, em dashes,
# NBSP), so the non-ASCII index build path is measured too.
TYPOGRAPHIC_SHARE = 0.2

Claim = tuple[str, str, SourceIndex]  # quote, text, index


def make_vocabulary(rng: random.Random, size: int) -> list[str]:
    onsets = ["", "b", "c", "d", "f", "g", "h", "l", "m", "n", "p", "r", "s", "t", "v", "w"]
    onsets += ["br", "ch", "cl", "dr", "fl", "gr", "pl", "pr", "sh", "st", "th", "tr", "wh"]
    vowels = ["a", "e", "i", "o", "u", "ai", "ea", "ee", "ou", "oo", "ie"]
    codas = ["", "", "n", "r", "s", "t", "l", "m", "nd", "st", "ng", "ck", "rt", "ld"]
    words: set[str] = set()
    while len(words) < size:
        syllables = rng.choice([1, 1, 2, 2, 2, 3, 3, 4])
        words.add(
            "".join(
                rng.choice(onsets) + rng.choice(vowels) + rng.choice(codas)
                for _ in range(syllables)
            )
        )
    return sorted(words)


class Writer:
    def __init__(self, rng: random.Random, vocabulary: list[str]) -> None:
        self.rng = rng
        self.vocabulary = vocabulary
        # Zipf-like weights: frequent function-ish words, long tail.
        self.weights = [1.0 / (rank + 1) ** 0.9 for rank in range(len(vocabulary))]

    def words(self, n: int) -> list[str]:
        return self.rng.choices(self.vocabulary, self.weights, k=n)

    def sentence(self, typographic: bool) -> str:
        rng = self.rng
        words = self.words(rng.randint(6, 24))
        for i in range(len(words)):
            roll = rng.random()
            if roll < 0.03:
                words[i] = words[i] + "-" + self.words(1)[0]
            elif roll < 0.05:
                words[i] = words[i] + "'s"
            elif roll < 0.09 and i < len(words) - 1:
                words[i] += ","
        if rng.random() < 0.15 and len(words) > 4:
            a = rng.randrange(1, len(words) - 2)
            words[a] = '"' + words[a]
            words[a + 1] = words[a + 1] + '"'
        if rng.random() < 0.1:
            words.insert(rng.randrange(1, len(words)), "--" if not typographic else "\u2014")
        if rng.random() < 0.05:
            words.insert(rng.randrange(1, len(words)), f"{rng.randint(1, 99)}.{rng.randint(0, 99)}")
        words[0] = words[0].capitalize()
        text = " ".join(words) + rng.choice([".", ".", ".", "?", "!"])
        if typographic:
            text = _typographic(text, rng)
        return text

    def source(self, size: int, typographic: bool) -> str:
        paragraphs: list[str] = []
        total = 0
        while total < size:
            paragraph = " ".join(self.sentence(typographic) for _ in range(self.rng.randint(3, 8)))
            paragraphs.append(paragraph)
            total += len(paragraph) + 2
        return "\n\n".join(paragraphs)


def _typographic(text: str, rng: random.Random) -> str:
    out: list[str] = []
    open_quote = True
    for ch in text:
        if ch == '"':
            out.append("\u201c" if open_quote else "\u201d")
            open_quote = not open_quote
        elif ch == "'":
            out.append("\u2019")
        elif ch == " " and rng.random() < 0.01:
            out.append("\u00a0")
        else:
            out.append(ch)
    return "".join(out)


def sample_span(rng: random.Random, text: str, min_words: int, max_words: int) -> str:
    """A quote of whole words taken from ``text``."""
    while True:
        start = rng.randrange(0, max(1, len(text) - 400))
        start = text.find(" ", start) + 1
        words = text[start : start + 400].split(" ")[: rng.randint(min_words, max_words)]
        quote = " ".join(words).strip()
        if len(quote.split()) >= min_words and "\n" not in quote:
            return quote


_DASHES = ["\u2013", "\u2014", "\u2212", "\u2010"]


def perturb(rng: random.Random, quote: str) -> str:
    """Case, whitespace, quote-style and dash changes (never a no-op)."""
    out = quote
    roll = rng.random()
    if roll < 0.3:
        out = out.upper()
    elif roll < 0.6:
        out = out.lower()
    elif roll < 0.8:
        out = out.title()
    if rng.random() < 0.5:
        out = out.replace(" ", "  ", rng.randint(1, 3))
    if rng.random() < 0.3:
        out = out.replace(" ", "\n", 1)
    out = out.replace('"', "\u201c", 1).replace('"', "\u201d", 1).replace("'", "\u2019")
    out = out.replace("\u201c", '"').replace("\u201d", '"') if rng.random() < 0.3 else out
    out = out.replace("-", rng.choice(_DASHES))
    if out == quote:
        out = out.swapcase() if out.swapcase() != out else " " + out.replace(" ", "\u00a0")
    return out


def word_edits(rng: random.Random, writer: Writer, quote: str, edits: int) -> str:
    words = quote.split(" ")
    for _ in range(edits):
        kind = rng.choice(["substitute", "substitute", "delete", "insert"])
        i = rng.randrange(1, len(words) - 1)
        if kind == "substitute":
            words[i] = writer.words(1)[0]
        elif kind == "delete" and len(words) > 8:
            del words[i]
        else:
            words.insert(i, writer.words(1)[0])
    return " ".join(words)


def build_claims(
    rng: random.Random, writer: Writer, sources: list[SourceIndex], per_kind: int
) -> dict[str, list[Claim]]:
    claims: dict[str, list[Claim]] = {"exact": [], "normalized": [], "fuzzy": []}
    for _ in range(per_kind):
        index = rng.choice(sources)
        claims["exact"].append((sample_span(rng, index.text, 5, 25), index.text, index))
        index = rng.choice(sources)
        quote = perturb(rng, sample_span(rng, index.text, 5, 25))
        claims["normalized"].append((quote, index.text, index))
        index = rng.choice(sources)
        quote = word_edits(rng, writer, sample_span(rng, index.text, 12, 25), rng.choice([1, 2]))
        claims["fuzzy"].append((quote, index.text, index))
    return claims


def timed(fn: Callable[[], object], repeat: int = 3) -> float:
    """Best wall time of ``repeat`` runs, GC disabled."""
    best = float("inf")
    for _ in range(repeat):
        gc.collect()
        gc.disable()
        try:
            started = time.perf_counter()
            fn()
            best = min(best, time.perf_counter() - started)
        finally:
            gc.enable()
    return best


def run_stage(claims: list[Claim], repeat: int) -> tuple[float, list[Binding | None]]:
    results: list[Binding | None] = []

    def loop() -> None:
        results.clear()
        append = results.append
        for quote, text, index in claims:
            append(bind(quote, text, index=index))

    elapsed = timed(loop, repeat)
    return len(claims) / elapsed, list(results)


def exact_vs_find(claims: list[Claim], repeat: int) -> tuple[float, float]:
    """binds/s and str.find/s over the same pairs, bare loops, runs interleaved."""

    def bind_loop() -> None:
        for quote, text, index in claims:
            bind(quote, text, index=index)

    def find_loop() -> None:
        for quote, text, _index in claims:
            text.find(quote)

    bind_best = find_best = float("inf")
    for _ in range(repeat):
        bind_best = min(bind_best, timed(bind_loop, 1))
        find_best = min(find_best, timed(find_loop, 1))
    return len(claims) / bind_best, len(claims) / find_best


def bench_corpus(
    claims: dict[str, list[Claim]], repeat: int
) -> tuple[dict[str, object], list[tuple[BoundSpan, str, str]]]:
    report: dict[str, object] = {}
    bound: list[tuple[BoundSpan, str, str]] = []
    for kind, items in claims.items():
        rate, results = run_stage(items, 1 if kind == "fuzzy" else repeat)
        kinds = Counter(r.match if r else "unbound" for r in results)
        if kind == "exact":
            rate, find_rate = exact_vs_find(items, repeat + 2)
            report["str_find_loop_per_s"] = round(find_rate)
            report["exact_vs_str_find"] = round(rate / find_rate, 3)
        report[f"{kind}_binds_per_s"] = round(rate)
        report[f"{kind}_outcomes"] = dict(sorted(kinds.items()))
        for (quote, text, index), result in zip(items, results, strict=True):
            if result is not None:
                span = BoundSpan(quote, result.start, result.end, result.match, index.sha256)
                bound.append((span, text, index.sha256))
    return report, bound


def bench_recheck(bound: list[tuple[BoundSpan, str, str]], repeat: int) -> dict[str, object]:
    statuses = Counter(recheck(span, text, sha) for span, text, sha in bound)

    def loop() -> None:
        for span, text, sha in bound:
            recheck(span, text, sha)

    by_kind: dict[str, int] = {}
    for kind in ("exact", "normalized", "fuzzy"):
        subset = [item for item in bound if item[0].match == kind]
        if subset:

            def kind_loop(subset: list[tuple[BoundSpan, str, str]] = subset) -> None:
                for span, text, sha in subset:
                    recheck(span, text, sha)

            by_kind[kind] = round(len(subset) / timed(kind_loop, repeat))
    return {
        "rechecks_per_s": round(len(bound) / timed(loop, repeat)),
        "rechecks_per_s_by_match": by_kind,
        "recheck_statuses": dict(sorted(statuses.items())),
    }


def build_indexes(texts: list[str]) -> tuple[list[SourceIndex], dict[str, float]]:
    hash_time = 0.0
    build_ascii: list[float] = []
    build_other: list[float] = []
    sentence_time = 0.0
    indexes: list[SourceIndex] = []
    for text in texts:
        started = time.perf_counter()
        sha = sha256_hex(text)
        hashed = time.perf_counter()
        index = SourceIndex(text, sha)
        built = time.perf_counter()
        _ = index.sentences
        sentence_time += time.perf_counter() - built
        hash_time += hashed - started
        (build_ascii if text.isascii() else build_other).append(built - hashed)
        indexes.append(index)
    n = len(texts)
    all_builds = build_ascii + build_other
    return indexes, {
        "sources": n,
        "mean_source_chars": round(sum(len(t) for t in texts) / n),
        "index_build_ms_mean": round(1000 * sum(all_builds) / n, 4),
        "index_build_ms_mean_ascii": round(1000 * sum(build_ascii) / max(1, len(build_ascii)), 4),
        "index_build_ms_mean_typographic": round(
            1000 * sum(build_other) / max(1, len(build_other)), 4
        ),
        "sentence_spans_ms_mean": round(1000 * sentence_time / n, 4),
        "sha256_ms_mean": round(1000 * hash_time / n, 4),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller corpus, for CI")
    args = parser.parse_args()
    if args.quick:
        n_sources, per_kind, big_chars, big_quotes, repeat = 100, 1_000, 1_000_000, 200, 2
    else:
        n_sources, per_kind, big_chars, big_quotes, repeat = 1_000, 10_000, 10_000_000, 1_000, 3

    rng = random.Random(SEED)
    writer = Writer(rng, make_vocabulary(rng, 5_000))
    texts = [
        writer.source(20_000, typographic=rng.random() < TYPOGRAPHIC_SHARE)
        for _ in range(n_sources)
    ]
    indexes, build_report = build_indexes(texts)
    claims = build_claims(rng, writer, indexes, per_kind)
    corpus_report, bound = bench_corpus(claims, repeat)
    corpus_report.update(bench_recheck(bound, repeat))
    corpus_report.update(build_report)
    corpus_report["claims_per_kind"] = per_kind

    big_text = writer.source(big_chars, typographic=False)
    big_indexes, big_build = build_indexes([big_text])
    big_claims = build_claims(rng, writer, big_indexes, big_quotes)
    big_report, big_bound = bench_corpus(big_claims, 1)
    big_report.update(bench_recheck(big_bound, 1))
    big_report.update(
        {
            "source_chars": len(big_text),
            "quotes_per_kind": big_quotes,
            "index_build_ms": big_build["index_build_ms_mean"],
            "sentence_spans_ms": big_build["sentence_spans_ms_mean"],
            "sha256_ms": big_build["sha256_ms_mean"],
        }
    )

    met = {
        name: bool(float(corpus_report[name]) >= target)  # type: ignore[arg-type]
        for name, target in TARGETS.items()
    }
    print_json(
        {
            "mode": "quick" if args.quick else "full",
            "python": sys.version.split()[0],
            "corpus": corpus_report,
            "large_source": big_report,
            "targets": TARGETS,
            "targets_met": met,
        }
    )


if __name__ == "__main__":
    main()
