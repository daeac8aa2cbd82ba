"""RAG answer audit at size: a long answer against many chunks (seed 003).

    .venv/bin/python -m bench.rag_size [--answer-chars 2000] [--chunks 60] [--chunk-chars 4000]

Builds ``--chunks`` chunks of about ``--chunk-chars`` characters (sentences about
lighthouses, with emoji, a combining mark and CRLF line ends) and an answer of about
``--answer-chars`` characters made of sentences lifted from them, each citing its chunk,
then times ``audit_answer`` — the pure core ``POST /connect/v1/rag/audit`` runs before it
stores anything — with the default judge.

Prints one JSON object: the seconds, the claims audited, the (claim, chunk) pairs the
audit compared, seconds per pair, whether every evidence span slices back to its quote
(``text[start:end] == quote``), and the process's resident memory (MB) before and after.
The cost grows with claims × chunk text (``verifier/rag/evidence.py``, ``best_window``,
which compares in full only the windows that can win). Measured 2026-11-30 on two
shared cores: ``--answer-chars 4000`` (41 claims) × 60 chunks 6 s, was 60 s when every
window was compared; the default 60 chunks with ``--answer-chars 20000`` (204 claims)
34 s, was 7 minutes through the API; ``--answer-chars 20000 --chunks 250`` (1,000,000
characters of chunks, the limit) 82 s; the same answer with ``--chunks 1000
--chunk-chars 1000`` 227 s (a second job on the cores), past gunicorn's 120 s.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # this checkout's packages

from bench._common import django_setup, print_json

PLACES = ["Tarn Point", "Zürich", "São Paulo", "Kraków", "Reykjavík", "Ålesund"]


def rss_mb() -> int:
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS"):
                return int(line.split()[1]) // 1024
    return 0


def chunk_text(k: int, chars: int) -> str:
    sentences: list[str] = []
    i = 0
    while sum(len(s) for s in sentences) < chars:
        place = PLACES[(k + i) % len(PLACES)]
        sentences.append(
            f"The lighthouse at {place} 🗼 number {k}-{i} was built in "
            f"{1800 + (k * 7 + i) % 200} and cafe\u0301 keepers served {i + 3} years.\r\n"
        )
        i += 1
    return "".join(sentences)[:chars]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--answer-chars", type=int, default=2000)
    parser.add_argument("--chunks", type=int, default=60)
    parser.add_argument("--chunk-chars", type=int, default=4000)
    args = parser.parse_args()
    django_setup()
    from verifier.embeddings import embed_texts
    from verifier.engine import get_judge, judge_batch_size
    from verifier.rag.audit import audit_answer
    from verifier.rag.chunks import parse_chunks

    rss_before = rss_mb()
    chunks = parse_chunks(
        [{"id": f"c{k}", "text": chunk_text(k, args.chunk_chars)} for k in range(args.chunks)]
    )
    parts: list[str] = []
    k = 0
    while sum(len(p) for p in parts) < args.answer_chars:
        sentence = chunks[k % len(chunks)].text.split("\r\n")[(k // len(chunks)) % 5]
        parts.append(f"{sentence} [c{k % len(chunks)}] ")
        k += 1
    answer = "".join(parts)[: args.answer_chars]
    judge = get_judge()
    embed_texts(["load the model"])
    started = time.perf_counter()
    result = audit_answer(answer, chunks, judge=judge, batch_size=judge_batch_size())
    seconds = time.perf_counter() - started
    by_id = {c.id: c.text for c in chunks}
    spans_ok = all(
        by_id[e.chunk_id][e.start : e.end] == e.quote for c in result.claims for e in c.evidence
    )
    pairs = len(result.claims) * len(chunks)
    print_json(
        {
            "answer_chars": len(answer),
            "chunks": len(chunks),
            "chunk_chars": args.chunk_chars,
            "judge": judge.model_id,
            "claims": len(result.claims),
            "verdict": result.verdict,
            "seconds": round(seconds, 1),
            "claim_chunk_pairs": pairs,
            "ms_per_pair": round(1000 * seconds / pairs, 1) if pairs else None,
            "evidence_spans_slice_back": spans_ok,
            "rss_mb": {"before": rss_before, "after": rss_mb()},
        }
    )


if __name__ == "__main__":
    main()
