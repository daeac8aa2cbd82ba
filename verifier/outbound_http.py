"""One outbound HTTP request that cannot be aimed at the server's own network.

Every door that sends a request to a URL someone else chose (webhook deliveries, the
worker's web search and page fetches) goes through here, so the guard is written once:

* ``outbound_target`` parses the URL (http or https, a host, no credentials, a valid
  port) and resolves the host, refusing it when any address is not one outbound
  requests may reach (``verifier.outbound_addresses``, with the door's allow-list);
* ``outbound_request`` connects to that checked address itself, keeping the URL's host
  name for the ``Host`` header and for TLS (server name and certificate check), so a DNS
  answer that changes between the check and the connection (rebinding) cannot move it;
  TLS verifies against the pinned CA file (``certifi``), never the system's store;
  redirects are never followed (a 3xx is an answer like any other); no retries; and at
  most ``limit`` bytes of the answer are read.

Plain Python and urllib3, no Django: the door says which networks it admits, whether
plain http is allowed, and its timeouts.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final
from urllib.parse import urlsplit

import certifi
import urllib3

from verifier.outbound_addresses import (
    AddressRefused,
    IPAddress,
    IPNetwork,
    resolve_permitted,
)

SCHEMES: Final = ("http", "https")
DEFAULT_PORTS: Final = {"http": 80, "https": 443}


class OutboundRefused(ValueError):
    """The URL may not be requested: ``code`` and ``message`` say why; ``refusal`` is the
    address check's answer when the host resolved to an address that is not allowed."""

    def __init__(self, code: str, message: str, *, refusal: AddressRefused | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.refusal = refusal


class OutboundFailed(Exception):
    """The request was sent (or tried) but no answer came back: ``str()`` says why."""


@dataclass(frozen=True)
class OutboundTarget:
    scheme: str
    host: str
    port: int
    path: str  # with the query
    address: IPAddress  # the checked address the connection goes to

    @property
    def host_header(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return host if self.port == DEFAULT_PORTS[self.scheme] else f"{host}:{self.port}"


@dataclass(frozen=True)
class OutboundAnswer:
    status: int
    body: bytes  # at most the request's ``limit`` bytes


def outbound_target(url: str, *, allowed: tuple[IPNetwork, ...] = ()) -> OutboundTarget:
    """Parse ``url`` and resolve its host to an address outbound requests may reach
    (``allowed``: networks the operator admits); raise ``OutboundRefused`` otherwise."""
    parts = urlsplit(url)
    if parts.scheme not in SCHEMES:
        raise OutboundRefused("invalid_url", "The URL must be http(s).")
    if parts.username or parts.password:
        raise OutboundRefused("invalid_url", "The URL must not carry credentials.")
    try:
        host, port = parts.hostname, parts.port
    except ValueError as exc:
        raise OutboundRefused("invalid_url", "The URL's port is invalid.") from exc
    if not host:
        raise OutboundRefused("invalid_url", "The URL has no host.")
    port = port or DEFAULT_PORTS[parts.scheme]
    try:
        address = resolve_permitted(host, port, allowed=allowed)
    except AddressRefused as exc:
        raise OutboundRefused(
            "address_not_allowed", f"{exc.host}: {exc.reason}", refusal=exc
        ) from exc
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return OutboundTarget(parts.scheme, host, port, path, address)


def outbound_request(
    method: str,
    target: OutboundTarget,
    *,
    timeout: urllib3.Timeout,
    limit: int,
    headers: dict[str, str] | None = None,
    body: bytes | None = None,
) -> OutboundAnswer:
    """Send one request to ``target``'s checked address (never redirected, never retried)
    and read at most ``limit`` bytes of the answer; raise ``OutboundFailed`` when no
    answer came back (connection, TLS, timeout)."""
    pool: urllib3.HTTPConnectionPool
    if target.scheme == "https":
        pool = urllib3.HTTPSConnectionPool(
            str(target.address),
            target.port,
            timeout=timeout,
            retries=False,
            maxsize=1,
            cert_reqs="CERT_REQUIRED",
            ca_certs=certifi.where(),
            server_hostname=target.host,
            assert_hostname=target.host,
        )
    else:
        pool = urllib3.HTTPConnectionPool(
            str(target.address), target.port, timeout=timeout, retries=False, maxsize=1
        )
    try:
        response = pool.urlopen(
            method,
            target.path,
            body=body,
            headers={**(headers or {}), "Host": target.host_header},
            redirect=False,
            retries=False,
            preload_content=False,
        )
        try:
            read = response.read(limit)  # a bounded amount, never more
        finally:
            response.release_conn()
        return OutboundAnswer(response.status, read)
    except urllib3.exceptions.HTTPError as exc:
        raise OutboundFailed(f"{type(exc).__name__}: {exc}") from exc
    finally:
        pool.close()
