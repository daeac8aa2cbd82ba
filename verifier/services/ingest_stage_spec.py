"""What an ingest stage is to the stage runner (``services.ingest``): its items and the
work on each; the stages themselves are listed in ``services.ingest_stages``."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from verifier.models import IngestJob


@dataclass(frozen=True)
class StageSpec:
    """``items(job)`` lists stable item keys; ``run_item(job, key)`` does one item, in a
    transaction of its own unless ``own_transactions`` (the item opens its own, say to
    write on several connections at once; it must still be safe to rerun). ``serial``:
    one item at a time, in key order; ``prepare(job, key)`` (serial stages only, in a
    transaction of its own, idempotent and order-free) is what a waiting shard may do
    ahead for a later item. ``finish(job)`` (the last stage only) closes the job, once,
    in the transaction that holds the job's row lock and found every item done."""

    items: Callable[[IngestJob], list[str]]
    run_item: Callable[[IngestJob, str], object]
    own_transactions: bool = False
    serial: bool = False
    prepare: Callable[[IngestJob, str], object] | None = None
    finish: Callable[[IngestJob], object] | None = None
