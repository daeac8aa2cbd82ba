"""Transient chat-completions failures are retried against a real local server."""

from __future__ import annotations

import json
import time

import pytest

from tests.verifier.judges.chat_server import ChatServer, completion
from verifier.chat_completions import ChatCompletionsClient, ChatUnavailable


def client(server, **kw):
    return ChatCompletionsClient(base_url=server.base_url, model="m", timeout=5, **kw)


@pytest.mark.parametrize("status", [429, 502, 503, 504])
def test_transient_status_is_retried_then_answered(status):
    def reply(request, call):
        return (status, json.dumps({"error": "busy"})) if call < 2 else (200, completion("ok"))

    with ChatServer(reply) as server:
        answer = client(server).complete(system="s", user="u", temperature=0)
    assert answer == ["ok"] and len(server.requests) == 3


def test_retry_after_is_honoured():
    def reply(request, call):
        if call == 0:
            return 429, json.dumps({"error": "slow down"}), 0, {"Retry-After": "1"}
        return 200, completion("ok")

    with ChatServer(reply) as server:
        began = time.perf_counter()
        assert client(server).complete(system="s", user="u", temperature=0) == ["ok"]
    assert time.perf_counter() - began >= 0.9


def test_gives_up_after_the_retries_with_the_last_status(monkeypatch):
    monkeypatch.setenv("SPANPROOF_CHAT_RETRIES", "2")
    server = ChatServer(lambda request, call: (503, json.dumps({"error": "down"})))
    with server, pytest.raises(ChatUnavailable, match="http 503"):
        client(server).complete(system="s", user="u", temperature=0)
    assert len(server.requests) == 3  # the first try and two retries


def test_a_server_error_is_not_retried():
    server = ChatServer(lambda request, call: (500, json.dumps({"error": "bug"})))
    with server, pytest.raises(ChatUnavailable, match="http 500"):
        client(server).complete(system="s", user="u", temperature=0)
    assert len(server.requests) == 1
