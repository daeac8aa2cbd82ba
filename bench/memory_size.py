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
embedded once per message (``verifier/memory/verify.py``, ``_MessageVectors``), so more
claims should cost little more than one.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # this checkout's packages

from bench._common import django_setup, print_json

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=2000)
    parser.add_argument("--claims", type=int, nargs="+", default=[1, 3])
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args()
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
