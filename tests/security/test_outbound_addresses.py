from __future__ import annotations

import ipaddress

import pytest

from verifier.outbound_addresses import (
    AddressRefused,
    address_refusal,
    embedded_ipv4,
    parse_networks,
    parse_ports,
    port_refusal,
    resolve_permitted,
)


@pytest.mark.parametrize(
    ("address", "reason"),
    [
        ("127.0.0.1", "loopback"),
        ("127.8.9.10", "loopback"),
        ("::1", "loopback"),
        ("10.1.2.3", "private"),
        ("172.16.0.1", "private"),
        ("192.168.1.1", "private"),
        ("fd00::1", "private"),
        ("fd12:3456::9", "private"),
        ("169.254.169.254", "cloud metadata"),
        ("fd00:ec2::254", "cloud metadata"),
        ("169.254.1.1", "link-local"),
        ("fe80::1", "link-local"),
        ("0.0.0.0", "unspecified"),
        ("::", "unspecified"),
        ("224.0.0.1", "multicast"),
        ("239.255.255.250", "multicast"),
        ("ff02::1", "multicast"),
        ("100.64.0.1", "non-public"),
        ("192.0.2.10", "private"),
        ("240.0.0.1", ""),
        ("255.255.255.255", ""),
        ("::ffff:127.0.0.1", "loopback address (embedded in"),
        ("::ffff:169.254.169.254", "cloud metadata"),
        ("::ffff:10.0.0.1", "private"),
        ("64:ff9b::7f00:1", "loopback"),
        ("2002:7f00:1::", "loopback"),
    ],
)
def test_internal_addresses_are_refused(address, reason):
    refusal = address_refusal(ipaddress.ip_address(address))
    assert refusal is not None
    assert reason in refusal


@pytest.mark.parametrize(
    "address",
    ["93.184.216.34", "8.8.8.8", "2606:4700:4700::1111", "::ffff:8.8.8.8", "64:ff9b::808:808"],
)
def test_public_addresses_are_admitted(address):
    assert address_refusal(ipaddress.ip_address(address)) is None


def test_the_allow_list_admits_only_what_it_names():
    allowed = parse_networks(["127.0.0.1", "10.20.0.0/16", " "])
    assert address_refusal(ipaddress.ip_address("127.0.0.1"), allowed=allowed) is None
    assert address_refusal(ipaddress.ip_address("::ffff:127.0.0.1"), allowed=allowed) is None
    assert address_refusal(ipaddress.ip_address("10.20.3.4"), allowed=allowed) is None
    assert address_refusal(ipaddress.ip_address("127.0.0.2"), allowed=allowed) is not None
    assert address_refusal(ipaddress.ip_address("10.21.0.1"), allowed=allowed) is not None
    assert address_refusal(ipaddress.ip_address("::1"), allowed=allowed) is not None


def test_embedded_ipv4():
    assert embedded_ipv4(ipaddress.ip_address("::ffff:1.2.3.4")) == ipaddress.ip_address("1.2.3.4")
    assert embedded_ipv4(ipaddress.ip_address("1.2.3.4")) is None
    assert embedded_ipv4(ipaddress.ip_address("2606:4700::1")) is None


def test_names_are_resolved_and_every_address_checked():
    with pytest.raises(AddressRefused, match="loopback"):
        resolve_permitted("localhost", 80)
    with pytest.raises(AddressRefused, match="loopback"):
        resolve_permitted("[::1]", 80)
    with pytest.raises(AddressRefused, match="does not resolve"):
        resolve_permitted("no-such-host.invalid", 80)
    allowed = parse_networks(["127.0.0.0/8", "::1"])
    assert str(resolve_permitted("localhost", 80, allowed=allowed)) in {"127.0.0.1", "::1"}


PORTS = frozenset({80, 443, 8080, 8443})


@pytest.mark.parametrize(
    ("port", "address", "allowed", "refused"),
    [
        (443, "93.184.215.14", (), False),
        (8080, "93.184.215.14", (), False),
        (22, "93.184.215.14", (), True),
        (6379, "2606:2800:21f:cb07:6820:80da:af6b:8b2c", (), True),
        (22, "10.20.0.7", ("10.20.0.0/16",), False),
        # the allow-list admits an embedded IPv4 address on any port as it admits it
        (6379, "::ffff:10.20.0.7", ("10.20.0.0/16",), False),
        (6379, "10.21.0.7", ("10.20.0.0/16",), True),
    ],
)
def test_a_port_is_admitted_from_the_list_or_on_an_allow_listed_address(
    port, address, allowed, refused
):
    reason = port_refusal(
        port, ipaddress.ip_address(address), ports=PORTS, allowed=parse_networks(allowed)
    )
    assert (reason is not None) == refused
    if refused:
        assert reason == f"port {port} is not one of the ports allowed (80, 443, 8080, 8443)"


def test_ports_read_as_whole_numbers_1_to_65535():
    assert parse_ports([" 443", "8443 ", "443"]) == frozenset({443, 8443})
    for bad in (["0"], ["65536"], ["-1"], ["https"], ["4 43"], ["\u0661"], [], [""]):
        with pytest.raises(ValueError):
            parse_ports(bad)
