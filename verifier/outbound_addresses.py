"""Which addresses the server may send outbound requests to (webhooks).

Pure Python, no Django: an address is refused when it is not a public unicast
address — loopback, private (RFC 1918, fc00::/7), link-local (which holds the cloud
metadata address 169.254.169.254), multicast, unspecified, reserved, shared
(100.64.0.0/10), documentation and benchmarking ranges — unless an operator
allow-list names a network that holds it. IPv4 addresses embedded in IPv6
(IPv4-mapped ``::ffff:a.b.c.d``, NAT64 ``64:ff9b::/96``, 6to4, Teredo) are judged by the
IPv4 address they carry, so ``::ffff:127.0.0.1`` is loopback.

A door may also say which ports a public address may be reached on
(:func:`port_refusal`: webhooks' ``SPANPROOF_WEBHOOK_PORTS``), so a receiver cannot be
pointed at a public host's SSH, mail or database port; an address the operator's
allow-list admits is admitted on any port, by the same rule that admits its address.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Collection, Iterable, Sequence
from typing import Final

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network

METADATA_ADDRESSES: Final = frozenset(
    {
        ipaddress.ip_address("169.254.169.254"),  # AWS, GCP, Azure, OpenStack
        ipaddress.ip_address("169.254.170.2"),  # AWS ECS task metadata
        ipaddress.ip_address("fd00:ec2::254"),  # AWS IPv6
        ipaddress.ip_address("100.100.100.200"),  # Alibaba Cloud
    }
)
_NAT64: Final = ipaddress.ip_network("64:ff9b::/96")


class AddressRefused(ValueError):
    """The host resolves to an address outbound requests may not reach."""

    def __init__(self, host: str, reason: str) -> None:
        super().__init__(f"{host}: {reason}")
        self.host = host
        self.reason = reason


def parse_networks(values: Iterable[str]) -> tuple[IPNetwork, ...]:
    """``["127.0.0.1", "10.0.0.0/8"]`` → networks; a bare address is a /32 (/128)."""
    return tuple(ipaddress.ip_network(v.strip(), strict=False) for v in values if v.strip())


def embedded_ipv4(address: IPAddress) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 address carries (mapped, NAT64, 6to4, Teredo), if any."""
    if isinstance(address, ipaddress.IPv4Address):
        return None
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address in _NAT64:
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    if address.sixtofour is not None:
        return address.sixtofour
    if address.teredo is not None:
        return address.teredo[1]
    return None


def _refusal(address: IPAddress) -> str | None:
    if address in METADATA_ADDRESSES:
        return "cloud metadata address"
    if address.is_unspecified:
        return "unspecified address"
    if address.is_loopback:
        return "loopback address"
    if address.is_link_local:
        return "link-local address"
    if address.is_multicast:
        return "multicast address"
    if address.is_private:
        return "private address"
    if address.is_reserved or not address.is_global:
        return "non-public address"
    return None


def _allow_listed(address: IPAddress, allowed: Sequence[IPNetwork]) -> bool:
    """Whether ``address``, or the IPv4 address embedded in it, is inside a network of
    the operator's allow-list."""
    if any(address.version == net.version and address in net for net in allowed):
        return True
    inner = embedded_ipv4(address)
    return inner is not None and any(inner in net for net in allowed if net.version == 4)


def address_refusal(address: IPAddress, *, allowed: Sequence[IPNetwork] = ()) -> str | None:
    """Why ``address`` may not be contacted, or ``None`` when it may.

    An address inside an allow-listed network is always admitted; otherwise both the
    address and any IPv4 address embedded in it must be public unicast."""
    if _allow_listed(address, allowed):
        return None
    inner = embedded_ipv4(address)
    if inner is not None:
        reason = _refusal(inner)
        if reason is not None:
            return f"{reason} (embedded in {address})"
        if isinstance(address, ipaddress.IPv6Address) and (
            address.ipv4_mapped is not None or address in _NAT64
        ):
            return None
    return _refusal(address)


def parse_ports(values: Iterable[str]) -> frozenset[int]:
    """``["443", "8443"]`` → ports; raise ``ValueError`` on anything but whole numbers
    1–65535, or on an empty list (no port at all would refuse every receiver)."""
    ports: set[int] = set()
    for value in values:
        text = value.strip()
        if not text.isascii() or not text.isdigit() or not 1 <= int(text) <= 65535:
            raise ValueError(f"{value!r} is not a port (a whole number 1-65535)")
        ports.add(int(text))
    if not ports:
        raise ValueError("no port given")
    return frozenset(ports)


def port_refusal(
    port: int,
    address: IPAddress,
    *,
    ports: Collection[int],
    allowed: Sequence[IPNetwork] = (),
) -> str | None:
    """Why ``address`` may not be contacted on ``port``, or ``None`` when it may: a port
    of ``ports``, or any port of an address the allow-list admits (the operator's own
    receivers, which :func:`address_refusal` admits the same way)."""
    if port in ports or _allow_listed(address, allowed):
        return None
    listed = ", ".join(str(p) for p in sorted(ports))
    return f"port {port} is not one of the ports allowed ({listed})"


_NO_ADDRESS = (
    "its name does not resolve to any address (check the spelling; if it is right, the "
    "name server may be unreachable for now)"
)


def resolve_host(host: str, port: int) -> list[IPAddress]:
    """Every address ``host`` resolves to (an IP literal resolves to itself)."""
    literal = host.strip("[]")
    try:
        return [ipaddress.ip_address(literal)]
    except ValueError:
        pass
    try:
        infos = socket.getaddrinfo(literal, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as exc:
        raise AddressRefused(host, _NO_ADDRESS) from exc
    addresses: list[IPAddress] = []
    for info in infos:
        text = str(info[4][0]).split("%", 1)[0]  # drop an IPv6 zone id
        address = ipaddress.ip_address(text)
        if address not in addresses:
            addresses.append(address)
    if not addresses:
        raise AddressRefused(host, _NO_ADDRESS)
    return addresses


def resolve_permitted(host: str, port: int, *, allowed: Sequence[IPNetwork] = ()) -> IPAddress:
    """Resolve ``host`` and return the address to connect to; refuse the host when
    ANY of its addresses is refused (a name that also points inside is not trusted)."""
    addresses = resolve_host(host, port)
    for address in addresses:
        reason = address_refusal(address, allowed=allowed)
        if reason is not None:
            said = f"{'an' if reason[0] in 'aeiou' else 'a'} {reason}"  # an unspecified …
            if str(address) == host.strip("[]"):
                raise AddressRefused(host, f"it is {said}")
            raise AddressRefused(host, f"it resolves to {address}, {said}")
    return addresses[0]
