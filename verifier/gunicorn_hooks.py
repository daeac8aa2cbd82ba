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
   the freeze it walks only what requests have left behind (~1 ms).
"""

from __future__ import annotations

import gc
import logging
from typing import Any

logger = logging.getLogger(__name__)

WARM_UP_TEXT = "Where does sediment settle?"


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
