"""Memory checks at size: one agent message against a long transcript (seed 002).

    .venv/bin/python -m bench.memory_size [--turns 2000] [--claims 1 3] [--rounds 1]

Builds a transcript of ``--turns`` turns (user and agent alternating, the agent's turns
two sentences each, with emoji and combining marks) and times ``MemoryVerifier.
verify_message`` — the pure core a verify call runs: detection, binding, the MiniLM
embeddings of every sentence unit of the agent's turns, the drift rubric and the
default judge — for a message of each ``--claims`` count of quoted claims. The API adds
the transcript's import (under a second for 2,000 turns) and storing the checks.

Prints one JSON object: per claim count the seconds and the CPU seconds (median of
``--rounds``; CPU time is less sensitive to a busy machine), how many texts were
embedded, and the process's resident memory (MB) before and after. Each distinct text is
embedded once per message (``verifier/memory/verify.py``, ``MessageVectors``), so more
claims should cost little more than one.

    .venv/bin/python -m bench.memory_size --stored [--claims 1 3 20]

times the verify service (``memory_verify``) against a transcript stored on a fresh bench
database (``bench_memory_size``): its import, the first check (it embeds the agent's units
and stores their vectors) and then, per claim count, a check that reads them.

Measured 2026-11-30, 2,000 turns (3,000 units of the agent's), on a busy 2-core machine
(CPU seconds; an idle machine took about 12 for a check that embeds the transcript):

* before stored unit vectors, every check embeds the transcript again (the pure core):
  1 claim 45.4 CPU s, 3 claims 30.3 (3,000 texts embedded each time);
* after: the import 0.16 s (it embeds nothing); the first check 42.3 CPU s (3,000 texts
  embedded, 3,000 vectors stored); every later check 0 texts embedded: 1 claim 0.22 CPU
  s, 3 claims 0.6, 20 claims 4.5, 100 claims 23.4 (every claim of this transcript of
  near-identical turns ends in the pairwise conflict comparison, the worst case), which
  is why a message may make at most 20 claims (``MAX_CLAIMS_PER_MESSAGE``).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # this checkout's packages

from bench._common import django_setup, print_json

BENCH_DB = "bench_memory_size"
TOPICS = ["the quarterly budget", "the draft report", "the Friday meeting", "the café opening"]


def rss_mb() -> int:
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS"):
                return int(line.split()[1]) // 1024
    return 0


def transcript_turns(count: int) -> list[dict[str, str]]:
    turns = []
    for i in range(count):
        topic = TOPICS[i // 2 % len(TOPICS)]
        if i % 2 == 0:
            turns.append({"speaker": "user", "text": f"Question {i}: what about {topic}? 😀"})
        else:
            text = f"I will handle {topic} by day {i}. Cafe\u0301 note {i} 👍🏽."
            turns.append({"speaker": "agent", "text": text})
    return turns


def message(turns: list[dict[str, str]], claims: int) -> str:
    agent = [t["text"] for t in turns if t["speaker"] == "agent"]
    step = max(1, len(agent) // (claims + 1))
    quoted = [agent[step * (k + 1) % len(agent)].split(". ")[0] + "." for k in range(claims)]
    return " ".join(f'I said "{q}"' for q in quoted)


def stored(args: argparse.Namespace) -> None:
    """``--stored``: the service a verify call runs (``memory_verify``) against a stored
    transcript, on a fresh bench database: the import, the first check (it embeds the
    agent's units and stores their vectors) and then, per ``--claims`` count, a check
    that reads them."""
    django_setup(BENCH_DB, fresh=True)
    from django.core.management import call_command

    call_command("migrate", verbosity=0, interactive=False)
    import numpy as np

    from verifier.embeddings import embed_texts
    from verifier.engine import get_judge
    from verifier.models import MemoryUnitVector
    from verifier.services import memory as memory_services
    from verifier.services.workspaces import workspace_create

    embedded = [0]

    def counting(texts: Sequence[str]) -> np.ndarray:
        embedded[0] += len(texts)
        return embed_texts(texts)

    memory_services.embed_texts = counting  # type: ignore[attr-defined,assignment]
    workspace = workspace_create(slug="bench-memory-size", name="Memory checks at size")
    turns = transcript_turns(args.turns)
    judge = get_judge()
    embed_texts(["load the model"])
    started = time.perf_counter()
    row = memory_services.memory_transcript_import(workspace=workspace, data=turns).transcript
    import_seconds = time.perf_counter() - started

    def check(claims: int) -> dict[str, Any]:
        embedded[0] = 0
        began, cpu_began = time.perf_counter(), time.process_time()
        write = memory_services.memory_verify(
            workspace=workspace,
            agent="agent",
            message=message(turns, claims),
            transcript=row,
            judge=judge,
        )
        return {
            "seconds": round(time.perf_counter() - began, 2),
            "cpu_seconds": round(time.process_time() - cpu_began, 2),
            "texts_embedded": embedded[0],
            "outcomes": [v.outcome for v in write.verdicts],
        }

    first = check(args.claims[0])
    vectors = MemoryUnitVector.objects.filter(transcript=row).count()
    runs: dict[str, dict[str, Any]] = {}
    for claims in args.claims:
        rounds = [check(claims) for _ in range(args.rounds)]
        runs[str(claims)] = {
            **rounds[0],
            "seconds": round(statistics.median(r["seconds"] for r in rounds), 2),
            "cpu_seconds": round(statistics.median(r["cpu_seconds"] for r in rounds), 2),
        }
    print_json(
        {
            "turns": args.turns,
            "transcript_chars": len(row.version.text),
            "judge": judge.model_id,
            "import_seconds": round(import_seconds, 2),
            "first_check": {"claims": args.claims[0], **first, "unit_vectors_stored": vectors},
            "claims": runs,
            "rss_mb": rss_mb(),
        }
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=2000)
    parser.add_argument("--claims", type=int, nargs="+", default=[1, 3])
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument(
        "--stored",
        action="store_true",
        help="time the verify service against a stored transcript (bench database)",
    )
    args = parser.parse_args()
    if args.stored:
        stored(args)
        return
    django_setup()
    import numpy as np

    from verifier.embeddings import embed_texts
    from verifier.engine import get_judge
    from verifier.memory import MemoryVerifier, parse_transcript

    embedded = [0]

    def counting(texts: Sequence[str]) -> np.ndarray:
        embedded[0] += len(texts)
        return embed_texts(texts)

    rss_before = rss_mb()
    turns = transcript_turns(args.turns)
    transcript = parse_transcript(turns)
    judge = get_judge()
    embed_texts(["load the model"])
    verifier = MemoryVerifier(judge=judge, embed=counting)
    runs = {}
    for claims in args.claims:
        text = message(turns, claims)
        seconds: list[float] = []
        cpu: list[float] = []
        for _ in range(args.rounds):
            embedded[0] = 0
            started, cpu_started = time.perf_counter(), time.process_time()
            verdicts = verifier.verify_message(text, transcript, "agent")
            seconds.append(time.perf_counter() - started)
            cpu.append(time.process_time() - cpu_started)
        runs[str(claims)] = {
            "seconds": round(statistics.median(seconds), 2),
            "cpu_seconds": round(statistics.median(cpu), 2),
            "texts_embedded": embedded[0],
            "outcomes": [v.outcome for v in verdicts],
        }
    print_json(
        {
            "turns": args.turns,
            "transcript_chars": len(transcript.text),
            "judge": judge.model_id,
            "claims": runs,
            "rss_mb": {"before": rss_before, "after": rss_mb()},
        }
    )


if __name__ == "__main__":
    main()
