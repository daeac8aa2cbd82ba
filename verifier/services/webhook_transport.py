"""One outbound webhook POST that cannot be aimed at the server's own network.

The host is resolved and every address checked (``verifier.outbound_addresses``); the
connection then goes to the checked address itself, with the URL's host name kept for
the ``Host`` header and TLS verification, so a DNS answer that changes between the
check and the connection (rebinding) cannot redirect it. Redirects are never
followed, ``https`` is required unless ``SPANPROOF_WEBHOOK_ALLOW_HTTP`` is on, connect
and read have timeouts, and at most ``MAX_RESPONSE_BYTES`` of the answer are read.
Operators admit internal receivers with ``SPANPROOF_WEBHOOK_ALLOWED_NETWORKS``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final
from urllib.parse import urlsplit

import certifi
import urllib3
from django.conf import settings

from verifier.errors import ApplicationError
from verifier.outbound_addresses import (
    AddressRefused,
    IPAddress,
    IPNetwork,
    parse_networks,
    resolve_permitted,
)

CONNECT_TIMEOUT_SECONDS: Final = 5.0
MAX_RESPONSE_BYTES: Final = 64 * 1024


class WebhookTargetRefused(ApplicationError, ValueError):
    """A webhook URL that outbound requests may not reach."""


@dataclass(frozen=True)
class WebhookTarget:
    scheme: str
    host: str
    port: int
    path: str
    address: IPAddress


@dataclass(frozen=True)
class PostResult:
    status_code: int | None
    error: str
    refused: bool = False  # the target check refused it: not worth retrying


def allowed_networks() -> tuple[IPNetwork, ...]:
    return parse_networks(getattr(settings, "SPANPROOF_WEBHOOK_ALLOWED_NETWORKS", ()))


def webhook_target_check(*, url: str) -> WebhookTarget:
    """Parse ``url`` and resolve its host; raise ``WebhookTargetRefused`` when the
    scheme or any resolved address is not allowed."""
    parts = urlsplit(url)
    allow_http = bool(getattr(settings, "SPANPROOF_WEBHOOK_ALLOW_HTTP", False))
    if parts.scheme not in ("http", "https"):
        raise WebhookTargetRefused("invalid_url", "The URL must be http(s).")
    if parts.scheme == "http" and not allow_http:
        raise WebhookTargetRefused("insecure_url", "Webhook URLs must use https.")
    if parts.username or parts.password:
        raise WebhookTargetRefused("invalid_url", "The URL must not carry credentials.")
    try:
        host, port = parts.hostname, parts.port
    except ValueError as exc:
        raise WebhookTargetRefused("invalid_url", "The URL's port is invalid.") from exc
    if not host:
        raise WebhookTargetRefused("invalid_url", "The URL has no host.")
    port = port or (443 if parts.scheme == "https" else 80)
    try:
        address = resolve_permitted(host, port, allowed=allowed_networks())
    except AddressRefused as exc:
        raise WebhookTargetRefused(
            "address_not_allowed",
            f"Webhooks may not be sent to {exc.host}: {exc.reason}.",
        ) from exc
    path = parts.path or "/"
    if parts.query:
        path += "?" + parts.query
    return WebhookTarget(parts.scheme, host, port, path, address)


def _host_header(target: WebhookTarget) -> str:
    host = f"[{target.host}]" if ":" in target.host else target.host
    default = 443 if target.scheme == "https" else 80
    return host if target.port == default else f"{host}:{target.port}"


def webhook_post(*, url: str, body: bytes, headers: dict[str, str], timeout: float) -> PostResult:
    """POST ``body`` once; return the status code, or the error that prevented one."""
    try:
        target = webhook_target_check(url=url)
    except WebhookTargetRefused as exc:
        return PostResult(None, f"refused: {exc.message}", refused=True)
    pool_timeout = urllib3.Timeout(connect=min(CONNECT_TIMEOUT_SECONDS, timeout), read=timeout)
    pool: urllib3.HTTPConnectionPool
    if target.scheme == "https":
        pool = urllib3.HTTPSConnectionPool(
            str(target.address),
            target.port,
            timeout=pool_timeout,
            retries=False,
            maxsize=1,
            cert_reqs="CERT_REQUIRED",
            ca_certs=certifi.where(),
            server_hostname=target.host,
            assert_hostname=target.host,
        )
    else:
        pool = urllib3.HTTPConnectionPool(
            str(target.address), target.port, timeout=pool_timeout, retries=False, maxsize=1
        )
    try:
        response = pool.urlopen(
            "POST",
            target.path,
            body=body,
            headers={**headers, "Host": _host_header(target)},
            redirect=False,
            retries=False,
            preload_content=False,
        )
        try:
            response.read(MAX_RESPONSE_BYTES)  # drain a bounded amount, never more
        finally:
            response.release_conn()
        return PostResult(response.status, "")
    except urllib3.exceptions.HTTPError as exc:
        return PostResult(None, f"{type(exc).__name__}: {exc}")
    finally:
        pool.close()
