"""Tests reach no network: pytest-socket (``--allow-hosts`` in pyproject's addopts) lets a
socket connect to loopback only."""

from __future__ import annotations

import socket

import pytest
import pytest_socket

# TEST-NET-1 (RFC 5737): documentation only, never routed.
NON_LOOPBACK = ("192.0.2.1", 80)


def test_a_non_loopback_connection_is_blocked():
    # The guard must be in place before the attempt: without it nothing may leave the box.
    assert socket.socket.connect is not pytest_socket._true_connect
    with pytest.raises(pytest_socket.SocketConnectBlockedError), pytest.warns(UserWarning):
        socket.create_connection(NON_LOOPBACK, timeout=1)


def test_loopback_connections_still_work():
    with socket.create_server(("127.0.0.1", 0)) as server:
        port = server.getsockname()[1]
        with socket.create_connection(("127.0.0.1", port), timeout=5):
            conn, _ = server.accept()
            conn.close()
        with socket.create_connection(("localhost", port), timeout=5):
            conn, _ = server.accept()
            conn.close()
