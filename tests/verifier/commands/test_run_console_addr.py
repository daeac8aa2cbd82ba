"""``run_console --addr``: the one way to serve on another port, said in ``--help``."""

from __future__ import annotations

import pytest
from django.core.management import CommandError

from verifier.management.commands.run_console import Command


def parse(*args: str) -> dict[str, object]:
    return vars(Command().create_parser("manage.py", "run_console").parse_args(list(args)))


def test_help_says_what_addr_takes() -> None:
    help_text = Command().create_parser("manage.py", "run_console").format_help()
    assert "host:port to serve the console on" in help_text


@pytest.mark.parametrize(
    ("given", "served"),
    [
        (None, "127.0.0.1:8000"),
        ("8118", "127.0.0.1:8118"),
        ("0.0.0.0:8118", "0.0.0.0:8118"),
        ("[::1]:8118", "[::1]:8118"),
    ],
)
def test_a_port_alone_serves_on_localhost(given: str | None, served: str) -> None:
    assert parse(*(["--addr", given] if given else []))["addr"] == served


@pytest.mark.parametrize("given", ["localhost", "127.0.0.1:http", "127.0.0.1:70000", ""])
def test_an_address_without_a_port_is_refused_naming_the_form(given: str) -> None:
    with pytest.raises(CommandError, match=r"not host:port or a port"):
        parse("--addr", given)
