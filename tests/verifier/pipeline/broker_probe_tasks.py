"""A task and a producer for the broker tests (``test_filesystem_broker.py``).

The worker imports this module (``celery worker -I``) and runs ``record_message``, which
appends the message's tag and its padding's length to ``$SPANPROOF_TEST_RECORD``.
``python -m tests.verifier.pipeline.broker_probe_tasks PREFIX QUEUE SMALL LARGE BYTES``
publishes SMALL messages of 100 bytes and LARGE messages of BYTES, interleaved, to QUEUE
through the configured broker."""

from __future__ import annotations

import os
import sys
import time

from config.celery import app

TASK_NAME = "spanproof.tests.record_message"


@app.task(name=TASK_NAME)
def record_message(tag: str, pad: str) -> None:
    with open(os.environ["SPANPROOF_TEST_RECORD"], "a") as record:
        record.write(f"{tag} {len(pad)}\n")


def plan(prefix: str, small: int, large: int, size: int) -> list[tuple[str, int]]:
    messages = [(f"{prefix}-s{i}", 100) for i in range(small)]
    for j in range(large):
        messages.insert((j + 1) * len(messages) // (large + 1), (f"{prefix}-l{j}", size))
    return messages


def produce(prefix: str, queue: str, small: int, large: int, size: int) -> None:
    """Publish the plan; a short pause after each large message lets the consumer catch
    up and poll the folder while the next one is being written (where a non-atomic
    write is read half-way)."""
    for tag, length in plan(prefix, small, large, size):
        app.send_task(TASK_NAME, args=[tag, "x" * length], queue=queue)
        if length > 100:
            time.sleep(0.05)


if __name__ == "__main__":
    import django

    django.setup()
    prefix, queue, small, large, size = sys.argv[1:6]
    produce(prefix, queue, int(small), int(large), int(size))
