"""A real local HTTP server speaking the chat-completions protocol, misbehaving on demand.

``ChatServer(reply)`` starts on 127.0.0.1 (port 0) in a thread; ``reply(request, call)``
returns ``(status, body)``, ``(status, body, delay_seconds)`` or
``(status, body, delay_seconds, headers)``; every request body is
recorded in ``server.requests``.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Reply = Callable[[dict[str, Any], int], tuple]


def completion(*contents: str) -> str:
    return json.dumps(
        {
            "id": "chatcmpl-test",
            "object": "chat.completion",
            "choices": [
                {
                    "index": i,
                    "message": {"role": "assistant", "content": c},
                    "finish_reason": "stop",
                }
                for i, c in enumerate(contents)
            ],
        }
    )


def items_of(request: dict[str, Any]) -> list[dict[str, Any]]:
    user = request["messages"][-1]["content"]
    return json.loads(user[user.index("{") :])["items"]


def answer(results: list[dict[str, Any]]) -> str:
    return json.dumps({"results": results})


class ChatServer:
    def __init__(self, reply: Reply) -> None:
        self.reply = reply
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                server.requests.append(body)
                server.headers.append(dict(self.headers))
                out = server.reply(body, len(server.requests) - 1)
                status, payload = out[0], out[1]
                if len(out) > 2:
                    time.sleep(out[2])
                data = payload.encode("utf-8")
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    for name, value in (out[3] if len(out) > 3 else {}).items():
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}/v1"

    def __enter__(self) -> ChatServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
