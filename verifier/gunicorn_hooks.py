"""gunicorn server hooks for the console (``--config python:verifier.gunicorn_hooks``).

``post_worker_init`` runs in each worker once it has loaded the Django application and
before it accepts a request:

1. it loads the query embedder (``verifier.embeddings.embed_text``), so no request waits
   for a model load; a failure is logged and left to the requests, which answer it as
   they always do (503, "embedding unavailable");
2. it moves every object alive at that point (the framework, the model's Python side,
   ~135,000 objects) into the garbage collector's permanent generation
   (``gc.freeze``). A full collection in a warmed worker otherwise walks all of them,
   ~130 ms on a 2-core machine, during which every thread of that worker waits; after
   the freeze it walks only what requests have left behind (~1 ms);
3. it raises the collector's first threshold from 700 to ``GC_GEN0_THRESHOLD``. The
   count it compares is allocations less deallocations of container objects, so the
   live objects of one retrieve (rows, envelopes, the trace document: some thousands)
   crossed 700 in nearly every request and a collection walked them mid-request (649
   collections in 630 retrieves, and every tenth of those a second-generation one of
   ~1.3 ms). At 10,000 a collection runs once the reference cycles requests leave
   behind (a few hundred objects a request: DRF's request and view, Django's response)
   add up, every few dozen requests. Measured at 1,000,000 claims, each query sent to a
   worker with and one without (600 pairs, twice): retrieve p50 0.19–0.22 ms lower,
   p95 unchanged.
"""

from __future__ import annotations

import gc
import logging
from typing import Any

logger = logging.getLogger(__name__)

WARM_UP_TEXT = "Where does sediment settle?"
# gunicorn settings this module also carries. A request line longer than gunicorn's
# limit is refused by gunicorn itself, in plain text, before the app can answer with its
# JSON error body; the default (4,094) is reached by a claim id or a ref of some 4,000
# characters in a path. 8,190 is the most gunicorn allows.
limit_request_line = 8190
GC_GEN0_THRESHOLD = 10_000


def warm_up() -> None:
    """Load what the first request would otherwise load."""
    from verifier import embeddings

    try:
        embeddings.embed_text(WARM_UP_TEXT)
    except embeddings.EmbeddingUnavailable as exc:
        logger.warning("query embedder not loaded at worker start: %s", exc)


def post_worker_init(worker: Any) -> None:
    warm_up()
    gc.collect()
    gc.freeze()
    _gen0, gen1, gen2 = gc.get_threshold()
    gc.set_threshold(GC_GEN0_THRESHOLD, gen1, gen2)
