"""Both doors that send a request to a URL someone else chose (webhook deliveries and the
worker's web fetches) keep the same guard, ``verifier.outbound_http``: a redirect is not
followed, the answer is read only up to the cap, TLS trusts only the pinned CA file."""

from __future__ import annotations

import datetime
import ipaddress
import ssl
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
import urllib3
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from verifier.outbound_addresses import parse_networks
from verifier.outbound_http import OutboundFailed, outbound_request, outbound_target
from verifier.services import claim_worker_web as worker_web
from verifier.services.webhook_transport import MAX_RESPONSE_BYTES, webhook_post

LOOPBACK = parse_networks(["127.0.0.1/32"])
Handle = Callable[[BaseHTTPRequestHandler], None]


class _Server:
    """A local server (optionally TLS) answering GET and POST with ``handle``."""

    def __init__(self, handle: Handle, context: ssl.SSLContext | None = None) -> None:
        self.hits: list[str] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def _any(self) -> None:
                self.rfile.read(int(self.headers.get("Content-Length", 0)))
                outer.hits.append(self.path)
                handle(self)

            do_GET = do_POST = _any

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        if context is not None:
            self.server.socket = context.wrap_socket(self.server.socket, server_side=True)
        self.scheme = "https" if context is not None else "http"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def url(self, path: str = "/hook") -> str:
        return f"{self.scheme}://127.0.0.1:{self.server.server_address[1]}{path}"

    def __enter__(self) -> _Server:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


def _webhook_door(url: str) -> int | str:
    result = webhook_post(url=url, body=b"{}", headers={}, timeout=5.0)
    return result.status_code if result.status_code is not None else result.error


def _worker_door(url: str) -> int | str:
    try:
        status, _ = worker_web._get(url, timeout=5.0, allowed=LOOPBACK, limit=1024)
    except worker_web.WebFetchError as exc:
        return str(exc)
    return status


DOORS = {"webhook": _webhook_door, "worker_web": _worker_door}


@pytest.fixture
def open_doors(settings: Any) -> None:
    settings.SPANPROOF_WEBHOOK_ALLOW_HTTP = True
    settings.SPANPROOF_WEBHOOK_ALLOWED_NETWORKS = ["127.0.0.1/32"]


@pytest.mark.parametrize("door", sorted(DOORS))
def test_no_door_follows_a_redirect(door: str, open_doors: None) -> None:
    with _Server(lambda h: _answer(h, 200, b"internal")) as internal:

        def redirect(handler: BaseHTTPRequestHandler) -> None:
            handler.send_response(307)
            handler.send_header("Location", internal.url("/internal-admin"))
            handler.send_header("Content-Length", "0")
            handler.end_headers()

        with _Server(redirect) as public:
            assert DOORS[door](public.url()) == 307
    assert internal.hits == []


@pytest.fixture
def self_signed(tmp_path: Path) -> Iterator[tuple[ssl.SSLContext, Path]]:
    """A certificate for 127.0.0.1 that only the machine's store (SSL_CERT_FILE) trusts."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = tmp_path / "cert.pem", tmp_path / "key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert_path, key_path)
    yield context, cert_path


@pytest.mark.parametrize("door", sorted(DOORS))
def test_every_door_trusts_only_the_pinned_ca_file(
    door: str,
    open_doors: None,
    self_signed: tuple[ssl.SSLContext, Path],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    context, cert_path = self_signed
    # The machine's store trusts the certificate; the pinned CA file does not.
    monkeypatch.setenv("SSL_CERT_FILE", str(cert_path))
    assert ssl.create_default_context().cert_store_stats()["x509_ca"] >= 1
    with _Server(lambda h: _answer(h, 200, b"ok"), context) as server:
        answer = DOORS[door](server.url())
    assert isinstance(answer, str) and "CERTIFICATE_VERIFY_FAILED" in answer
    assert server.hits == []


def _answer(handler: BaseHTTPRequestHandler, status: int, body: bytes) -> None:
    handler.send_response(status)
    handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    handler.wfile.write(body)


def test_the_answer_is_read_only_up_to_the_cap() -> None:
    sent: list[int] = []

    def huge(handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(200)
        handler.send_header("Content-Length", str(200 * 1024 * 1024))
        handler.end_headers()
        chunk = b"x" * 65536
        try:
            for _ in range(200 * 16):
                handler.wfile.write(chunk)
                sent.append(len(chunk))
        except OSError:
            pass

    with _Server(huge) as server:
        target = outbound_target(server.url(), allowed=LOOPBACK)
        answer = outbound_request(
            "GET", target, timeout=urllib3.Timeout(total=5.0), limit=MAX_RESPONSE_BYTES
        )
    assert (answer.status, len(answer.body)) == (200, MAX_RESPONSE_BYTES)
    assert sum(sent) < 50 * 1024 * 1024


def test_a_refused_connection_is_a_failure_not_an_exception_of_urllib3() -> None:
    with _Server(lambda h: None) as server:
        url = server.url()
    with pytest.raises(OutboundFailed):
        outbound_request(
            "GET",
            outbound_target(url, allowed=LOOPBACK),
            timeout=urllib3.Timeout(total=2.0),
            limit=10,
        )
