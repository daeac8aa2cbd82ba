"""Request bodies sent with ``Transfer-Encoding: chunked`` (no ``Content-Length``).

Django reads a body only as far as ``CONTENT_LENGTH`` says, so a chunked body read as
empty ("ref/text required"). gunicorn decodes the chunks and says so
(``wsgi.input_terminated``: ``wsgi.input`` ends where the body ends), so this WSGI
wrapper reads such a body — at most ``DATA_UPLOAD_MAX_MEMORY_SIZE`` + 1 bytes, the
request's cap, which Django then enforces as for any other body — and hands Django a
framed copy. A server that cannot say where a chunked body ends gets a 411 with the
API's JSON error body.
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable, Iterable
from typing import Any

from django.conf import settings

StartResponse = Callable[..., Any]
WsgiApp = Callable[[dict[str, Any], StartResponse], Iterable[bytes]]

LENGTH_REQUIRED = {
    "error": {
        "code": "length_required",
        "message": "A chunked request body cannot be read here; send a Content-Length.",
        "details": {},
    }
}


def is_chunked(environ: dict[str, Any]) -> bool:
    encoding = environ.get("HTTP_TRANSFER_ENCODING", "")
    return "chunked" in encoding.lower() and not environ.get("CONTENT_LENGTH")


class ChunkedBodies:
    def __init__(self, app: WsgiApp) -> None:
        self.app = app

    def __call__(self, environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        if is_chunked(environ):
            if not environ.get("wsgi.input_terminated"):
                body = json.dumps(LENGTH_REQUIRED).encode()
                start_response(
                    "411 Length Required",
                    [("Content-Type", "application/json"), ("Content-Length", str(len(body)))],
                )
                return [body]
            limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
            stream = environ["wsgi.input"]
            data = stream.read() if limit is None else stream.read(limit + 1)
            environ = {**environ, "CONTENT_LENGTH": str(len(data)), "wsgi.input": io.BytesIO(data)}
        return self.app(environ, start_response)
