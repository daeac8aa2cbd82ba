"""Chat-completions servers that misbehave the way real providers and proxies do, against
the real client, judge, extractor, database and API (a real local server each time)."""

from __future__ import annotations

import json
import socket
import struct
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from tests.verifier.api.conftest import client_for
from tests.verifier.judges.chat_server import ChatServer, answer, completion, items_of
from verifier.chat_completions import ChatCompletionsClient, ChatUnavailable

EIGHT_MIB = 8 * 1024 * 1024  # verifier.chat_completions.MAX_RESPONSE_BYTES


def client(server: Any, **kw: Any) -> ChatCompletionsClient:
    return ChatCompletionsClient(base_url=server.base_url, model="m", timeout=1, **kw)


def ask(chat: ChatCompletionsClient) -> list[str]:
    return chat.complete(system="s", user="u", temperature=0)


class RawServer:
    """A socket server that reads one request and then writes ``frames`` (bytes), sleeping
    ``gap`` seconds between them, then closes: a body that keeps arriving."""

    def __init__(self, frames: list[bytes], gap: float) -> None:
        self.frames, self.gap = frames, gap
        self._sock = socket.socket()
        self._sock.bind(("127.0.0.1", 0))
        self._sock.listen(4)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._sock.getsockname()[1]}/v1"

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._sock.accept()
            except OSError:
                return
            with conn:
                _read_request(conn)
                try:
                    for frame in self.frames:
                        conn.sendall(frame)
                        if self._stop.wait(self.gap):
                            return
                except OSError:
                    continue

    def __enter__(self) -> RawServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stop.set()
        self._sock.close()


def _read_request(conn: socket.socket) -> None:
    data = b""
    while b"\r\n\r\n" not in data:
        data += conn.recv(65536) or b"\r\n\r\n"
    head, _, body = data.partition(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n"):
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value)
    while len(body) < length:
        chunk = conn.recv(65536)
        if not chunk:
            break
        body += chunk


def test_a_body_that_keeps_arriving_past_the_timeout_is_a_timeout() -> None:
    # An SSE stream nobody asked for, kept open with keep-alive comments: every read gets
    # a byte within the read timeout, so only a deadline on the whole body ends it.
    head = b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n"
    with (
        RawServer([head] + [b": keep-alive\n\n"] * 12, gap=0.4) as server,
        pytest.raises(ChatUnavailable, match=r"^timeout after 1s"),
    ):
        ask(client(server))


@pytest.mark.parametrize("reset", [False, True])
def test_a_connection_broken_mid_body_is_said_in_words(reset: bool) -> None:
    head = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n"

    class Breaking(RawServer):
        def _serve(self) -> None:
            conn, _ = self._sock.accept()
            _read_request(conn)
            conn.sendall(head + b'{"choices": [')
            if reset:  # an RST, not a FIN
                conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            conn.close()

    with (
        Breaking([], gap=0) as server,
        pytest.raises(ChatUnavailable, match=r"^request failed: connection broken mid-answer"),
    ):
        ask(client(server))


def test_an_answer_over_the_size_limit_is_refused() -> None:
    huge = completion("x" * (EIGHT_MIB + 1))
    with (
        ChatServer(lambda request, call: (200, huge)) as server,
        pytest.raises(ChatUnavailable, match="larger than 8 MiB"),
    ):
        ask(client(server))


def test_a_redirect_is_not_followed_to_another_address() -> None:
    with ChatServer(lambda request, call: (200, completion("elsewhere"))) as other:
        location = other.base_url + "/chat/completions"

        def reply(request, call):
            return 307, "", 0, {"Location": location}

        with (
            ChatServer(reply) as server,
            pytest.raises(ChatUnavailable, match=r"^http 307: redirected"),
        ):
            ask(client(server, api_key="sk-secret"))
        assert other.requests == []  # the claims and spans never left for the other host


@pytest.mark.parametrize("value", ["soon", "-5", "Tomorrow, 99 Foo 2020"])
def test_an_unreadable_retry_after_falls_back_to_the_backoff(value: str) -> None:
    def reply(request, call):
        if call == 0:
            return 429, json.dumps({"error": "slow down"}), 0, {"Retry-After": value}
        return 200, completion("ok")

    with ChatServer(reply) as server:
        assert ask(client(server)) == ["ok"]
    assert len(server.requests) == 2


def test_a_retry_after_beyond_the_cap_ends_the_retries_at_once(monkeypatch) -> None:
    monkeypatch.setenv("SPANPROOF_CHAT_RETRIES", "1")

    def reply(request, call):
        return 429, json.dumps({"error": "quota"}), 0, {"Retry-After": "3600"}

    with (
        ChatServer(reply) as server,
        pytest.raises(ChatUnavailable, match=r"^http 429 \(retry after 3600s\)$"),
    ):
        ask(client(server))
    assert len(server.requests) == 1


