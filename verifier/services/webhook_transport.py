"""One outbound webhook POST that cannot be aimed at the server's own network.

The guard is ``verifier.outbound_http`` (the worker's web fetches use it too): the host
is resolved and every address checked, the connection goes to the checked address with
the URL's host name kept for ``Host`` and TLS (pinned CA file), redirects are never
followed, and at most ``MAX_RESPONSE_BYTES`` of the answer are read. The webhook door
adds its own policy: ``https`` is required unless ``SPANPROOF_WEBHOOK_ALLOW_HTTP`` is on,
connect and read have timeouts, a public receiver must listen on a port of
``SPANPROOF_WEBHOOK_PORTS`` (default 80, 443, 8080, 8443: not a host's SSH, mail or
database port), and operators admit internal receivers, on any port, with
``SPANPROOF_WEBHOOK_ALLOWED_NETWORKS``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final
from urllib.parse import urlsplit

import urllib3
from django.conf import settings

from verifier.errors import ApplicationError
from verifier.outbound_addresses import IPNetwork, parse_networks, port_refusal
from verifier.outbound_http import (
    OutboundFailed,
    OutboundRefused,
    OutboundTarget,
    outbound_request,
    outbound_target,
)

CONNECT_TIMEOUT_SECONDS: Final = 5.0
MAX_RESPONSE_BYTES: Final = 64 * 1024


class WebhookTargetRefused(ApplicationError, ValueError):
    """A webhook URL that outbound requests may not reach."""


@dataclass(frozen=True)
class PostResult:
    status_code: int | None
    error: str
    refused: bool = False  # the target check refused it: not worth retrying


def allowed_networks() -> tuple[IPNetwork, ...]:
    return parse_networks(getattr(settings, "SPANPROOF_WEBHOOK_ALLOWED_NETWORKS", ()))


def allowed_ports() -> frozenset[int]:
    return frozenset(settings.SPANPROOF_WEBHOOK_PORTS)


def webhook_target_check(*, url: str) -> OutboundTarget:
    """Parse ``url`` and resolve its host; raise ``WebhookTargetRefused`` when the
    scheme, any resolved address or the port is not allowed."""
    allow_http = bool(getattr(settings, "SPANPROOF_WEBHOOK_ALLOW_HTTP", False))
    scheme = urlsplit(url).scheme.lower()
    if scheme != "https" and not (allow_http and scheme == "http"):
        # one message for http and for any other scheme (ftp://, file://)
        raise WebhookTargetRefused("insecure_url", "Webhook URLs must use https.")
    try:
        port_zero = urlsplit(url).port == 0
    except ValueError:
        port_zero = False  # outbound_target refuses an unreadable port
    if port_zero:
        # ``outbound_target`` would read port 0 as "none given" and send to 443
        raise WebhookTargetRefused("invalid_url", "The URL's port is invalid.")
    networks = allowed_networks()
    try:
        target = outbound_target(url, allowed=networks)
    except OutboundRefused as exc:
        if exc.refusal is not None:
            raise WebhookTargetRefused(
                exc.code,
                f"The webhook URL's host {exc.refusal.host} cannot be used: {exc.refusal.reason}.",
            ) from exc
        raise WebhookTargetRefused(exc.code, exc.message) from exc
    refusal = port_refusal(target.port, target.address, ports=allowed_ports(), allowed=networks)
    if refusal is not None:
        raise WebhookTargetRefused(
            "port_not_allowed",
            f"The webhook URL's port cannot be used: {refusal}. Use a receiver on one of "
            "those ports.",
        )
    return target


def webhook_post(*, url: str, body: bytes, headers: dict[str, str], timeout: float) -> PostResult:
    """POST ``body`` once; return the status code, or the error that prevented one."""
    try:
        target = webhook_target_check(url=url)
    except WebhookTargetRefused as exc:
        return PostResult(None, f"refused: {exc.message}", refused=True)
    try:
        answer = outbound_request(
            "POST",
            target,
            timeout=urllib3.Timeout(connect=min(CONNECT_TIMEOUT_SECONDS, timeout), read=timeout),
            limit=MAX_RESPONSE_BYTES,
            headers=headers,
            body=body,
        )
    except OutboundFailed as exc:
        return PostResult(None, str(exc))
    return PostResult(answer.status, "")
