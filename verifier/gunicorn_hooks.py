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

The workers are :class:`ThreadWorker` (gunicorn's ``gthread`` worker, ``worker_class``
below and ``verifier.web_server``), which answers the requests gunicorn refuses before
the app sees them for being too large — a request line over ``limit_request_line``
(414), a header over ``limit_request_field_size`` or more than ``limit_request_fields``
headers (431) — with the API's JSON error body instead of gunicorn's HTML page. Nothing
of the path is known at that point (the request line is what did not fit), so every path
gets the JSON body, API clients (``/connect/v1/…``, ``/worker/verify``) being the ones that
build such requests; the message is a sentence a person reads too.
"""

from __future__ import annotations

import gc
import json
import logging
import uuid
from typing import Any

from gunicorn import util
from gunicorn.http.errors import LimitRequestHeaders, LimitRequestLine
from gunicorn.workers.gthread import ThreadWorker as GunicornThreadWorker

logger = logging.getLogger(__name__)

WARM_UP_TEXT = "Where does sediment settle?"
# gunicorn settings this module also carries. A request line longer than gunicorn's
# limit is refused by gunicorn itself, in plain text, before the app can answer with its
# JSON error body; the default (4,094) is reached by a claim id or a ref of some 4,000
# characters in a path. 8,190 is the most gunicorn allows.
limit_request_line = 8190
limit_request_fields = 100
limit_request_field_size = 8190
worker_class = "verifier.gunicorn_hooks.ThreadWorker"
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


def refusal_body(exc: LimitRequestLine | LimitRequestHeaders) -> tuple[int, str, bytes]:
    """Status, reason and JSON error body for a request gunicorn refused as too large."""
    if isinstance(exc, LimitRequestLine):
        status, reason, code = 414, "URI Too Long", "uri_too_long"
        message = (
            f"The request line (method, path and query string) is longer than "
            f"{limit_request_line:,} bytes. Send fewer or shorter query parameters, or "
            "send the data in the body of a POST."
        )
        details: dict[str, Any] = {"field": "path", "limit_bytes": limit_request_line}
    else:
        status, reason = 431, "Request Header Fields Too Large"
        code = "request_header_fields_too_large"
        message = (
            f"The request's headers are too large: at most {limit_request_fields} headers "
            f"of at most {limit_request_field_size:,} bytes each. Send smaller headers "
            "(a large cookie or token is the usual cause)."
        )
        details = {
            "field": "headers",
            "limit_bytes": limit_request_field_size,
            "limit_fields": limit_request_fields,
        }
    body = {"error": {"code": code, "message": message, "details": details}}
    return status, reason, json.dumps(body).encode()


class ThreadWorker(GunicornThreadWorker):  # type: ignore[misc]
    """gunicorn's ``gthread`` worker whose refusal of a request too large to read is the
    API's JSON error body (module docstring); every other refusal is gunicorn's own."""

    def handle_error(self, req: Any, client: Any, addr: Any, exc: BaseException) -> None:
        if not isinstance(exc, LimitRequestLine | LimitRequestHeaders):
            super().handle_error(req, client, addr, exc)
            return
        status, reason, body = refusal_body(exc)
        request_id = uuid.uuid4().hex  # the one the request sent was not read
        self.log.warning(
            "[request %s] Invalid request from ip=%s: %s %s (%s)",
            request_id,
            (addr or ("",))[0],
            status,
            reason,
            exc,
        )
        head = (
            f"HTTP/1.1 {status} {reason}\r\nConnection: close\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n"
            f"X-Request-ID: {request_id}\r\n\r\n"
        )
        try:
            util.write_nonblock(client, head.encode("latin-1") + body)
        except Exception:
            self.log.debug("Failed to send error message.")