def test_non_utf8_bytes_in_the_body_do_not_hide_the_answer() -> None:
    body = completion("ok").replace('"stop"', '"st\\u00e9p"').encode()
    body = body.replace(b"st\\u00e9p", b"st\xe9p")  # Latin-1 where UTF-8 belongs

    head = (
        b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
        + f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode()
    )
    with RawServer([head + body], gap=0) as server:
        assert ask(client(server)) == ["ok"]


# -- through the real paths: what the server says is stored safely ---------------------

UNSTORABLE_NOTE = "spans agree\u0000 \ud800"


@pytest.fixture
def note_server(settings) -> Iterator[ChatServer]:
    def reply(request, call):
        results = [
            {"key": it["key"], "label": "entailed", "confidence": 0.9, "note": UNSTORABLE_NOTE}
            for it in items_of(request)
        ]
        body = json.loads(completion(answer(results)))
        return 200, json.dumps({**body, "model": "another-model-than-configured"})

    with ChatServer(reply) as server:
        settings.SPANPROOF_JUDGE = {
            "backend": "openai",
            "base_url": server.base_url,
            "model": "llama-3-judge",
            "family": "llama",
            "api_key": "sk-never-shown",
            "timeout": 5,
        }
        yield server


def test_a_judge_note_postgresql_cannot_store_is_escaped_not_a_500(workspace, note_server) -> None:
    from verifier.models import Verdict

    response = client_for(workspace).post(
        "/connect/v1/claims/verify",
        {
            "sources": [
                {"ref": "source:harbour", "title": "Harbour", "text": "The wall is 412 m long."}
            ],
            "claims": [{"text": "The wall is 412 m long.", "source": "source:harbour"}],
        },
        content_type="application/json",
    )
    assert response.status_code == 200, response.content
    [row] = response.json()["results"]
    verdict = Verdict.objects.get(claim__public_id=row["claim_id"])
    assert verdict.label == "entailed"
    assert verdict.note == "spans agree\\x00 \\ud800"
    assert verdict.judge_model == "llama-3-judge"
    assert "sk-never-shown" not in response.content.decode()


def test_an_extracted_claim_postgresql_cannot_store_is_dropped_not_the_sources_claims(
    workspace, settings, run_job
) -> None:
    from verifier.models import Claim, IngestStatus

    text = "The harbour wall was rebuilt in 1998. It is 412 metres long."
    claims = [
        {"text": "The harbour wall was rebuilt in 1998.", "quote": text[:37]},
        {"text": "The wall\u0000 is long \ud800.", "quote": "It is 412 metres long."},
    ]

    def reply(request, call):
        if "extract" in request["messages"][0]["content"][:20]:
            return 200, completion(json.dumps({"claims": claims}))
        return 500, "{}"

    with ChatServer(reply) as server:
        settings.SPANPROOF_EXTRACTOR = {
            "backend": "openai",
            "base_url": server.base_url,
            "model": "qwen2.5-7b-instruct",
            "timeout": 5,
        }
        job = run_job(workspace, docs={"source:harbour": text})
    assert job.errors == []
    assert job.status in {IngestStatus.SUCCEEDED, IngestStatus.DEGRADED}
    stored = Claim.objects.filter(ingest_job=job)
    assert [c.text for c in stored] == ["The harbour wall was rebuilt in 1998."]


def test_a_trickling_judge_leaves_an_ingest_job_degraded_saying_why(
    workspace, settings, run_job
) -> None:
    from verifier.models import IngestStatus

    head = b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n"
    with RawServer([head] + [b": keep-alive\n\n"] * 12, gap=0.4) as server:
        settings.SPANPROOF_JUDGE = {
            "backend": "openai",
            "base_url": server.base_url,
            "model": "llama-3-judge",
            "family": "llama",
            "timeout": 1,
        }
        job = run_job(workspace, docs={"source:harbour": "The harbour wall is 412 metres long."})
    assert job.status == IngestStatus.DEGRADED
    [warning] = job.warnings
    assert "timeout after 1s" in json.dumps(warning)


def test_an_extractor_error_leaves_a_credential_in_the_base_url_out() -> None:
    from verifier.extractors.openai_compat import ExtractorUnavailable, OpenAICompatibleExtractor

    with ChatServer(lambda request, call: (500, "{}")) as server:
        base_url = server.base_url.replace("http://", "http://gateway:sk-in-url@")
        extractor = OpenAICompatibleExtractor(base_url=base_url, model="qwen", timeout=5)
        with pytest.raises(ExtractorUnavailable) as caught:
            extractor.extract("The harbour wall is 412 metres long.")
    message = str(caught.value)
    assert "http 500" in message and "/v1/chat/completions" in message
    assert "sk-in-url" not in message and "gateway" not in message
